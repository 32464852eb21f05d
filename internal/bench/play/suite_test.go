package play_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/bench/play"
	"github.com/lantern-if/lantern/internal/cli"
	"github.com/lantern-if/lantern/sharedtest"
)

// suiteShard plays a suite's shard spec in its work dir dir, which must
// succeed.
func suiteShard(t *testing.T, o play.Options, f flags, spec, dir string) call {
	t.Helper()
	o.Shard = spec
	c := runSuite(t, o, f.with("workdir", dir))
	if c.err != nil {
		t.Fatalf("shard %s: %v\n%s\n%s", spec, c.err, c.out, c.stderr)
	}
	return c
}

// TestBenchSuiteShardsMerge: a suite split by a scheduler's index
// (--shard auto, Slurm's and Kubernetes' variables, 0-based) merges to the
// unsharded suite's report exactly; the JSON names its format, Lantern's
// version, each story's md5 and seeds; a re-run shard starts clean; the
// exports hold every episode and turn.
func TestBenchSuiteShardsMerge(t *testing.T) {
	dir, o, f := suiteFixture(t)
	whole := filepath.Join(dir, "whole")
	wo := o
	wo.JSON = true
	c := runSuite(t, wo, f.with("workdir", whole))
	if c.err != nil {
		t.Fatalf("whole: %v\n%s", c.err, c.stderr)
	}
	ws := suiteJSON(t, c.out)
	if ws.Format != bench.FormatVersion || ws.Lantern == "" || len(ws.Stories) != 2 || ws.Stories[0].MD5 == "" || ws.Stories[1].Seed != 12 ||
		!reflect.DeepEqual(ws.Seeds, []int{0, 1}) || !reflect.DeepEqual(ws.Models, []string{""}) || !ws.Complete || len(ws.Runs) != 2 {
		t.Fatalf("suite JSON: format %d, lantern %q, stories %+v, seeds %v, models %q, complete %v, %d runs", ws.Format, ws.Lantern, ws.Stories, ws.Seeds,
			ws.Models, ws.Complete, len(ws.Runs))
	}
	if zr := ws.Runs[1]; !reflect.DeepEqual(zr.Seeds, []int{12, 13}) || zr.Format != bench.FormatVersion || zr.Lantern == "" {
		t.Errorf("Zork I's run: seeds %v, format %d, lantern %q", zr.Seeds, zr.Format, zr.Lantern)
	}
	shard := func(k int, env map[string]string) string {
		t.Helper()
		for _, v := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "JOB_COMPLETION_INDEX", "LANTERN_SHARD_COUNT"} {
			t.Setenv(v, env[v])
		}
		d := filepath.Join(dir, "shards", string(rune('0'+k)))
		c := suiteShard(t, o, f, "auto", d)
		if want := "shard " + string(rune('1'+k)) + "/3"; !strings.Contains(c.out, want) {
			t.Errorf("shard %d's header does not say %q:\n%s", k, want, c.out)
		}
		return d
	}
	s0 := shard(0, map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "2"})
	s1 := shard(1, map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3"})
	s2 := shard(2, map[string]string{"JOB_COMPLETION_INDEX": "2", "LANTERN_SHARD_COUNT": "3"})
	checkSuiteMerge(t, dir, whole, ws, s0, s1, s2)

	// A re-run shard clears its former attempt; a work dir that is no
	// shard's is refused.
	os.WriteFile(filepath.Join(s1, "stale.txt"), []byte("x"), 0o644)
	shard(1, map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3"})
	if _, err := os.Stat(filepath.Join(s1, "stale.txt")); err == nil {
		t.Errorf("the re-run shard kept its former attempt's files")
	}
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644)
	t.Setenv("JOB_COMPLETION_INDEX", "0")
	t.Setenv("LANTERN_SHARD_COUNT", "3")
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	ao := o
	ao.Shard = "auto"
	if c := runSuite(t, ao, f.with("workdir", other)); c.code() != 2 || !strings.Contains(c.text(), "a shard needs a work dir of its own") {
		t.Errorf("a shard in another's work dir: exit %d %s", c.code(), c.text())
	}
	if data, _ := os.ReadFile(filepath.Join(other, "notes.txt")); string(data) != "mine" {
		t.Errorf("the refused shard touched the work dir")
	}
}

