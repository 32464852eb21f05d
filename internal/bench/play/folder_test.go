package play_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/bench/play"
)

// TestBenchSuiteFromFolders is the bench's suite path in process, on
// three short Jericho games: --story names a folder (each story file in it
// with a binding, .z5 and .z8 alike), --agent script: a folder of
// walkthroughs named after the stories, --seed-file Jericho's
// walkthroughs.json (each game's seed from it), as two shards merged.
// Each game wins at its maximum with Jericho's seed. (TestBenchJerichoSuite plays all 38, as
// processes of the built binary.)
func TestBenchSuiteFromFolders(t *testing.T) {
	dir, _ := isolate(t)
	jdir, walks := jerichoWalks(t)
	seedFile := filepath.Join(jdir, "walkthroughs.json")
	stories, walkDir := filepath.Join(dir, "stories"), filepath.Join(dir, "walk")
	for _, d := range []string{stories, walkDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	games := []string{"905.z5", "acorncourt.z5", "snacktime.z8"}
	for _, g := range games {
		if err := os.Symlink(filepath.Join(jdir, g), filepath.Join(stories, g)); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(walks[g].Walkthrough, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(walkDir, play.StoryBase(g)+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(stories, "notes.txt"), []byte("not a story"), 0o644)
	// Two shards (the second plays from the middle of a story's episodes
	// on), merged.
	o := play.Options{Stories: []string{stories}, Agent: "script:" + walkDir, SeedFile: seedFile, Episodes: 1}
	var shards []string
	for _, sh := range []string{"1/2", "2/2"} {
		wd := filepath.Join(dir, "shard-"+sh[:1])
		o.Shard = sh
		if c := runSuite(t, o, flags{"max-turns": "100", "workdir": wd}); c.err != nil {
			t.Fatalf("bench --shard %s: %v\n%s", sh, c.err, lastLines(c.stderr, 20))
		}
		shards = append(shards, wd)
	}
	c := merge(play.MergeOptions{JSON: true}, shards[0], shards[1])
	if c.err != nil {
		t.Fatalf("merge: %v\n%s", c.err, lastLines(c.stderr, 20))
	}
	var suite bench.Suite
	if err := json.Unmarshal([]byte(c.out), &suite); err != nil {
		t.Fatalf("%v\n%s", err, c.out)
	}
	if len(suite.Runs) != len(games) || !suite.Complete {
		t.Fatalf("%d runs of %d games, complete %v", len(suite.Runs), len(games), suite.Complete)
	}
	checkShortWalkthrough(t, dir, jdir, seedFile, walks)
	for _, r := range suite.Runs {
		w := walks[r.Story]
		if len(r.Episodes) != 1 || len(r.Seeds) != 1 || r.Seeds[0] != w.Seed {
			t.Errorf("%s: %d episodes, seeds %v; want one with %d", r.Story, len(r.Episodes), r.Seeds, w.Seed)
			continue
		}
		if e := r.Episodes[0]; e.Ending != "victory" || e.Score != w.MaxScore {
			t.Errorf("%s: ended %q with %d, want victory with %d", r.Story, e.Ending, e.Score, w.MaxScore)
		}
	}
}

// checkShortWalkthrough: a walkthrough that runs out inside an episode:
// the segment's later episodes play on in new sessions, each with its own
// seed, and the parts make one report.
func checkShortWalkthrough(t *testing.T, dir, jdir, seedFile string, walks map[string]jerichoWalk) {
	t.Helper()
	shortStories, shortWalk := filepath.Join(dir, "short-stories"), filepath.Join(dir, "short-walk")
	os.MkdirAll(shortStories, 0o755)
	os.MkdirAll(shortWalk, 0o755)
	if err := os.Symlink(filepath.Join(jdir, "acorncourt.z5"), filepath.Join(shortStories, "acorncourt.z5")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(shortWalk, "acorncourt.txt"), []byte(strings.Join(walks["acorncourt.z5"].Walkthrough[:5], "\n")+"\n"), 0o644)
	c := runSuite(t, play.Options{JSON: true, Stories: []string{shortStories}, Agent: "script:" + shortWalk, SeedFile: seedFile, Episodes: 2},
		flags{"workdir": filepath.Join(dir, "short")})
	var short bench.Suite
	if c.err != nil || json.Unmarshal([]byte(c.out), &short) != nil || len(short.Runs) != 1 {
		t.Fatalf("bench of a short walkthrough: %v\n%s\n%s", c.err, c.out, lastLines(c.stderr, 20))
	}
	if r := short.Runs[0]; len(r.Episodes) != 2 || r.Episodes[0].Ending != "script ended" || r.Episodes[1].Ending != "script ended" ||
		r.Episodes[1].Episode != 2 || !slices.Equal(r.Seeds, []int{4, 5}) {
		t.Errorf("a short walkthrough, two episodes: %d episodes, seeds %v", len(r.Episodes), r.Seeds)
	}
}
