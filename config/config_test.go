package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	toml "github.com/pelletier/go-toml/v2"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaultsFollowDesign(t *testing.T) {
	c, err := Load(LoadOptions{Getenv: env(map[string]string{"HOME": "/home/x"})})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) > 0 {
		t.Errorf("defaults warn: %v", c.Warnings)
	}
	lp := c.Loop
	got := []int{lp.MaxTurnsPerEpisode, lp.CriticMaxAttempts, lp.ObjectiveUpdateInterval, lp.ObjectiveRefinementInterval, lp.KnowledgeUpdateInterval, lp.MemoryHistoryWindow, lp.SupervisorKWindow}
	// Objective discovery every 40 turns (the design's 15 is 2 calls every
	// 15 turns): with the supervisor every 40 turns the defaults keep a run
	// within 2.5 model calls a turn.
	if want := []int{500, 3, 40, 50, 100, 3, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("loop defaults %v, want %v", got, want)
	}
	if lp.CriticRejectionThreshold != -0.2 {
		t.Errorf("critic threshold %v", lp.CriticRejectionThreshold)
	}
	a := c.Roles[RoleAgent]
	if a.Temperature != 0.6 || a.TopP != 0.95 || a.TopK != 20 || a.MinP != 0 {
		t.Errorf("agent sampling %+v", a)
	}
	if c.Roles[RoleCritic].Temperature != 0.1 || c.Roles[RoleExtractor].Temperature != 0.1 || c.Roles[RoleMemory].Temperature != 0.3 {
		t.Errorf("critic/extractor/memory temperatures %v %v %v", c.Roles[RoleCritic].Temperature, c.Roles[RoleExtractor].Temperature, c.Roles[RoleMemory].Temperature)
	}
	if c.WorkDir != "/home/x/.local/share/lantern" {
		t.Errorf("work dir %q", c.WorkDir)
	}
	if c.Ollama.Host != DefaultOllamaHost || c.Theme != "auto" {
		t.Errorf("host %q theme %q", c.Ollama.Host, c.Theme)
	}
	if src := c.Sources["loop.seed"]; src.Kind != FromDefault || src.String() != "built-in default" {
		t.Errorf("source of an unset key: %v", src)
	}
}

// TestPrecedenceFiveLevels sets keys at every level: each key takes the
// value of the highest level that sets it, and says where it came from.
func TestPrecedenceFiveLevels(t *testing.T) {
	dir := t.TempDir()
	user := write(t, dir, "xdg/lantern/lantern.toml", `# user
[loop]
knowledge_update_interval = 101
objective_update_interval = 16
max_turns_per_episode = 400

[roles.agent]
model = "user-model"
`)
	project := write(t, dir, "proj/lantern.toml", `[loop]
objective_update_interval = 17
max_turns_per_episode = 300
[roles.agent]
model = "project-model"
`)
	c, err := Load(LoadOptions{
		UserFile:    user,
		ProjectFile: project,
		Getenv: env(map[string]string{
			"LANTERN_ROLES_AGENT_MODEL":          "env-model",
			"LANTERN_LOOP_MAX_TURNS_PER_EPISODE": "200",
			"HOME":                               dir,
		}),
		Overrides: []Override{{Key: "loop.max_turns_per_episode", Value: "100", Flag: "max-turns"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		key, value, source string
	}{
		{"loop.stuck_turns", "20", "built-in default"},
		{"loop.knowledge_update_interval", "101", user + ":3"},
		{"loop.objective_update_interval", "17", project + ":2"},
		{"roles.agent.model", `"env-model"`, "environment LANTERN_ROLES_AGENT_MODEL"},
		{"loop.max_turns_per_episode", "100", "flag --max-turns"},
		// A table in a file changes only the keys it names.
		{"roles.agent.temperature", "0.6", "built-in default"},
	}
	for _, ck := range checks {
		if got := c.Get(ck.key); got != ck.value {
			t.Errorf("%s = %s, want %s", ck.key, got, ck.value)
		}
		if got := c.Sources[ck.key].String(); got != ck.source {
			t.Errorf("%s from %s, want %s", ck.key, got, ck.source)
		}
	}
	if len(c.Files) != 2 || !c.Files[0].Found || c.Files[0].Level != "user" || !c.Files[1].Found || c.Files[1].Level != "project" {
		t.Errorf("files %+v", c.Files)
	}
}

func TestStandardSourcesAndMissingFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "cfg"))
	o := Standard("")
	if o.UserFile != filepath.Join(dir, "cfg", "lantern", "lantern.toml") || o.ProjectFile != "lantern.toml" || o.ProjectRequired {
		t.Errorf("standard options %+v", o)
	}
	o.ProjectFile = filepath.Join(dir, "none.toml")
	c, err := Load(o)
	if err != nil {
		t.Fatalf("absent files are fine: %v", err)
	}
	if len(c.Files) != 2 || c.Files[0].Found || c.Files[1].Found {
		t.Errorf("files %+v", c.Files)
	}
	// Named with --config, the file must exist.
	o = Standard(filepath.Join(dir, "named.toml"))
	_, err = Load(o)
	wantProblem(t, err, filepath.Join(dir, "named.toml")+": cannot read the configuration: no such file")
}