// checkSuiteMerge: the unsharded suite and the merged shards print the
// same report; the exports hold every episode and turn.
func checkSuiteMerge(t *testing.T, dir, whole string, ws bench.Suite, s0, s1, s2 string) {
	t.Helper()
	c := merge(play.MergeOptions{}, whole)
	if c.err != nil {
		t.Fatalf("merge of the whole run: %v %s", c.err, c.stderr)
	}
	wholeText := c.out
	exp := filepath.Join(dir, "export")
	c = merge(play.MergeOptions{Export: exp}, s2, s0, s1)
	if c.err != nil {
		t.Fatalf("merge: %v %s", c.err, c.stderr)
	}
	if wholeText != c.out {
		t.Errorf("merged shards differ from the unsharded suite\nwhole:\n%s\nmerged:\n%s", wholeText, c.out)
	}
	wantAll(t, "merged suite", c.out, "demo.z3", "zork1.z3", "all (2 games)", "score / max (± s.e.)", "highscore", "Score as a share of the maximum", "(complete)")
	c = merge(play.MergeOptions{JSON: true}, s0, s1, s2)
	ms := suiteJSON(t, c.out)
	if c.err != nil || !reflect.DeepEqual(ms.Games, ws.Games) && !sameGames(ms.Games, ws.Games) || ms.Shard != nil {
		t.Errorf("merged games %+v\nwant %+v", ms.Games, ws.Games)
	}
	for name, lines := range map[string]int{"episodes.csv": 5, "episodes.jsonl": 4, "turns.csv": 1 + 48 + 48 + 60 + 60, "turns.jsonl": 48 + 48 + 60 + 60} {
		data, err := os.ReadFile(filepath.Join(exp, name))
		if got := strings.Count(string(data), "\n"); err != nil || got != lines {
			t.Errorf("%s: %d lines (%v), want %d", name, got, err, lines)
		}
	}
}

func sameGames(a, b []bench.GameResult) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.WallMS, y.WallMS = 0, 0
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// TestBenchSuiteMergeRefuses: a shard missing, a shard twice, a shard of
// another benchmark, and a shard that did not finish each make merge exit
// 1 naming the problem.
func TestBenchSuiteMergeRefuses(t *testing.T) {
	dir, o, f := suiteFixture(t)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	suiteShard(t, o, f, "1/2", a)
	suiteShard(t, o, f, "2/2", b)
	foreign := filepath.Join(dir, "foreign")
	suiteShard(t, o, f.with("max-turns", "40"), "2/2", foreign)
	// A shard that stopped before its end leaves the manifest it starts with.
	stopped := filepath.Join(dir, "stopped")
	if err := play.PrepareShardDir(stopped, "dev", os.Stderr); err != nil {
		t.Fatal(err)
	}
	if c := merge(play.MergeOptions{}, a, b); c.err != nil {
		t.Fatalf("the good shards: %v %s", c.err, c.stderr)
	}
	// A work dir's lantern.db, as a shard's work dir: the README's example.
	if c := merge(play.MergeOptions{}, filepath.Join(a, "lantern.db"), filepath.Join(b, "lantern.db")); c.err != nil {
		t.Errorf("merge A/lantern.db B/lantern.db: %v %s", c.err, c.stderr)
	}
	for _, tc := range []struct {
		name   string
		shards []string
		want   string
	}{
		{"missing", []string{a}, "shard 2/2 missing"},
		{"duplicate", []string{a, b, b}, "both shard 2/2"},
		{"foreign", []string{a, foreign}, "not parts of one benchmark"},
		{"incomplete", []string{a, stopped}, "the shard is incomplete (the shard is playing, or stopped before its end); re-run it"},
		{"no such shard", []string{a, filepath.Join(dir, "absent")}, "absent"},
		{"not a shard", []string{a, filepath.Join(dir, "walk")}, "not a bench work dir"},
	} {
		if c := merge(play.MergeOptions{}, tc.shards...); c.code() != 1 || !strings.Contains(c.text(), tc.want) || c.out != "" {
			t.Errorf("%s: exit %d, want 1 and an error saying %q:\n%s%s", tc.name, c.code(), tc.want, c.text(), c.out)
		}
	}
	// --store adds the merged runs where bench --list finds them.
	store := func() (*config.Config, error) { return cli.BenchWiring("", nil).Config("", "") }
	if c := merge(play.MergeOptions{Store: store}, a, b); c.err != nil || !strings.Contains(c.stderr, "zork1.z3 stored as run 1") {
		t.Fatalf("merge --store: %v %s", c.err, c.stderr)
	}
	if c := list(t, flags{"story": sharedtest.File(t, "stories/zork1.z3")}); c.err != nil || !strings.Contains(c.out, "script walk") {
		t.Errorf("bench --list after merge --store: %v\n%s", c.err, c.out)
	}
}

