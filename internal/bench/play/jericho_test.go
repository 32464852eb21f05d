package play_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/bench/play"
	"github.com/lantern-if/lantern/sharedtest"
)

var updateSuiteGolden = flag.Bool("update-suite", false, "rewrite internal/bench/play/testdata/bench_jericho_suite.golden")

// jerichoShortScores are the walkthroughs Jericho itself wins short of the
// maximum, at these scores (microsoft/jericho issue 43 and pull 26).
func jerichoShortScores() map[string]int {
	return map[string]int{"anchor.z8": 99, "balances.z5": 50, "curses.z5": 450, "lostpig.z8": 6, "theatre.z5": 47, "yomomma.z8": 34}
}

// jerichoRealDeaths are the deaths a winning walkthrough really dies (the
// story's own "*** You have died ***", as dfrotz prints it): Inhumane's
// traps kill the player on purpose, and play goes on. Every other won
// episode dies none; the end-of-game prompt after a victory is no death.
func jerichoRealDeaths() map[string]int { return map[string]int{"inhumane.z5": 9} }

// TestBenchJerichoSuite is CI's one full-loop replay of Jericho's suite:
// every shared game played by its walkthrough through the engine, the
// critic and the session, one episode with Jericho's seed for the game
// (read from walkthroughs.json as the seed file). Every episode that wins
// scores the story's maximum (a normalised 1.0), except the walkthroughs
// Jericho itself wins short of it, at exactly Jericho's score; every game
// whose walkthrough the script format can replay wins (a blank command,
// Jericho's bare Enter, is not a line a script can hold). The suite plays
// as two shards at once, each a process of the built binary (the full
// loop's races are the engine's and the session's tests' to find, under
// -race), merged; the per-game table and chart are golden.
func TestBenchJerichoSuite(t *testing.T) {
	dir, repo := isolate(t)
	jdir, walks := jerichoWalks(t)
	walkDir := filepath.Join(dir, "walk")
	os.MkdirAll(walkDir, 0o755)
	blank := map[string]bool{} // games whose walkthrough has a blank command
	longest := 0
	for file, w := range walks {
		blank[file] = slices.Contains(w.Walkthrough, "")
		longest = max(longest, len(w.Walkthrough))
		text := strings.Join(w.Walkthrough, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(walkDir, play.StoryBase(file)+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Two shards at once (the runs wait on the disk more than on the
	// processor), merged: the report is the unsharded suite's.
	args := []string{"bench", "--story", jdir, "--agent", "script:" + walkDir, "--seed-file", filepath.Join(jdir, "walkthroughs.json"),
		"--episodes", "1", "--max-turns", fmt.Sprint(longest + 10), "--label", "Jericho walkthroughs"}
	shards := []string{filepath.Join(dir, "shard-1"), filepath.Join(dir, "shard-2")}
	playShardProcesses(t, buildLantern(t, dir, repo), args, shards)
	c := merge(play.MergeOptions{}, shards...)
	if c.err != nil {
		t.Fatalf("merge: %v\n%s", c.err, c.stderr)
	}
	raw := merge(play.MergeOptions{JSON: true}, shards...)
	var suite bench.Suite
	if err := json.Unmarshal([]byte(raw.out), &suite); raw.err != nil || err != nil {
		t.Fatalf("merge --json: %v, %v\n%s", raw.err, err, raw.stderr)
	}
	if len(suite.Runs) != len(walks) || len(suite.Games) != len(walks) || !suite.Complete || suite.Format != bench.FormatVersion {
		t.Fatalf("suite: %d runs, %d games of %d; complete %v, format %d", len(suite.Runs), len(suite.Games), len(walks), suite.Complete, suite.Format)
	}
	for _, r := range suite.Runs {
		checkJerichoRun(t, r, walks[r.Story], blank[r.Story])
	}
	got := strings.ReplaceAll(c.out, walkDir, "WALK")
	got = regexp.MustCompile(`(?m)^Lantern [^,\n]*,`).ReplaceAllString(got, "Lantern VERSION,") // the built binary's version
	checkGolden(t, filepath.Join(repo, "internal", "bench", "play", "testdata", "bench_jericho_suite.golden"), got)
}

// playShardProcesses plays lantern bench args as the shards, one process
// of bin each, at once, each in its work dir.
func playShardProcesses(t *testing.T, bin string, args, shards []string) {
	t.Helper()
	cmds, stderrs := make([]*exec.Cmd, len(shards)), make([]strings.Builder, len(shards))
	for i := range shards {
		cmds[i] = exec.Command(bin, append(args, "--shard", fmt.Sprintf("%d/%d", i+1, len(shards)), "--workdir", shards[i])...)
		cmds[i].Stderr = &stderrs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d/%d: %v\n%s", i+1, len(shards), err, lastLines(stderrs[i].String(), 20))
		}
	}
}

// checkJerichoRun: a game's run scores as Jericho's walkthrough does.
func checkJerichoRun(t *testing.T, r *bench.Report, w jerichoWalk, blank bool) {
	t.Helper()
	if r.MaxScore != w.MaxScore {
		t.Errorf("%s: max score %d, Jericho's %d", r.Story, r.MaxScore, w.MaxScore)
	}
	if len(r.Episodes) != 1 || !slices.Equal(r.Seeds, []int{w.Seed}) {
		t.Errorf("%s: %d episodes, seeds %v; want 1 with %d", r.Story, len(r.Episodes), r.Seeds, w.Seed)
		return
	}
	for _, e := range r.Episodes {
		if e.Ending != "victory" {
			continue
		}
		if e.Deaths != jerichoRealDeaths()[r.Story] {
			t.Errorf("%s episode %d was won and counts %d deaths, want the walkthrough's %d: a victory is never a death", r.Story, e.Episode, e.Deaths, jerichoRealDeaths()[r.Story])
		}
		want := 1.0
		if s, ok := jerichoShortScores()[r.Story]; ok {
			want = float64(s) / float64(w.MaxScore)
		}
		if got := r.Normalized(e); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s episode %d won with %d of %d: normalised %.3f, want %.3f", r.Story, e.Episode, e.Score, w.MaxScore, got, want)
		}
	}
	if first := r.Episodes[0]; !blank && first.Ending != "victory" {
		t.Errorf("%s: the walkthrough with Jericho's seed %d ended %q at %d", r.Story, w.Seed, first.Ending, first.Score)
	}
}

// checkGolden compares got with the golden file (-update-suite rewrites
// it).
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	sharedtest.Golden(t, path, []byte(got), *updateSuiteGolden)
}
