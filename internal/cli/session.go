package cli

import (
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
	return session.Open(session.Options{
		Story: sf.story, Name: sf.name, Binding: sf.binding, WorkDir: cfg.WorkDir, Client: client, Agent: agent, Autosave: true,
		Engine: ecfg, MemoryWindow: cfg.Loop.MemoryHistoryWindow, MemoryTriggers: memoryTriggers(cfg), Research: cfg.Managers.ResearchRounds, Planning: planning(cfg),
		Inline: cfg.Loop.AfterTurn == config.AfterTurnInline, MemoryWithAgent: cfg.Managers.MemorySynthesis == config.MemoryWithAgent,
	})
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
