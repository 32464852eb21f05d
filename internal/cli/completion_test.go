package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// completions runs the shell's completion request (cobra's hidden
// __complete command) and returns the values offered, without their
// descriptions, and the directive line.
func completions(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, "", append([]string{"__complete"}, args...)...)
	if code != exitOK {
		t.Fatalf("__complete %q: exit %d: %s", args, code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	var values []string
	for _, l := range lines[:len(lines)-1] {
		v, _, _ := strings.Cut(l, "\t")
		values = append(values, v)
	}
	return values, lines[len(lines)-1]
}

// TestFlagCompletions: every flag that takes one of a few values completes
// them on every command that has it.
func TestFlagCompletions(t *testing.T) {
	isolate(t)
	walks := filepath.Join(t.TempDir(), "walks")
	for _, f := range []string{"walks/zork1.txt", "walks/demo.txt", "walks/sub/x.txt"} {
		path := filepath.Join(filepath.Dir(walks), f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("look\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sep := string(filepath.Separator)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"bench --api", []string{"bench", "--api", ""}, []string{"ollama", "openai"}},
		{"run --api", []string{"run", "--api", ""}, []string{"ollama", "openai"}},
		{"tui --api", []string{"tui", "--api", ""}, []string{"ollama", "openai"}},
		{"root --api", []string{"--api", ""}, []string{"ollama", "openai"}},
		{"models --api", []string{"models", "--api", ""}, []string{"ollama", "openai"}},
		{"doctor --api", []string{"doctor", "--api", ""}, []string{"ollama", "openai"}},
		{"bench --shard", []string{"bench", "--shard", ""}, []string{"auto", "1/2", "2/2"}},
		{"bench --agent", []string{"bench", "--agent", ""}, []string{"llm", "script:"}},
		{"run --agent", []string{"run", "--agent", ""}, []string{"llm", "script:"}},
		{"run --agent l", []string{"run", "--agent", "l"}, []string{"llm"}},
		{"bench --agent script:DIR", []string{"bench", "--agent", "script:" + walks + sep}, []string{
			"script:" + walks + sep + "demo.txt", "script:" + walks + sep + "sub" + sep, "script:" + walks + sep + "zork1.txt"}},
		{"run --agent script:PREFIX", []string{"run", "--agent", "script:" + walks + sep + "zo"}, []string{"script:" + walks + sep + "zork1.txt"}},
		{"bench --profile", []string{"bench", "--profile", ""}, []string{"lean", "zorkgpt"}},
		{"run --profile", []string{"run", "--profile", ""}, []string{"lean", "zorkgpt"}},
		{"tui --theme", []string{"tui", "--theme", ""}, []string{"dark", "light", "phosphor", "auto"}},
		{"root --theme", []string{"--theme", ""}, []string{"dark", "light", "phosphor", "auto"}},
		{"map --format", []string{"map", "--format", ""}, []string{"mermaid", "dot", "text"}},
		{"episodes export --format", []string{"episodes", "export", "--format", ""}, []string{"md", "json", "html"}},
		{"bench --log-level", []string{"bench", "--log-level", ""}, []string{"debug", "info", "warn", "error"}},
		{"root --log-level", []string{"--log-level", ""}, []string{"debug", "info", "warn", "error"}},
		{"config show --log-level", []string{"config", "show", "--log-level", ""}, []string{"debug", "info", "warn", "error"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, directive := completions(t, tc.args...)
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(got, want) {
				t.Errorf("%v, want %v (directive %s)", got, want, directive)
			}
		})
	}
	// A file ends the word; a folder goes on (no space after it).
	if _, d := completions(t, "run", "--agent", "script:"+walks+sep+"zo"); d != ":4" {
		t.Errorf("a walkthrough file: directive %s, want :4 (no file completion)", d)
	}
	if _, d := completions(t, "run", "--agent", "script:"+walks+sep+"s"); d != ":6" {
		t.Errorf("a folder: directive %s, want :6 (no space, no file completion)", d)
	}
}

// TestEveryEnumeratedFlagCompletes: wherever a flag with fixed values is
// defined, its completion is registered.
func TestEveryEnumeratedFlagCompletes(t *testing.T) {
	enumerated := []string{"api", "shard", "agent", "profile", "theme", "format", "log-level", "model", "story", "level"}
	root := newRoot(&app{}, command{}, false)
	var walk func(c *cobra.Command)
	seen := map[string]bool{}
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if !slices.Contains(enumerated, f.Name) {
				return
			}
			seen[f.Name] = true
			if _, ok := c.GetFlagCompletionFunc(f.Name); !ok {
				t.Errorf("%s --%s completes nothing", c.CommandPath(), f.Name)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	for _, name := range enumerated {
		if !seen[name] {
			t.Errorf("no command has --%s: the list is stale", name)
		}
	}
}
