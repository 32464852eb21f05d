package play_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/bench/play"
)

// outcome is what must not depend on how a benchmark was split: each
// episode's play and the whole run's totals (times aside).
type outcome struct {
	Episodes []episodeOutcome
	Score    float64
	Best     int
	Moves    float64
	Turns    int
	Deaths   int
	Fastest  []bench.Milestone
	Repeated float64
	Visited  int
	Calls    float64
}

type episodeOutcome struct {
	Episode, Score, Moves, Turns, Deaths, Actions, Repeats int
	Ending                                                 string
	Scores, Visited                                        []int
}

func outcomeOf(r bench.Report) outcome {
	all := r.Summary[len(r.Summary)-1]
	o := outcome{Score: all.Score, Best: all.BestScore, Moves: all.Moves, Turns: all.Turns, Deaths: all.Deaths, Fastest: all.Milestones,
		Repeated: all.RepeatedFailedRate, Visited: all.LocationsVisited, Calls: all.LLMCallsPerTurn}
	for _, e := range r.Episodes {
		o.Episodes = append(o.Episodes, episodeOutcome{Episode: e.Episode, Score: e.Score, Moves: e.Moves, Turns: e.Turns, Deaths: e.Deaths,
			Actions: e.Actions, Repeats: e.Repeats, Ending: e.Ending, Scores: e.Scores, Visited: e.Visited})
	}
	return o
}

// withShard is o playing shard s.
func withShard(o play.Options, s string) play.Options {
	o.Shard = s
	return o
}

// TestBenchShardsMergeToTheWholeRun: shards 1/2 and 2/2 of a scripted
// benchmark, merged, give the totals and episodes of the unsharded run;
// each shard plays its own episodes (with the whole run's seeds) in a work
// dir of its own.
func TestBenchShardsMergeToTheWholeRun(t *testing.T) {
	dir, repo := isolate(t)
	// A walkthrough cut short, so that episodes end at the turn cap with
	// different scores by turn and the chart has something to show.
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	common, f := play.Options{Agent: "script:" + walk, Episodes: 3}, flags{"max-turns": "30", "seed": "7"}
	whole := runJSON(t, common, f)
	one := runJSON(t, withShard(common, "1/2"), f)
	two := runJSON(t, withShard(common, "2/2"), f)
	if whole.Shard != nil || one.Shard == nil || *one.Shard != (bench.ShardInfo{Index: 1, Count: 2, FirstEpisode: 1, Total: 3}) ||
		two.Shard == nil || *two.Shard != (bench.ShardInfo{Index: 2, Count: 2, FirstEpisode: 3, Total: 3}) {
		t.Fatalf("shards: whole %+v, one %+v, two %+v", whole.Shard, one.Shard, two.Shard)
	}
	if len(one.Episodes) != 2 || len(two.Episodes) != 1 || two.Episodes[0].Episode != 3 || !one.Complete || !two.Complete {
		t.Fatalf("shard episodes: %d and %d (%+v)", len(one.Episodes), len(two.Episodes), two.Episodes)
	}
	// Each episode started with the seed the whole run gives it.
	for _, tc := range []struct {
		db   string
		want []int
	}{{whole.DB, []int{7, 8, 9}}, {one.DB, []int{7, 8}}, {two.DB, []int{9}}} {
		if got := episodeSeeds(t, tc.db); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: episode seeds %v, want %v", tc.db, got, tc.want)
		}
	}
	// Each run played in a fresh work dir under the story's folder.
	dbs := map[string]bool{whole.DB: true, one.DB: true, two.DB: true}
	for db := range dbs {
		if !strings.HasPrefix(db, filepath.Join(dir, "data", "lantern")) || !strings.Contains(db, string(filepath.Separator)+"bench"+string(filepath.Separator)) {
			t.Errorf("run database %s is not in an isolated bench work dir", db)
		}
	}
	if len(dbs) != 3 {
		t.Errorf("runs share a database: %v", dbs)
	}
	if c := runBench(t, withShard(common, "2/2"), f); c.err != nil || !strings.Contains(c.out, "shard 2/2: 1 of episodes 3 to 3 of 3 (complete)") {
		t.Errorf("a shard's header does not say which shard: %v %s\n%s", c.err, c.stderr, c.out)
	}
	c := merge(play.MergeOptions{JSON: true}, two.DB, filepath.Dir(filepath.Dir(one.DB)))
	if c.err != nil {
		t.Fatalf("merge: %v\n%s", c.err, c.stderr)
	}
	var merged bench.Report
	if err := json.Unmarshal([]byte(c.out), &merged); err != nil {
		t.Fatal(err)
	}
	if got, want := outcomeOf(merged), outcomeOf(whole); !reflect.DeepEqual(got, want) {
		t.Errorf("merged shards differ from the whole run\n got %+v\nwant %+v", got, want)
	}
	if !merged.Complete || merged.Requested != 3 || merged.Shard != nil || len(merged.Summary) != 4 {
		t.Errorf("merged report: complete %v, %d requested, shard %+v, %d metric columns", merged.Complete, merged.Requested, merged.Shard, len(merged.Summary))
	}
	c = merge(play.MergeOptions{}, one.DB, two.DB)
	if c.err != nil || !strings.Contains(c.out, "3 of 3 episodes (complete)") || !strings.Contains(c.out, "episode 3") {
		t.Errorf("merge as text: %v %s\n%s", c.err, c.stderr, c.out)
	}
	other := runJSON(t, withShard(common, "2/2"), flags{"max-turns": "20", "seed": "7"})
	checkMergeRefusals(t, dir, one, other)
	for _, bad := range []string{"0/2", "3/2", "x"} {
		if c := runBench(t, play.Options{Shard: bad, Agent: "script:" + walk}, nil); c.code() != 2 || !strings.Contains(c.text(), "i/n") {
			t.Errorf("--shard %s: exit %d %s", bad, c.code(), c.text())
		}
	}
	if c := runBench(t, play.Options{Shard: "3/3", Episodes: 2, Agent: "script:" + walk}, nil); c.code() != 2 || !strings.Contains(c.text(), "nothing to play") {
		t.Errorf("an empty shard: exit %d %s", c.code(), c.text())
	}
}

