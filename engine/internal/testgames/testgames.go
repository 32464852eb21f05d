// Package testgames loads the story files and walkthroughs that the
// engine's tests share (Zork I, Jericho's suite, the built-in demo) from the
// shared test data. It is for tests only and imports nothing of the engine,
// so the environment's own tests can use it too.
package testgames

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/sharedtest"
	"github.com/lantern-if/lantern/zmachine"
)

// ZorkMD5 is the md5 of Zork I release 88 in the shared data.
const ZorkMD5 = "1d4606016ea58ee038da53d994392323"

// Walkthrough is one entry of the shared suite's walkthroughs.json.
type Walkthrough struct {
	Seed        int      `json:"seed"`
	Walkthrough []string `json:"walkthrough"`
	MaxScore    int      `json:"max_score"`
}

// Game is a shared story file with its walkthrough.
type Game struct {
	File  string
	Story *zmachine.Story
	Walk  Walkthrough
}

// Zork is Zork I and its path in the shared data.
func Zork(t testing.TB) (*zmachine.Story, string) {
	t.Helper()
	p := sharedtest.File(t, "stories/zork1.z3")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s, err := zmachine.LoadStory(data)
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

// ZorkWalkthrough is the Zork I walkthrough, one command a line.
func ZorkWalkthrough(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile(sharedtest.File(t, "walkthroughs/zork1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

// Demo is the built-in demo story.
func Demo(t testing.TB) *zmachine.Story {
	t.Helper()
	story, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		t.Fatal(err)
	}
	return story
}

// Jericho is Jericho's suite in the shared data, sorted by file name: the
// representative games, or all with LANTERN_JERICHO=all
// (sharedtest.JerichoPlayed). The test is skipped when the suite is missing and
// the data is not required.
func Jericho(t *testing.T) []Game {
	t.Helper()
	dir := filepath.Join(sharedtest.Dir(t), "jericho")
	data, err := os.ReadFile(filepath.Join(dir, "walkthroughs.json"))
	if err != nil {
		if sharedtest.Required() {
			t.Fatal(err)
		}
		t.Skipf("jericho suite: %v", err)
	}
	var wts map[string]Walkthrough
	if err := json.Unmarshal(data, &wts); err != nil {
		t.Fatalf("walkthroughs.json: %v", err)
	}
	var out []Game
	for file, w := range wts {
		if !sharedtest.JerichoPlayed(file) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		st, err := zmachine.LoadStory(raw)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		out = append(out, Game{File: file, Story: st, Walk: w})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out
}
