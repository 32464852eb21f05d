package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
)

// episodeEnding is an episode of a few turns ending as said with a score.
func episodeEnding(n int, ending string, score, turns int) Episode {
	e := Episode{Episode: n, Ending: ending, Score: score, Moves: turns, Turns: turns, Critic: engine.CriticTally{Rejected: map[engine.Stage]int{}}}
	for i := range turns {
		e.Scores = append(e.Scores, score*(i+1)/turns)
		e.Prompt = append(e.Prompt, 100)
		e.Calls = append(e.Calls, 1)
	}
	return e
}

// TestStoppedEpisodesLeftOutOfMeans: an episode a stop cut short (the
// run's "stopped", the person's) is shown and counted beside the means,
// which it does not enter; the game or the turn limit's endings, and a
// walkthrough that ran out, do.
func TestStoppedEpisodesLeftOutOfMeans(t *testing.T) {
	tests := []struct {
		name                  string
		eps                   []Episode
		mean, steps, norm     float64 // NaN: none
		stopped, best, deaths int
		cell                  string // the games table's episodes cell
	}{
		{"none stopped", []Episode{episodeEnding(1, "victory", 100, 10), episodeEnding(2, "turn cap", 20, 30)}, 60, 20, 0.6, 0, 100, 0, "2"},
		{"one stopped", []Episode{episodeEnding(1, "victory", 100, 10), episodeEnding(2, "turn cap", 20, 30), episodeEnding(3, EndingStopped, 0, 3)},
			60, 20, 0.6, 1, 100, 0, "3, 1 stopped"},
		{"the person ended one", []Episode{episodeEnding(1, "death", 40, 10), episodeEnding(2, "person", 90, 4)}, 40, 10, 0.4, 1, 90, 1, "2, 1 stopped"},
		{"a walkthrough ran out", []Episode{episodeEnding(1, "script ended", 30, 10), episodeEnding(2, "victory", 100, 20)}, 65, 15, 0.65, 0, 100, 0, "2"},
		{"every one stopped", []Episode{episodeEnding(1, EndingStopped, 10, 2)}, math.NaN(), math.NaN(), math.NaN(), 1, 10, 0, "1, 1 stopped"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.eps {
				if tc.eps[i].Ending == "death" {
					tc.eps[i].Deaths = 1
				}
			}
			r := &Report{Story: "demo.z3", StoryMD5: "00", MaxScore: 100, Agent: "llm", Requested: len(tc.eps), Episodes: tc.eps}
			r.Summary = Summarize(r.Episodes)
			all := r.Summary[len(r.Summary)-1]
			if all.Stopped != tc.stopped || all.Episodes != len(tc.eps) || all.BestScore != tc.best || all.Deaths != tc.deaths {
				t.Errorf("run: %d of %d episodes stopped, best %d, %d deaths", all.Stopped, all.Episodes, all.BestScore, all.Deaths)
			}
			wantMean := tc.mean
			if math.IsNaN(wantMean) {
				wantMean = 0
			}
			if math.Abs(all.Score-wantMean) > 1e-9 {
				t.Errorf("run's mean score %v, want %v", all.Score, wantMean)
			}
			g := Game(r)
			if g.Episodes != len(tc.eps) || g.Stopped != tc.stopped || math.Abs(g.Score-wantMean) > 1e-9 || g.Highscore != tc.best {
				t.Errorf("game: %+v", g)
			}
			if !sameFloat(g.Normalized, tc.norm) || !sameFloat(g.Steps, tc.steps) && !(math.IsNaN(tc.steps) && g.Steps == 0) {
				t.Errorf("game: normalised %v (want %v), steps %v (want %v)", g.Normalized, tc.norm, g.Steps, tc.steps)
			}
			s := &Suite{Format: FormatVersion, Models: []string{""}, Episodes: len(tc.eps), Runs: []*Report{r},
				Stories: []SuiteStory{{Name: "demo.z3", MD5: "00", MaxScore: 100}}}
			s.Compute()
			if o := s.Overall[0]; o.Stopped != tc.stopped || o.Episodes != len(tc.eps) || math.Abs(o.Score-wantMean) > 1e-9 {
				t.Errorf("overall: %+v", o)
			}
			var b bytes.Buffer
			PrintSuite(&b, s, 40)
			if !regexp.MustCompile(`(?m)^demo\.z3\s+` + regexp.QuoteMeta(tc.cell) + `\s{2,}`).MatchString(b.String()) {
				t.Errorf("the games table does not say %q:\n%s", tc.cell, b.String())
			}
			if said := strings.Contains(b.String(), "stopped before the game or the turn limit ended them"); said != (tc.stopped > 0) {
				t.Errorf("the note on stopped episodes shown %v:\n%s", said, b.String())
			}
		})
	}
	// A game whose every episode stopped has no mean: the overall is the
	// other game's.
	r1 := &Report{Story: "a.z5", StoryMD5: "a", MaxScore: 10, Episodes: []Episode{episodeEnding(1, "victory", 10, 5)}}
	r2 := &Report{Story: "b.z5", StoryMD5: "b", MaxScore: 10, Episodes: []Episode{episodeEnding(1, EndingStopped, 0, 1)}}
	o := Overall("", []GameResult{Game(r1), Game(r2)})
	if o.Games != 2 || o.Episodes != 2 || o.Stopped != 1 || o.Score != 10 || o.Normalized != 1 || o.Steps != 5 {
		t.Errorf("overall over a fully stopped game: %+v", o)
	}
}

