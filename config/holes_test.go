package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// A theme is validated by the same function the TUI loads it with, so a
// name the TUI would refuse fails here first.
func TestThemeCheckedAsTheTUILoadsIt(t *testing.T) {
	known := func(name string) error {
		if name == "dark" || name == "light" {
			return nil
		}
		return errors.New(`theme "` + name + `": unknown theme (have dark, light)`)
	}
	for _, tc := range []struct {
		theme string
		ok    bool
	}{
		{"auto", true}, {"dark", true}, {"neon", false}, {"light", true},
	} {
		dir := t.TempDir()
		p := write(t, dir, "lantern.toml", `theme = "`+tc.theme+`"`+"\n")
		_, err := Load(LoadOptions{ProjectFile: p, CheckTheme: known})
		if (err == nil) != tc.ok {
			t.Errorf("theme %q: err = %v, want ok %v", tc.theme, err, tc.ok)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), "unknown theme")) {
			t.Errorf("theme %q: error does not say why: %v", tc.theme, err)
		}
		_, err = ParseChecked(p, []byte(`theme = "`+tc.theme+`"`), known)
		if (err == nil) != tc.ok {
			t.Errorf("ParseChecked theme %q: err = %v, want ok %v", tc.theme, err, tc.ok)
		}
	}
	// Without the TUI's check only the form is checked: "neon" passes.
	if _, err := Parse("x.toml", []byte(`theme = "neon"`)); err != nil {
		t.Errorf("unchecked parse: %v", err)
	}
}

func TestMisspeltEnvironmentVariablesWarn(t *testing.T) {
	vars := map[string]string{
		"LANTERN_LOOP_MAX_TURN_PER_EPISODE": "5",    // one letter off
		"LANTERN_MODLE":                     "m",    // transposed
		"LANTERN_SHARED":                    "../x", // the tests' own, not configuration
		"LANTERN_LOG":                       "debug",
		"LANTERN_SOMETHING_ELSE_ENTIRELY":   "1", // far from every key: a script's own
		"LANTERN_THEME":                     "dark",
	}
	var environ []string
	for k, v := range vars {
		environ = append(environ, k+"="+v)
	}
	c, err := Load(LoadOptions{Getenv: env(vars), Environ: environ})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range c.Warnings {
		got = append(got, w.String())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"environment LANTERN_LOOP_MAX_TURN_PER_EPISODE: not a Lantern variable, ignored; did you mean LANTERN_LOOP_MAX_TURNS_PER_EPISODE?",
		"environment LANTERN_MODLE: not a Lantern variable, ignored; did you mean LANTERN_MODEL?",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if len(got) != 2 {
		t.Errorf("want 2 warnings, got %d:\n%s", len(got), all)
	}
	if c.Theme != "dark" {
		t.Errorf("a known variable was not applied: theme %q", c.Theme)
	}
}

func TestTopLevelModel(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "lantern.toml", "model = \"qwen3:8b\"\n\n[roles.critic]\nmodel = \"small:1b\"\n")
	c, err := Load(LoadOptions{ProjectFile: p})
	if err != nil {
		t.Fatal(err)
	}
	if c.DefaultModel != "qwen3:8b" || c.Model("agent") != "qwen3:8b" || c.Model("critic") != "small:1b" {
		t.Errorf("model: default %q agent %q critic %q", c.DefaultModel, c.Model("agent"), c.Model("critic"))
	}
	if s := c.Sources["roles.agent.model"]; s.Kind != FromFile || s.Line != 1 {
		t.Errorf("agent model source = %v", s)
	}
	// LANTERN_MODEL is the same key; a flag is above both.
	c, err = Load(LoadOptions{ProjectFile: p, Getenv: env(map[string]string{"LANTERN_MODEL": "env:1b"})})
	if err != nil || c.Model("agent") != "env:1b" || c.Model("critic") != "env:1b" || c.DefaultModel != "env:1b" {
		t.Errorf("LANTERN_MODEL: %v agent %q critic %q", err, c.Model("agent"), c.Model("critic"))
	}
	c, err = Load(LoadOptions{ProjectFile: p, Overrides: []Override{{Key: AllModels, Value: "flag:2b", Flag: "model"}}})
	if err != nil || c.Model("agent") != "flag:2b" || c.Model("critic") != "flag:2b" {
		t.Errorf("--model: %v agent %q critic %q", err, c.Model("agent"), c.Model("critic"))
	}
	if got := c.Get("model"); got != `"flag:2b"` {
		t.Errorf(`Get("model") = %s`, got)
	}
	// An empty model leaves the roles' defaults.
	c, err = Parse("x.toml", []byte(`model = ""`))
	if err != nil || c.Model("agent") != Defaults().Model("agent") {
		t.Errorf("empty model: %v agent %q", err, c.Model("agent"))
	}
}

// On Windows, where HOME is seldom set, the user's file and the work dir
// are found where os.UserConfigDir and its kin look.
func TestUserFileWithoutHome(t *testing.T) {
	win := env(map[string]string{`AppData`: `C:\Users\x\AppData\Roaming`, `LocalAppData`: `C:\Users\x\AppData\Local`, `USERPROFILE`: `C:\Users\x`})
	if got, want := userFile(win, "windows"), filepath.Join(`C:\Users\x\AppData\Roaming`, "lantern", "lantern.toml"); got != want {
		t.Errorf("windows user file = %q, want %q", got, want)
	}
	if got, want := defaultWorkDir(win, "windows"), filepath.Join(`C:\Users\x\AppData\Local`, "lantern"); got != want {
		t.Errorf("windows work dir = %q, want %q", got, want)
	}
	profileOnly := env(map[string]string{`USERPROFILE`: `C:\Users\x`})
	if got := userFile(profileOnly, "windows"); got != filepath.Join(`C:\Users\x`, ".config", "lantern", "lantern.toml") {
		t.Errorf("windows with USERPROFILE only: %q", got)
	}
	if got := userFile(profileOnly, "linux"); got != "" {
		t.Errorf("linux without HOME: %q, want none", got)
	}
	xdg := env(map[string]string{"XDG_CONFIG_HOME": "/cfg", "AppData": `C:\x`, "HOME": "/home/x"})
	if got := userFile(xdg, "windows"); got != filepath.Join("/cfg", "lantern", "lantern.toml") {
		t.Errorf("XDG_CONFIG_HOME first: %q", got)
	}
	if got := userFile(env(map[string]string{"HOME": "/home/x"}), "linux"); got != filepath.Join("/home/x", ".config", "lantern", "lantern.toml") {
		t.Errorf("linux: %q", got)
	}
}