// TestBenchCompareSuites: --compare reads suites (their bench.json or
// work dirs): game by game and overall, each side's score with its error
// and the difference; a stored run compares with a suite as a suite of
// one game; --json gives the pairs.
func TestBenchCompareSuites(t *testing.T) {
	dir, o, f := suiteFixture(t)
	o.Episodes = 1
	suite := func(name, turns string) string {
		t.Helper()
		d := filepath.Join(dir, name)
		c := runSuite(t, o, f.with("workdir", d, "max-turns", turns))
		if c.err != nil {
			t.Fatalf("suite %s: %v\n%s", name, c.err, c.stderr)
		}
		if got := reportIn(t, c.stderr); got != filepath.Join(d, "bench.json") {
			t.Errorf("suite %s: bench.json in %s", name, got)
		}
		return d
	}
	short, long := suite("short", "20"), suite("long", "60")
	c := compare(t, short, filepath.Join(long, "bench.json"), false, nil)
	if c.err != nil {
		t.Fatalf("--compare of two suites: %v", c.err)
	}
	wantAll(t, "suite comparison", c.out, "A: Bench suite: 2 game(s)", "B: Bench suite: 2 game(s)", "demo.z3", "zork1.z3", "all (2 games)", "B - A (points)")
	c = compare(t, short, long, true, nil)
	var sc bench.SuiteComparison
	if err := json.Unmarshal([]byte(c.out), &sc); c.err != nil || err != nil {
		t.Fatalf("--compare --json: %v, %v", c.err, err)
	}
	if len(sc.Games) != 2 || len(sc.Overall) != 1 || sc.Games[0].Story != "demo.z3" || sc.Games[0].ScoreDiff <= 0 || sc.Overall[0].A.Games != 2 {
		t.Errorf("comparison: games %+v, overall %+v", sc.Games, sc.Overall)
	}
	// A stored run of one story against the suite: that game alone.
	walk := filepath.Join(dir, "walk", "demo.txt")
	if c := runBench(t, play.Options{Agent: "script:" + walk, Episodes: 1}, flags{"max-turns": "30"}); c.err != nil {
		t.Fatalf("a single run: %v %s", c.err, c.stderr)
	}
	c = compare(t, "last", long, false, nil)
	if c.err != nil {
		t.Fatalf("--compare last SUITE: %v", c.err)
	}
	wantAll(t, "a run against a suite", c.out, "all (1 games)", "Only in B, left out: zork1.z3")
	// A file that is no report, and a newer format, are refused.
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte(`{"name":"x"}`), 0o644)
	newer := filepath.Join(dir, "newer.json")
	os.WriteFile(newer, []byte(`{"format_version":99,"runs":[]}`), 0o644)
	for file, want := range map[string]string{junk: "not a bench report", newer: "newer than this Lantern's"} {
		if c := compare(t, file, long, false, nil); c.code() != 1 || !strings.Contains(c.text(), want) {
			t.Errorf("--compare %s: exit %d, want 1 and %q:\n%s", filepath.Base(file), c.code(), want, c.text())
		}
	}
}

