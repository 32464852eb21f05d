package config

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Config is every setting of Lantern, as lantern.toml spells it. Load builds
// one from the built-in defaults, the user's and the project's files, the
// environment and the command line, each overriding the one before.
type Config struct {
	// WorkDir holds one folder per story file. Load fills it in:
	// empty in every source means $XDG_DATA_HOME/lantern.
	WorkDir string `toml:"work_dir"`
	// Story is the story opened when none is named; empty: the built-in
	// demo.
	Story string `toml:"story"`
	// Theme is a theme name ("auto" follows the terminal's background) or
	// the path of a theme file.
	Theme string `toml:"theme"`
	// DefaultModel is every role's model, as --model and LANTERN_MODEL set it; a
	// role's own model key ([roles.NAME] model) is more specific and wins
	// within one source.
	DefaultModel string `toml:"model"`
	// Profile names the managers' cadence: "lean" (the defaults) or
	// "zorkgpt" (the design documents': a supervisor round every turn,
	// objectives every 20 turns, memory synthesis on moves and inventory
	// changes too). It fills only the keys nothing else set.
	Profile string `toml:"profile"`

	Ollama   Ollama            `toml:"ollama"`
	Server   Server            `toml:"server"`
	Loop     Loop              `toml:"loop"`
	Budgets  Budgets           `toml:"budgets"`
	Managers Managers          `toml:"managers"`
	Keys     map[string]string `toml:"keys"`  // action → key, only the remapped ones
	Roles    map[string]Role   `toml:"roles"` // by role name (RoleNames)

	// Sources says where each key's value came from (a key that is absent
	// kept its built-in default).
	Sources map[string]Source `toml:"-"`
	// Files are the configuration files considered, in precedence order.
	Files []File `toml:"-"`
	// Warnings are problems that do not stop Lantern.
	Warnings []Problem `toml:"-"`
}

// Ollama locates the model server.
type Ollama struct {
	// Host is host[:port] or a URL, as OLLAMA_HOST takes it.
	Host string `toml:"host"`
	// MaxReplyKB caps a model reply's size in KiB; a longer reply is cut
	// off with an error and the engine pauses.
	MaxReplyKB int `toml:"max_reply_kb"`
}

// Loop tunes the turn loop and the managers' rhythm. The defaults are the
// lean profile's (ZorkGPT's intervals are the zorkgpt profile's: see
// profile.go).
type Loop struct {
	MaxTurnsPerEpisode          int     `toml:"max_turns_per_episode"`
	Seed                        int     `toml:"seed"`
	CriticRejectionThreshold    float64 `toml:"critic_rejection_threshold"`
	CriticMaxAttempts           int     `toml:"critic_max_attempts"`
	ObjectiveUpdateInterval     int     `toml:"objective_update_interval"`
	ObjectiveRefinementInterval int     `toml:"objective_refinement_interval"`
	KnowledgeUpdateInterval     int     `toml:"knowledge_update_interval"`
	MemoryHistoryWindow         int     `toml:"memory_history_window"`
	SupervisorKWindow           int     `toml:"supervisor_k_window"`
	StuckTurns                  int     `toml:"stuck_turns"`
	MaxModelFailures            int     `toml:"max_model_failures"`
	// AfterTurn is when a turn's memory synthesis and planning run:
	// "beside" the next proposal (the default: with several server slots
	// their calls overlap the agent's) or "inline", before the next turn
	// starts (its prompt then always holds what they wrote).
	AfterTurn string `toml:"after_turn"`
	// CriticMode says when the critic asks its model: always, uncertain
	// (only where the game's world model cannot decide) or never.
	CriticMode string `toml:"critic_mode"`
}

// The values of managers.memory_synthesis.
const (
	MemoryAuto      = "auto"
	MemoryWithAgent = "with_agent"
	MemorySeparate  = "separate"
)

// The values of loop.after_turn.
const (
	AfterTurnBeside = "beside"
	AfterTurnInline = "inline"
)

