package lineplay

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/lantern-if/lantern/sharedtest"
	"github.com/lantern-if/lantern/zmachine"
)

// jerichoGame is one entry of the suite's walkthroughs.json.
type jerichoGame struct {
	Seed        int      `json:"seed"`
	Walkthrough []string `json:"walkthrough"`
	MaxScore    int      `json:"max_score"`
}

func loadJerichoSuite(t testing.TB) (string, map[string]jerichoGame) {
	t.Helper()
	path := sharedtest.File(t, "jericho/walkthroughs.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var games map[string]jerichoGame
	if err := json.Unmarshal(data, &games); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	if len(games) == 0 {
		t.Fatalf("%s lists no games", path)
	}
	return filepath.Dir(path), games
}

// playLikeCLI plays as `lantern play --plain --seed SEED --story FILE` does:
// the save prompt offers the story's own name, as dfrotz's does.
func playLikeCLI(t testing.TB, path string, seed int, input string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	story, err := zmachine.LoadStory(data)
	if err != nil {
		return "", err
	}
	base := filepath.Base(path)
	opts := Options{Seed: seed, SaveDir: t.TempDir(), DefaultSave: strings.TrimSuffix(base, filepath.Ext(base)) + ".qzl"}
	var out bytes.Buffer
	err = Run(context.Background(), story, opts, strings.NewReader(input), &out)
	return out.String(), err
}

// TestJerichoSuiteMatchesDfrotz plays the walkthroughs of the shared Jericho
// suite (the representative games; all with LANTERN_JERICHO=all) with its seed in Lantern and in dfrotz (-Z 0: no interpreter
// warnings) and requires the same transcript once white space is folded.
func TestJerichoSuiteMatchesDfrotz(t *testing.T) {
	dir, games := loadJerichoSuite(t)
	sharedtest.Dfrotz(t)
	names := make([]string, 0, len(games))
	for name := range games {
		if sharedtest.JerichoPlayed(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)

	var mu sync.Mutex
	results := map[string]string{}
	record := func(name, res string) {
		mu.Lock()
		results[name] = res
		mu.Unlock()
	}
	t.Run("games", func(t *testing.T) {
		for _, name := range names {
			g := games[name]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				path := filepath.Join(dir, name)
				if _, err := os.Stat(path); err != nil {
					record(name, "missing")
					t.Fatalf("story %s listed but absent: %v", name, err)
				}
				input := strings.Join(g.Walkthrough, "\n") + "\n"
				ours, err := playLikeCLI(t, path, g.Seed, input)
				if err != nil {
					record(name, "error: "+err.Error())
					t.Fatalf("lantern: %v", err)
				}
				theirs := sharedtest.RunDfrotz(t, "", path, g.Seed, input, "-Z", "0")
				if a, b := sharedtest.Fold(ours), sharedtest.Fold(theirs); a != b {
					record(name, "differs")
					t.Fatalf("%s (seed %d, %d commands) differs from dfrotz %s", name, g.Seed, len(g.Walkthrough), sharedtest.FirstDiff(a, b))
				}
				record(name, "identical")
			})
		}
	})
	same := 0
	for _, name := range names {
		res, ok := results[name]
		if !ok {
			res = "not run"
		}
		if res == "identical" {
			same++
		}
		t.Logf("%-18s seed %-2d %4d commands: %s", name, games[name].Seed, len(games[name].Walkthrough), res)
	}
	t.Logf("identical on %d of %d games", same, len(names))
}
