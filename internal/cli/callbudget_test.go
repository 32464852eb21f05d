package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/memory/rundb"
)

// recorder sits in front of a model server and notes each chat call's role
// and num_ctx.
type recorder struct {
	next  http.Handler
	mu    sync.Mutex
	roles map[string]int
	ctxs  map[string]map[int]int // model -> num_ctx -> calls
	// asked counts the agent calls whose format has a memory field (the
	// last turn's memory question answered in the agent's reply).
	asked int
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path == "/api/chat" {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		var chat struct {
			Model   string         `json:"model"`
			Options map[string]any `json:"options"`
			Format  struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"format"`
		}
		json.Unmarshal(body, &chat)
		n, _ := chat.Options["num_ctx"].(float64)
		role := req.Header.Get("X-Lantern-Role")
		r.mu.Lock()
		r.roles[role]++
		if _, ok := chat.Format.Properties["memory"]; ok && role == config.RoleAgent {
			r.asked++
		}
		if r.ctxs[chat.Model] == nil {
			r.ctxs[chat.Model] = map[int]int{}
		}
		r.ctxs[chat.Model][int(n)]++
		r.mu.Unlock()
	}
	r.next.ServeHTTP(w, req)
}

func newRecorder() *recorder {
	return &recorder{roles: map[string]int{}, ctxs: map[string]map[int]int{}}
}

// checkCallBudget checks the calls rec saw over a played game of turns
// turns, the default configuration: at most 1.6 model calls a turn; on
// the person's critical path (the agent's, the critic's and the
// extractor's calls: the managers run beside the next proposal) at most
// 1.05, the agent's one call a turn and the critic's only where the game
// cannot decide; one num_ctx per model for every call (Ollama reloads a
// model when it changes); memory synthesis on 30-40% of the turns, nearly
// all of it answered in the agent's own call (a separate memory call only
// where no agent reply follows the turn).
func checkCallBudget(t *testing.T, rec *recorder, turns int) {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	calls := 0
	for _, n := range rec.roles {
		calls += n
	}
	perTurn := float64(calls) / float64(turns)
	critical := float64(rec.roles[config.RoleAgent]+rec.roles[config.RoleCritic]+rec.roles[config.RoleExtractor]) / float64(turns)
	separate := rec.roles[config.RoleMemory]
	memShare := float64(separate+rec.asked) / float64(turns)
	t.Logf("%d calls in %d turns (%.2f a turn, %.3f on the critical path) by role %v; num_ctx by model %v; memory synthesis on %.0f%% of turns (%d in the agent's call, %d separate)",
		calls, turns, perTurn, critical, rec.roles, rec.ctxs, 100*memShare, rec.asked, separate)
	if perTurn > 1.6 {
		t.Errorf("%.2f model calls a turn, want at most 1.6", perTurn)
	}
	if critical > 1.05 {
		t.Errorf("%.3f model calls a turn on the critical path, want at most 1.05", critical)
	}
	if separate > 2 {
		t.Errorf("%d separate memory calls, want the agent's call to answer all but the last turn's", separate)
	}
	for model, sizes := range rec.ctxs {
		if len(sizes) != 1 {
			t.Errorf("model %s: calls with num_ctx %v, want one size for the session", model, sizes)
		}
	}
	if memShare < 0.30 || memShare > 0.40 {
		t.Errorf("memory synthesis on %.0f%% of turns, want 30-40%%", 100*memShare)
	}
}

// TestMetricsAgreeEverywhere: for one bench run over the scripted fake
// server, every turn's model calls and prompt tokens are the same in the
// bench's own tally, in the status event the TUI shows (MetricsUpdated)
// and in lantern.db's turn row; the per-role table adds up to the run.
func TestMetricsAgreeEverywhere(t *testing.T) {
	isolate(t)
	s := llmtest.New(t)
	s.AddModel("fake", 8192)
	s.Always("agent", llmtest.Role(config.RoleAgent), llmtest.Reply{Content: `{"reasoning": "go on", "action": "north", "remember": "", "remember_importance": 0}`, PromptTokens: 100})
	s.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 5, "justification": "fine"}`, PromptTokens: 50})
	s.Always("memory", llmtest.Role(config.RoleMemory), llmtest.Reply{Content: `{"should_remember": true, "category": "NOTE", "memory_title": "Been here",
		"memory_text": "A place worth knowing.", "status": "ACTIVE", "supersedes_memory_titles": [], "reasoning": "new"}`, PromptTokens: 70})
	s.ScriptPlanning()
	t.Setenv("OLLAMA_HOST", s.Host())
	t.Setenv("LANTERN_LOOP_OBJECTIVE_UPDATE_INTERVAL", "2")
	t.Setenv("LANTERN_MANAGERS_SUPERVISOR_INTERVAL", "3")
	rep := benchJSON(t, "--model", "fake", "--episodes", "1", "--max-turns", "8")
	if len(rep.Episodes) != 1 || rep.DB == "" {
		t.Fatalf("report %+v", rep)
	}
	ep := rep.Episodes[0]
	db, err := rundb.OpenRunDB(rep.DB, rep.StoryMD5)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	eps, err := db.Episodes(context.Background())
	if err != nil || len(eps) != 1 {
		t.Fatalf("episodes %v, %v", eps, err)
	}
	rows, err := db.Turns(context.Background(), eps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != ep.Turns || len(ep.Calls) != ep.Turns || len(ep.StatusCalls) != ep.Turns {
		t.Fatalf("%d rows in lantern.db, %d bench turns, %d status events, for %d turns", len(rows), len(ep.Calls), len(ep.StatusCalls), ep.Turns)
	}
	// Each turn's wall time holds its agent calls' time.
	if len(ep.WallUS) != ep.Turns || len(ep.AgentUS) != ep.Turns {
		t.Fatalf("%d wall and %d agent times for %d turns", len(ep.WallUS), len(ep.AgentUS), ep.Turns)
	}
	for i := range ep.WallUS {
		if ep.AgentUS[i] <= 0 || ep.WallUS[i] < ep.AgentUS[i] {
			t.Errorf("turn %d: wall %dµs, agent %dµs", i+1, ep.WallUS[i], ep.AgentUS[i])
		}
	}
	// Every memory question is counted, with who answered it: here the
	// fake agent's replies leave the memory field out, so the memory role.
	if m := ep.Memory; m.Asked == 0 || m.OwnCall != m.Asked || m.Kept != m.Asked {
		t.Errorf("memory questions %+v, want each answered by the memory role and kept", m)
	}
	// The summary reports the wait (each turn's wall holds its agent's
	// calls, checked above); how long it is, is a benchmark's to say.
	if m := rep.Summary[len(rep.Summary)-1]; m.WaitRatio <= 0 || m.AgentPerTurnMS <= 0 {
		t.Errorf("run: wall/agent %.2f, agent %.2f ms a turn: not reported", m.WaitRatio, m.AgentPerTurnMS)
	}
	calls := 0
	for i, row := range rows {
		if ep.Calls[i] != ep.StatusCalls[i] || ep.Prompt[i] != ep.StatusPrompt[i] || ep.Prompt[i] != row.PromptTokens {
			t.Errorf("turn %d: bench %d calls %d prompt tokens; status %d calls %d tokens; lantern.db %d tokens",
				row.Turn, ep.Calls[i], ep.Prompt[i], ep.StatusCalls[i], ep.StatusPrompt[i], row.PromptTokens)
		}
		calls += ep.Calls[i]
	}
	// Some turns hold more than the agent's and critic's calls, so the
	// comparison covers the planning managers too.
	if calls <= 2*ep.Turns {
		t.Errorf("%d calls in %d turns: the managers' calls are missing", calls, ep.Turns)
	}
	byRole := 0
	var all llm.RoleStats
	for _, r := range rep.Roles {
		if r.Role == "all" {
			all = r
			continue
		}
		byRole += r.Calls
	}
	if all.Calls != calls+ep.EndCalls || byRole != all.Calls {
		t.Errorf("per-role table: %d calls by role, %d in all; the turns and the episode's end made %d", byRole, all.Calls, calls+ep.EndCalls)
	}
}
