package cli

import (
	"bytes"
	"os"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
)

// serverLogCounts counts, in the test server's log (LANTERN_OLLAMA_LOG,
// set by scripts/with-ollama.sh), the model runners started and the
// prompts the server truncated; ok is false without a log.
func serverLogCounts(t *testing.T) (runners, truncated int, ok bool) {
	t.Helper()
	path := os.Getenv("LANTERN_OLLAMA_LOG")
	if path == "" {
		return 0, 0, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("server log: %v", err)
	}
	return bytes.Count(data, []byte(`msg="starting runner"`)), bytes.Count(data, []byte("truncating input prompt")), true
}

// TestE2EFortyTurnsOneLoad is the efficiency run on the real server: forty
// turns of the demo with every role on lantern-tiny and the default
// configuration (no num_ctx, no keep_alive: the server's own) load the
// model once, the server never truncates a prompt (every prompt is fitted
// to the context the server reports first), and the per-role table reports calls, tokens and the agent's
// cache share.
func TestE2EFortyTurnsOneLoad(t *testing.T) {
	host := os.Getenv("OLLAMA_HOST")
	if os.Getenv("LANTERN_OLLAMA_E2E") != "1" || host == "" {
		t.Skip("set LANTERN_OLLAMA_E2E=1 and OLLAMA_HOST (scripts/ollama-test-server.sh start)")
	}
	if testing.Short() || os.Getenv("LANTERN_E2E_LONG") != "1" {
		t.Skip("forty turns of the tiny model take many minutes: set LANTERN_E2E_LONG=1")
	}
	isolate(t)
	t.Setenv("OLLAMA_HOST", host)
	runners0, trunc0, haveLog := serverLogCounts(t)
	rep := benchJSON(t, "--episodes", "1", "--max-turns", "40", "--model", "lantern-tiny")
	if len(rep.Episodes) != 1 || rep.Episodes[0].Turns != 40 {
		t.Fatalf("report %+v", rep.Episodes)
	}
	var all, agent llm.RoleStats
	for _, r := range rep.Roles {
		switch r.Role {
		case "all":
			all = r
		case config.RoleAgent:
			agent = r
		}
		t.Logf("%-10s %.2f calls/turn, %.0f prompt tokens/turn, cache share %.1f%%, %d loads", r.Role, r.CallsPerTurn, r.PromptPerTurn, 100*r.CacheShare, r.Loads)
	}
	// The model may already be loaded with the session's size (another
	// test ran first): at most one load.
	if all.Loads > 1 || all.Errors > 0 {
		t.Errorf("%d model loads and %d failed calls in the run, want at most 1 and none", all.Loads, all.Errors)
	}
	if haveLog {
		runners, trunc, _ := serverLogCounts(t)
		t.Logf("server log: %d runner(s) started, %d prompt(s) truncated", runners-runners0, trunc-trunc0)
		if runners-runners0 > 1 || trunc != trunc0 {
			t.Errorf("the server started %d runners and truncated %d prompts, want at most 1 and none", runners-runners0, trunc-trunc0)
		}
	}
	if agent.Calls == 0 {
		t.Error("no agent calls counted")
	}
}
