package cli

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/oracle"
	"github.com/lantern-if/lantern/sharedtest"
)

// suiteFixture is a two-game suite (the built-in demo and Zork I, each
// played by its walkthrough, Zork I with the seed its walkthrough wins
// with) cut short by the turn limit so that it plays in seconds.
func suiteFixture(t *testing.T) (dir string, args []string) {
	t.Helper()
	dir, repo := isolate(t)
	walk := filepath.Join(dir, "walk")
	os.MkdirAll(walk, 0o755)
	copyFile(t, filepath.Join(repo, "game_files", "demo", "walkthrough.txt"), filepath.Join(walk, "demo.txt"))
	copyFile(t, sharedtest.File(t, "walkthroughs/zork1.txt"), filepath.Join(walk, "zork1.txt"))
	seeds := filepath.Join(dir, "seeds.json")
	os.WriteFile(seeds, []byte(`{"zork1": 12}`), 0o644)
	return dir, []string{"--story", "demo", "--story", sharedtest.File(t, "stories/zork1.z3"), "--agent", "script:" + walk, "--seed-file", seeds,
		"--episodes", "2", "--max-turns", "60"}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func suiteJSON(t *testing.T, out string) bench.Suite {
	t.Helper()
	var s bench.Suite
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return s
}

// TestBenchSuiteShardsMerge: a suite split by a scheduler's index
// (--shard auto, Slurm's and Kubernetes' variables, 0-based) merges to the
// unsharded suite's report exactly; the JSON names its format, Lantern's
// version, each story's md5 and seeds; a re-run shard starts clean; the
// exports hold every episode and turn.
func TestBenchSuiteShardsMerge(t *testing.T) {
	dir, args := suiteFixture(t)
	whole := filepath.Join(dir, "whole")
	code, out, stderr := runCLI(t, "", append([]string{"bench", "--json", "--workdir", whole, "--log-file", "-"}, args...)...)
	if code != exitOK {
		t.Fatalf("whole: exit %d\n%s", code, stderr)
	}
	ws := suiteJSON(t, out)
	if ws.Format != bench.FormatVersion || ws.Lantern == "" || len(ws.Stories) != 2 || ws.Stories[0].MD5 == "" || ws.Stories[1].Seed != 12 ||
		!reflect.DeepEqual(ws.Seeds, []int{0, 1}) || !reflect.DeepEqual(ws.Models, []string{""}) || !ws.Complete || len(ws.Runs) != 2 {
		t.Fatalf("suite JSON: format %d, lantern %q, stories %+v, seeds %v, models %q, complete %v, %d runs", ws.Format, ws.Lantern, ws.Stories, ws.Seeds,
			ws.Models, ws.Complete, len(ws.Runs))
	}
	if zr := ws.Runs[1]; !reflect.DeepEqual(zr.Seeds, []int{12, 13}) || zr.Format != bench.FormatVersion || zr.Lantern == "" {
		t.Errorf("Zork I's run: seeds %v, format %d, lantern %q", zr.Seeds, zr.Format, zr.Lantern)
	}
	if !strings.Contains(stderr, "level=INFO msg=start cmd=bench") {
		t.Errorf("--log-file - logs nothing to stderr:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(whole, "lantern.log")); err == nil {
		t.Errorf("--log-file - wrote the work dir's lantern.log too")
	}

	shard := func(k int, env map[string]string, extra ...string) string {
		t.Helper()
		for _, v := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "JOB_COMPLETION_INDEX", "LANTERN_SHARD_COUNT"} {
			t.Setenv(v, env[v])
		}
		d := filepath.Join(dir, "shards", strings.Repeat("x", 0)+string(rune('0'+k)))
		code, out, stderr := runCLI(t, "", append(append([]string{"bench", "--shard", "auto", "--workdir", d}, args...), extra...)...)
		if code != exitOK {
			t.Fatalf("shard %d: exit %d\n%s\n%s", k, code, out, stderr)
		}
		if want := "shard " + string(rune('1'+k)) + "/3"; !strings.Contains(out, want) {
			t.Errorf("shard %d's header does not say %q:\n%s", k, want, out)
		}
		return d
	}
	s0 := shard(0, map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "2"})
	s1 := shard(1, map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3"})
	s2 := shard(2, map[string]string{"JOB_COMPLETION_INDEX": "2", "LANTERN_SHARD_COUNT": "3"})

	// The unsharded suite and the merged shards print the same report.
	code, wholeText, stderr := runCLI(t, "", "bench", "merge", whole)
	if code != exitOK {
		t.Fatalf("merge of the whole run: exit %d %s", code, stderr)
	}
	exp := filepath.Join(dir, "export")
	code, mergedText, stderr := runCLI(t, "", "bench", "merge", "--export", exp, s2, s0, s1)
	if code != exitOK {
		t.Fatalf("merge: exit %d %s", code, stderr)
	}
	if wholeText != mergedText {
		t.Errorf("merged shards differ from the unsharded suite\nwhole:\n%s\nmerged:\n%s", wholeText, mergedText)
	}
	wantAll(t, "merged suite", mergedText, "demo.z3", "zork1.z3", "all (2 games)", "score / max (± s.e.)", "highscore", "Score as a share of the maximum", "(complete)")
	code, out, _ = runCLI(t, "", "bench", "merge", "--json", s0, s1, s2)
	ms := suiteJSON(t, out)
	if code != exitOK || !reflect.DeepEqual(ms.Games, ws.Games) && !sameGames(ms.Games, ws.Games) || ms.Shard != nil {
		t.Errorf("merged games %+v\nwant %+v", ms.Games, ws.Games)
	}
	for name, lines := range map[string]int{"episodes.csv": 5, "episodes.jsonl": 4, "turns.csv": 1 + 48 + 48 + 60 + 60, "turns.jsonl": 48 + 48 + 60 + 60} {
		data, err := os.ReadFile(filepath.Join(exp, name))
		if got := strings.Count(string(data), "\n"); err != nil || got != lines {
			t.Errorf("%s: %d lines (%v), want %d", name, got, err, lines)
		}
	}

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
	if code, _, stderr := runCLI(t, "", append([]string{"bench", "--shard", "auto", "--workdir", other}, args...)...); code != exitUsage ||
		!strings.Contains(stderr, "a shard needs a work dir of its own") {
		t.Errorf("a shard in another's work dir: exit %d %s", code, stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(other, "notes.txt")); string(data) != "mine" {
		t.Errorf("the refused shard touched the work dir")
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
	dir, args := suiteFixture(t)
	shard := func(name, spec string, extra ...string) string {
		t.Helper()
		d := filepath.Join(dir, name)
		code, _, stderr := runCLI(t, "", append(append([]string{"bench", "--shard", spec, "--workdir", d}, args...), extra...)...)
		if code != exitOK {
			t.Fatalf("shard %s: exit %d\n%s", spec, code, stderr)
		}
		return d
	}
	a, b := shard("a", "1/2"), shard("b", "2/2")
	foreign := shard("foreign", "2/2", "--max-turns", "40")
	// A shard that stopped before its end leaves the manifest it starts with.
	stopped := filepath.Join(dir, "stopped")
	if err := prepareShardDir(stopped, os.Stderr); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", "bench", "merge", a, b); code != exitOK {
		t.Fatalf("the good shards: exit %d %s", code, stderr)
	}
	// A work dir's lantern.db, as a shard's work dir: the README's example.
	if code, _, stderr := runCLI(t, "", "bench", "merge", filepath.Join(a, "lantern.db"), filepath.Join(b, "lantern.db")); code != exitOK {
		t.Errorf("merge A/lantern.db B/lantern.db: exit %d %s", code, stderr)
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
		code, out, stderr := runCLI(t, "", append([]string{"bench", "merge"}, tc.shards...)...)
		if code != exitError || !strings.Contains(stderr, tc.want) || out != "" {
			t.Errorf("%s: exit %d, want 1 and an error saying %q:\n%s%s", tc.name, code, tc.want, stderr, out)
		}
	}
	// --store adds the merged runs where bench --list finds them.
	code, _, stderr := runCLI(t, "", "bench", "merge", "--store", a, b)
	if code != exitOK || !strings.Contains(stderr, "zork1.z3 stored as run 1") {
		t.Fatalf("merge --store: exit %d %s", code, stderr)
	}
	code, out, _ := runCLI(t, "", "bench", "--list", "--story", sharedtest.File(t, "stories/zork1.z3"))
	if code != exitOK || !strings.Contains(out, "script walk") {
		t.Errorf("bench --list after merge --store: exit %d\n%s", code, out)
	}
}

// TestBenchShardWorkDirs: one story's shards, each with --workdir, merge
// by their work dirs (no --story: the shards say which story), per-role
// table included, and a re-run shard starts clean.
func TestBenchShardWorkDirs(t *testing.T) {
	dir, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	cmds, err := oracle.LoadScript(walk)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(oracle.New(oracle.Options{Script: cmds}))
	defer srv.Close()
	t.Setenv("OLLAMA_HOST", strings.TrimPrefix(srv.URL, "http://"))
	a, b := filepath.Join(dir, "A"), filepath.Join(dir, "B")
	common := []string{"bench", "--model", "oracle", "--episodes", "3", "--max-turns", "8"}
	for i, d := range []string{a, b} {
		code, out, stderr := runCLI(t, "", append(common, "--shard", []string{"1/2", "2/2"}[i], "--workdir", d)...)
		if code != exitOK {
			t.Fatalf("shard %d: exit %d %s %s", i+1, code, out, stderr)
		}
	}
	// Run shard 1 again: its former attempt goes first.
	code, _, stderr := runCLI(t, "", append(common, "--shard", "1/2", "--workdir", a)...)
	if code != exitOK || !strings.Contains(stderr, "clearing the former attempt") {
		t.Fatalf("re-run shard: exit %d %s", code, stderr)
	}
	code, out, stderr := runCLI(t, "", "bench", "merge", a, b)
	if code != exitOK {
		t.Fatalf("merge A B: exit %d %s", code, stderr)
	}
	wantAll(t, "merged shards", out, "3 of 3 episodes (complete)", "Model calls by role", "episode 3")
	code, out, _ = runCLI(t, "", "bench", "merge", "--json", a, b)
	rep := decodeReport(t, out)
	if code != exitOK || len(rep.Roles) == 0 || rep.Roles[len(rep.Roles)-1].Role != "all" || len(rep.Episodes) != 3 || len(rep.RoleWallMS) == 0 {
		t.Errorf("merged report: roles %+v, %d episodes, role wall %v", rep.Roles, len(rep.Episodes), rep.RoleWallMS)
	}
	// The re-run shard's database holds its second attempt alone.
	if got := episodeSeeds(t, filepath.Join(a, "demo-r1", "lantern.db")); !reflect.DeepEqual(got, []int{0, 1}) {
		t.Errorf("the re-run shard's episodes have seeds %v, want [0 1]", got)
	}
}
