package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/engine/env"
)

// zorkEngine is an engine over Zork I (seed 12) after the given commands,
// not running: tests call its scope and play directly.
func zorkEngine(t *testing.T, cmds ...string) *Engine {
	t.Helper()
	env := startEnv(t, env.EnvOptions{Seed: 12})
	obs, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	e := New(Options{Config: Config{CriticThreshold: -0.2}, Env: env, Agent: &listAgent{}})
	e.st.Obs = obs
	for _, c := range cmds {
		if obs, err = env.Step(c); err != nil {
			t.Fatal(err)
		}
		e.st.Obs = obs
	}
	return e
}

// TestCriticScopeLocalGlobals: objects a room shares with its neighbours
// (Zork's window and house are local globals, not the room's children)
// pass the ground-truth stage; objects nowhere near are still refused.
func TestCriticScopeLocalGlobals(t *testing.T) {
	tests := []struct {
		name   string
		path   []string
		action string
		ok     bool
	}{
		{"open window behind the house", []string{"north", "east"}, "open window", true},
		{"enter window behind the house", []string{"north", "east", "open window"}, "enter window", true},
		{"examine house", []string{"north", "east"}, "examine house", true},
		{"examine house west of it", nil, "examine house", true},
		{"climb tree in the forest path", []string{"north", "north"}, "climb tree", true},
		{"open mailbox where it is", nil, "open mailbox", true},
		{"take mailbox behind the house", []string{"north", "east"}, "take mailbox", false},
		{"open window west of the house", nil, "open window", false},
		{"take house up the tree (a local global there)", []string{"north", "north", "up"}, "take house", true},
		{"take house in the living room", []string{"north", "east", "open window", "west", "west"}, "take house", false},
		{"take egg in the kitchen", []string{"north", "east", "open window", "west"}, "take egg", false},
		{"climb tree west of the house", nil, "climb tree", false},
		{"take trophy case outside", nil, "open case", false},
		{"unknown word", nil, "xyzzyq lamp", false},
		{"examine grue (everywhere; the parser decides)", nil, "examine grue", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := zorkEngine(t, tt.path...)
			why := e.scope().groundTruth(tt.action)
			if (why == "") != tt.ok {
				t.Errorf("at %s, %q: ground truth says %q, want ok=%v (in scope: %v)", e.st.Obs.Location.Name, tt.action, why, tt.ok, e.env.ScopeNames())
			}
		})
	}
}

// TestFailedActionForgottenWhenWorldChanges: "already failed here" holds
// while the world is unchanged, is forgotten once it changes, and never
// carries into a new episode.
func TestFailedActionForgottenWhenWorldChanges(t *testing.T) {
	e := zorkEngine(t, "north", "east")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for range e.Events() {
		}
	}()
	play := func(a string) {
		t.Helper()
		if err := e.play(ctx, ActorAgent, a, Proposal{Action: a}, nil, turnClock{start: time.Now()}, nil); err != nil {
			t.Fatal(err)
		}
	}
	play("west") // the window is closed: nothing changes
	if why := e.scope().groundTruth("west"); !strings.Contains(why, "already failed") {
		t.Fatalf("west right after failing: %q", why)
	}
	play("open window")
	if why := e.scope().groundTruth("west"); why != "" {
		t.Fatalf("west after the window opened: %q", why)
	}
	play("close window")
	play("west")
	if why := e.scope().groundTruth("west"); why == "" {
		t.Fatal("west failed again with the window closed, yet is not remembered")
	}
	if err := e.startEpisode(ctx, true); err != nil {
		t.Fatal(err)
	}
	if len(e.failed) != 0 {
		t.Errorf("failures carried into a new episode: %v", e.failed)
	}
}

// TestParserDecidesWhatTheTreeMisses: the grue is in no room's contents
// nor local globals; only asking the parser shows it is always in scope.
func TestParserDecidesWhatTheTreeMisses(t *testing.T) {
	e := zorkEngine(t)
	s := e.scope()
	s.Refuses = nil
	if why := s.groundTruth("examine grue"); why == "" {
		t.Fatal("without the parser the grue should look out of scope (the test lost its point)")
	}
	refused, ok := e.env.Refuses("examine grue", "grue", e.dict, e.wordLen)
	if !ok || refused {
		t.Errorf("parser on examine grue: refused=%v ok=%v", refused, ok)
	}
	refused, ok = e.env.Refuses("take egg", "egg", e.dict, e.wordLen)
	if !ok || !refused {
		t.Errorf("parser on take egg west of the house: refused=%v ok=%v", refused, ok)
	}
	before := e.env.Machine().DynamicMemory()
	e.env.Refuses("take egg", "egg", e.dict, e.wordLen)
	if string(before) != string(e.env.Machine().DynamicMemory()) {
		t.Error("asking the parser changed the machine")
	}
}

func TestLookReadsTheFullDescription(t *testing.T) {
	e := zorkEngine(t, "north", "east", "north", "east")
	if d := e.env.Look(); !strings.Contains(d, "small window") {
		t.Errorf("look in a probe: %q", d)
	}
}
