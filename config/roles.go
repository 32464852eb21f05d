// Package config holds Lantern's settings: the LLM roles with their models
// and sampling, the loop's intervals and thresholds, prompt budgets, the
// work dir, theme and keys; and lantern.toml loading with precedence
// (defaults < user file < project file < environment < flags) and
// validation that names the key, where its value came from and what is
// allowed. The defaults are ZorkGPT's tuned values.
package config

import "time"

// Role names: every mind in Lantern is one of these, each with its own model
// and sampling.
const (
	RoleAgent      = "agent"
	RoleCritic     = "critic"
	RoleExtractor  = "extractor"
	RoleMemory     = "memory"
	RoleObjectives = "objectives"
	RoleKnowledge  = "knowledge"
	RoleSupervisor = "supervisor"
	RoleRetriever  = "retriever"
)

// RoleNames lists the roles in a stable order.
func RoleNames() []string {
	return []string{RoleAgent, RoleCritic, RoleExtractor, RoleMemory, RoleObjectives, RoleKnowledge, RoleSupervisor, RoleRetriever}
}

// Think selects a model's thinking.
type Think string

const (
	ThinkAuto Think = "auto" // think when the model can
	ThinkOn   Think = "on"
	ThinkOff  Think = "off"
	// Thinking effort levels, for models that take them (Ollama sends
	// them as the think value; a level means thinking is on).
	ThinkLow    Think = "low"
	ThinkMedium Think = "medium"
	ThinkHigh   Think = "high"
)

// Role configures one LLM role.
type Role struct {
	Model         string  `toml:"model"`
	Temperature   float64 `toml:"temperature"`
	TopP          float64 `toml:"top_p"`
	TopK          int     `toml:"top_k"`
	MinP          float64 `toml:"min_p"`
	RepeatPenalty float64 `toml:"repeat_penalty"`
	Seed          int     `toml:"seed"`        // 0: the server's choice
	NumPredict    int     `toml:"num_predict"` // 0: unbounded
	// KeepAlive is how long the server keeps the model loaded after a call,
	// as Ollama reads it: 0 unloads it at once, a negative value keeps it
	// loaded until the server stops.
	KeepAlive time.Duration `toml:"keep_alive"`
	Timeout   time.Duration `toml:"timeout"` // whole call, including retries
	Think     Think         `toml:"think"`
	// NumCtx fixes the context size of the role's model for the session (the
	// largest of the roles on one model wins); 0 leaves it to Lantern.
	NumCtx int `toml:"num_ctx"`
}

// DefaultKeepAlive keeps a model loaded between calls through a session's
// pauses, so it loads once.
const DefaultKeepAlive = 30 * time.Minute

// DefaultModel is the model every role uses unless configured otherwise.
const DefaultModel = "qwen3:4b"

// DefaultRoles returns the built-in role settings.
func DefaultRoles() map[string]Role {
	base := Role{Model: DefaultModel, TopP: 0.95, TopK: 20, RepeatPenalty: 1.0, Timeout: 120 * time.Second, Think: ThinkOff,
		KeepAlive: DefaultKeepAlive}
	with := func(temp float64, think Think) Role {
		r := base
		r.Temperature, r.Think = temp, think
		return r
	}
	return map[string]Role{
		RoleAgent:      with(0.6, ThinkAuto),
		RoleCritic:     with(0.1, ThinkOff),
		RoleExtractor:  with(0.1, ThinkOff),
		RoleMemory:     with(0.3, ThinkOff),
		RoleObjectives: with(0.3, ThinkOff),
		RoleKnowledge:  with(0.3, ThinkOff),
		RoleSupervisor: with(0.2, ThinkOff),
		RoleRetriever:  with(0.1, ThinkOff),
	}
}
