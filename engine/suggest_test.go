package engine

import (
	"slices"
	"testing"
)

// SuggestActions answers, while paused and while the agent thinks, with
// what the game lets the player do here: West of House's exits first,
// then its world-changing actions.
func TestSuggestActionsListsWhatTheGameAllows(t *testing.T) {
	g := newGateAgent()
	h := startEngine(t, g, Config{StartPaused: true})
	h.until(Idle{})
	check := func(when string) {
		t.Helper()
		for ev := range h.e.Events() {
			s, ok := ev.(ActionsSuggested)
			if !ok {
				continue
			}
			if len(s.Actions) < 3 || s.Actions[0] != "north" || !slices.Contains(s.Actions, "open mailbox") {
				t.Fatalf("%s: suggested %v, want the exits (north first) and open mailbox", when, s.Actions)
			}
			return
		}
		t.Fatalf("%s: no ActionsSuggested", when)
	}
	h.send(SuggestActions{})
	check("paused")
	h.send(Step{})
	<-g.started
	h.send(SuggestActions{})
	check("while the agent thinks")
	g.proposals <- Proposal{Action: "north"}
	h.until(Idle{})
}
