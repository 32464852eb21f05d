package bench

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
)

var updateBenchGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenReport is a fixed two-episode run: every number in it is chosen,
// so the report's text is the same on every machine.
func goldenReport(label string, shift int) *Report {
	ep := func(n int, ending string, scores []int) Episode {
		e := Episode{Episode: n, Ending: ending, Score: scores[len(scores)-1], Moves: len(scores) - 1, Turns: len(scores),
			Actions: len(scores), Repeats: 1, Visited: []int{3, 4, 5}, Memories: []int{3}, Scores: scores,
			Critic: engine.CriticTally{Turns: len(scores), Proposals: len(scores) + 2, Rejected: map[engine.Stage]int{engine.StageModel: 2},
				Decided: map[engine.Stage]int{engine.StageGame: len(scores) - 2, engine.StageModel: 4}}}
		e.Memory = MemoryTally{Asked: len(scores) / 3, InReply: len(scores)/3 - 1, OwnCall: 1, Kept: 2}
		best := 0
		for i, s := range scores {
			e.Prompt = append(e.Prompt, 1000+100*i)
			e.Calls = append(e.Calls, 3)
			e.HarnessUS = append(e.HarnessUS, int64(1500+10*i))
			e.LatencyUS = append(e.LatencyUS, int64(800000+1000*i))
			e.WallUS = append(e.WallUS, int64(2000000+100000*i))
			e.AgentUS = append(e.AgentUS, int64(1000000))
			e.ModelUS = append(e.ModelUS, int64(1500000+shift*100000))
			if s > best {
				best = s
				e.Milestone = append(e.Milestone, Milestone{Score: s, Turn: i + 1})
			}
		}
		return e
	}
	r := &Report{ID: 4, Label: label, Story: "demo.z3", StoryMD5: "00", Release: 1, MaxScore: 100, Agent: "llm",
		Models: map[string]string{}, Seed: 7, MaxTurns: 12, Requested: 2, Complete: true,
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Ended: time.Date(2026, 1, 2, 4, 4, 5, 0, time.UTC),
		DB: "/work/demo-r1/bench/x/demo-r1/lantern.db", Index: "/work/demo-r1/lantern.db",
		MemoryMode: "in the agent's reply (auto: the server serves one request at a time (assumed, Ollama's default), so the agent's reply carries the question)"}
	for _, role := range []string{"agent", "critic", "memory", "objectives", "knowledge", "supervisor"} {
		r.Models[role] = "qwen3:4b"
	}
	r.Provenance = goldenProvenance(label)
	r.Episodes = []Episode{
		ep(1, "victory", []int{0, 0, 5 + shift, 5 + shift, 10, 10, 25, 25, 40, 60, 100}),
		ep(2, "turn cap", []int{0, 5, 5, 5, 10, 10, 10, 15, 15, 15, 20, 20}),
	}
	r.Summary = Summarize(r.Episodes)
	// The run's 69 calls and 35100 prompt tokens, two thirds the agent's.
	r.Roles = []llm.RoleStats{{Role: "agent", Calls: 46, CallsPerTurn: 2, CacheShare: 0.5, Loads: 1},
		{Role: "critic", Calls: 23, CallsPerTurn: 1, CacheShare: 0.25},
		{Role: "all", Calls: 69, CallsPerTurn: 3, CacheShare: 5.0 / 12, Loads: 1}}
	r.RolePrompt = map[string]int{"agent": 23400, "critic": 11700, "all": 35100}
	CountedPrompt(r)
	return r
}

// goldenProvenance is a run's on a local Ollama with the lean profile and
// the default sampling: the model's identity as /api/tags gives it.
func goldenProvenance(model string) *Provenance {
	return &Provenance{API: "ollama", BaseURL: "http://127.0.0.1:11434", Hosts: []string{"127.0.0.1:11434"}, Profile: "lean",
		Roles: []RoleSetup{{Role: "agent", Model: model, API: "ollama", Temperature: 0.6, TopP: 0.95, TopK: 20, RepeatPenalty: 1, Think: "auto", Timeout: "2m0s"},
			{Role: "critic", Model: model, API: "ollama", Temperature: 0.1, TopP: 0.95, TopK: 20, RepeatPenalty: 1, Think: "off", Timeout: "2m0s"}},
		Models: []ModelIdentity{{Model: model, API: "ollama", Server: "http://127.0.0.1:11434", ID: model,
			Digest: "e55aed6fe6433df0b2a2ee8e3ccd2c2a92b5c1b4a6b2f4e9c0b3a1d2e3f40516", Family: "qwen3", Parameters: "4.0B", Quantization: "Q4_K_M", Format: "gguf"}},
		Settings: map[string]string{"loop.critic_mode": `"uncertain"`}}
}

func benchGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "bench", name+".golden")
	if *updateBenchGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run TestBenchReportGolden -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s:\n got:\n%s\nwant:\n%s", name, path, got, want)
	}
}

// TestBenchReportGolden: the report and the comparison, tables and chart,
// as a person reads them.
func TestBenchReportGolden(t *testing.T) {
	var b bytes.Buffer
	Print(&b, goldenReport("qwen3:4b", 0), 60)
	benchGolden(t, "report", b.Bytes())
	b.Reset()
	a, c := goldenReport("qwen3:4b", 0), goldenReport("qwen3:8b", 5)
	c.ID = 5
	for role := range c.Models {
		c.Models[role] = "qwen3:8b"
	}
	c.Episodes[1].Scores = []int{0, 5, 10, 20, 20, 30, 30, 30, 45, 45, 45, 50}
	c.Summary = Summarize(c.Episodes)
	PrintComparison(&b, a, c, 40)
	benchGolden(t, "compare", b.Bytes())
	// A third episode, cut short by an interruption: shown, counted, left
	// out of the means.
	b.Reset()
	s := goldenReport("qwen3:4b", 0)
	s.Requested, s.Complete, s.Error = 3, false, "interrupted"
	s.Episodes = append(s.Episodes, Episode{Episode: 3, Ending: EndingStopped, Score: 0, Moves: 2, Turns: 2, Scores: []int{0, 0},
		Prompt: []int{900, 900}, Calls: []int{2, 2}, Critic: engine.CriticTally{Rejected: map[engine.Stage]int{}}})
	s.Summary = Summarize(s.Episodes)
	for i, n := range []int{2, 2, 4} {
		s.Roles[i].Calls += n
		s.Roles[i].CallsPerTurn = float64(s.Roles[i].Calls) / 25
	}
	s.RolePrompt = map[string]int{"agent": 24300, "critic": 12600, "all": 36900}
	CountedPrompt(s)
	Print(&b, s, 60)
	benchGolden(t, "report_stopped", b.Bytes())
}
