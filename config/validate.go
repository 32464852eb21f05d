package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

var (
	themeName  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`) })
	actionName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]*$`) })
)

// checker collects the problems of one configuration.
type checker struct {
	c    *Config
	list []Problem
}

func (k *checker) add(key string, warning bool, format string, args ...any) {
	k.list = append(k.list, Problem{Key: key, Value: clip(k.c.Get(key)), Source: k.c.Sources[key], Msg: fmt.Sprintf(format, args...), Warning: warning})
}

// maxShown bounds a value quoted back in a problem.
const maxShown = 200

// clip shortens a long value for a message, saying how much was left out.
func clip(v string) string {
	if len(v) <= maxShown {
		return v
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes)", v[:cut], len(v)-cut)
}

func (k *checker) err(key, format string, args ...any)  { k.add(key, false, format, args...) }
func (k *checker) warn(key, format string, args ...any) { k.add(key, true, format, args...) }

// atLeast checks an integer's lower bound.
func (k *checker) atLeast(key string, v, lo int, what string) bool {
	if v < lo {
		k.err(key, "must be at least %d%s", lo, what)
		return false
	}
	return true
}

// validate checks every value against what it allows.
func (c *Config) validate(checkTheme func(string) error) []Problem {
	k := &checker{c: c}
	if strings.ContainsRune(c.WorkDir, 0) {
		k.err("work_dir", "contains a NUL byte; no file system allows one in a path")
	} else if fi, err := os.Stat(c.WorkDir); err == nil && !fi.IsDir() {
		k.err("work_dir", "is a file; want a directory (created when missing)")
	}
	switch t := c.Theme; {
	case t == DefaultTheme:
	case checkTheme != nil:
		if err := checkTheme(t); err != nil {
			k.err("theme", "%s", clip(err.Error()))
		}
	case themeName().MatchString(t):
	case strings.HasSuffix(t, ".toml"):
		if _, err := os.Stat(t); err != nil {
			k.err("theme", "no such theme file")
		}
	default:
		k.err("theme", `want "auto" (follow the terminal), a theme name such as "dark", or the path of a .toml theme file`)
	}
	checkServerKeys(k, func(f string) string { return "server." + f }, c.Server.API, c.Server.BaseURL, c.Server.APIKeyEnv)
	if n := c.Server.Slots; n < 0 || n > 1024 {
		k.err("server.slots", "must be between 0 (ask the server) and 1024")
	}
	if msg := checkHost(c.Ollama.Host); msg != "" {
		k.err("ollama.host", "%s", msg)
	}
	if n := c.Ollama.MaxReplyKB; n < 16 || n > 64<<10 {
		k.err("ollama.max_reply_kb", "must be between 16 and 65536 (KiB)")
	}

	lp := c.Loop
	if lp.MaxTurnsPerEpisode < 0 {
		k.err("loop.max_turns_per_episode", "must be 0 (no cap) or more")
	}
	if lp.Seed < 0 {
		k.err("loop.seed", "must be 0 or more")
	}
	if t := lp.CriticRejectionThreshold; t < -1 || t > 1 {
		k.err("loop.critic_rejection_threshold", "must be between -1 and 1 (the critic scores from -1 to 1)")
	}
	if n := lp.CriticMaxAttempts; n < 1 || n > 10 {
		k.err("loop.critic_max_attempts", "must be between 1 and 10")
	}
	switch lp.CriticMode {
	case "always", "uncertain", "never":
	default:
		k.err("loop.critic_mode", "must be always, uncertain or never (got %q)", lp.CriticMode)
	}
	up := k.atLeast("loop.objective_update_interval", lp.ObjectiveUpdateInterval, 1, " turn")
	ref := k.atLeast("loop.objective_refinement_interval", lp.ObjectiveRefinementInterval, 1, " turn")
	if up && ref && lp.ObjectiveRefinementInterval < lp.ObjectiveUpdateInterval {
		k.warn("loop.objective_refinement_interval", "is shorter than loop.objective_update_interval (%d); refinement is meant to run less often than updates", lp.ObjectiveUpdateInterval)
	}
	k.atLeast("loop.knowledge_update_interval", lp.KnowledgeUpdateInterval, 1, " turn")
	if k.atLeast("loop.memory_history_window", lp.MemoryHistoryWindow, 1, " turn") && lp.MemoryHistoryWindow > 10 {
		k.warn("loop.memory_history_window", "above 10 spends context for little gain (3 to 8 is recommended)")
	}
	if k.atLeast("loop.supervisor_k_window", lp.SupervisorKWindow, 1, " round") && lp.SupervisorKWindow > 10 {
		k.warn("loop.supervisor_k_window", "above 10 makes the supervisor's prompts long (3 is the default)")
	}
	k.atLeast("loop.stuck_turns", lp.StuckTurns, 1, " turn")
	k.atLeast("loop.max_model_failures", lp.MaxModelFailures, 1, "")
	if lp.AfterTurn != AfterTurnBeside && lp.AfterTurn != AfterTurnInline {
		k.err("loop.after_turn", "must be %q (beside the next proposal) or %q (before the next turn)", AfterTurnBeside, AfterTurnInline)
	}

	m := c.Managers
	k.atLeast("managers.supervisor_interval", m.SupervisorInterval, 1, " turn")
	if m.MemorySynthesis != MemoryAuto && m.MemorySynthesis != MemoryWithAgent && m.MemorySynthesis != MemorySeparate {
		k.err("managers.memory_synthesis", "must be %q (the server's slots choose), %q (in the agent's reply) or %q (a memory call of its own)", MemoryAuto, MemoryWithAgent, MemorySeparate)
	}
	if _, err := ParseMemoryTriggers(m.MemoryTriggers); err != nil {
		k.err("managers.memory_triggers", "%s", err.Error())
	}
	if m.ResearchRounds < 0 || m.ResearchRounds > 10 {
		k.err("managers.research_rounds", "must be from 0 (no research) to 10 rounds")
	}
	b := c.Budgets
	if n := b.AgentPromptTokens; n != 0 && n < 512 {
		k.err("budgets.agent_prompt_tokens", "must be 0 (no limit) or at least 512 tokens")
	}
	k.atLeast("budgets.location_memory_tokens", b.LocationMemoryTokens, 1, " token")
	k.atLeast("budgets.memory_text_chars", b.MemoryTextChars, 1, " character")
	k.atLeast("budgets.successes_shown", b.SuccessesShown, 1, "")
	k.atLeast("budgets.failures_shown", b.FailuresShown, 1, "")
	k.atLeast("budgets.others_shown", b.OthersShown, 1, "")

	c.checkKeys(k)
	for _, name := range RoleNames() {
		c.checkRole(k, name)
	}
	return k.list
}

