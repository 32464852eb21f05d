package session

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/engine/internal/testgames"
	"github.com/lantern-if/lantern/game_files/bindings"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/zmachine"
)

func zork(t testing.TB) (*zmachine.Story, string) { return testgames.Zork(t) }

func walkthrough(t testing.TB) []string { return testgames.ZorkWalkthrough(t) }

func zorkBinding(t testing.TB) *env.Binding {
	t.Helper()
	bs, err := env.LoadBindings(bindings.FS())
	if err != nil {
		t.Fatal(err)
	}
	return bs.For(testgames.ZorkMD5)
}

// gateAgent proposes what the test feeds it, one proposal per Propose, and
// tells the test when a proposal starts.
type gateAgent struct {
	started   chan struct{}
	proposals chan engine.Proposal
}

func newGateAgent() *gateAgent {
	return &gateAgent{started: make(chan struct{}, 8), proposals: make(chan engine.Proposal, 8)}
}

func (g *gateAgent) Propose(ctx context.Context, _ []llm.Message, _ []string, _ int, onDelta func(llm.Delta)) (engine.Proposal, error) {
	g.started <- struct{}{}
	onDelta(llm.Delta{Content: "thinking..."})
	select {
	case p := <-g.proposals:
		return p, nil
	case <-ctx.Done():
		return engine.Proposal{}, ctx.Err()
	}
}

func (g *gateAgent) Scripted() bool { return false }

// harness drives a session's engine from a test.
type harness struct {
	t   *testing.T
	e   *engine.Engine
	ctx context.Context
}

// until collects events up to and including the first one of type stop,
// leaving out streaming deltas (which may be dropped by design).
func (h *harness) until(stop engine.Event) []string {
	h.t.Helper()
	var names []string
	want := reflect.TypeOf(stop)
	for ev := range h.e.Events() {
		if _, ok := ev.(engine.ReasoningDelta); ok {
			continue
		}
		n := reflect.TypeOf(ev).Name()
		switch v := ev.(type) {
		case engine.TurnResult:
			n += fmt.Sprintf("(%s:%s)", v.Actor, v.Action)
		case engine.Idle:
			n += "(" + string(v.Mode) + ")"
		case engine.ErrorEvent:
			n += "(" + v.Err.Error() + ")"
		}
		names = append(names, n)
		if reflect.TypeOf(ev) == want {
			return names
		}
	}
	h.t.Fatalf("events ended before %s: %v", want.Name(), names)
	return nil
}

func (h *harness) send(c engine.Command) {
	if err := h.e.Send(h.ctx, c); err != nil {
		h.t.Fatal(err)
	}
}

func expect(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("events\n got: %v\nwant: %v", got, want)
	}
}
