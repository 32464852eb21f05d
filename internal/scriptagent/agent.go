// Package scriptagent is the agent that plays a walkthrough instead of
// asking a model: the one script agent of `lantern run --agent script:FILE`
// and `lantern bench --agent script:FILE`. Every manager still runs around
// it; the critic is advisory.
package scriptagent

import (
	"context"
	"fmt"
	"sync"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/oracle"
)

// Agent plays its script from the first action at each episode. A turn
// plays the next action; a second proposal for the same turn (the person
// rejected the first) proposes the same action again; a turn number lower
// than the last starts a new episode; a resumed episode skips the actions
// its recorded turns played. When the script runs out it reports
// engine.ErrScriptDone.
type Agent struct {
	actions []string

	mu       sync.Mutex
	next     int // index of the action the next turn plays
	lastTurn int // the turn of the last proposal (0: none this episode)
}

// Load reads a walkthrough: one action per line, blank lines and # comments
// skipped; a script without actions is an error.
func Load(path string) (*Agent, error) {
	acts, err := oracle.LoadScript(path)
	if err != nil {
		return nil, err
	}
	return New(acts), nil
}

// New plays actions.
func New(actions []string) *Agent {
	return &Agent{actions: append([]string(nil), actions...)}
}

// Propose implements engine.Agent.
func (a *Agent) Propose(_ context.Context, _ []llm.Message, _ []string, turn int, onDelta func(llm.Delta)) (engine.Proposal, error) {
	a.mu.Lock()
	switch {
	case turn < a.lastTurn: // a new episode
		a.next = 0
	case turn == a.lastTurn && a.next > 0: // proposing again for the same turn
		a.next--
	}
	a.lastTurn = turn
	if a.next >= len(a.actions) {
		a.mu.Unlock()
		return engine.Proposal{}, engine.ErrScriptDone
	}
	act := a.actions[a.next]
	a.next++
	step := a.next
	a.mu.Unlock()
	r := fmt.Sprintf("Step %d of the script.", step)
	if onDelta != nil {
		onDelta(llm.Delta{Content: r})
	}
	return engine.Proposal{Action: act, Reasoning: r}, nil
}

// Scripted implements engine.Agent: the critic only advises.
func (*Agent) Scripted() bool { return true }

// Skip passes over the first n actions: a resumed episode played them.
func (a *Agent) Skip(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next = min(max(n, 0), len(a.actions))
	a.lastTurn = 0
}

// Remaining is the number of actions left in this episode.
func (a *Agent) Remaining() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.actions) - a.next
}
