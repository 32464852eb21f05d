package tui

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden views in testdata/golden")

// scene plays a short run into the model: an opening, agent and human turns,
// a turn's reasoning with a rejected and an accepted proposal, memories,
// objectives and metrics.
func scene(h *harness) {
	em := newEngineMap()
	h.events(opening(), em.opened(3, "Muddy Lane"), engine.Idle{Mode: engine.Paused})
	h.m.Update(memoriesMsg{secs: sampleSections()})
	h.m.Update(objectivesMsg{active: []string{"Find a way into the cottage", "Light the lighthouse lamp"}, completed: []string{"Explore the lane"}})
	h.key("space")
	h.events(
		engine.TurnStarted{Turn: 1, Actor: engine.ActorAgent},
		engine.ProposalMade{Turn: 1, Attempt: 1, Action: "north", Reasoning: "An orchard rustles to the north; exploring it first."},
		engine.CriticVerdict{Turn: 1, Attempt: 1, Action: "north", Score: 0.5, Justification: "a new room", Accepted: true, Stage: "model"},
		turn(1, engine.ActorAgent, "north", "Orchard\nGnarled apple trees lean together here, gossiping in the breeze. The biggest one looks easy to climb.", 4, "Orchard"),
		em.moved("north", 4, "Orchard"),
		turn(2, engine.ActorAgent, "take all", "packed lunch: Taken.", 4, "Orchard"),
		engine.TurnStarted{Turn: 3, Actor: engine.ActorHuman},
		turn(3, engine.ActorHuman, "inventory", "You are carrying:\n  a packed lunch", 4, "Orchard"),
		turn(4, engine.ActorAgent, "south", "Muddy Lane\nA muddy lane ends here at a crooked little cottage to the east.", 3, "Muddy Lane"),
		em.moved("south", 3, "Muddy Lane"),
		engine.TurnCompleted{Result: engine.TurnResult{Turn: 4}, LLM: llm.Summary{Calls: 2, PromptTokens: 1342, Latency: 2300 * time.Millisecond}},
		engine.TurnStarted{Turn: 5, Actor: engine.ActorAgent},
		engine.ReasoningDelta{Turn: 5, Text: "The door is boarded; the well to the south may hide a way in.", Thinking: true},
		engine.ProposalMade{Turn: 5, Attempt: 1, Action: "open door", Reasoning: "Try the cottage door."},
		engine.CriticVerdict{Turn: 5, Attempt: 1, Action: "open door", Score: -1, Justification: "failed here before", Stage: "ground-truth"},
		engine.ProposalMade{Turn: 5, Attempt: 2, Action: "south", Reasoning: "Look at the well instead."},
	)
}

func TestGoldenViews(t *testing.T) {
	for _, theme := range []string{"dark", "light"} {
		for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
			name := fmt.Sprintf("%s_%dx%d", theme, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				h := newHarness(t, size[0], size[1], theme)
				scene(h)
				golden(t, name, h.m.Render())
			})
		}
	}
	t.Run("unreachable_80x24", func(t *testing.T) {
		h := newHarness(t, 80, 24, "dark")
		h.m.opts.Models = &fakeModels{host: "127.0.0.1:9"}
		h.m.server.models = h.m.opts.Models
		scene(h)
		h.m.Update(ollamaMsg{err: unreachable("127.0.0.1:9")})
		golden(t, "unreachable_80x24", h.m.Render())
	})
	t.Run("help_80x24", func(t *testing.T) {
		h := newHarness(t, 80, 24, "dark")
		scene(h)
		h.key("?")
		golden(t, "help_80x24", h.m.Render())
		h.key("pgdown")
		golden(t, "help_80x24_scrolled", h.m.Render())
		h.key("/", "o", "b", "j", "enter")
		golden(t, "help_80x24_search", h.m.Render())
	})
	t.Run("episodes_80x24", func(t *testing.T) {
		h := newHarness(t, 80, 24, "dark")
		h.m.opts.Episodes = sampleEpisodes()
		scene(h)
		for _, msg := range run(h.key("E")) {
			h.m.Update(msg)
		}
		golden(t, "episodes_80x24", h.m.Render())
	})
	for _, w := range []int{80, 120, 200} {
		name := fmt.Sprintf("statusbar_%d", w)
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, w, 30, "dark")
			scene(h)
			h.events(engine.SupervisorChanged{Turn: 4, Round: 1, Trust: 0.3, Work: 0.2, Comfort: 0.1})
			rows := strings.Split(h.m.Render(), "\n")
			golden(t, name, strings.Join(rows[len(rows)-2:], "\n"))
		})
	}
	t.Run("memory_form_120x40", func(t *testing.T) {
		h := newHarness(t, 120, 40, "dark")
		scene(h)
		h.key("m", "down", "e")
		golden(t, "memory_form_120x40", h.m.Render())
	})
}

// golden compares a rendered screen with testdata/golden/NAME.golden (ANSI
// colours included, so both themes are checked); -update rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	want, same := sharedtest.GoldenFile(t, filepath.Join("testdata", "golden", name+".golden"), []byte(got), *update)
	if same {
		return
	}
	g, w := strings.Split(ansi.Strip(got), "\n"), strings.Split(ansi.Strip(string(want)), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%s differs from the golden view at row %d:\n got: %q\nwant: %q\n(run with -update if the change is meant)", name, i+1, gl, wl)
		}
	}
	t.Fatalf("%s: the colours differ from the golden view (the text is the same); run with -update if the change is meant", name)
}

// sampleEpisodes are two stored episodes: one that ended in a death, one
// still being played.
func sampleEpisodes() fakeEpisodes {
	return fakeEpisodes{turns: map[int64][]rundb.Turn{
		1: {{Episode: 1, Turn: 1, Actor: "agent", Action: "north", Response: "Orchard", LocationID: 4, Location: "Orchard", Moves: 1},
			{Episode: 1, Turn: 2, Actor: "human", Action: "climb tree", Response: "Up the Apple Tree", LocationID: 5, Location: "Up the Apple Tree", Moves: 2, Score: 5}},
		2: {{Episode: 2, Turn: 1, Actor: "agent", Action: "south", Response: "Old Well", LocationID: 6, Location: "Old Well", Moves: 1}},
	}}
}
