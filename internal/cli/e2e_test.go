package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
)

// tinyModelConfig writes a lantern.toml for the real test server's tiny
// model: think off, a fixed num_ctx (a changing one makes the server
// reload the model) and bounded replies, for every role.
func tinyModelConfig(t *testing.T, dir, extra string) {
	t.Helper()
	var b strings.Builder
	// The test server has one slot, shared with the other packages' tests:
	// the managers' calls beside the agent's would only queue behind it.
	b.WriteString("[loop]\nafter_turn = \"inline\"\n\n")
	for _, r := range config.RoleNames() {
		fmt.Fprintf(&b, "[roles.%s]\nthink = \"off\"\nnum_ctx = 4096\nnum_predict = 1200\nseed = 3\ntimeout = \"2m\"\n\n", r)
	}
	b.WriteString(extra)
	if err := os.WriteFile(filepath.Join(dir, "lantern.toml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestE2ERunHeadlessTenTurns is the headless run on the real test
// server: `lantern run --headless --json --max-turns 10 --model
// lantern-tiny` on the demo completes 10 turns, one JSON object each. The
// supervisor is off (its two calls a turn would double the run's time; it
// has its own end-to-end test in engine).
func TestE2ERunHeadlessTenTurns(t *testing.T) {
	host := os.Getenv("OLLAMA_HOST")
	if os.Getenv("LANTERN_OLLAMA_E2E") != "1" || host == "" {
		t.Skip("set LANTERN_OLLAMA_E2E=1 and OLLAMA_HOST (scripts/ollama-test-server.sh start)")
	}
	dir, _ := isolate(t)
	t.Setenv("OLLAMA_HOST", host)
	tinyModelConfig(t, dir, "[managers]\nsupervisor = false\n")
	code, out, stderr := runCLI(t, "", "run", "--headless", "--json", "--max-turns", "10", "--model", "lantern-tiny", "--workdir", filepath.Join(dir, "wd"))
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines, want 10:\n%s\nstderr:\n%s", len(lines), out, stderr)
	}
	for i, l := range lines {
		var r runLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, l)
		}
		if r.Turn != i+1 || r.Actor != "agent" || r.Action == "" || r.Moves < 0 || r.TurnMS <= 0 || r.LLMMS <= 0 || r.PromptTokens == 0 {
			t.Errorf("line %d: %s", i+1, l)
		}
		if i == len(lines)-1 && r.Ended != "turn_cap" && r.Ended != "" {
			t.Errorf("last line ended %q", r.Ended)
		}
	}
	if strings.Contains(stderr, "paused") {
		t.Errorf("the run paused:\n%s", stderr)
	}
	t.Logf("stderr (non-fatal model errors):\n%s", stderr)
}
