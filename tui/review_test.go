package tui

import (
	"reflect"
	"testing"
	"time"

	"github.com/lantern-if/lantern/engine"
)

// Review mode in the TUI: v switches it on (the engine is told), a waiting
// proposal is shown with its keys before anything is played, enter accepts,
// e edits (the input opens with the proposal), x rejects with a reason, r
// rejects and remembers.
func TestReviewKeys(t *testing.T) {
	h := newHarness(t, 120, 30, "dark")
	h.events(opening(), engine.Idle{Mode: engine.Paused})
	h.key("v")
	if got := h.pending(); !reflect.DeepEqual(got, []engine.Command{engine.SetReview{On: true}}) {
		t.Fatalf("v sent %#v", got)
	}
	h.flush()
	ask := func(action string) {
		h.events(engine.ReviewRequested{Turn: 1, Attempt: 1, Action: action, Reasoning: "the orchard is north",
			Verdict: engine.Verdict{Action: action, Stage: engine.StageModel, Score: 0.6, Accepted: true}})
	}
	ask("north")
	h.mustSee(`T1: "north" (critic model +0.6)`, "enter play", "e edit", "x reject", "r reject+remember", "? help", "waiting for you")

	h.key("enter")
	if got := h.pending(); !reflect.DeepEqual(got, []engine.Command{engine.ReviewDecision{Decision: engine.DecisionAccept}}) {
		t.Fatalf("enter sent %#v", got)
	}
	h.flush()

	ask("north")
	h.key("e")
	if d, ok := topIs[*reviewPrompt](&h.m.dialogs); !ok || d.ti.Value() != "north" {
		t.Fatalf("e: dialog %T, want the edit line with the proposal", h.m.dialogs.top())
	}
	h.key("ctrl+u") // clear the line (textinput's delete-before-cursor)
	h.typeText("look")
	h.key("enter")
	if got := h.pending(); !reflect.DeepEqual(got, []engine.Command{engine.ReviewDecision{Decision: engine.DecisionEdit, Command: "look"}}) {
		t.Fatalf("edit sent %#v", got)
	}
	h.flush()
	reviewRejections(t, h, ask)
}

// reviewRejections: x and r reject with a reason (r remembers it), esc
// goes back to the proposal, an auto-accept counts down, a played turn
// clears the review.
func reviewRejections(t *testing.T, h *harness, ask func(string)) {
	t.Helper()
	ask("east")
	h.key("x")
	h.typeText("the door is boarded")
	h.key("enter")
	if got := h.pending(); !reflect.DeepEqual(got, []engine.Command{engine.ReviewDecision{Decision: engine.DecisionReject, Reason: "the door is boarded"}}) {
		t.Fatalf("reject sent %#v", got)
	}
	h.flush()

	ask("east")
	h.key("r")
	h.mustSee("remembered here")
	h.typeText("still boarded")
	h.key("enter")
	if got := h.pending(); !reflect.DeepEqual(got, []engine.Command{engine.ReviewDecision{Decision: engine.DecisionReject, Reason: "still boarded", Remember: true}}) {
		t.Fatalf("reject and remember sent %#v", got)
	}
	h.flush()

	// Esc from the reason goes back to the proposal; nothing is sent.
	ask("east")
	h.key("x", "esc")
	if len(h.pending()) != 0 || h.m.review.pending == nil || h.m.dialogs.top() != nil {
		t.Fatalf("esc from the reason: sent %#v, pending %v", h.pending(), h.m.review.pending)
	}
	// An auto-accept shows its countdown.
	h.events(engine.ReviewRequested{Turn: 2, Action: "south", Deadline: time.Now().Add(9 * time.Second)})
	h.mustSee("auto in ")
	// Playing the turn clears the review.
	h.events(turn(2, engine.ActorAgent, "south", "The well.", 0, "Old Well"))
	if h.m.review.pending != nil {
		t.Fatal("a played turn leaves the review shown")
	}
}
