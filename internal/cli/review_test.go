package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/oracle"
)

// agentRequests records the oracle's agent requests (their last message).
type agentRequests struct {
	mu   sync.Mutex
	next http.Handler
	seen []string
}

func (a *agentRequests) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api/chat" && r.Header.Get("X-Lantern-Role") == "agent" {
		body, _ := io.ReadAll(r.Body)
		var req api.ChatRequest
		if json.Unmarshal(body, &req) == nil && len(req.Messages) > 0 {
			a.mu.Lock()
			var all []string
			for _, m := range req.Messages {
				all = append(all, m.Content)
			}
			a.seen = append(a.seen, strings.Join(all, "\n"))
			a.mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	a.next.ServeHTTP(w, r)
}

// TestRunReviewWithTheOracle: `lantern run --headless --json --review` on the
// demo with the decisions "n try the orchard first", "y", "e look" and then
// accepting the rest: turn 1 holds the rejection and the acceptance of a
// new proposal, the reason reaches the agent's next request, turn 2 plays
// look as human-edited with the proposal kept, and the game is won.
func TestRunReviewWithTheOracle(t *testing.T) {
	dir, repo := isolate(t)
	cmds, err := oracle.LoadScript(filepath.Join(repo, "game_files/demo/walkthrough.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rec := &agentRequests{next: oracle.New(oracle.Options{Script: cmds})}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	t.Setenv("OLLAMA_HOST", strings.TrimPrefix(srv.URL, "http://"))
	code, stdout, stderr := runCLI(t, "n! try the orchard first\ny\ne look\n",
		"run", "--headless", "--json", "--review", "--model", "oracle", "--seed", "12", "--max-turns", "200")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	type review struct {
		Proposal, Decision, Command, Reason string
	}
	var lines []struct {
		Turn   int      `json:"turn"`
		Actor  string   `json:"actor"`
		Action string   `json:"action"`
		Ended  string   `json:"ended"`
		Review []review `json:"review"`
	}
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var x struct {
			Turn   int      `json:"turn"`
			Actor  string   `json:"actor"`
			Action string   `json:"action"`
			Ended  string   `json:"ended"`
			Review []review `json:"review"`
		}
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		lines = append(lines, x)
	}
	t1, t2 := lines[0], lines[1]
	if len(t1.Review) != 2 || t1.Review[0].Decision != "reject" || t1.Review[0].Reason != "try the orchard first" ||
		t1.Review[1].Decision != "accept" || t1.Action != cmds[0] || t1.Actor != "agent" {
		t.Errorf("turn 1: %+v", t1)
	}
	if t2.Actor != "human-edited" || t2.Action != "look" || len(t2.Review) != 1 || t2.Review[0].Proposal != cmds[1] || t2.Review[0].Command != "look" {
		t.Errorf("turn 2: %+v", t2)
	}
	if last := lines[len(lines)-1]; last.Ended != "victory" {
		t.Errorf("the run ended %q after %d turns, want victory", last.Ended, len(lines))
	}
	rec.mu.Lock()
	if len(rec.seen) < 2 || !strings.Contains(rec.seen[1], "try the orchard first") {
		t.Errorf("the agent's second request lacks the person's reason")
	}
	rec.mu.Unlock()
	// The remembered rejection is at the source location, checks, and is in
	// the agent's prompt when it is there again (the next turn, and later).
	mem := filepath.Join(dir, "data", "lantern", "demo", "Memories.md")
	matches, _ := filepath.Glob(filepath.Join(dir, "data", "lantern", "*", "Memories.md"))
	if len(matches) == 1 {
		mem = matches[0]
	}
	data, err := os.ReadFile(mem)
	if err != nil || !strings.Contains(string(data), "The person: try the orchard first") {
		t.Fatalf("Memories.md (%v):\n%s", err, data)
	}
	var out strings.Builder
	if code := memory.Check(&out, mem); code != 0 {
		t.Errorf("memories check: %s", out.String())
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	back := false
	for _, p := range rec.seen[2:] {
		if strings.Contains(p, "Location: L3 Muddy Lane.") {
			back = true
			if !strings.Contains(p, "The person: try the orchard first") {
				t.Errorf("back at Muddy Lane, the agent's prompt does not show the remembered rejection")
			}
			break
		}
	}
	if !back {
		t.Error("the walkthrough never came back to Muddy Lane (the test lost its point)")
	}
}
