package cli

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/oracle"
	"github.com/lantern-if/lantern/zmachine"
)

// storedReasoning is turns.reasoning of a work dir's demo episode 1, by
// turn.
func storedReasoning(t *testing.T, workdir string) []string {
	t.Helper()
	dbs, err := filepath.Glob(filepath.Join(workdir, "*", "lantern.db"))
	if err != nil || len(dbs) != 1 {
		t.Fatalf("lantern.db in %s: %v %v", workdir, dbs, err)
	}
	story, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		t.Fatal(err)
	}
	db, err := rundb.OpenRunDB(dbs[0], story.Info().MD5)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	turns, err := db.Turns(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tr := range turns {
		out = append(out, tr.Reasoning)
	}
	return out
}

// TestOpenAIReasoningMatchesOllama: the oracle's agent reasons in its
// thinking stream (it can think, and a request that says nothing thinks,
// as Ollama's does on /api/chat and /v1 alike); `run` stores the same
// turns.reasoning through Ollama's API and through --api openai on the
// oracle's /v1, never an empty one.
func TestOpenAIReasoningMatchesOllama(t *testing.T) {
	dir, repo := isolate(t)
	cmds, err := oracle.LoadScript(filepath.Join(repo, "game_files", "demo", "walkthrough.txt"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(oracle.New(oracle.Options{Script: cmds}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	const turns = "5"
	protocols := []struct {
		name string
		args []string
	}{
		{"ollama", nil},
		{"openai", []string{"--api", "openai", "--base-url", srv.URL + "/v1"}},
	}
	stored := map[string][]string{}
	for _, p := range protocols {
		t.Setenv("OLLAMA_HOST", host)
		if p.name == "openai" {
			t.Setenv("OLLAMA_HOST", "127.0.0.1:9") // nothing reaches the oracle but through its /v1
		}
		wd := filepath.Join(dir, "wd-"+p.name)
		args := append([]string{"run", "--headless", "--json", "--model", "oracle", "--seed", "7", "--max-turns", turns, "--workdir", wd}, p.args...)
		if code, _, stderr := runCLI(t, "", args...); code != exitOK {
			t.Fatalf("%s: exit %d\n%s", p.name, code, stderr)
		}
		stored[p.name] = storedReasoning(t, wd)
	}
	want, got := stored["ollama"], stored["openai"]
	if len(want) != 5 {
		t.Fatalf("Ollama's API: %d turns stored, want 5", len(want))
	}
	for i, w := range want {
		if w == "" || !strings.Contains(w, "of the walkthrough") {
			t.Errorf("Ollama's API: turn %d's reasoning %q, want the oracle's", i+1, w)
		}
		if i >= len(got) || got[i] != w {
			t.Errorf("--api openai: turn %d's reasoning %q, want %q as on Ollama's API", i+1, reasoningAt(got, i), w)
		}
	}
}

func reasoningAt(list []string, i int) string {
	if i < len(list) {
		return list[i]
	}
	return "(no turn)"
}