func sameFloat(a, b float64) bool {
	return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-9
}

// TestOneTokenTotal: a run's prompt tokens are one count, every call's:
// its turns', its episodes' ends' and those of no turn; the games table,
// the per-role table (run and suite) and the exports give that figure.
func TestOneTokenTotal(t *testing.T) {
	r := goldenReport("qwen3:4b", 0) // 35100 tokens in its turns
	r.Episodes[0].EndCalls, r.Episodes[0].EndPrompt = 2, 3000
	r.Dropped, r.DroppedPrompt = 1, 400
	// As the client's calls were counted by role: the turns' two thirds
	// the agent's, the ends and the stray call the knowledge role's.
	r.Roles = []llm.RoleStats{{Role: "agent", Calls: 46}, {Role: "critic", Calls: 23}, {Role: "knowledge", Calls: 3}, {Role: "all", Calls: 72}}
	r.RolePrompt = map[string]int{"agent": 23400, "critic": 11700, "knowledge": 3400, "all": 38500}
	CountedPrompt(r)
	if got := r.PromptTokens(); got != 38500 {
		t.Fatalf("the run's prompt tokens %d, want 38500", got)
	}
	if r.Calls() != 72 {
		t.Errorf("the run's calls %d, want 72", r.Calls())
	}
	g := Game(r)
	var all RoleCost
	for _, c := range RoleCosts("qwen3:4b", []*Report{r}) {
		if c.Role == "all" {
			all = c
		}
	}
	if g.PromptTokens != r.PromptTokens() || all.PromptTokens != g.PromptTokens {
		t.Errorf("games table %d, roles table %d, run %d: one total wanted", g.PromptTokens, all.PromptTokens, r.PromptTokens())
	}
	var rows int
	for _, e := range EpisodeRows("v", []*Report{r}) {
		rows += e.PromptTokens
	}
	if rows+r.DroppedPrompt != r.PromptTokens() {
		t.Errorf("the exported episodes' tokens %d + %d of no turn, want %d", rows, r.DroppedPrompt, r.PromptTokens())
	}
	var b bytes.Buffer
	Print(&b, r, 40)
	total := ""
	for _, line := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[0] == "all" {
			total = f[3] // role, calls, calls/turn, prompt tokens
		}
	}
	if total != "38500" {
		t.Errorf("the role table's total %q is not the run's:\n%s", total, b.String())
	}
}

