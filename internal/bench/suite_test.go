package bench

import (
	"bytes"
	"math"
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
			r.Roles = []llm.RoleStats{{Role: "agent", Calls: 20, CallsPerTurn: 1, PromptPerTurn: 1000, CacheShare: 0.5},
				{Role: "critic", Calls: 10, CallsPerTurn: 0.5, PromptPerTurn: 500, CacheShare: 0.25},
				{Role: "all", Calls: 30, CallsPerTurn: 1.5, PromptPerTurn: 1500, CacheShare: 5.0 / 12}}
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
	// Two runs of the model, each 23 turns: tokens 1000 × 23 per run.
	var agent RoleCost
	for _, r := range s.Roles {
		if r.Model == "qwen3:4b" && r.Role == "agent" {
			agent = r
		}
	}
	if agent.Calls != 40 || agent.PromptTokens != 46000 || agent.CacheShare != 0.5 || agent.WallMS != 32000 {
		t.Errorf("agent cost: %+v", agent)
	}
	if last := s.Roles[len(s.Roles)/2-1]; last.Role != "all" || last.WallMS != 37000 {
		t.Errorf("the model's all row: %+v", last)
	}
}

func TestMergeRoles(t *testing.T) {
	a, b := goldenReport("m", 0), goldenReport("m", 0)
	a.Roles = []llm.RoleStats{{Role: "agent", Calls: 10, PromptPerTurn: 100, CacheShare: 0.5, P50MS: 10}, {Role: "all", Calls: 10}}
	b.Roles = []llm.RoleStats{{Role: "agent", Calls: 30, PromptPerTurn: 300, CacheShare: 0, P50MS: 20}, {Role: "all", Calls: 30}}
	got := MergeRoles([]*Report{a, b})
	// 23 turns each: 2300 + 6900 tokens over 46 turns; cache 1150 of 9200.
	if len(got) != 2 || got[0].Role != "agent" || got[0].Calls != 40 || math.Abs(got[0].PromptPerTurn-200) > 1e-9 ||
		math.Abs(got[0].CacheShare-0.125) > 1e-9 || math.Abs(got[0].P50MS-17.5) > 1e-9 || math.Abs(got[0].CallsPerTurn-40.0/46) > 1e-9 || got[1].Role != "all" {
		t.Errorf("merged roles: %+v", got)
	}
}

func TestExports(t *testing.T) {
	s := sweepSuite()
	var b bytes.Buffer
	if err := WriteEpisodesCSV(&b, EpisodeRows("v1", s.Runs[:1])); err != nil {
		t.Fatal(err)
	}
	want := "story,story_md5,model,agent,label,lantern_version,episode,seed,ending,score,max_score,normalized_score,highscore,moves,turns,deaths,llm_calls,prompt_tokens,llm_errors\n" +
		"demo.z3,00,qwen3:4b,llm,qwen3:4b,v1,1,7,victory,100,100,1,100,10,11,0,33,16500,0\n" +
		"demo.z3,00,qwen3:4b,llm,qwen3:4b,v1,2,8,turn cap,20,100,0.2,20,11,12,0,36,18600,0\n"
	if b.String() != want {
		t.Errorf("episodes.csv:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteJSONL(&b, TurnRows(s.Runs[2:3])); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 23 || lines[0] != `{"story":"tiny.z5","story_md5":"11","model":"qwen3:4b","episode":1,"seed":7,"turn":1,"score":0,"llm_calls":3,"prompt_tokens":1000,"harness_us":1500}` {
		t.Errorf("turns.jsonl: %d lines, first %s", len(lines), lines[0])
	}
}