// Managers turns the planning managers on or off (their intervals
// are in Loop) and sets the agent's optional research phase.
type Managers struct {
	// Objectives: discovery every loop.objective_update_interval turns.
	Objectives bool `toml:"objectives"`
	// EnhancedObjectiveContext gives objective discovery the knowledge
	// base, nearby memories and the map; false sends only the
	// recent turns and the ground truth.
	EnhancedObjectiveContext bool `toml:"enhanced_objective_context"`
	// Knowledge: knowledgebase.md updated every
	// loop.knowledge_update_interval turns and at each episode's end.
	Knowledge bool `toml:"knowledge"`
	// Supervisor: a round (two model calls) every SupervisorInterval turns;
	// the default keeps a run within about 2.5 model calls a turn.
	Supervisor         bool `toml:"supervisor"`
	SupervisorInterval int  `toml:"supervisor_interval"`
	// Extractor asks the extractor role after each turn for what the
	// machine cannot tell: the exits the text mentions, combat.
	Extractor bool `toml:"extractor"`
	// ResearchRounds lets the agent call the memory tools this many rounds
	// before it decides; 0: no research phase.
	ResearchRounds int `toml:"research_rounds"`
	// MemoryTriggers are the events after which memory synthesis asks the
	// memory model, comma-separated: score, death, first_visit,
	// long_response (the default), movement, inventory.
	MemoryTriggers string `toml:"memory_triggers"`
	// MemorySynthesis is where a turn's memory question is answered:
	// "auto" (the default: the server's slots choose, one slot
	// "with_agent", several "separate"), "with_agent" (in the agent's next
	// reply, one model call a turn, when the memory role runs on the
	// agent's model) or "separate" (a memory call of its own beside the
	// next proposal, as the design documents').
	MemorySynthesis string `toml:"memory_synthesis"`
	// ValidActionsHint adds a line to the agent's prompt: the things the
	// game lets the player do here (probed exits and valid actions).
	ValidActionsHint bool `toml:"valid_actions_hint"`
}

// Budgets bound what goes into prompts.
type Budgets struct {
	// AgentPromptTokens caps the agent's prompt; 0: only the model's
	// context length limits it.
	AgentPromptTokens int `toml:"agent_prompt_tokens"`
	// LocationMemoryTokens bounds the memories shown for one location.
	LocationMemoryTokens int `toml:"location_memory_tokens"`
	// MemoryTextChars cuts one memory's text.
	MemoryTextChars int `toml:"memory_text_chars"`
	// Memories shown per location, by category.
	SuccessesShown int `toml:"successes_shown"`
	FailuresShown  int `toml:"failures_shown"`
	OthersShown    int `toml:"others_shown"`
}

// DefaultOllamaHost is where Ollama listens unless configured otherwise.
const DefaultOllamaHost = "127.0.0.1:11434"

// DefaultTheme follows the terminal's background.
const DefaultTheme = "auto"

// Defaults returns the built-in configuration (WorkDir empty: Load
// resolves it).
func Defaults() *Config {
	return &Config{
		Theme:   DefaultTheme,
		Profile: ProfileLean,
		Ollama:  Ollama{Host: DefaultOllamaHost, MaxReplyKB: 512},
		Loop: Loop{
			MaxTurnsPerEpisode:          500,
			Seed:                        0,
			CriticRejectionThreshold:    -0.2,
			CriticMaxAttempts:           3,
			CriticMode:                  "uncertain",
			ObjectiveUpdateInterval:     40,
			ObjectiveRefinementInterval: 50,
			KnowledgeUpdateInterval:     100,
			MemoryHistoryWindow:         3,
			SupervisorKWindow:           3,
			StuckTurns:                  20,
			AfterTurn:                   AfterTurnBeside,
			MaxModelFailures:            3,
		},
		Budgets: Budgets{
			AgentPromptTokens:    0,
			LocationMemoryTokens: 500,
			MemoryTextChars:      400,
			SuccessesShown:       5,
			FailuresShown:        5,
			OthersShown:          5,
		},
		Managers: Managers{
			Objectives:               true,
			EnhancedObjectiveContext: true,
			Knowledge:                true,
			Supervisor:               true,
			SupervisorInterval:       40,
			MemoryTriggers:           LeanMemoryTriggers,
			MemorySynthesis:          MemoryAuto,
		},
		Keys:    map[string]string{},
		Roles:   DefaultRoles(),
		Sources: map[string]Source{},
	}
}

// DefaultKeys are the TUI's keys; [keys] remaps them by action. The
// moves (up, down, top, bottom) name their letter: the arrow, home and end
// keys move as well whatever they are remapped to.
func DefaultKeys() map[string]string {
	return map[string]string{
		"up":         "k",
		"down":       "j",
		"top":        "g",
		"bottom":     "G",
		"pause":      "space",
		"step":       "n",
		"input":      "i",
		"next_pane":  "tab",
		"memory":     "m",
		"edit":       "e",
		"supersede":  "s",
		"add":        "a",
		"delete":     "d",
		"undo":       "u",
		"objectives": "o",
		"models":     "ctrl+l",
		"theme":      "t",
		"cancel":     "esc esc",
		"help":       "?",
		"quit":       "q",
		"review":     "v",
	}
}

// Key is the key bound to an action: the remapped one, else the default.
func (c *Config) Key(action string) string {
	if k, ok := c.Keys[action]; ok {
		return k
	}
	return DefaultKeys()[action]
}

// Model returns a role's model.
func (c *Config) Model(role string) string { return c.Roles[role].Model }

// SourceKind says which level of the precedence a value came from.
type SourceKind int

