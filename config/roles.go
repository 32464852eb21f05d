// Package config holds Lantern's settings: the LLM roles with their models
// and sampling, the loop's intervals and thresholds, prompt budgets, the
// work dir, theme and keys; and lantern.toml loading with precedence
// (defaults < user file < project file < environment < flags) and
// validation that names the key, where its value came from and what is
// allowed. The defaults are ZorkGPT's tuned values.
package config

import (
	"strings"
	"time"
)

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
	// KeepAlive is how long the server keeps the model loaded after a call;
	// 0 sends nothing, so the server's own default (OLLAMA_KEEP_ALIVE)
	// holds; a negative value keeps it loaded until the server stops.
	KeepAlive time.Duration `toml:"keep_alive"`
	Timeout   time.Duration `toml:"timeout"` // whole call, including retries
	Think     Think         `toml:"think"`
	// NumCtx fixes the context size of the role's model for the session (the
	// largest of the roles on one model wins); 0 sends none and leaves the
	// size to the server (prompts are fitted to the size it reports).
	NumCtx int `toml:"num_ctx"`
	// The role's server, when it is not the global one ([server], then
	// [ollama] host): see Server.
	API       string `toml:"api"`
	BaseURL   string `toml:"base_url"`
	APIKeyEnv string `toml:"api_key_env"`
	Hosts     string `toml:"hosts"`
}

// The protocols a model server can speak.
const (
	APIOllama = "ollama" // Ollama's native API
	APIOpenAI = "openai" // OpenAI chat completions (llama.cpp, LM Studio, vLLM, Ollama's /v1)
)

// Server says which model server a role talks to and how. A role's own
// keys win over [server]'s; an empty server is [ollama] host on Ollama's
// API.
type Server struct {
	// API is "ollama" (the default) or "openai".
	API string `toml:"api"`
	// BaseURL is the server's URL; for "openai" the base the paths
	// /chat/completions and /models are under ("http://gpu:8080/v1").
	// Empty: [ollama] host (with /v1 added for "openai").
	BaseURL string `toml:"base_url"`
	// APIKeyEnv names the environment variable holding the API key sent as
	// a bearer token; the key itself is never written in lantern.toml.
	APIKeyEnv string `toml:"api_key_env"`
	// Hosts lists several servers, comma-separated; it wins over BaseURL.
	// The global list spreads games (a session on one host, a bench's
	// episodes over all); a role's spreads its requests to the least busy.
	Hosts string `toml:"hosts"`
	// Slots is how many requests the server serves at once (Ollama's
	// OLLAMA_NUM_PARALLEL, llama.cpp's -np); 0: asked of the server
	// (llama.cpp's /props), else taken as 1 (Ollama's default). It
	// chooses where memory questions go (managers.memory_synthesis auto).
	Slots int `toml:"slots"`
}

// HostList splits a comma- or space-separated list of hosts.
func HostList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
}

// ServerFor is the role's server: its own keys over the global ones.
func ServerFor(global Server, r Role) Server {
	out := global
	if r.API != "" {
		out.API = r.API
	}
	if r.BaseURL != "" || r.Hosts != "" {
		out.BaseURL, out.Hosts = r.BaseURL, r.Hosts
	}
	if r.APIKeyEnv != "" {
		out.APIKeyEnv = r.APIKeyEnv
	}
	if out.API == "" {
		out.API = APIOllama
	}
	return out
}

// DefaultModel is the model every role uses unless configured otherwise.
const DefaultModel = "qwen3:4b"

// DefaultRoles returns the built-in role settings.
func DefaultRoles() map[string]Role {
	base := Role{Model: DefaultModel, TopP: 0.95, TopK: 20, RepeatPenalty: 1.0, Timeout: 120 * time.Second, Think: ThinkOff}
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
