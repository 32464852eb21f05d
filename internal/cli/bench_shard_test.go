package cli

import (
	"database/sql"
	"encoding/json"
	"github.com/lantern-if/lantern/internal/bench"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func benchJSON(t *testing.T, args ...string) bench.Report {
	t.Helper()
	code, out, stderr := runCLI(t, "", append([]string{"bench", "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("bench %v: exit %d\n%s", args, code, stderr)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("bench %v: %v\n%s", args, err, out)
	}
	return rep
}

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

// TestBenchShardsMergeToTheWholeRun: shards 1/2 and 2/2 of a scripted
// benchmark, merged, give the totals and episodes of the unsharded run;
// each shard plays its own episodes (with the whole run's seeds) in a work
// dir of its own.
func TestBenchShardsMergeToTheWholeRun(t *testing.T) {
	dir, repo := isolate(t)
	// A walkthrough cut short, so that episodes end at the turn cap with
	// different scores by turn and the chart has something to show.
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	common := []string{"--agent", "script:" + walk, "--episodes", "3", "--max-turns", "30", "--seed", "7"}
	whole := benchJSON(t, common...)
	one := benchJSON(t, append(common, "--shard", "1/2")...)
	two := benchJSON(t, append(common, "--shard", "2/2")...)
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

	code, out, stderr := runCLI(t, "", "bench", "--shard", "2/2", "--episodes", "3", "--agent", "script:"+walk, "--max-turns", "30", "--seed", "7")
	if code != exitOK || !strings.Contains(out, "shard 2/2: 1 of episodes 3 to 3 of 3 (complete)") {
		t.Errorf("a shard's header does not say which shard: exit %d %s\n%s", code, stderr, out)
	}
	code, out, stderr = runCLI(t, "", "bench", "merge", "--json", two.DB, filepath.Dir(filepath.Dir(one.DB)))
	if code != exitOK {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	var merged bench.Report
	if err := json.Unmarshal([]byte(out), &merged); err != nil {
		t.Fatal(err)
	}
	if got, want := outcomeOf(merged), outcomeOf(whole); !reflect.DeepEqual(got, want) {
		t.Errorf("merged shards differ from the whole run\n got %+v\nwant %+v", got, want)
	}
	if !merged.Complete || merged.Requested != 3 || merged.Shard != nil || len(merged.Summary) != 4 {
		t.Errorf("merged report: complete %v, %d requested, shard %+v, %d metric columns", merged.Complete, merged.Requested, merged.Shard, len(merged.Summary))
	}
	code, out, stderr = runCLI(t, "", "bench", "merge", one.DB, two.DB)
	if code != exitOK || !strings.Contains(out, "3 of 3 episodes (complete)") || !strings.Contains(out, "episode 3") {
		t.Errorf("merge as text: exit %d %s\n%s", code, stderr, out)
	}

	// A shard missing, a shard twice, or shards of different benchmarks
	// are refused with the reason.
	other := benchJSON(t, "--agent", "script:"+walk, "--episodes", "3", "--max-turns", "20", "--seed", "7", "--shard", "2/2")
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
		code, _, stderr := runCLI(t, "", append([]string{"bench", "merge"}, tc.dbs...)...)
		if code != exitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, want an error saying %q:\n%s", tc.name, code, tc.want, stderr)
		}
	}
	if code, out, _ := runCLI(t, "", "bench", "merge", "--help"); code != exitOK || !strings.Contains(out, "lantern bench merge SHARD...") {
		t.Errorf("merge --help: exit %d %s", code, out)
	}
	if code, out, _ := runCLI(t, "", "bench", "--help"); code != exitOK || !strings.Contains(out, "--shard") || !strings.Contains(out, "lantern bench merge") {
		t.Errorf("bench --help: exit %d %s", code, out)
	}
	if code, _, stderr := runCLI(t, "", "bench", "merge"); code != exitUsage || !strings.Contains(stderr, "SHARD...") {
		t.Errorf("merge without databases: exit %d %s", code, stderr)
	}
	for _, bad := range []string{"0/2", "3/2", "x"} {
		if code, _, stderr := runCLI(t, "", "bench", "--shard", bad, "--agent", "script:"+walk); code != exitUsage || !strings.Contains(stderr, "i/n") {
			t.Errorf("--shard %s: exit %d %s", bad, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "", "bench", "--shard", "3/3", "--episodes", "2", "--agent", "script:"+walk); code != exitUsage || !strings.Contains(stderr, "nothing to play") {
		t.Errorf("an empty shard: exit %d %s", code, stderr)
	}
}

func episodeSeeds(t *testing.T, path string) []int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT seed FROM episodes ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var s int
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestBenchWorkDir: a run prints its isolated work dir and leaves the
// configured one's memories alone; --workdir plays where it is told.
func TestBenchWorkDir(t *testing.T) {
	dir, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	code, _, stderr := runCLI(t, "", "bench", "--agent", "script:"+walk, "--episodes", "1", "--max-turns", "5")
	if code != exitOK {
		t.Fatalf("bench: exit %d %s", code, stderr)
	}
	_, after, ok := strings.Cut(stderr, "lantern bench: work dir ")
	work := strings.TrimSpace(strings.SplitN(after, "\n", 2)[0])
	if !ok || !strings.HasPrefix(work, filepath.Join(dir, "data", "lantern", "demo")) {
		t.Fatalf("no isolated work dir printed:\n%s", stderr)
	}
	if _, err := os.Stat(work); err != nil {
		t.Errorf("work dir: %v", err)
	}
	// The configured work dir's story folder holds the run's index entry
	// and the bench folder, no memories or saves of its own.
	story := filepath.Join(dir, "data", "lantern", "demo-r1")
	entries, _ := os.ReadDir(story)
	for _, e := range entries {
		switch e.Name() {
		case "bench", "lantern.db", "lantern.db-wal", "lantern.db-shm":
		default:
			t.Errorf("the configured work dir got %s from an isolated run", e.Name())
		}
	}
	chosen := filepath.Join(dir, "chosen")
	code, out, stderr := runCLI(t, "", "bench", "--agent", "script:"+walk, "--episodes", "1", "--max-turns", "5", "--workdir", chosen)
	if code != exitOK || !strings.Contains(stderr, "work dir "+chosen+"\n") || !strings.Contains(out, "Stored as run 1 in "+filepath.Join(chosen, "demo-r1", "lantern.db")) {
		t.Errorf("--workdir: exit %d\n%s\n%s", code, stderr, out)
	}
}

func decodeReport(t *testing.T, out string) bench.Report {
	t.Helper()
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return rep
}
