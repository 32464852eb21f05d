package play_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/bench/play"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// everyMetric is what a bench report must show: every metric the
// benchmark defines, by its heading.
func everyMetric() []string {
	return []string{"score", "moves", "turns", "deaths", "Turns to each score milestone", "repeated failed action rate",
		"location coverage", "LLM calls per turn", "prompt tokens/turn p50/p95", "model latency p50/p95", "harness overhead per turn", "Score over turns"}
}

// TestBenchScriptedDemo: the demo's walkthrough, replayed in two episodes,
// wins both; every metric is printed, the run is stored, and --compare sets
// two runs side by side.
func TestBenchScriptedDemo(t *testing.T) {
	_, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	c := runBench(t, play.Options{Agent: "script:" + walk, Episodes: 2}, flags{"max-turns": "50"})
	if c.err != nil {
		t.Fatalf("bench: %v\n%s\n%s", c.err, c.out, c.stderr)
	}
	wantAll(t, "bench output", c.out, everyMetric()...)
	wantAll(t, "bench output", c.out, "Bench run 1: demo.z3 (release 1), script walkthrough.txt, 2 of 2 episodes (complete), at most 50 turns, seed 0",
		"Stored as run 1 in ", "episode 1", "episode 2", "victory", "100.0 mean, best 100", "100@T48", "1 episode 1, 2 episode 2")
	wantAll(t, "bench progress", c.stderr, "episode 1: victory, score 100 in 47 moves, 48 turns", "episode 2: victory")

	c = runBench(t, play.Options{Agent: "script:" + walk, Episodes: 1, JSON: true, Label: "short"}, flags{"max-turns": "20"})
	if c.err != nil {
		t.Fatalf("bench --json: %v: %s", c.err, c.stderr)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(c.out), &rep); err != nil {
		t.Fatalf("bench --json: %v\n%s", err, c.out)
	}
	all := rep.Summary[len(rep.Summary)-1]
	if rep.ID != 2 || rep.Label != "short" || len(rep.Episodes) != 1 || rep.Episodes[0].Ending != "turn cap" || all.Turns != 20 ||
		len(rep.Episodes[0].Scores) != 20 || all.LocationsVisited == 0 || all.HarnessPerTurnMS <= 0 || !rep.Complete {
		t.Errorf("report %+v\nmetrics %+v", rep, all)
	}
	report := filepath.Join(t.TempDir(), "short.json")
	os.WriteFile(report, []byte(c.out), 0o644)

	if c := list(t, nil); c.err != nil || !strings.Contains(c.out, "script walkthrough.txt") || !strings.Contains(c.out, "short") {
		t.Errorf("bench --list: %v\n%s", c.err, c.out)
	}
	c = compare(t, "1", "2", false, nil)
	if c.err != nil {
		t.Fatalf("bench --compare: %v", c.err)
	}
	wantAll(t, "comparison", c.out, "A: Bench run 1", "B: Bench run 2", "B - A", "score", "100.0 mean, best 100", "-", "repeated failed action rate",
		"location coverage", "LLM calls per turn", "prompt tokens/turn p50/p95", "model latency p50/p95", "harness overhead per turn",
		"Turns to each score milestone", "A run A (mean of its episodes)")
	// A report saved from --json compares like a stored run; so do last and prev.
	c = compare(t, "prev", report, true, nil)
	var cmp bench.Comparison
	if c.err != nil || json.Unmarshal([]byte(c.out), &cmp) != nil || cmp.A.ID != 1 || cmp.B.Label != "short" {
		t.Errorf("compare prev with a file: %v\n%s", c.err, c.out)
	}
	if c := compare(t, "1", "9", false, nil); c.code() != 1 || !strings.Contains(c.text(), "bench run 9") {
		t.Errorf("compare with a missing run: exit %d %s", c.code(), c.text())
	}
}

