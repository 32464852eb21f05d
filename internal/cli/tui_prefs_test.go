package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The TUI's choices go into the user's file: the set lines are replaced,
// missing ones added in their table, comments and other settings kept; a
// result that is not a valid configuration is not written.
func TestSavePrefsKeepsTheRestOfTheFile(t *testing.T) {
	cases := []struct {
		name, before, want string
	}{
		{"new file", "", "theme = \"light\"\n\n[roles.agent]\nmodel = \"qwen3:8b\"\n"},
		{"replace in place", "# mine\ntheme = \"dark\" # a comment\n\n[roles.agent]\n# the agent\nmodel = \"qwen3:4b\"\ntemperature = 0.7\n\n[roles.critic]\nmodel = \"qwen3:4b\"\n",
			"# mine\ntheme = \"light\"\n\n[roles.agent]\n# the agent\nmodel = \"qwen3:8b\"\ntemperature = 0.7\n\n[roles.critic]\nmodel = \"qwen3:4b\"\n"},
		{"add to tables", "[loop]\nseed = 3\n\n[roles.agent]\ntemperature = 0.5\n",
			"theme = \"light\"\n[loop]\nseed = 3\n\n[roles.agent]\nmodel = \"qwen3:8b\"\ntemperature = 0.5\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "lantern", "lantern.toml")
			if tc.before != "" {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(tc.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := savePrefs(path, "light", map[string]string{"agent": "qwen3:8b"}); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.want {
				t.Fatalf("file:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
	t.Run("invalid result", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "lantern.toml")
		before := "[loop]\nseed = \"three\"\n"
		os.WriteFile(path, []byte(before), 0o644)
		err := savePrefs(path, "light", nil)
		if err == nil || !strings.Contains(err.Error(), "nothing written") {
			t.Fatalf("error %v, want nothing written", err)
		}
		if got, _ := os.ReadFile(path); string(got) != before {
			t.Fatalf("the file changed: %q", got)
		}
	})
}
