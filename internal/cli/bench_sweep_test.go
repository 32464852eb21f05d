package cli

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/oracle"
)

// TestBenchModelSweep: --model a,b plays the suite once per model (the
// oracle answers to both of its names) and reports both in one table,
// with the cost by role and a bar per game and model.
func TestBenchModelSweep(t *testing.T) {
	dir, repo := isolate(t)
	cmds, err := oracle.LoadScript(filepath.Join(repo, "game_files", "demo", "walkthrough.txt"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(oracle.New(oracle.Options{Script: cmds}))
	defer srv.Close()
	t.Setenv("OLLAMA_HOST", strings.TrimPrefix(srv.URL, "http://"))
	work := filepath.Join(dir, "sweep")
	code, out, stderr := runCLI(t, "", "bench", "--story", "demo", "--model", "oracle,oracle:latest", "--episodes", "2", "--max-turns", "10",
		"--workdir", work)
	if code != exitOK {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, out, lastLines(stderr, 20))
	}
	wantAll(t, "sweep report", out, "oracle, oracle:latest", "demo.z3         oracle ", "demo.z3         oracle:latest ",
		"all (1 games)   oracle ", "all (1 games)   oracle:latest ", "Model cost by role", "oracle:latest   agent ",
		"demo.z3 oracle        |", "demo.z3 oracle:latest |", "all oracle:latest     |")
	raw, err := os.ReadFile(filepath.Join(work, manifestName))
	if err != nil {
		t.Fatal(err)
	}
	s := suiteJSON(t, string(raw))
	if !reflect.DeepEqual(s.Models, []string{"oracle", "oracle:latest"}) || len(s.Runs) != 2 || benchModel(s.Runs[1]) != "oracle:latest" ||
		len(s.Overall) != 2 || len(s.Roles) == 0 {
		t.Fatalf("sweep: models %v, %d runs, %d overall rows, %d role rows", s.Models, len(s.Runs), len(s.Overall), len(s.Roles))
	}
	for _, r := range s.Roles {
		if r.Role == "agent" && (r.Calls < 20 || r.PromptTokens == 0 || r.WallMS <= 0) {
			t.Errorf("%s's agent cost: %+v", r.Model, r)
		}
	}
	// Each model played in a work dir of its own.
	for _, sub := range []string{"model-1-oracle", "model-2-oracle_latest"} {
		if _, err := os.Stat(filepath.Join(work, sub, "demo-r1", "lantern.db")); err != nil {
			t.Errorf("%s: %v", sub, err)
		}
	}
}
