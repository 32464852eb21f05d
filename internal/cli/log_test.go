package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run and bench log to the work dir's lantern.log at the chosen level,
// every line with its level and command; a bad level is a usage error.
func TestRunAndBenchLog(t *testing.T) {
	dir, _ := isolate(t)
	wd := filepath.Join(dir, "wd")
	script := filepath.Join(dir, "walk.txt")
	os.WriteFile(script, []byte("look\nwait\n"), 0o644)
	logPath := filepath.Join(wd, "lantern.log")

	code, _, stderr := runCLI(t, "", "run", "--headless", "--agent", "script:"+script, "--workdir", wd, "--max-turns", "2", "--log-level", "debug")
	if code != exitOK {
		t.Fatalf("run: exit %d %s", code, stderr)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, l := range lines {
		if !strings.Contains(l, " level=") || !strings.Contains(l, " cmd=run") {
			t.Errorf("line without a level or command: %s", l)
		}
	}
	if !strings.Contains(string(b), "level=DEBUG") || !strings.Contains(string(b), "msg=stop cmd=run code=0") {
		t.Errorf("run log:\n%s", b)
	}

	// LANTERN_LOG picks the level when no flag does: warn hides the
	// start line.
	os.Remove(logPath)
	t.Setenv("LANTERN_LOG", "warn")
	code, _, stderr = runCLI(t, "", "bench", "--agent", "script:"+script, "--workdir", wd, "--episodes", "1", "--max-turns", "2")
	if code != exitOK {
		t.Fatalf("bench: exit %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(logPath); strings.Contains(string(b), "level=INFO") {
		t.Errorf("LANTERN_LOG=warn still logs info:\n%s", b)
	}
	t.Setenv("LANTERN_LOG", "")
	code, _, stderr = runCLI(t, "", "bench", "--agent", "script:"+script, "--workdir", wd, "--episodes", "1", "--max-turns", "2", "--log-level", "info")
	if b, _ := os.ReadFile(logPath); code != exitOK || !strings.Contains(string(b), "level=INFO msg=start cmd=bench") {
		t.Errorf("bench log: exit %d %s\n%s", code, stderr, b)
	}

	for _, args := range [][]string{
		{"run", "--headless", "--agent", "script:" + script, "--workdir", wd, "--log-level", "loud"},
		{"bench", "--agent", "script:" + script, "--workdir", wd, "--log-level", "loud"},
	} {
		code, _, stderr := runCLI(t, "", args...)
		if code != exitUsage || !strings.Contains(stderr, `log level "loud"`) {
			t.Errorf("%s --log-level loud: exit %d %s", args[0], code, stderr)
		}
	}
}