// checkMergeRefusals: a shard missing, a shard twice, or shards of
// different benchmarks are refused with the reason; so is a merge of
// nothing.
func checkMergeRefusals(t *testing.T, dir string, one, other bench.Report) {
	t.Helper()
	for _, tc := range []struct {
		name string
		dbs  []string
		want string
	}{
		{"a shard missing", []string{one.DB}, "shard 2/2 missing"},
		{"a shard twice", []string{one.DB, one.DB}, "both shard 1/2"},
		{"another benchmark", []string{one.DB, other.DB}, "not parts of one benchmark"},
		{"no database", []string{filepath.Join(dir, "absent.db")}, "absent.db"},
	} {
		if c := merge(play.MergeOptions{}, tc.dbs...); c.code() != 1 || !strings.Contains(c.text(), tc.want) {
			t.Errorf("%s: exit %d, want an error saying %q:\n%s", tc.name, c.code(), tc.want, c.text())
		}
	}
	if c := merge(play.MergeOptions{}); c.code() != 2 || !strings.Contains(c.text(), "SHARD...") {
		t.Errorf("merge without databases: exit %d %s", c.code(), c.text())
	}
}

// TestBenchShardsWithOracle: the model-driven bench split in two, each
// shard against its own oracle, merges to the unsharded run's play: the
// same episodes, scores by turn, moves and endings.
func TestBenchShardsWithOracle(t *testing.T) {
	_, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	common, f := play.Options{Episodes: 3}, flags{"model": "oracle", "max-turns": "12", "seed": "12"}
	// Each run against a fresh oracle, as a machine of its own would.
	withOracle := func(o play.Options) bench.Report {
		t.Setenv("OLLAMA_HOST", oracleHost(t, walk))
		return runJSON(t, o, f)
	}
	whole := withOracle(common)
	one := withOracle(withShard(common, "1/2"))
	two := withOracle(withShard(common, "2/2"))
	c := merge(play.MergeOptions{JSON: true}, one.DB, two.DB)
	if c.err != nil {
		t.Fatalf("merge: %v\n%s", c.err, c.stderr)
	}
	merged := decodeReport(t, c.out)
	type played struct {
		Episode, Score, Moves, Turns int
		Ending                       string
		Scores                       []int
	}
	plays := func(r bench.Report) (out []played) {
		for _, e := range r.Episodes {
			out = append(out, played{e.Episode, e.Score, e.Moves, e.Turns, e.Ending, e.Scores})
		}
		return out
	}
	if got, want := plays(merged), plays(whole); !reflect.DeepEqual(got, want) || len(got) != 3 {
		t.Errorf("merged shards played differently from the whole run\n got %+v\nwant %+v", got, want)
	}
	mw, mm := whole.Summary[3], merged.Summary[3]
	if mw.Score != mm.Score || mw.BestScore != mm.BestScore || mw.Turns != mm.Turns || mw.Moves != mm.Moves || !reflect.DeepEqual(mw.Milestones, mm.Milestones) {
		t.Errorf("totals differ: whole %+v\nmerged %+v", mw, mm)
	}
	t.Logf("LLM calls per turn: whole %.2f, merged %.2f; location coverage: whole %.2f, merged %.2f",
		mw.LLMCallsPerTurn, mm.LLMCallsPerTurn, mw.LocationCoverage, mm.LocationCoverage)
}