const (
	FromDefault SourceKind = iota // built in
	FromFile                      // a lantern.toml
	FromEnv                       // an environment variable
	FromFlag                      // a command-line flag
	FromProfile                   // the profile named by the profile key
)

// Source is where a value came from: a file and line, an environment
// variable, or a flag.
type Source struct {
	Kind SourceKind
	Name string // the file's path, the variable's or the flag's name
	Line int    // in the file; 0 when unknown
}

func (s Source) String() string {
	switch s.Kind {
	case FromFile:
		if s.Line > 0 {
			return fmt.Sprintf("%s:%d", s.Name, s.Line)
		}
		return s.Name
	case FromEnv:
		return "environment " + s.Name
	case FromFlag:
		return "flag --" + strings.TrimLeft(s.Name, "-")
	case FromProfile:
		return "profile " + s.Name
	}
	return "built-in default"
}

// File is a configuration file Load considered.
type File struct {
	Level string // "user" or "project"
	Path  string
	Found bool
}

// Problem is one thing wrong with the configuration: which key, where its
// value came from, and what is allowed.
type Problem struct {
	Key     string // dotted ("loop.memory_history_window"); empty for a syntax error
	Value   string // as TOML would write it; empty when not known
	Source  Source
	Msg     string
	Warning bool
}

// String is "source: key = value: what is allowed".
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Source.String())
	b.WriteString(": ")
	if p.Key != "" {
		b.WriteString(p.Key)
		if p.Value != "" {
			b.WriteString(" = ")
			b.WriteString(p.Value)
		}
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Error is an invalid configuration: every problem that is not a warning.
type Error struct{ Problems []Problem }

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	if len(lines) == 1 {
		return "invalid configuration: " + lines[0]
	}
	return "invalid configuration:\n  " + strings.Join(lines, "\n  ")
}

// DefaultWorkDir is $XDG_DATA_HOME/lantern, else ~/.local/share/lantern;
// on Windows without those, %LocalAppData%\lantern.
func DefaultWorkDir(getenv func(string) (string, bool)) string {
	return defaultWorkDir(getenv, runtime.GOOS)
}

func defaultWorkDir(getenv func(string) (string, bool), goos string) string {
	if d, ok := lookup(getenv, "XDG_DATA_HOME"); ok && filepath.IsAbs(d) {
		return filepath.Join(d, "lantern")
	}
	if goos == "windows" {
		for _, v := range []string{"LocalAppData", "AppData"} {
			if d, ok := lookup(getenv, v); ok {
				return filepath.Join(d, "lantern")
			}
		}
	}
	if h := homeOn(getenv, goos); h != "" {
		return filepath.Join(h, ".local", "share", "lantern")
	}
	return "lantern-data"
}

// UserFile is $XDG_CONFIG_HOME/lantern/lantern.toml, else
// ~/.config/lantern/lantern.toml; on Windows without those,
// %AppData%\lantern\lantern.toml (where os.UserConfigDir looks). Empty when
// there is no home.
func UserFile(getenv func(string) (string, bool)) string {
	return userFile(getenv, runtime.GOOS)
}

func userFile(getenv func(string) (string, bool), goos string) string {
	if d, ok := lookup(getenv, "XDG_CONFIG_HOME"); ok && filepath.IsAbs(d) {
		return filepath.Join(d, "lantern", "lantern.toml")
	}
	if goos == "windows" {
		if d, ok := lookup(getenv, "AppData"); ok {
			return filepath.Join(d, "lantern", "lantern.toml")
		}
	}
	if h := homeOn(getenv, goos); h != "" {
		return filepath.Join(h, ".config", "lantern", "lantern.toml")
	}
	return ""
}

// ProjectFile is the project's configuration, in the current directory.
const ProjectFile = "lantern.toml"

func lookup(getenv func(string) (string, bool), name string) (string, bool) {
	if getenv == nil {
		return "", false
	}
	v, ok := getenv(name)
	if !ok || v == "" {
		return "", false
	}
	return v, true
}

func home(getenv func(string) (string, bool)) string { return homeOn(getenv, runtime.GOOS) }

// homeOn is $HOME; on Windows, where it is seldom set, %USERPROFILE% too.
func homeOn(getenv func(string) (string, bool), goos string) string {
	if h, ok := lookup(getenv, "HOME"); ok {
		return h
	}
	if goos == "windows" {
		h, _ := lookup(getenv, "USERPROFILE")
		return h
	}
	return ""
}

// formatValue writes a value as TOML would.
func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return tomlQuote(x)
	case Think:
		return tomlQuote(string(x))
	case time.Duration:
		return tomlQuote(formatDuration(x))
	case float64:
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		return s
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// tomlQuote writes s as a TOML basic string (TOML has no \a or \x escapes,
// which strconv.Quote uses).
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// formatDuration drops time.Duration's zero units: "2m", "90s", "1h30m".
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