// TestRead: every format up to this one reads (format 1's ollama_host is
// the server); a newer one, or anything else, is refused with its
// sentinel.
func TestRead(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		wantErr   error
		suite     bool
		wantHost  string
		wantRuns  int
		wantProto string
	}{
		{"format 1 report", `{"format_version":1,"ollama_host":"127.0.0.1:11434/v1","metrics":[{"name":"all"}]}`, nil, false, "127.0.0.1:11434/v1", 0, ""},
		{"format 2 report", `{"format_version":2,"server":"h:1","metrics":[{"name":"all"}],"provenance":{"api":"openai","profile":"zorkgpt"}}`, nil, false, "h:1", 0, "openai"},
		{"no format", `{"metrics":[{"name":"all"}]}`, nil, false, "", 0, ""},
		{"suite", `{"format_version":2,"runs":[{"format_version":1,"ollama_host":"x","metrics":[{"name":"all"}]}]}`, nil, true, "x", 1, ""},
		{"an unfinished shard's", `{"format_version":2,"runs":null,"error":"playing"}`, nil, true, "", 0, ""},
		{"newer report", `{"format_version":3,"metrics":[{"name":"all"}]}`, ErrNewerFormat, false, "", 0, ""},
		{"newer run in a suite", `{"format_version":2,"runs":[{"format_version":9,"metrics":[]}]}`, ErrNewerFormat, true, "", 0, ""},
		{"no metrics", `{"format_version":1,"metrics":[]}`, ErrNotReport, false, "", 0, ""},
		{"something else", `{"name":"x"}`, ErrNotReport, false, "", 0, ""},
		{"not JSON", `episode,seed`, ErrNotReport, false, "", 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, s, err := Read([]byte(tc.data))
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("error %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil || (s != nil) != tc.suite || (rep != nil) == tc.suite {
				t.Fatalf("report %v, suite %v, error %v", rep, s, err)
			}
			if tc.suite {
				if len(s.Runs) != tc.wantRuns || tc.wantRuns > 0 && s.Runs[0].Host != tc.wantHost {
					t.Errorf("suite %+v", s)
				}
				return
			}
			if rep.Host != tc.wantHost || tc.wantProto != "" && (rep.Provenance == nil || rep.Provenance.API != tc.wantProto) {
				t.Errorf("report: server %q, provenance %+v", rep.Host, rep.Provenance)
			}
		})
	}
	// What this Lantern writes, it reads back the same.
	r := goldenReport("qwen3:4b", 0)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := Read(data)
	if err != nil || back.Provenance.Models[0].Digest != r.Provenance.Models[0].Digest || back.PromptTokens() != r.PromptTokens() {
		t.Errorf("read back %v: %+v", err, back)
	}
	if strings.Contains(string(data), "ollama_host") {
		t.Errorf("format %d still writes ollama_host", FormatVersion)
	}
}

// TestNewProvenance: the profile, every role's model, server and sampling
// as configured (with what the OpenAI protocol does not send), and the
// loop's, managers' and budgets' settings.
func TestNewProvenance(t *testing.T) {
	cfg := config.Defaults()
	cfg.Profile = config.ProfileZorkGPT
	cfg.Server = config.Server{API: config.APIOpenAI, BaseURL: "http://gpu:8080/v1"}
	agent := cfg.Roles[config.RoleAgent]
	agent.NumCtx, agent.KeepAlive, agent.Seed, agent.NumPredict = 8192, 5*time.Minute, 42, 600
	cfg.Roles[config.RoleAgent] = agent
	critic := cfg.Roles[config.RoleCritic]
	critic.API, critic.BaseURL = config.APIOllama, "http://cpu:11434"
	cfg.Roles[config.RoleCritic] = critic
	tests := []struct {
		name       string
		withModels bool
		wantRoles  int
	}{
		{"a model plays", true, len(config.RoleNames())},
		{"a script plays", false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := NewProvenance(cfg, tc.withModels)
			if p.Profile != "zorkgpt" || p.Settings["loop.max_turns_per_episode"] != "500" || p.Settings["managers.memory_synthesis"] != `"auto"` {
				t.Errorf("profile %q, settings %v", p.Profile, p.Settings)
			}
			for k := range p.Settings {
				if strings.HasPrefix(k, "roles.") || strings.HasPrefix(k, "ollama.") || k == "work_dir" {
					t.Errorf("setting %s is not the harness's", k)
				}
			}
			if len(p.Roles) != tc.wantRoles {
				t.Fatalf("%d roles, want %d", len(p.Roles), tc.wantRoles)
			}
			if !tc.withModels {
				return
			}
			a, _ := p.Role(config.RoleAgent)
			if a.API != "openai" || a.Temperature != 0.6 || a.TopP != 0.95 || a.TopK != 20 || a.Seed != 42 || a.NumPredict != 600 || a.NumCtx != 8192 ||
				a.KeepAlive != "5m0s" || a.Think != "auto" || strings.Join(a.NotSent, ",") != "num_ctx,keep_alive" || a.Server != "" {
				t.Errorf("agent %+v", a)
			}
			c, _ := p.Role(config.RoleCritic)
			if c.API != "ollama" || c.Server != "http://cpu:11434" || c.NotSent != nil || c.KeepAlive != "" {
				t.Errorf("critic %+v", c)
			}
		})
	}
}