// TestBenchShardWorkDirs: one story's shards, each with --workdir, merge
// by their work dirs (no --story: the shards say which story), per-role
// table included, and a re-run shard starts clean.
func TestBenchShardWorkDirs(t *testing.T) {
	dir, repo := isolate(t)
	t.Setenv("OLLAMA_HOST", oracleHost(t, filepath.Join(repo, "game_files", "demo", "walkthrough.txt")))
	a, b := filepath.Join(dir, "A"), filepath.Join(dir, "B")
	common, f := play.Options{Episodes: 3}, flags{"model": "oracle", "max-turns": "8"}
	for i, d := range []string{a, b} {
		if c := runBench(t, withShard(common, []string{"1/2", "2/2"}[i]), f.with("workdir", d)); c.err != nil {
			t.Fatalf("shard %d: %v %s %s", i+1, c.err, c.out, c.stderr)
		}
	}
	// Run shard 1 again: its former attempt goes first.
	if c := runBench(t, withShard(common, "1/2"), f.with("workdir", a)); c.err != nil || !strings.Contains(c.stderr, "clearing the former attempt") {
		t.Fatalf("re-run shard: %v %s", c.err, c.stderr)
	}
	c := merge(play.MergeOptions{}, a, b)
	if c.err != nil {
		t.Fatalf("merge A B: %v %s", c.err, c.stderr)
	}
	wantAll(t, "merged shards", c.out, "3 of 3 episodes (complete)", "Model calls by role", "episode 3")
	c = merge(play.MergeOptions{JSON: true}, a, b)
	rep := decodeReport(t, c.out)
	if c.err != nil || len(rep.Roles) == 0 || rep.Roles[len(rep.Roles)-1].Role != "all" || len(rep.Episodes) != 3 || len(rep.RoleWallMS) == 0 {
		t.Errorf("merged report: roles %+v, %d episodes, role wall %v", rep.Roles, len(rep.Episodes), rep.RoleWallMS)
	}
	// The re-run shard's database holds its second attempt alone.
	if got := episodeSeeds(t, filepath.Join(a, "demo-r1", "lantern.db")); !reflect.DeepEqual(got, []int{0, 1}) {
		t.Errorf("the re-run shard's episodes have seeds %v, want [0 1]", got)
	}
}