// checkKeys checks [keys]: known actions, a key each, no key bound twice.
func (c *Config) checkKeys(k *checker) {
	defaults := DefaultKeys()
	actions := make([]string, 0, len(defaults))
	for a := range defaults {
		actions = append(actions, a)
	}
	sort.Strings(actions)
	remapped := make([]string, 0, len(c.Keys))
	for a := range c.Keys {
		remapped = append(remapped, a)
	}
	sort.Strings(remapped)
	for _, a := range remapped {
		key := "keys." + a
		v := strings.TrimSpace(c.Keys[a])
		switch {
		case !actionName().MatchString(a):
			k.err(key, "an action is a lower-case name such as step or next_pane")
		case v == "":
			k.err(key, `must name a key, such as "p", "ctrl+p", "space" or "f2"`)
		case len(v) > 24:
			k.err(key, "is too long for a key (at most 24 characters)")
		default:
			if _, known := defaults[a]; !known {
				k.warn(key, "unknown action; the actions are %s", strings.Join(actions, ", "))
			}
		}
	}
	// Two actions on one key: report each remapped one.
	all := append(append([]string(nil), actions...), remapped...)
	byKey := map[string][]string{}
	seen := map[string]bool{}
	for _, a := range all {
		if seen[a] {
			continue
		}
		seen[a] = true
		if v := strings.TrimSpace(c.Key(a)); v != "" {
			byKey[v] = append(byKey[v], a)
		}
	}
	for _, a := range remapped {
		v := strings.TrimSpace(c.Keys[a])
		var others []string
		for _, o := range byKey[v] {
			if o != a {
				others = append(others, o)
			}
		}
		if len(others) > 0 {
			k.err("keys."+a, "%q is also the key of %s; remap that one too", v, strings.Join(others, " and "))
		}
	}
}