func TestEnvironment(t *testing.T) {
	c, err := Load(LoadOptions{Getenv: env(map[string]string{
		"OLLAMA_HOST":                             "10.0.0.1",
		"LANTERN_MODEL":                           "all-model",
		"LANTERN_ROLES_CRITIC_MODEL":              "critic-model",
		"LANTERN_WORK_DIR":                        "~/w",
		"LANTERN_THEME":                           "",          // empty: unset
		"LANTERN_SHARED":                          "../shared", // not configuration
		"LANTERN_OLLAMA_E2E":                      "1",         // not configuration
		"LANTERN_ROLES_AGENT_TIMEOUT":             "90s",       // a duration as text
		"LANTERN_ROLES_AGENT_THINK":               "on",        // a string type
		"LANTERN_LOOP_CRITIC_REJECTION_THRESHOLD": "-0.5",
		"HOME": "/home/x",
	})})
	if err != nil {
		t.Fatal(err)
	}
	if c.Ollama.Host != "10.0.0.1" || c.Sources["ollama.host"].Name != "OLLAMA_HOST" {
		t.Errorf("host %q from %v", c.Ollama.Host, c.Sources["ollama.host"])
	}
	for _, r := range RoleNames() {
		want := "all-model"
		if r == RoleCritic {
			want = "critic-model"
		}
		if c.Model(r) != want {
			t.Errorf("%s model %q, want %q", r, c.Model(r), want)
		}
	}
	if c.WorkDir != "/home/x/w" || c.Theme != "auto" {
		t.Errorf("work dir %q theme %q", c.WorkDir, c.Theme)
	}
	if a := c.Roles[RoleAgent]; a.Timeout != 90*time.Second || a.Think != ThinkOn {
		t.Errorf("agent %+v", a)
	}
	if c.Loop.CriticRejectionThreshold != -0.5 {
		t.Errorf("threshold %v", c.Loop.CriticRejectionThreshold)
	}
	// LANTERN_OLLAMA_HOST is more specific than OLLAMA_HOST.
	c, err = Load(LoadOptions{Getenv: env(map[string]string{"OLLAMA_HOST": "a:1", "LANTERN_OLLAMA_HOST": "b:2"})})
	if err != nil || c.Ollama.Host != "b:2" {
		t.Errorf("host %q (%v)", c.Ollama.Host, err)
	}
}