// TestBenchMergeRefusesOtherSetups: shards of one benchmark played with
// another profile are no parts of it.
func TestBenchMergeRefusesOtherSetups(t *testing.T) {
	dir, o, f := suiteFixture(t)
	o.Episodes = 1
	f = f.with("max-turns", "10")
	a, b, other := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "other")
	suiteShard(t, o, f, "1/2", a)
	suiteShard(t, o, f, "2/2", b)
	suiteShard(t, o, f.with("profile", "zorkgpt"), "2/2", other)
	if c := merge(play.MergeOptions{}, a, b); c.err != nil {
		t.Fatalf("the good shards: %v %s", c.err, c.stderr)
	}
	c := merge(play.MergeOptions{}, a, other)
	if c.code() != 1 || !strings.Contains(c.text(), `profile "zorkgpt", not "lean"`) || !strings.Contains(c.text(), "not parts of one benchmark") || c.out != "" {
		t.Errorf("merge of shards with other profiles: exit %d\n%s%s", c.code(), c.text(), c.out)
	}
}

// TestBenchModelSweep: --model a,b plays the suite once per model (the
// oracle answers to both of its names) and reports both in one table,
// with the cost by role and a bar per game and model.
func TestBenchModelSweep(t *testing.T) {
	dir, repo := isolate(t)
	t.Setenv("OLLAMA_HOST", oracleHost(t, filepath.Join(repo, "game_files", "demo", "walkthrough.txt")))
	work := filepath.Join(dir, "sweep")
	c := runSuite(t, play.Options{Stories: []string{"demo"}, Models: []string{"oracle", "oracle:latest"}, Episodes: 2},
		flags{"max-turns": "10", "workdir": work})
	if c.err != nil {
		t.Fatalf("sweep: %v\n%s\n%s", c.err, c.out, lastLines(c.stderr, 20))
	}
	wantAll(t, "sweep report", c.out, "oracle, oracle:latest", "demo.z3         oracle ", "demo.z3         oracle:latest ",
		"all (1 games)   oracle ", "all (1 games)   oracle:latest ", "Model cost by role", "oracle:latest   agent ",
		"demo.z3 oracle        |", "demo.z3 oracle:latest |", "all oracle:latest     |")
	raw, err := os.ReadFile(filepath.Join(work, play.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	s := suiteJSON(t, string(raw))
	if !reflect.DeepEqual(s.Models, []string{"oracle", "oracle:latest"}) || len(s.Runs) != 2 || play.AgentModel(s.Runs[1]) != "oracle:latest" ||
		len(s.Overall) != 2 || len(s.Roles) == 0 {
		t.Fatalf("sweep: models %v, %d runs, %d overall rows, %d role rows", s.Models, len(s.Runs), len(s.Overall), len(s.Roles))
	}
	for _, r := range s.Roles {
		if r.Role == "agent" && (r.Calls < 20 || r.PromptTokens == 0 || r.WallMS <= 0) {
			t.Errorf("%s's agent cost: %+v", r.Model, r)
		}
	}
	// Each model played in a work dir of its own.
	for _, sub := range []string{"model-1-oracle", "model-2-oracle_latest"} {
		if _, err := os.Stat(filepath.Join(work, sub, "demo-r1", "lantern.db")); err != nil {
			t.Errorf("%s: %v", sub, err)
		}
	}
}
