package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/game_files/bindings"
	"github.com/lantern-if/lantern/managers/memsynth"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/oracle"
	"github.com/lantern-if/lantern/sharedtest"
	"github.com/lantern-if/lantern/zmachine"
)

// formatRecorder notes each chat call's role and the properties of the
// reply schema it asked for (which tells an objective discovery from a
// completion check).
type formatRecorder struct {
	next  http.Handler
	mu    sync.Mutex
	calls []struct {
		role  string
		props map[string]bool
	}
}

func (r *formatRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path == "/api/chat" {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		var chat struct {
			Format struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"format"`
		}
		json.Unmarshal(body, &chat)
		props := map[string]bool{}
		for p := range chat.Format.Properties {
			props[p] = true
		}
		r.mu.Lock()
		r.calls = append(r.calls, struct {
			role  string
			props map[string]bool
		}{req.Header.Get("X-Lantern-Role"), props})
		r.mu.Unlock()
	}
	r.next.ServeHTTP(w, req)
}

// triggeredTurns replays the walkthrough's first turns on the story itself
// and counts the turns a set of memory triggers fires on (the design's:
// a score change, a death, a first visit, a long answer in place, a move,
// an inventory change; the lean default's fewer).
func triggeredTurns(t *testing.T, storyPath string, cmds []string, seed int, triggers memsynth.TriggerSet) int {
	t.Helper()
	story := loadStoryFile(t, storyPath)
	bs, err := env.LoadBindings(bindings.FS())
	if err != nil {
		t.Fatal(err)
	}
	e, err := env.NewEnv(story, env.EnvOptions{Seed: seed, Binding: bs.For(story.Info().MD5)})
	if err != nil {
		t.Fatal(err)
	}
	obs, err := e.Start()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{obs.Location.ID: true}
	n := 0
	for _, c := range cmds {
		next, err := e.Step(c)
		if err != nil {
			t.Fatal(err)
		}
		turn := domain.Turn{FromID: obs.Location.ID, ToID: next.Location.ID, ToName: next.Location.Name, Response: next.Text,
			ScoreBefore: obs.Score, ScoreAfter: next.Score, InvBefore: itemNames(obs.Inventory), InvAfter: itemNames(next.Inventory),
			Died: next.Died, NewRoom: !seen[next.Location.ID]}
		seen[next.Location.ID] = true
		if len(triggers.Why(turn)) > 0 {
			n++
		}
		obs = next
	}
	return n
}

func itemNames(items []env.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Name)
	}
	return out
}

// TestZorkGPTProfileCadence plays 40 turns of Zork I with the oracle under
// --profile zorkgpt and counts what the managers did against the design
// documents' loop: the critic model on every proposal, the extractor every
// turn, a supervisor round every turn, objectives every 20 turns (the
// first on turn 1), memory synthesis after every turn the design's triggers fire on
// (moves and inventory changes included). The lean default, for contrast,
// asks for fewer memories and holds a supervisor round every 40 turns, or
// sooner when the turns since the last would not fit its context whole (a
// few rounds in 40 turns of Zork I's long room descriptions).
func TestZorkGPTProfileCadence(t *testing.T) {
	storyPath := sharedtest.File(t, "stories/zork1.z3")
	walk := sharedtest.File(t, "walkthroughs/zork1.txt")
	cmds, err := oracle.LoadScript(walk)
	if err != nil {
		t.Fatal(err)
	}
	const turns = 40
	want := triggeredTurns(t, storyPath, cmds[:turns], 12, memsynth.SeedTriggers())
	for _, tc := range []struct {
		profile                   string
		rounds, discoveries, mems int
	}{
		{"zorkgpt", turns, turns / 20, want},
		{"lean", -4, turns / 40, -1},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			dir, _ := isolate(t)
			rec := &formatRecorder{next: oracle.New(oracle.Options{Script: cmds})}
			srv := httptest.NewServer(rec)
			t.Cleanup(srv.Close)
			t.Setenv("OLLAMA_HOST", strings.TrimPrefix(srv.URL, "http://"))
			work := filepath.Join(dir, "work")
			code, _, stderr := runCLI(t, "", "run", "--headless", "--json", "--model", "oracle", "--seed", "12", "--max-turns", "40",
				"--story", storyPath, "--workdir", work, "--profile", tc.profile)
			if code != exitOK {
				t.Fatalf("run: exit %d\n%s", code, stderr)
			}
			dbs, _ := filepath.Glob(filepath.Join(work, "*", "lantern.db"))
			if len(dbs) != 1 {
				t.Fatalf("databases %q", dbs)
			}
			db, err := rundb.OpenRunDB(dbs[0], storyMD5(t, storyPath))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx := context.Background()
			rounds, err := db.Rounds(ctx)
			if err != nil {
				t.Fatal(err)
			}
			decisions, err := db.Decisions(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			rec.mu.Lock()
			discoveries, memCalls, criticCalls, extractorCalls := 0, 0, 0, 0
			for _, c := range rec.calls {
				switch {
				case c.role == config.RoleObjectives && c.props["objectives"]:
					discoveries++
				case c.role == config.RoleMemory:
					memCalls++
				case c.role == config.RoleCritic:
					criticCalls++
				case c.role == config.RoleExtractor:
					extractorCalls++
				}
			}
			// The design's loop asks the critic model about every proposal
			// and the extractor after every turn; the lean one only where
			// the game cannot decide, and no extractor.
			if tc.profile == "zorkgpt" && (float64(criticCalls) < 0.95*turns || extractorCalls < turns) {
				t.Errorf("zorkgpt: %d critic and %d extractor calls in %d turns, want the critic on every proposal (≥ 0.95 a turn) and the extractor every turn",
					criticCalls, extractorCalls, turns)
			}
			if tc.profile == "lean" && (extractorCalls != 0 || float64(criticCalls) > 0.2*turns) {
				t.Errorf("lean: %d critic and %d extractor calls in %d turns, want the critic only where the game cannot decide and no extractor",
					criticCalls, extractorCalls, turns)
			}
			rec.mu.Unlock()
			t.Logf("%s: %d supervisor rounds, %d objective discoveries, %d memory decisions (%d calls), %d critic and %d extractor calls; the seeds' triggers fire on %d of %d turns",
				tc.profile, len(rounds), discoveries, len(decisions), memCalls, criticCalls, extractorCalls, want, turns)
			if tc.rounds < 0 && (len(rounds) < 1 || len(rounds) > -tc.rounds) {
				t.Errorf("%d supervisor rounds in %d turns, want 1 to %d", len(rounds), turns, -tc.rounds)
			}
			if tc.rounds > 0 && len(rounds) != tc.rounds {
				t.Errorf("%d supervisor rounds in %d turns, want %d", len(rounds), turns, tc.rounds)
			}
			if discoveries != tc.discoveries {
				t.Errorf("%d objective discoveries in %d turns, want %d", discoveries, turns, tc.discoveries)
			}
			if tc.mems >= 0 && (len(decisions) != tc.mems || memCalls != tc.mems) {
				t.Errorf("%d memory decisions (%d calls), want one per triggered turn: %d", len(decisions), memCalls, tc.mems)
			}
			if tc.mems < 0 && len(decisions) >= want {
				t.Errorf("the lean triggers asked %d times, no fewer than the seeds' %d", len(decisions), want)
			}
		})
	}
}

func storyMD5(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := zmachine.LoadStory(data)
	if err != nil {
		t.Fatal(err)
	}
	return s.Info().MD5
}