func TestOverrideEveryModelAndPaths(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "sub/lantern.toml", "work_dir = \"data\"\nstory = \"~/z/zork1.z3\"\ntheme = \"themes/mine.toml\"\n")
	write(t, dir, "sub/themes/mine.toml", "")
	c, err := Load(LoadOptions{ProjectFile: p, Getenv: env(map[string]string{"HOME": "/home/x"}),
		Overrides: []Override{{Key: AllModels, Value: "m:1b", Flag: "model"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range RoleNames() {
		if c.Model(r) != "m:1b" || c.Sources["roles."+r+".model"].String() != "flag --model" {
			t.Errorf("%s: %q from %v", r, c.Model(r), c.Sources["roles."+r+".model"])
		}
	}
	if want := filepath.Join(dir, "sub", "data"); c.WorkDir != want {
		t.Errorf("work dir %q, want %q", c.WorkDir, want)
	}
	if c.Story != "/home/x/z/zork1.z3" {
		t.Errorf("story %q", c.Story)
	}
	if want := filepath.Join(dir, "sub", "themes", "mine.toml"); c.Theme != want {
		t.Errorf("theme %q, want %q", c.Theme, want)
	}
}

func TestKeysTable(t *testing.T) {
	c, err := Parse("k.toml", []byte("[keys]\nstep = \".\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Key("step") != "." || c.Key("pause") != "space" || c.Sources["keys.step"].String() != "k.toml:2" {
		t.Errorf("keys: step %q pause %q source %v", c.Key("step"), c.Key("pause"), c.Sources["keys.step"])
	}
}

func wantProblem(t *testing.T, err error, want string) {
	t.Helper()
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("want a configuration error with %q, got %v", want, err)
	}
	for _, p := range ce.Problems {
		if p.String() == want {
			return
		}
	}
	t.Errorf("problems:\n%v\nwant:\n  %s", err, want)
}

// TestValidationMessages: every message names the file and line, the key,
// its value and what is allowed.
func TestValidationMessages(t *testing.T) {
	dir := t.TempDir()
	aFile := write(t, dir, "a-file", "")
	tests := []struct {
		toml    string
		want    string // the problem, after "F:"
		warning bool
	}{
		{"[loop\n", `1: not valid TOML: expected ']' to close table name`, false},
		{"[loop]\nmax_turns_per_episode = 1\nmax_turns_per_episode = 2\n", `3: not valid TOML: key max_turns_per_episode is already defined`, false},
		{"\n[loop]\nmemory_window = 3\n", `3: loop.memory_window = 3: unknown key; did you mean loop.memory_history_window?`, false},
		{"colour = \"red\"\n", `1: colour = "red": unknown key; lantern.sample.toml lists every key`, false},
		{"[roles.poet]\nmodel = \"x\"\n", `1: roles.poet: unknown role "poet"; the roles are agent, critic, extractor, knowledge, memory, objectives, retriever, supervisor`, false},
		{"[frobs]\nx = 1\n", `1: frobs: unknown key; lantern.sample.toml lists every key`, false},
		{"[loop]\nseed = \"12\"\n", `2: loop.seed = "12": want a whole number`, false},
		{"[loop]\nseed = 1.5\n", `2: loop.seed = 1.5: want a whole number`, false},
		{"[loop]\ncritic_rejection_threshold = \"low\"\n", `2: loop.critic_rejection_threshold = "low": want a number`, false},
		{"theme = 3\n", `1: theme = 3: want a string in quotes`, false},
		{"[roles.agent]\ntimeout = 120\n", `2: roles.agent.timeout = 120: want a duration in quotes, such as "90s" or "2m"`, false},
		{"[roles.agent]\ntimeout = \"soon\"\n", `2: roles.agent.timeout = "soon": want a duration in quotes, such as "90s" or "2m"`, false},
		{"[keys]\nstep = 1\n", `2: keys.step = 1: want a key in quotes, such as "p" or "ctrl+p"`, false},
		{"[loop]\nseed = [1]\n", `2: loop.seed = [...]: want a whole number`, false},
		{"work_dir = \"" + aFile + "\"\n", `1: work_dir = "` + aFile + `": is a file; want a directory (created when missing)`, false},
		{"theme = \"Dark Blue\"\n", `1: theme = "Dark Blue": want "auto" (follow the terminal), a theme name such as "dark", or the path of a .toml theme file`, false},
		{"theme = \"/nonexistent/t.toml\"\n", `1: theme = "/nonexistent/t.toml": no such theme file`, false},
		{"[ollama]\nhost = \"\"\n", `2: ollama.host = "": must not be empty; want host[:port] or a URL, such as "127.0.0.1:11434" or "http://gpu-box:11434"`, false},
		{"[ollama]\nhost = \"ftp://x\"\n", `2: ollama.host = "ftp://x": want host[:port] or a URL, such as "127.0.0.1:11434" or "http://gpu-box:11434"`, false},
		{"[ollama]\nhost = \"localhost:99999\"\n", `2: ollama.host = "localhost:99999": the port must be between 1 and 65535`, false},
		{"[loop]\nmax_turns_per_episode = -1\n", `2: loop.max_turns_per_episode = -1: must be 0 (no cap) or more`, false},
		{"[server]\nslots = -1\n", `2: server.slots = -1: must be between 0 (ask the server) and 1024`, false},
		{"[managers]\nmemory_synthesis = \"sometimes\"\n", `2: managers.memory_synthesis = "sometimes": must be "auto" (the server's slots choose), "with_agent" (in the agent's reply) or "separate" (a memory call of its own)`, false},
		{"[loop]\nseed = -3\n", `2: loop.seed = -3: must be 0 or more`, false},
		{"[loop]\ncritic_rejection_threshold = -2\n", `2: loop.critic_rejection_threshold = -2.0: must be between -1 and 1 (the critic scores from -1 to 1)`, false},
		{"[loop]\ncritic_max_attempts = 0\n", `2: loop.critic_max_attempts = 0: must be between 1 and 10`, false},
		{"[loop]\nobjective_update_interval = 0\n", `2: loop.objective_update_interval = 0: must be at least 1 turn`, false},
		{"[loop]\nobjective_refinement_interval = 0\n", `2: loop.objective_refinement_interval = 0: must be at least 1 turn`, false},
		{"[loop]\nobjective_refinement_interval = 10\n", `2: loop.objective_refinement_interval = 10: is shorter than loop.objective_update_interval (40); refinement is meant to run less often than updates`, true},
		{"[loop]\nknowledge_update_interval = 0\n", `2: loop.knowledge_update_interval = 0: must be at least 1 turn`, false},
		{"[loop]\nmemory_history_window = 0\n", `2: loop.memory_history_window = 0: must be at least 1 turn`, false},
		{"[loop]\nmemory_history_window = 11\n", `2: loop.memory_history_window = 11: above 10 spends context for little gain (3 to 8 is recommended)`, true},
		{"[loop]\nsupervisor_k_window = 0\n", `2: loop.supervisor_k_window = 0: must be at least 1 round`, false},
		{"[loop]\nsupervisor_k_window = 12\n", `2: loop.supervisor_k_window = 12: above 10 makes the supervisor's prompts long (3 is the default)`, true},
		{"[loop]\nstuck_turns = 0\n", `2: loop.stuck_turns = 0: must be at least 1 turn`, false},
		{"[loop]\nafter_turn = \"later\"\n", `2: loop.after_turn = "later": must be "beside" (beside the next proposal) or "inline" (before the next turn)`, false},
		{"[loop]\nmax_model_failures = 0\n", `2: loop.max_model_failures = 0: must be at least 1`, false},
		{"[budgets]\nagent_prompt_tokens = 100\n", `2: budgets.agent_prompt_tokens = 100: must be 0 (no limit) or at least 512 tokens`, false},
		{"[budgets]\nlocation_memory_tokens = 0\n", `2: budgets.location_memory_tokens = 0: must be at least 1 token`, false},
		{"[budgets]\nmemory_text_chars = 0\n", `2: budgets.memory_text_chars = 0: must be at least 1 character`, false},
		{"[budgets]\nsuccesses_shown = 0\n", `2: budgets.successes_shown = 0: must be at least 1`, false},
		{"[budgets]\nfailures_shown = 0\n", `2: budgets.failures_shown = 0: must be at least 1`, false},
		{"[budgets]\nothers_shown = 0\n", `2: budgets.others_shown = 0: must be at least 1`, false},
		{"[keys]\nStep = \"x\"\n", `2: keys.Step = "x": an action is a lower-case name such as step or next_pane`, false},
		{"[keys]\nstep = \" \"\n", `2: keys.step = " ": must name a key, such as "p", "ctrl+p", "space" or "f2"`, false},
		{"[keys]\nstep = \"" + strings.Repeat("x", 25) + "\"\n", `2: keys.step = "` + strings.Repeat("x", 25) + `": is too long for a key (at most 24 characters)`, false},
		{"[keys]\nfly = \"f\"\n", `2: keys.fly = "f": unknown action; the actions are add, bottom, cancel, delete, down, edit, help, input, memory, models, next_pane, objectives, pause, quit, review, step, supersede, theme, top, undo, up`, true},
		{"[keys]\nstep = \"q\"\n", `2: keys.step = "q": "q" is also the key of quit; remap that one too`, false},
		{"[roles.critic]\nmodel = \"\"\n", `2: roles.critic.model = "": must name an Ollama model, such as "qwen3:4b" (see lantern models)`, false},
		{"[roles.critic]\ntemperature = 3\n", `2: roles.critic.temperature = 3.0: must be between 0 and 2`, false},
		{"[roles.critic]\ntop_p = 0\n", `2: roles.critic.top_p = 0.0: must be above 0 and at most 1`, false},
		{"[roles.critic]\ntop_k = -1\n", `2: roles.critic.top_k = -1: must be 0 (off) or more`, false},
		{"[roles.critic]\nmin_p = 2\n", `2: roles.critic.min_p = 2.0: must be between 0 and 1`, false},
		{"[roles.critic]\nrepeat_penalty = 3\n", `2: roles.critic.repeat_penalty = 3.0: must be between 0 and 2 (1 is off; 0 leaves it to the server)`, false},
		{"[roles.critic]\nseed = -1\n", `2: roles.critic.seed = -1: must be 0 (the server's choice) or more`, false},
		{"[roles.critic]\nnum_predict = -1\n", `2: roles.critic.num_predict = -1: must be 0 (no limit) or more`, false},
		{"[roles.critic]\napi = \"anthropic\"\n", `2: roles.critic.api = "anthropic": must be "ollama" or "openai"`, false},
		{"[server]\napi_key_env = \"sk-abc123 \"\n", `2: server.api_key_env = "sk-abc123 ": must name an environment variable (letters, digits, _), not hold the key`, false},
		{"[server]\nbase_url = \"gpu:8080/v1\"\n", `2: server.base_url = "gpu:8080/v1": must be an http:// or https:// URL, such as "http://127.0.0.1:8080/v1"`, false},
		{"[roles.critic]\ntimeout = \"0s\"\n", `2: roles.critic.timeout = "0s": must be at least "1s"`, false},
		{"[roles.critic]\ntimeout = \"5s\"\n", `2: roles.critic.timeout = "5s": under 10s fails a model's first call, which loads it`, true},
		{"[roles.critic]\nthink = \"maybe\"\n", `2: roles.critic.think = "maybe": must be "auto" (think when the model can), "on", "off", or an effort level "low", "medium" or "high"`, false},
		{"[roles.critic]\nnum_ctx = 100\n", `2: roles.critic.num_ctx = 100: must be 0 (the server's own size) or at least 512`, false},
		{"[roles.critic]\nnum_ctx = 2048\n", `2: roles.critic.num_ctx = 2048: prompts longer than num_ctx are refused; 0 leaves the size to the server`, true},
		// Dotted keys and inline tables find their lines too.
		{"# x\nroles.memory.top_k = -2\n", `2: roles.memory.top_k = -2: must be 0 (off) or more`, false},
		{"loop = { seed = 1,\n stuck_turns = 0 }\n", `2: loop.stuck_turns = 0: must be at least 1 turn`, false},
	}
	for _, tc := range tests {
		name := filepath.Join(dir, "lantern.toml")
		c, err := Parse(name, []byte(tc.toml))
		want := name + ":" + tc.want
		if tc.warning {
			if err != nil {
				t.Errorf("%q: want only a warning, got %v", tc.toml, err)
				continue
			}
			found := false
			for _, w := range c.Warnings {
				found = found || w.String() == want
			}
			if !found {
				t.Errorf("%q: warnings %v, want %s", tc.toml, c.Warnings, want)
			}
			continue
		}
		wantProblem(t, err, want)
	}
}

func TestProblemsFromEnvironmentAndFlags(t *testing.T) {
	_, err := Load(LoadOptions{Getenv: env(map[string]string{"LANTERN_LOOP_SEED": "twelve"})})
	wantProblem(t, err, `environment LANTERN_LOOP_SEED: loop.seed = "twelve": want a whole number`)
	_, err = Load(LoadOptions{Overrides: []Override{{Key: "loop.max_turns_per_episode", Value: "-5", Flag: "max-turns"}}})
	wantProblem(t, err, `flag --max-turns: loop.max_turns_per_episode = -5: must be 0 (no cap) or more`)
	_, err = Load(LoadOptions{Getenv: env(map[string]string{"LANTERN_ROLES_AGENT_TEMPERATURE": "9"})})
	wantProblem(t, err, `environment LANTERN_ROLES_AGENT_TEMPERATURE: roles.agent.temperature = 9.0: must be between 0 and 2`)
	// Every problem is reported, not only the first.
	_, err = Parse("x.toml", []byte("[loop]\nseed = -1\nstuck_turns = 0\n"))
	var ce *Error
	if !errors.As(err, &ce) || len(ce.Problems) != 2 || !strings.Contains(err.Error(), "x.toml:2") || !strings.Contains(err.Error(), "x.toml:3") {
		t.Errorf("want both problems: %v", err)
	}
}

// TestSampleLoads: the sample sets every key, to its default, without a
// problem.
func TestSampleLoads(t *testing.T) {
	data, err := os.ReadFile("../lantern.sample.toml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("lantern.sample.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) > 0 {
		t.Errorf("warnings: %v", c.Warnings)
	}
	def := Defaults()
	for _, k := range KeyNames() {
		if c.Sources[k].Kind != FromFile {
			t.Errorf("the sample does not set %s", k)
		}
		if k == "work_dir" {
			continue
		}
		if got, want := c.Get(k), def.Get(k); got != want {
			t.Errorf("sample %s = %s, default %s", k, got, want)
		}
	}
	if !strings.Contains(string(data), "num_ctx") || !strings.Contains(string(data), "memory_history_window = 3") {
		t.Error("the sample lacks the num_ctx note or memory_history_window")
	}
}

func TestEnvNameAndKeyNames(t *testing.T) {
	if got := EnvName("loop.max_turns_per_episode"); got != "LANTERN_LOOP_MAX_TURNS_PER_EPISODE" {
		t.Errorf("EnvName %q", got)
	}
	names := KeyNames()
	if len(names) != 5+2+5+13+6+10+8*16 { // top, ollama, server, loop, budgets, managers, roles
		t.Errorf("%d keys", len(names))
	}
	if names[0] != "work_dir" || names[len(names)-1] != "roles.retriever.hosts" {
		t.Errorf("order: %s ... %s", names[0], names[len(names)-1])
	}
}

// Values are shown as TOML that reads back: control characters as \u
// escapes, quotes and backslashes escaped.
func TestFormatValueIsTOML(t *testing.T) {
	for _, s := range []string{"plain", "\abell", `back\slash "quoted"`, "tab\tnew\nline", "ümlaut ✓", "c1\u009b"} {
		doc := "v = " + formatValue(s) + "\n"
		var got struct{ V string }
		if err := toml.Unmarshal([]byte(doc), &got); err != nil || got.V != s {
			t.Errorf("%q → %s → %q (%v)", s, doc, got.V, err)
		}
	}
}