// TestSetupDiffers: the parts of one benchmark must be made alike (their
// servers may differ).
func TestSetupDiffers(t *testing.T) {
	base := func() *Provenance { return goldenProvenance("qwen3:4b") }
	tests := []struct {
		name   string
		change func(p *Provenance)
		want   string // in the difference; "" none
	}{
		{"alike", func(p *Provenance) {}, ""},
		{"another server", func(p *Provenance) {
			p.BaseURL, p.Hosts, p.Models[0].Server = "http://b:1", []string{"b:1"}, "http://b:1"
		}, ""},
		{"protocol", func(p *Provenance) { p.API = "openai" }, "protocol"},
		{"profile", func(p *Provenance) { p.Profile = "zorkgpt" }, "profile"},
		{"temperature", func(p *Provenance) { p.Roles[0].Temperature = 0.9 }, "sampling"},
		{"setting", func(p *Provenance) { p.Settings["loop.critic_mode"] = `"always"` }, "loop.critic_mode"},
		{"weights", func(p *Provenance) { p.Models[0].Digest = "ffff" }, "digest ffff"},
		{"no digest known", func(p *Provenance) { p.Models[0].Digest = "" }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := base()
			tc.change(b)
			d := SetupDiffers(base(), b)
			if tc.want == "" && d != "" || tc.want != "" && !strings.Contains(d, tc.want) {
				t.Errorf("difference %q, want %q", d, tc.want)
			}
		})
	}
	m := MergeProvenance([]*Provenance{base(), nil, func() *Provenance {
		p := base()
		p.BaseURL, p.Hosts, p.Models[0].Server = "http://b:1", []string{"b:1"}, "http://b:1"
		return p
	}()})
	if m.BaseURL != "" || len(m.Hosts) != 2 || len(m.Models) != 2 || m.Profile != "lean" {
		t.Errorf("merged provenance %+v", m)
	}
}

// oneModel is the sweep's suite of one model's runs (the games it played).
func oneModel(model string, stories ...string) *Suite {
	s := sweepSuite()
	s.Models, s.Label = []string{model}, model+" suite"
	var runs []*Report
	var played []SuiteStory
	for _, st := range s.Stories {
		for _, name := range stories {
			if st.Name == name {
				played = append(played, st)
			}
		}
	}
	for _, r := range s.Runs {
		for _, st := range stories {
			if runModel(r) == model && r.Story == st {
				runs = append(runs, r)
			}
		}
	}
	s.Runs, s.Stories = runs, played
	s.Compute()
	return s
}

// TestCompareSuites: two suites of one model each pair by story (A's model
// against B's); sweeps pair by story and model; the overall rows are over
// the games both played, and games one side lacks are named.
func TestCompareSuites(t *testing.T) {
	tests := []struct {
		name             string
		a, b             *Suite
		games, overall   int
		onlyA, onlyB     string
		normDiff, normSE float64 // the first game's
	}{
		// demo: 0.6 ± 0.4 against 0.9 ± 0.1.
		{"two models, same games", oneModel("qwen3:4b", "demo.z3", "tiny.z5"), oneModel("qwen3:8b", "demo.z3", "tiny.z5"), 2, 1, "", "", 0.3, math.Hypot(0.4, 0.1)},
		{"a game only in A", oneModel("qwen3:4b", "demo.z3", "tiny.z5"), oneModel("qwen3:8b", "demo.z3"), 1, 1, "tiny.z5", "", 0.3, math.Hypot(0.4, 0.1)},
		{"sweeps", sweepSuite(), sweepSuite(), 4, 2, "", "", 0, math.Hypot(0.4, 0.4)},
		{"sweep against one model", sweepSuite(), oneModel("qwen3:8b", "demo.z3"), 1, 1, "demo.z3 qwen3:4b, tiny.z5 qwen3:4b, tiny.z5 qwen3:8b", "", 0, math.Hypot(0.1, 0.1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := CompareSuites(tc.a, tc.b)
			if len(c.Games) != tc.games || len(c.Overall) != tc.overall || strings.Join(c.OnlyA, ", ") != tc.onlyA || strings.Join(c.OnlyB, ", ") != tc.onlyB {
				t.Fatalf("%d games, %d overall, only in A %q, only in B %q", len(c.Games), len(c.Overall), c.OnlyA, c.OnlyB)
			}
			g := c.Games[0]
			if g.NormalizedDiff == nil || math.Abs(*g.NormalizedDiff-tc.normDiff) > 1e-9 || math.Abs(*g.NormalizedDiffSE-tc.normSE) > 1e-9 {
				t.Errorf("first game %+v", g)
			}
			for _, o := range c.Overall {
				if o.A.Games != o.B.Games || o.A.Games > tc.games {
					t.Errorf("an overall row over %d and %d games", o.A.Games, o.B.Games)
				}
			}
			if _, err := json.Marshal(c); err != nil {
				t.Errorf("--json: %v", err)
			}
		})
	}
	var b bytes.Buffer
	PrintSuiteComparison(&b, CompareSuites(oneModel("qwen3:4b", "demo.z3", "tiny.z5"), oneModel("qwen3:8b", "demo.z3")))
	benchGolden(t, "suite_compare", b.Bytes())
}
