package bench

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lantern-if/lantern/engine"
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
	r.Episodes = []Episode{
		ep(1, "victory", []int{0, 0, 5 + shift, 5 + shift, 10, 10, 25, 25, 40, 60, 100}),
		ep(2, "turn cap", []int{0, 5, 5, 5, 10, 10, 10, 15, 15, 15, 20, 20}),
	}
	r.Summary = Summarize(r.Episodes)
	return r
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
}
