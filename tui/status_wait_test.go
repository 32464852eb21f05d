package tui

import (
	"testing"
	"time"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
)

// The status bar says how long the last turn kept the person waiting
// against the agent's own call; a person's turn (no agent time) says
// nothing of it.
func TestStatusShowsTheWaitAgainstTheAgent(t *testing.T) {
	h := newHarness(t, 200, 40, "dark")
	h.events(opening(), engine.TurnCompleted{Result: engine.TurnResult{Turn: 1}, Span: 3 * time.Second, Agent: 2 * time.Second,
		LLM: llm.Summary{Calls: 2, PromptTokens: 900, Latency: 3 * time.Second}}, engine.Idle{Turn: 1, Mode: engine.Paused})
	h.mustSee("turn 3.0 s · agent 2.0 s (1.5×)")

	h = newHarness(t, 200, 40, "dark")
	h.events(opening(), engine.TurnCompleted{Result: engine.TurnResult{Turn: 1}, Span: time.Second}, engine.Idle{Turn: 1, Mode: engine.Paused})
	h.mustNotSee("agent 0")
}