// TestBenchLLMAgentFakeServer: an LLM agent through the scripted fake
// server; the model metrics come from the calls.
func TestBenchLLMAgentFakeServer(t *testing.T) {
	isolate(t)
	s := llmtest.New(t)
	s.AddModel("fake", 8192, "tools")
	s.Always("agent", llmtest.Role(config.RoleAgent), llmtest.Reply{Content: `{"reasoning": "go on", "action": "north", "remember": "", "remember_importance": 0}`, PromptTokens: 100})
	s.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 5, "justification": "fine"}`, PromptTokens: 50})
	s.Always("memory", llmtest.Role(config.RoleMemory), llmtest.Reply{Content: `{"should_remember": true, "category": "NOTE", "memory_title": "Been here",
		"memory_text": "A place worth knowing.", "status": "ACTIVE", "supersedes_memory_titles": [], "reasoning": "new"}`, PromptTokens: 70})
	s.ScriptPlanning()
	t.Setenv("OLLAMA_HOST", s.Host())
	t.Setenv("LANTERN_LOOP_OBJECTIVE_UPDATE_INTERVAL", "2") // from the configuration into the session
	t.Setenv("LANTERN_MANAGERS_SUPERVISOR_INTERVAL", "1")
	rep := runJSON(t, play.Options{Episodes: 2}, flags{"model": "fake", "max-turns": "4"})
	if len(rep.Episodes) != 2 || rep.Models[config.RoleAgent] != "fake" || rep.Host != s.Host() || rep.Label != "fake" {
		t.Fatalf("report %+v", rep)
	}
	for _, m := range rep.Summary {
		if m.LLMCallsPerTurn < 2 || m.PromptTokensP50 < 150 || m.LatencyP50MS <= 0 || m.LatencyP95MS < m.LatencyP50MS || m.Turns == 0 {
			t.Errorf("%s: %+v", m.Name, m)
		}
		if m.LocationsCovered > m.LocationsVisited {
			t.Errorf("%s: %d of %d locations covered", m.Name, m.LocationsCovered, m.LocationsVisited)
		}
	}
	if rep.Dropped != 0 {
		t.Errorf("%d calls unattributed", rep.Dropped)
	}
	// The planning managers run in a bench as in any run: the supervisor
	// each turn (as configured), objectives, and the episode synthesis at each end.
	roles := map[string]int{}
	for _, r := range s.ChatRequests() {
		roles[r.Role]++
	}
	if roles[config.RoleSupervisor] < 16 || roles[config.RoleObjectives] == 0 || roles[config.RoleKnowledge] < 2 {
		t.Errorf("planning calls by role: %v", roles)
	}
	for _, e := range rep.Episodes {
		if e.EndCalls == 0 {
			t.Errorf("episode %d: no synthesis call counted at its end", e.Episode)
		}
	}
	t.Logf("whole run: %+v", rep.Summary[len(rep.Summary)-1])
	// A model the server lacks stops the run before it starts, naming it.
	c := runBench(t, play.Options{Episodes: 1}, flags{"model": "absent"})
	if c.code() != 1 || !strings.Contains(c.text(), "absent") || !strings.Contains(c.text(), "ollama pull") {
		t.Errorf("missing model: exit %d %s", c.code(), c.text())
	}
}

// TestE2EBenchTinyModel is the acceptance run: two episodes of 50 turns
// with the real server's tiny model, every metric printed, the run stored,
// and compared with a scripted run.
func TestE2EBenchTinyModel(t *testing.T) {
	host := os.Getenv("OLLAMA_HOST")
	if os.Getenv("LANTERN_OLLAMA_E2E") != "1" || host == "" {
		t.Skip("set LANTERN_OLLAMA_E2E=1 and OLLAMA_HOST (scripts/ollama-test-server.sh start)")
	}
	if testing.Short() || os.Getenv("LANTERN_E2E_LONG") != "1" {
		t.Skip("a hundred turns of the tiny model take many minutes: set LANTERN_E2E_LONG=1")
	}
	_, repo := isolate(t)
	t.Setenv("OLLAMA_HOST", host)
	// A fixed context size: a changing one makes the server reload the model.
	for _, r := range config.RoleNames() {
		t.Setenv(config.EnvName("roles."+r+".num_ctx"), "4096")
		t.Setenv(config.EnvName("roles."+r+".num_predict"), "1200")
		t.Setenv(config.EnvName("roles."+r+".think"), "off")
	}
	c := runBench(t, play.Options{Episodes: 2}, flags{"max-turns": "50", "model": "lantern-tiny"})
	if c.err != nil {
		t.Fatalf("bench: %v\n%s\n%s", c.err, c.out, c.stderr)
	}
	wantAll(t, "bench output", c.out, everyMetric()...)
	wantAll(t, "bench output", c.out, "Bench run 1: demo.z3", "lantern-tiny", "2 of 2 episodes (complete)", "Stored as run 1")
	t.Log(c.out)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	if c := runBench(t, play.Options{Agent: "script:" + walk, Episodes: 1}, flags{"max-turns": "50"}); c.err != nil {
		t.Fatalf("scripted bench: %v: %s", c.err, c.stderr)
	}
	c = compare(t, "1", "2", false, nil)
	if c.err != nil {
		t.Fatalf("compare: %v", c.err)
	}
	wantAll(t, "comparison", c.out, "A: Bench run 1", "B: Bench run 2", "LLM calls per turn", "model latency p50/p95")
}

// TestBenchWorkDir: a run prints its isolated work dir and leaves the
// configured one's memories alone; --workdir plays where it is told.
func TestBenchWorkDir(t *testing.T) {
	dir, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	short := play.Options{Agent: "script:" + walk, Episodes: 1}
	c := runBench(t, short, flags{"max-turns": "5"})
	if c.err != nil {
		t.Fatalf("bench: %v %s", c.err, c.stderr)
	}
	_, after, ok := strings.Cut(c.stderr, "lantern bench: work dir ")
	work := strings.TrimSpace(strings.SplitN(after, "\n", 2)[0])
	if !ok || !strings.HasPrefix(work, filepath.Join(dir, "data", "lantern", "demo")) {
		t.Fatalf("no isolated work dir printed:\n%s", c.stderr)
	}
	if _, err := os.Stat(work); err != nil {
		t.Errorf("work dir: %v", err)
	}
	// The configured work dir's story folder holds the run's index entry
	// and the bench folder, no memories or saves of its own.
	story := filepath.Join(dir, "data", "lantern", "demo-r1")
	entries, _ := os.ReadDir(story)
	for _, e := range entries {
		switch e.Name() {
		case "bench", "lantern.db", "lantern.db-wal", "lantern.db-shm":
		default:
			t.Errorf("the configured work dir got %s from an isolated run", e.Name())
		}
	}
	chosen := filepath.Join(dir, "chosen")
	c = runBench(t, short, flags{"max-turns": "5", "workdir": chosen})
	if c.err != nil || !strings.Contains(c.stderr, "work dir "+chosen+"\n") || !strings.Contains(c.out, "Stored as run 1 in "+filepath.Join(chosen, "demo-r1", "lantern.db")) {
		t.Errorf("--workdir: %v\n%s\n%s", c.err, c.stderr, c.out)
	}
}
