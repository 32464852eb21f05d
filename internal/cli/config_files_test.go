package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A theme the TUI would refuse fails config check and doctor first.
func TestConfigCheckAndDoctorRefuseAnUnknownTheme(t *testing.T) {
	dir, _ := isolate(t)
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9")
	os.WriteFile(filepath.Join(dir, "lantern.toml"), []byte("theme = \"neon\"\n"), 0o644)
	code, out, _ := runCLI(t, "", "config", "check")
	if code != exitError || !strings.Contains(out, `theme = "neon"`) || !strings.Contains(out, "unknown theme") {
		t.Errorf("config check: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", "config", "check", "lantern.toml")
	if code != exitError || !strings.Contains(out, "unknown theme") {
		t.Errorf("config check FILE: exit %d\n%s", code, out)
	}
	_, out, _ = runCLI(t, "", "doctor", "--timeout", "1s")
	if !strings.Contains(out, `FAIL  lantern.toml:1: theme = "neon"`) || !strings.Contains(out, "unknown theme") {
		t.Errorf("doctor:\n%s", out)
	}
	// A built-in name and a theme file pass.
	os.WriteFile(filepath.Join(dir, "mine.toml"), []byte("name = \"mine\"\n[palette]\ntext = \"#abc\"\n"), 0o644)
	for _, th := range []string{"light", "mine.toml"} {
		os.WriteFile(filepath.Join(dir, "lantern.toml"), []byte("theme = \""+th+"\"\n"), 0o644)
		if code, out, _ := runCLI(t, "", "config", "check"); code != exitOK {
			t.Errorf("config check theme %s: exit %d\n%s", th, code, out)
		}
	}
}

func TestConfigInitPathEdit(t *testing.T) {
	dir, _ := isolate(t)
	user := filepath.Join(dir, "config", "lantern", "lantern.toml")
	code, out, _ := runCLI(t, "", "config", "path")
	if code != exitOK || !strings.Contains(out, "user:    "+user) || !strings.Contains(out, "project: lantern.toml") {
		t.Errorf("config path: exit %d\n%s", code, out)
	}
	if code, out, errs := runCLI(t, "", "config", "init"); code != exitOK || !strings.Contains(out, "wrote "+user) {
		t.Fatalf("config init: exit %d\n%s%s", code, out, errs)
	}
	if b, _ := os.ReadFile(user); string(b) != sampleConfig(t) {
		t.Error("config init did not write the sample")
	}
	os.WriteFile(user, []byte("theme = \"light\"\n"), 0o644)
	if code, _, errs := runCLI(t, "", "config", "init"); code != exitUsage || !strings.Contains(errs, "already exists") {
		t.Errorf("second config init: exit %d %s", code, errs)
	}
	if b, _ := os.ReadFile(user); string(b) != "theme = \"light\"\n" {
		t.Error("a second init overwrote the file")
	}
	if code, _, _ := runCLI(t, "", "config", "init", "--project"); code != exitOK {
		t.Errorf("config init --project: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "lantern.toml")); err != nil {
		t.Error(err)
	}
	// The editor here appends a bad key; edit then reports it.
	script := filepath.Join(dir, "ed.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho 'colour = 1' >> \"$1\"\n"), 0o755)
	t.Setenv("VISUAL", script)
	code, out, _ = runCLI(t, "", "config", "edit")
	if code != exitError || !strings.Contains(out, "colour = 1: unknown key") {
		t.Errorf("config edit: exit %d\n%s", code, out)
	}
}

func TestTopLevelModelReachesTheRoles(t *testing.T) {
	dir, _ := isolate(t)
	os.WriteFile(filepath.Join(dir, "lantern.toml"), []byte("model = \"tiny:1b\"\n"), 0o644)
	code, out, _ := runCLI(t, "", "config", "show")
	if code != exitOK || !strings.Contains(out, `model = "tiny:1b"`) || strings.Count(out, `"tiny:1b"`) < 9 {
		t.Errorf("config show: exit %d\n%s", code, out)
	}
}
