package cli

import (
	"github.com/lantern-if/lantern/internal/bench"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/internal/oracle"
)

// benchWithOracle runs lantern bench --json with the LLM agent against a
// fresh oracle (a fake Ollama playing the walkthrough), as a machine of its
// own would.
func benchWithOracle(t *testing.T, walk string, args ...string) bench.Report {
	t.Helper()
	cmds, err := oracle.LoadScript(walk)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(oracle.New(oracle.Options{Script: cmds}))
	defer srv.Close()
	t.Setenv("OLLAMA_HOST", strings.TrimPrefix(srv.URL, "http://"))
	return benchJSON(t, append([]string{"--model", "oracle"}, args...)...)
}

// TestBenchShardsWithOracle: the model-driven bench split in two, each
// shard against its own oracle, merges to the unsharded run's play: the
// same episodes, scores by turn, moves and endings.
func TestBenchShardsWithOracle(t *testing.T) {
	_, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	common := []string{"--episodes", "3", "--max-turns", "12", "--seed", "12"}
	whole := benchWithOracle(t, walk, common...)
	one := benchWithOracle(t, walk, append(common, "--shard", "1/2")...)
	two := benchWithOracle(t, walk, append(common, "--shard", "2/2")...)
	code, out, stderr := runCLI(t, "", "bench", "merge", "--json", one.DB, two.DB)
	if code != exitOK {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	merged := decodeReport(t, out)
	type play struct {
		Episode, Score, Moves, Turns int
		Ending                       string
		Scores                       []int
	}
	plays := func(r bench.Report) (out []play) {
		for _, e := range r.Episodes {
			out = append(out, play{e.Episode, e.Score, e.Moves, e.Turns, e.Ending, e.Scores})
		}
		return out
	}
	if got, want := plays(merged), plays(whole); !reflect.DeepEqual(got, want) || len(got) != 3 {
		t.Errorf("merged shards played differently from the whole run\n got %+v\nwant %+v", got, want)
	}
	mw, mm := whole.Summary[3], merged.Summary[3]
	if mw.Score != mm.Score || mw.BestScore != mm.BestScore || mw.Turns != mm.Turns || mw.Moves != mm.Moves || !reflect.DeepEqual(mw.Milestones, mm.Milestones) {
		t.Errorf("totals differ: whole %+v\nmerged %+v", mw, mm)
	}
	t.Logf("LLM calls per turn: whole %.2f, merged %.2f; location coverage: whole %.2f, merged %.2f",
		mw.LLMCallsPerTurn, mm.LLMCallsPerTurn, mw.LocationCoverage, mm.LocationCoverage)
}

// bench takes the server flags run takes: --api openai --base-url (the
// oracle's /v1) and --profile, and plays with them.
func TestBenchTakesServerFlags(t *testing.T) {
	_, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	cmds, err := oracle.LoadScript(walk)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(oracle.New(oracle.Options{Script: cmds}))
	defer srv.Close()
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9") // not the server the flags name
	rep := benchJSON(t, "--api", "openai", "--base-url", srv.URL+"/v1", "--profile", "zorkgpt", "--model", "oracle", "--episodes", "1", "--max-turns", "6")
	if len(rep.Episodes) != 1 || rep.Episodes[0].Turns != 6 || rep.Summary[0].Score == 0 {
		t.Errorf("bench over --api openai played %+v", rep.Episodes)
	}
	if !strings.Contains(rep.Host, strings.TrimPrefix(srv.URL, "http://")) {
		t.Errorf("the report names the server %q, want %s", rep.Host, srv.URL)
	}
}
