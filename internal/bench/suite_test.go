package bench

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/llm"
)

// sweepSuite is a fixed model sweep: two stories × two models, two
// episodes each, with per-role costs.
func sweepSuite() *Suite {
	s := &Suite{Format: FormatVersion, Lantern: "v1.2.3", Label: "sweep", Agent: "llm", Models: []string{"qwen3:4b", "qwen3:8b"}, Episodes: 2,
		Seed: 7, Seeds: []int{7, 8}, MaxTurns: 12, Complete: true,
		Stories: []SuiteStory{{Name: "demo.z3", MD5: "00", Release: 1, MaxScore: 100, Seed: 7}, {Name: "tiny.z5", MD5: "11", Release: 2, Seed: 7}}}
	for _, story := range s.Stories {
		for i, m := range s.Models {
			r := goldenReport(m, 5*i)
			r.Story, r.StoryMD5, r.MaxScore = story.Name, story.MD5, story.MaxScore
			if i == 1 { // the larger model does better in the second episode
				e := &r.Episodes[1]
				e.Scores[len(e.Scores)-1], e.Score, e.Ending = 80, 80, "victory"
				r.Summary = Summarize(r.Episodes)
			}
			for role := range r.Models {
				r.Models[role] = m
			}
			// The run's 69 calls and 35100 prompt tokens (its turns'),
			// two thirds the agent's.
			r.Roles = []llm.RoleStats{{Role: "agent", Calls: 46, CallsPerTurn: 2, CacheShare: 0.5},
				{Role: "critic", Calls: 23, CallsPerTurn: 1, CacheShare: 0.25},
				{Role: "all", Calls: 69, CallsPerTurn: 3, CacheShare: 5.0 / 12}}
			r.RolePrompt = map[string]int{"agent": 23400, "critic": 11700, "all": 35100}
			CountedPrompt(r)
			r.RoleWallMS = map[string]float64{"agent": 16000, "critic": 2500}
			s.Runs = append(s.Runs, r)
		}
	}
	s.Compute()
	return s
}

// TestSuiteGolden: a model sweep's per-game table, cost by role and chart.
func TestSuiteGolden(t *testing.T) {
	var b bytes.Buffer
	PrintSuite(&b, sweepSuite(), 60)
	benchGolden(t, "suite_sweep", b.Bytes())
}

func TestSuiteResults(t *testing.T) {
	s := sweepSuite()
	// Episode scores 100 and 20 of 100: mean 0.6, s.e. 0.4 (sd 0.566 / √2).
	g := s.Games[0]
	if g.Story != "demo.z3" || g.Model != "qwen3:4b" || math.Abs(g.Normalized-0.6) > 1e-9 || math.Abs(g.NormalizedSE-0.4) > 1e-9 ||
		g.Highscore != 100 || g.Wins != 1 || g.Steps != 11.5 || g.Episodes != 2 {
		t.Errorf("demo with qwen3:4b: %+v", g)
	}
	if !math.IsNaN(s.Games[1*2].Normalized) || s.Games[2].NormalizedJSON != nil {
		t.Errorf("a story without a maximum has a normalised score: %+v", s.Games[2])
	}
	o := s.Overall[0]
	// Only demo has a maximum: the overall share is its own.
	if o.Story != "all" || o.Games != 2 || o.Episodes != 4 || math.Abs(o.Normalized-0.6) > 1e-9 || math.Abs(o.NormalizedSE-0.4) > 1e-9 {
		t.Errorf("overall: %+v", o)
	}
	// Two runs of the model: 23400 of each run's tokens are the agent's.
	var agent RoleCost
	for _, r := range s.Roles {
		if r.Model == "qwen3:4b" && r.Role == "agent" {
			agent = r
		}
	}
	if agent.Calls != 92 || agent.PromptTokens != 46800 || agent.CacheShare != 0.5 || agent.WallMS != 32000 {
		t.Errorf("agent cost: %+v", agent)
	}
	if last := s.Roles[len(s.Roles)/2-1]; last.Role != "all" || last.WallMS != 37000 || last.PromptTokens != o.PromptTokens || last.Calls != o.Calls {
		t.Errorf("the model's all row %+v; the games table says %d calls, %d prompt tokens", last, o.Calls, o.PromptTokens)
	}
}

func TestMergeRoles(t *testing.T) {
	tests := []struct {
		name       string
		prompt     []map[string]int // each part's counted tokens (nil: format 1, the per-turn figure)
		wantPrompt map[string]int
	}{
		// 23 turns each: 2300 + 6900 tokens over 46 turns; cache 1150 of 9200.
		{"format 1", []map[string]int{nil, nil}, nil},
		{"counted", []map[string]int{{"agent": 2300, "all": 2300}, {"agent": 6900, "all": 6900}}, map[string]int{"agent": 9200, "all": 9200}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := goldenReport("m", 0), goldenReport("m", 0)
			a.Roles = []llm.RoleStats{{Role: "agent", Calls: 10, PromptPerTurn: 100, CacheShare: 0.5, P50MS: 10}, {Role: "all", Calls: 10}}
			b.Roles = []llm.RoleStats{{Role: "agent", Calls: 30, PromptPerTurn: 300, CacheShare: 0, P50MS: 20}, {Role: "all", Calls: 30}}
			a.RolePrompt, b.RolePrompt = tc.prompt[0], tc.prompt[1]
			got := MergeRoles([]*Report{a, b})
			if len(got) != 2 || got[0].Role != "agent" || got[0].Calls != 40 || math.Abs(got[0].PromptPerTurn-200) > 1e-9 ||
				math.Abs(got[0].CacheShare-0.125) > 1e-9 || math.Abs(got[0].P50MS-17.5) > 1e-9 || math.Abs(got[0].CallsPerTurn-40.0/46) > 1e-9 || got[1].Role != "all" {
				t.Errorf("merged roles: %+v", got)
			}
			if p := MergeRolePrompt([]*Report{a, b}); !reflect.DeepEqual(p, tc.wantPrompt) {
				t.Errorf("merged counted tokens %v, want %v", p, tc.wantPrompt)
			}
		})
	}
}