func (c *Config) checkRole(k *checker, name string) {
	r := c.Roles[name]
	key := func(f string) string { return "roles." + name + "." + f }
	if m := strings.TrimSpace(r.Model); m == "" || strings.ContainsFunc(r.Model, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) }) {
		k.err(key("model"), `must name an Ollama model, such as "qwen3:4b" (see lantern models)`)
	}
	if r.Temperature < 0 || r.Temperature > 2 {
		k.err(key("temperature"), "must be between 0 and 2")
	}
	if r.TopP <= 0 || r.TopP > 1 {
		k.err(key("top_p"), "must be above 0 and at most 1")
	}
	if r.TopK < 0 {
		k.err(key("top_k"), "must be 0 (off) or more")
	}
	if r.MinP < 0 || r.MinP > 1 {
		k.err(key("min_p"), "must be between 0 and 1")
	}
	if r.RepeatPenalty < 0 || r.RepeatPenalty > 2 {
		k.err(key("repeat_penalty"), "must be between 0 and 2 (1 is off; 0 leaves it to the server)")
	}
	if r.Seed < 0 {
		k.err(key("seed"), "must be 0 (the server's choice) or more")
	}
	if r.NumPredict < 0 {
		k.err(key("num_predict"), "must be 0 (no limit) or more")
	}
	checkServerKeys(k, key, r.API, r.BaseURL, r.APIKeyEnv)
	switch {
	case r.Timeout < time.Second:
		k.err(key("timeout"), `must be at least "1s"`)
	case r.Timeout < 10*time.Second:
		k.warn(key("timeout"), "under 10s fails a model's first call, which loads it")
	}
	switch r.Think {
	case ThinkAuto, ThinkOn, ThinkOff, ThinkLow, ThinkMedium, ThinkHigh:
	default:
		k.err(key("think"), `must be "auto" (think when the model can), "on", "off", or an effort level "low", "medium" or "high"`)
	}
	switch n := r.NumCtx; {
	case n < 0 || n > 0 && n < 512:
		k.err(key("num_ctx"), "must be 0 (the server's own size) or at least 512")
	case n > 0 && n < 4096:
		k.warn(key("num_ctx"), "prompts longer than num_ctx are refused; 0 leaves the size to the server")
	}
}

// checkServerKeys checks a server's api, base_url and api_key_env.
func checkServerKeys(k *checker, key func(string) string, api, baseURL, keyEnv string) {
	switch api {
	case "", APIOllama, APIOpenAI:
	default:
		k.err(key("api"), `must be "ollama" or "openai"`)
	}
	if baseURL != "" {
		if u, err := url.Parse(baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			k.err(key("base_url"), `must be an http:// or https:// URL, such as "http://127.0.0.1:8080/v1"`)
		}
	}
	for _, r := range keyEnv {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			k.err(key("api_key_env"), "must name an environment variable (letters, digits, _), not hold the key")
			break
		}
	}
}

// checkHost says what is wrong with an Ollama host, or "".
func checkHost(h string) string {
	if strings.TrimSpace(h) == "" {
		return "must not be empty; " + ErrBadHost.Error()
	}
	if _, err := OllamaURL(h); err != nil {
		if errors.Is(err, ErrBadHost) {
			return ErrBadHost.Error()
		}
		return "the port must be between 1 and 65535"
	}
	return ""
}
