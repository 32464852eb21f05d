package cli

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
)

// TestE2EOpenAIRunTenTurns is the OpenAI-compatible path on the real
// test server, whose /v1 speaks chat completions: `lantern run --headless
// --api openai --base-url http://HOST/v1 --model lantern-tiny --max-turns
// 10` on the demo completes ten turns, every structured reply parses
// into an action, and each turn counts its model time and tokens. No role
// sets num_ctx (none is sent): the server keeps its own context, the model
// loads at most once and the server truncates no prompt (its log, when
// scripts/with-ollama.sh gives one).
func TestE2EOpenAIRunTenTurns(t *testing.T) {
	host := os.Getenv("OLLAMA_HOST")
	if os.Getenv("LANTERN_OLLAMA_E2E") != "1" || host == "" {
		t.Skip("set LANTERN_OLLAMA_E2E=1 and OLLAMA_HOST (scripts/ollama-test-server.sh start)")
	}
	dir, _ := isolate(t)
	var b strings.Builder
	for _, r := range config.RoleNames() {
		fmt.Fprintf(&b, "[roles.%s]\nthink = \"off\"\nnum_predict = 1200\nseed = 3\ntimeout = \"2m\"\n\n", r)
	}
	b.WriteString("[managers]\nsupervisor = false\n")
	if err := os.WriteFile(filepath.Join(dir, "lantern.toml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	base := "http://" + strings.TrimPrefix(host, "http://") + "/v1"
	// Nothing may reach the server except through its /v1.
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9")
	runners0, trunc0, haveLog := serverLogCounts(t)
	code, out, stderr := runCLI(t, "", "run", "--headless", "--json", "--api", "openai", "--base-url", base,
		"--model", "lantern-tiny", "--max-turns", "10", "--workdir", filepath.Join(dir, "wd"))
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines, want 10:\n%s\nstderr:\n%s", len(lines), out, stderr)
	}
	prompt, eval := 0, 0
	for i, l := range lines {
		var r runLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, l)
		}
		if r.Turn != i+1 || r.Actor != "agent" || r.Action == "" || r.LLMMS <= 0 || r.PromptTokens == 0 {
			t.Errorf("line %d: %s", i+1, l)
		}
		prompt, eval = prompt+r.PromptTokens, eval+r.EvalTokens
	}
	t.Logf("10 turns: %d prompt tokens, %d generated", prompt, eval)
	if eval == 0 {
		t.Error("no generated tokens counted")
	}
	if strings.Contains(stderr, "paused") {
		t.Errorf("the run paused:\n%s", stderr)
	}
	// The agent's reasoning reaches lantern.db over /v1 as over Ollama's API.
	dbs, _ := filepath.Glob(filepath.Join(dir, "wd", "*", "lantern.db"))
	if len(dbs) == 1 {
		db, err := sql.Open("sqlite", dbs[0])
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var with int
		if err := db.QueryRow(`SELECT COUNT(*) FROM turns WHERE actor = 'agent' AND TRIM(reasoning) != '' AND reasoning != ?`, engine.NoThinking).Scan(&with); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d of 10 turns stored the agent's reasoning", with)
		if with == 0 {
			t.Error("no turn stored the agent's reasoning over /v1")
		}
	} else {
		t.Errorf("databases %q", dbs)
	}
	if haveLog {
		runners, trunc, _ := serverLogCounts(t)
		t.Logf("server log: %d runner(s) started, %d prompt(s) truncated", runners-runners0, trunc-trunc0)
		if runners-runners0 > 1 || trunc != trunc0 {
			t.Errorf("the server started %d runners and truncated %d prompts, want at most 1 and none", runners-runners0, trunc-trunc0)
		}
	}
}