func TestExports(t *testing.T) {
	s := sweepSuite()
	s.Runs[0].Episodes[1].EndPrompt = 400 // the episode's end counts in its tokens
	var b bytes.Buffer
	if err := WriteEpisodesCSV(&b, EpisodeRows("v1", s.Runs[:1])); err != nil {
		t.Fatal(err)
	}
	want := "format_version,story,story_md5,model,agent,label,lantern_version,episode,seed,ending,score,max_score,normalized_score,highscore,moves,turns," +
		"deaths,llm_calls,prompt_tokens,llm_errors,stopped,api,base_url,profile,model_id,model_digest,model_parameter_size,model_quantization," +
		"temperature,top_p,top_k,min_p,repeat_penalty,sampling_seed,num_predict,num_ctx,keep_alive,think,roles,model_identities\n" +
		"2,demo.z3,00,qwen3:4b,llm,qwen3:4b,v1,1,7,victory,100,100,1,100,10,11,0,33,16500,0,false," +
		"ollama,http://127.0.0.1:11434,lean,qwen3:4b,e55aed6fe6433df0b2a2ee8e3ccd2c2a92b5c1b4a6b2f4e9c0b3a1d2e3f40516,4.0B,Q4_K_M," +
		"0.6,0.95,20,0,1,0,0,0,,auto,"
	lines := strings.SplitN(b.String(), "\n", 3)
	if len(lines) != 3 || lines[0]+"\n"+lines[1][:min(len(lines[1]), len(want)-len(lines[0])-1)] != want {
		t.Errorf("episodes.csv:\n%s\nwant it to begin:\n%s", b.String(), want)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("episodes.csv: %d rows, %v", len(rows), err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var roles []RoleSetup
	if err := json.Unmarshal([]byte(rows[1][col["roles"]]), &roles); err != nil || len(roles) != 2 || roles[1].Role != "critic" || roles[1].Temperature != 0.1 {
		t.Errorf("the roles column: %v, %+v", err, roles)
	}
	if got := rows[2][col["prompt_tokens"]]; got != "19000" {
		t.Errorf("episode 2's prompt tokens %s, want 18600 of its turns and 400 of its end", got)
	}
	b.Reset()
	if err := WriteJSONL(&b, TurnRows(s.Runs[2:3])); err != nil {
		t.Fatal(err)
	}
	tl := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(tl) != 23 || tl[0] != `{"format_version":2,"story":"tiny.z5","story_md5":"11","model":"qwen3:4b","episode":1,"seed":7,"turn":1,"score":0,"llm_calls":3,"prompt_tokens":1000,"harness_us":1500}` {
		t.Errorf("turns.jsonl: %d lines, first %s", len(tl), tl[0])
	}
	// A run without a model: no provenance of a server, null sampling.
	script := goldenReport("script", 0)
	script.Provenance = &Provenance{Profile: "lean"}
	b.Reset()
	if err := WriteJSONL(&b, EpisodeRows("v1", []*Report{script})); err != nil {
		t.Fatal(err)
	}
	if first := strings.SplitN(b.String(), "\n", 2)[0]; !strings.Contains(first, `"api":"","base_url":"","profile":"lean"`) ||
		!strings.Contains(first, `"temperature":null`) || !strings.Contains(first, `"roles":null`) {
		t.Errorf("a scripted run's episode row: %s", first)
	}
}

// TestExportsNeutraliseControls: a model name and a label holding ESC and
// C1 controls (a hostile server's, a careless flag) reach neither CSV nor
// JSONL raw: JSON escapes them, CSV shows stand-ins.
func TestExportsNeutraliseControls(t *testing.T) {
	const hostile = "m\x1b]0;t\x07\u009b2J\u009d0;t\u009c"
	rows := []EpisodeRow{{Story: "demo.z3", Model: hostile, Label: hostile, Ending: "victory"}}
	tests := []struct {
		name  string
		write func(*bytes.Buffer) error
		want  string
	}{
		{"csv", func(b *bytes.Buffer) error { return WriteEpisodesCSV(b, rows) }, "m^[]0;t^G\uFFFD2J\uFFFD0;t\uFFFD"},
		{"jsonl", func(b *bytes.Buffer) error { return WriteJSONL(b, rows) }, `m\u001b]0;t\u0007\u009b2J\u009d0;t\u009c`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, r := range out {
				if r == 0x1b || r == 0x07 || r >= 0x80 && r <= 0x9f {
					t.Fatalf("raw control %U in %q", r, out)
				}
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("%q lacks %q", out, tc.want)
			}
		})
	}
}
