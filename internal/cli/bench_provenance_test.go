package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/internal/bench"
)

// reportIn is the bench.json a bench's stderr names.
func reportIn(t *testing.T, stderr string) string {
	t.Helper()
	m := regexp.MustCompile(`lantern bench: report in (\S+)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("stderr does not say where bench.json is:\n%s", stderr)
	}
	return m[1]
}

// TestBenchWritesReport: every single-story run writes bench.json and
// says where: in its fresh work dir; in the story's folder of a --workdir
// (which normal play may share, so a later shard there does not take it
// for its own); in a shard's work dir. Each reads back as the run, and
// --compare takes it (or the work dir holding it) beside a stored run.
func TestBenchWritesReport(t *testing.T) {
	dir, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	common := []string{"bench", "--agent", "script:" + walk, "--episodes", "1", "--max-turns", "5"}
	given, shard := filepath.Join(dir, "given"), filepath.Join(dir, "shard")
	tests := []struct {
		name  string
		extra []string
		where func(rep bench.Report) string // the folder bench.json must be in
	}{
		{"fresh work dir", nil, func(rep bench.Report) string { return rep.WorkDir }},
		{"--workdir", []string{"--workdir", given}, func(bench.Report) string { return filepath.Join(given, "demo-r1") }},
		{"shard", []string{"--workdir", shard, "--shard", "1/2", "--episodes", "2"}, func(bench.Report) string { return shard }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, "", append(append(common, "--json"), tc.extra...)...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			rep := decodeReport(t, out)
			path := reportIn(t, stderr)
			if want := filepath.Join(tc.where(rep), "bench.json"); path != want {
				t.Errorf("bench.json in %s, want %s", path, want)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, s, err := bench.Read(data)
			if err != nil || s == nil || len(s.Runs) != 1 || s.Runs[0].StoryMD5 != rep.StoryMD5 || s.Runs[0].Provenance == nil ||
				s.Runs[0].Provenance.Profile != "lean" || s.Runs[0].Provenance.API != "" {
				t.Fatalf("bench.json: %v %+v", err, s)
			}
			code, text, stderr := runCLI(t, "", "bench", "--compare", filepath.Dir(path), "last")
			if code != exitOK || !strings.Contains(text, "B - A") {
				t.Errorf("--compare of the work dir with the last run: exit %d %s\n%s", code, stderr, text)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(given, "bench.json")); err == nil {
		t.Errorf("a --workdir run wrote bench.json at the work dir's top, where a shard would take the folder for its own")
	}
}

// TestBenchCompareSuites: --compare reads suites (their bench.json or
// work dirs): game by game and overall, each side's score with its error
// and the difference; a stored run compares with a suite as a suite of
// one game; --json gives the pairs.
func TestBenchCompareSuites(t *testing.T) {
	dir, args := suiteFixture(t)
	suite := func(name, turns string) string {
		t.Helper()
		d := filepath.Join(dir, name)
		code, _, stderr := runCLI(t, "", append(append([]string{"bench", "--workdir", d}, args...), "--episodes", "1", "--max-turns", turns)...)
		if code != exitOK {
			t.Fatalf("suite %s: exit %d\n%s", name, code, stderr)
		}
		if got := reportIn(t, stderr); got != filepath.Join(d, "bench.json") {
			t.Errorf("suite %s: bench.json in %s", name, got)
		}
		return d
	}
	short, long := suite("short", "20"), suite("long", "60")
	code, out, stderr := runCLI(t, "", "bench", "--compare", short, filepath.Join(long, "bench.json"))
	if code != exitOK {
		t.Fatalf("--compare of two suites: exit %d\n%s", code, stderr)
	}
	wantAll(t, "suite comparison", out, "A: Bench suite: 2 game(s)", "B: Bench suite: 2 game(s)", "demo.z3", "zork1.z3", "all (2 games)", "B - A (points)")
	code, out, stderr = runCLI(t, "", "bench", "--compare", short, long, "--json")
	var c bench.SuiteComparison
	if err := json.Unmarshal([]byte(out), &c); code != exitOK || err != nil {
		t.Fatalf("--compare --json: exit %d, %v\n%s", code, err, stderr)
	}
	if len(c.Games) != 2 || len(c.Overall) != 1 || c.Games[0].Story != "demo.z3" || c.Games[0].ScoreDiff <= 0 || c.Overall[0].A.Games != 2 {
		t.Errorf("comparison: games %+v, overall %+v", c.Games, c.Overall)
	}
	// A stored run of one story against the suite: that game alone.
	walk := filepath.Join(dir, "walk", "demo.txt")
	if code, _, stderr := runCLI(t, "", "bench", "--agent", "script:"+walk, "--episodes", "1", "--max-turns", "30"); code != exitOK {
		t.Fatalf("a single run: exit %d %s", code, stderr)
	}
	code, out, stderr = runCLI(t, "", "bench", "--compare", "last", long)
	if code != exitOK {
		t.Fatalf("--compare last SUITE: exit %d\n%s", code, stderr)
	}
	wantAll(t, "a run against a suite", out, "all (1 games)", "Only in B, left out: zork1.z3")
	// A file that is no report, and a newer format, are refused.
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte(`{"name":"x"}`), 0o644)
	newer := filepath.Join(dir, "newer.json")
	os.WriteFile(newer, []byte(`{"format_version":99,"runs":[]}`), 0o644)
	for file, want := range map[string]string{junk: "not a bench report", newer: "newer than this Lantern's"} {
		if code, _, stderr := runCLI(t, "", "bench", "--compare", file, long); code != exitError || !strings.Contains(stderr, want) {
			t.Errorf("--compare %s: exit %d, want 1 and %q:\n%s", filepath.Base(file), code, want, stderr)
		}
	}
}

// TestBenchMergeRefusesOtherSetups: shards of one benchmark played with
// another profile are no parts of it.
func TestBenchMergeRefusesOtherSetups(t *testing.T) {
	dir, args := suiteFixture(t)
	args = append(args, "--episodes", "1", "--max-turns", "10")
	shard := func(name, spec string, extra ...string) string {
		t.Helper()
		d := filepath.Join(dir, name)
		code, _, stderr := runCLI(t, "", append(append([]string{"bench", "--shard", spec, "--workdir", d}, args...), extra...)...)
		if code != exitOK {
			t.Fatalf("shard %s: exit %d\n%s", spec, code, stderr)
		}
		return d
	}
	a, b, other := shard("a", "1/2"), shard("b", "2/2"), shard("other", "2/2", "--profile", "zorkgpt")
	if code, _, stderr := runCLI(t, "", "bench", "merge", a, b); code != exitOK {
		t.Fatalf("the good shards: exit %d %s", code, stderr)
	}
	code, out, stderr := runCLI(t, "", "bench", "merge", a, other)
	if code != exitError || !strings.Contains(stderr, `profile "zorkgpt", not "lean"`) || !strings.Contains(stderr, "not parts of one benchmark") || out != "" {
		t.Errorf("merge of shards with other profiles: exit %d\n%s%s", code, stderr, out)
	}
}
