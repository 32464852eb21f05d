package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchCommand: lantern bench's flags reach the bench wing and its
// answers come back as the exit codes and lines they were (the wing's own
// tests, in internal/bench/play, play everything else): a suite with
// --log-file - logs to stderr, --list, --compare and merge read its run,
// and usage errors exit 2.
func TestBenchCommand(t *testing.T) {
	dir, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	seeds := filepath.Join(dir, "seeds.json")
	os.WriteFile(seeds, []byte(`{"demo": 3}`), 0o644)
	work := filepath.Join(dir, "work")
	code, out, stderr := runCLI(t, "", "bench", "--story", "demo", "--seed-file", seeds, "--agent", "script:"+walk, "--episodes", "1",
		"--max-turns", "5", "--workdir", work, "--log-file", "-")
	if code != exitOK || !strings.Contains(stderr, "level=INFO msg=start cmd=bench") || !strings.Contains(out, "all (1 games)") {
		t.Fatalf("a suite logging to stderr: exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "lantern.log")); err == nil {
		t.Errorf("--log-file - wrote the work dir's lantern.log too")
	}
	wantAll(t, "bench --list", runOK(t, "bench", "--list", "--workdir", work), "script walkthrough.txt")
	wantAll(t, "bench --compare", runOK(t, "bench", "--compare", "last", work, "--workdir", work), "B - A")
	wantAll(t, "bench merge", runOK(t, "bench", "merge", work), "1 of 1 episodes (complete)")
	wantAll(t, "bench --help", runOK(t, "bench", "--help"), "--shard", "lantern bench merge")
	wantAll(t, "bench merge --help", runOK(t, "bench", "merge", "--help"), "lantern bench merge SHARD...")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"merge"}, "SHARD..."},
		{[]string{"--compare", "1"}, "two runs"},
		{[]string{"--compare", "1", "2", "--list"}, "do not go together"},
		{[]string{"--shard", "x", "--agent", "script:" + walk}, "i/n"},
		{[]string{"--list", "--story", dir}, "one story"},
	} {
		if code, _, stderr := runCLI(t, "", append([]string{"bench"}, tc.args...)...); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("bench %v: exit %d, want 2 and %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}

// runOK runs the command, which must succeed, and gives its output.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	code, out, stderr := runCLI(t, "", args...)
	if code != exitOK {
		t.Fatalf("%v: exit %d\n%s", args, code, stderr)
	}
	return out
}
