package cli

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/zmachine"
)

// storyFile is an opened story: the machine's image, the name it goes by
// (for saves and the work dir) and its binding (nil: none).
type storyFile struct {
	story   *zmachine.Story
	name    string
	binding *env.Binding
}

// openSession builds a session from the configuration: the one
// constructor of the TUI's, run's and bench's sessions. client is nil for
// a script agent without models; agent nil plays the model agent; episodes
// -1 plays until the person quits; paused starts the engine paused.
func openSession(cfg *config.Config, sf storyFile, client *llm.Client, agent engine.Agent, episodes int, paused bool) (*session.Session, error) {
	ecfg := engineConfig(cfg, episodes)
	ecfg.StartPaused = paused
	withAgent, why := memorySynthesis(cfg, client, os.Getenv)
	return session.Open(session.Options{
		Story: sf.story, Name: sf.name, Binding: sf.binding, WorkDir: cfg.WorkDir, Client: client, Agent: agent, Autosave: true,
		Engine: ecfg, MemoryWindow: cfg.Loop.MemoryHistoryWindow, MemoryTriggers: memoryTriggers(cfg), Research: cfg.Managers.ResearchRounds, Planning: planning(cfg),
		Inline: cfg.Loop.AfterTurn == config.AfterTurnInline, MemoryWithAgent: withAgent, MemoryWhy: why,
	})
}

// parallelSlots is the Ollama server's parallel slots when its
// environment is ours (OLLAMA_NUM_PARALLEL), else 0.
func parallelSlots(getenv func(string) string) int {
	n, err := strconv.Atoi(getenv("OLLAMA_NUM_PARALLEL"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// memorySynthesis chooses where memory questions go, and says why:
// managers.memory_synthesis, and with "auto" the server's slots. One slot
// (a reply at a time) puts the question in the agent's next reply, where
// it costs no call of its own; several run the memory role's call beside
// the next proposal, where it costs no wait. The slots are server.slots,
// else OLLAMA_NUM_PARALLEL (the server's environment, when it is ours),
// else what the server says (llama.cpp's /props, the oracle's), else 1
// (Ollama's default).
func memorySynthesis(cfg *config.Config, client *llm.Client, getenv func(string) string) (withAgent bool, why string) {
	switch cfg.Managers.MemorySynthesis {
	case config.MemoryWithAgent:
		return true, "managers.memory_synthesis = with_agent"
	case config.MemorySeparate:
		return false, "managers.memory_synthesis = separate"
	}
	slots, from := cfg.Server.Slots, "server.slots"
	if slots <= 0 {
		if n := parallelSlots(getenv); n > 0 {
			slots, from = n, "OLLAMA_NUM_PARALLEL"
		}
	}
	if slots <= 0 && client != nil {
		if n := client.ServerSlots(context.Background()); n > 0 {
			slots, from = n, "the server's /props"
		}
	}
	if slots <= 0 {
		slots, from = 1, "assumed, Ollama's default"
	}
	if slots > 1 {
		return false, fmt.Sprintf("auto: the server serves %s (%s), so the memory call runs beside the next proposal", llm.SlotsText(slots), from)
	}
	return true, fmt.Sprintf("auto: the server serves %s (%s), so the agent's reply carries the question", llm.SlotsText(slots), from)
}

// memoryTriggers is managers.memory_triggers as a list (validated by
// config.Load).
func memoryTriggers(cfg *config.Config) []string {
	ts, err := config.ParseMemoryTriggers(cfg.Managers.MemoryTriggers)
	if err != nil || ts == nil {
		return []string{}
	}
	return ts
}
