package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/sharedtest"
)

func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), sampleConfig(t), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// sampleConfig is the repository's lantern.sample.toml, which the binary
// embeds; tests find it beside this file (they change directory).
func sampleConfig(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "lantern.sample.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestCLIErrors(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.z3")
	if err := os.WriteFile(corrupt, []byte{3, 0, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"unknown command", []string{"fly"}, exitUsage, `unknown command "fly"`},
		{"misspelt command", []string{"ply"}, exitUsage, "Did you mean this?\n\tplay"},
		{"bad flag", []string{"play", "--plain", "--nope"}, exitUsage, "lantern play: unknown flag: --nope"},
		{"stray argument", []string{"run", "zork1.z3"}, exitUsage, `lantern run: unexpected "zork1.z3"`},
		{"missing story", []string{"play", "--plain", "--story", filepath.Join(dir, "none.z5")}, exitError, "load story"},
		{"story name not found", []string{"play", "--story", "nosuchstory", "--workdir", dir}, exitError, `story "nosuchstory" not found: looked in ., game_files, ` + dir + ", " + filepath.Join(dir, "stories")},
		{"corrupt story", []string{"play", "--plain", "--story", corrupt}, exitError, "truncated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", tc.args...)
			if code != tc.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.inStderr) {
				t.Errorf("stderr %q does not mention %q", stderr, tc.inStderr)
			}
		})
	}
}

func TestCLIHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--version"}, {"play", "--help"}} {
		if code, _, _ := runCLI(t, "", args...); code != exitOK {
			t.Errorf("%v: exit code %d", args, code)
		}
	}
}

func TestCLIPlayWalkthrough(t *testing.T) {
	story := sharedtest.File(t, "stories/zork1.z3")
	walk, err := os.ReadFile(sharedtest.File(t, "walkthroughs/zork1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, string(walk), "play", "--plain", "--seed", "12", "--story", story, "--savedir", t.TempDir())
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "Your score is 350 (total of 350 points), in 394 moves."; !strings.Contains(out, want) {
		t.Fatalf("output lacks %q", want)
	}
}

func TestCLIPlayJSON(t *testing.T) {
	story := sharedtest.File(t, "stories/zork1.z3")
	code, out, stderr := runCLI(t, "open mailbox\n", "play", "--plain", "--json", "--seed", "12", "--story", story)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 JSON lines (start, one turn), got %d:\n%s", len(lines), out)
	}
	if !strings.Contains(lines[1], `"command":"open mailbox"`) || !strings.Contains(lines[1], "leaflet") {
		t.Errorf("second turn record: %s", lines[1])
	}
}

// BenchmarkPlayProcessVsDfrotz times the whole process of `lantern play
// --plain` (built as `make build` builds it) on the Zork I walkthrough
// against dfrotz, in alternating pairs, and reports both medians and their
// ratio (goal: at most 1.0).
func BenchmarkPlayProcessVsDfrotz(b *testing.B) {
	story := sharedtest.File(b, "stories/zork1.z3")
	walk := sharedtest.File(b, "walkthroughs/zork1.txt")
	dfrotz := sharedtest.Dfrotz(b)
	bin := buildLantern(b, b.TempDir(), filepath.Join("..", ".."))
	timeRun := func(name string, args ...string) time.Duration {
		f, err := os.Open(walk)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		cmd := exec.Command(name, args...)
		cmd.Stdin = f
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		return time.Since(start)
	}
	var ours, theirs []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ours = append(ours, timeRun(bin, "play", "--plain", "--seed", "12", "--story", story))
		theirs = append(theirs, timeRun(dfrotz, "-m", "-p", "-q", "-s", "12", story))
	}
	b.StopTimer()
	mo, mt := median(ours), median(theirs)
	b.ReportMetric(float64(mo.Microseconds())/1000, "lantern-ms")
	b.ReportMetric(float64(mt.Microseconds())/1000, "dfrotz-ms")
	b.ReportMetric(float64(mo)/float64(mt), "ratio")
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
