package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/lantern-if/lantern/llm"
)

// streamAgent streams n reasoning deltas (and n thinking ones) with its
// first proposal, tells the test (streamed), then proposes "look"; later
// proposals wait for the end.
type streamAgent struct {
	n        int
	streamed chan struct{}
	calls    atomic.Int32
}

func (a *streamAgent) Propose(ctx context.Context, _ []llm.Message, _ []string, _ int, onDelta func(llm.Delta)) (Proposal, error) {
	if a.calls.Add(1) > 1 {
		<-ctx.Done()
		return Proposal{}, ctx.Err()
	}
	for i := range a.n {
		onDelta(llm.Delta{Content: fmt.Sprintf("c%d ", i), Thinking: fmt.Sprintf("t%d ", i)})
	}
	close(a.streamed)
	return Proposal{Action: "look"}, nil
}

func (*streamAgent) Scripted() bool { return false }

// TestDroppedDeltasCounted: a client that does not read while the agent
// streams more reasoning than the event channel holds loses deltas, and
// the turn's TurnCompleted says how many.
func TestDroppedDeltasCounted(t *testing.T) {
	agent := &streamAgent{n: 300, streamed: make(chan struct{})} // 600 deltas, more than the channel holds
	h := startEngine(t, agent, Config{})
	<-agent.streamed // nothing was read while the agent streamed
	delivered := 0
	for ev := range h.e.Events() {
		switch ev := ev.(type) {
		case ReasoningDelta:
			if ev.Turn == 1 {
				delivered++
			}
		case TurnCompleted:
			if ev.Result.Turn != 1 {
				t.Fatalf("turn %d completed first", ev.Result.Turn)
			}
			if ev.DroppedDeltas == 0 {
				t.Fatalf("no delta counted as dropped (%d delivered of %d)", delivered, 2*agent.n)
			}
			if got, want := ev.DroppedDeltas, 2*agent.n-delivered; got != want {
				t.Fatalf("DroppedDeltas %d, want %d (%d delivered of %d)", got, want, delivered, 2*agent.n)
			}
			return
		}
	}
	t.Fatal("events ended before TurnCompleted")
}

// TestNoDeltasDroppedWhenRead: a client that keeps up loses nothing and
// the count stays 0.
func TestNoDeltasDroppedWhenRead(t *testing.T) {
	agent := &streamAgent{n: 20, streamed: make(chan struct{})}
	h := startEngine(t, agent, Config{})
	delivered := 0
	for ev := range h.e.Events() {
		switch ev := ev.(type) {
		case ReasoningDelta:
			delivered++
		case TurnCompleted:
			if ev.DroppedDeltas != 0 || delivered != 2*agent.n {
				t.Fatalf("DroppedDeltas %d, %d of %d delivered", ev.DroppedDeltas, delivered, 2*agent.n)
			}
			return
		}
	}
	t.Fatal("events ended before TurnCompleted")
}
