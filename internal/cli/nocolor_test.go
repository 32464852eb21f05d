package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// benchArgs is a short bench with the demo's walkthrough in work dir wd.
func benchArgs(repo, wd string) []string {
	return []string{"bench", "--agent", "script:" + filepath.Join(repo, "game_files", "demo", "walkthrough.txt"),
		"--episodes", "1", "--max-turns", "5", "--workdir", wd}
}

// TestBenchPlainOutputHasNoEscapes: off a terminal, bench writes no escape
// sequence, with NO_COLOR or without (a terminal: nocolor_linux_test.go).
func TestBenchPlainOutputHasNoEscapes(t *testing.T) {
	_, repo := isolate(t)
	for _, noColor := range []string{"", "1"} {
		t.Run("NO_COLOR="+noColor, func(t *testing.T) {
			t.Setenv("NO_COLOR", noColor)
			code, stdout, stderr := runCLI(t, "", benchArgs(repo, t.TempDir())...)
			if code != exitOK {
				t.Fatalf("bench: exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, "Score over turns") || !strings.Contains(stderr, "episode 1") {
				t.Errorf("no report or progress:\n%s\n%s", stdout, stderr)
			}
			for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
				if i := strings.Index(out, "\x1b["); i >= 0 {
					t.Errorf("%s has an escape sequence: %q", name, out[max(0, i-20):min(len(out), i+20)])
				}
			}
		})
	}
}

// TestNormalizeNoColor: any NO_COLOR but the empty one reaches the colour
// libraries as one they read as true.
func TestNormalizeNoColor(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""}, {"1", "1"}, {"true", "true"}, {"yes", "1"}, {"0", "1"}, {"false", "1"},
	}
	for _, tc := range tests {
		env := map[string]string{"NO_COLOR": tc.in}
		normalizeNoColor(func(k string) string { return env[k] }, func(k, v string) error { env[k] = v; return nil })
		if env["NO_COLOR"] != tc.want {
			t.Errorf("NO_COLOR=%q became %q, want %q", tc.in, env["NO_COLOR"], tc.want)
		}
	}
}
