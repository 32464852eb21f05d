package cli

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/oracle"
)

// playedLines are a `run --json`'s turns: number, action, and whether the
// first proposal was played.
func playedLines(t *testing.T, out string) map[int]runLine {
	t.Helper()
	got := map[int]runLine{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r runLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("turn line %q: %v", l, err)
		}
		got[r.Turn] = r
	}
	return got
}

// TestOracleFindsItsPlaceAfterARewind: after 100 turns of Zork I, a run
// --from 1:95 plays walkthrough steps 96 and 97 at their first proposal,
// on the oracle that played the 100 (its place was turn 100) and on a
// fresh one (a resumed session's); the rewind's next proposal is step 96.
func TestOracleFindsItsPlaceAfterARewind(t *testing.T) {
	story, _, cmds := zorkScript(t)
	dir, _ := isolate(t)
	serve := func() {
		srv := httptest.NewServer(oracle.New(oracle.Options{Script: cmds}))
		t.Cleanup(srv.Close)
		t.Setenv("OLLAMA_HOST", strings.TrimPrefix(srv.URL, "http://"))
	}
	serve()
	common := []string{"run", "--headless", "--json", "--model", "oracle", "--seed", "12", "--story", story, "--workdir", filepath.Join(dir, "wd")}
	if code, _, stderr := runCLI(t, "", append(common, "--max-turns", "100")...); code != exitOK {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	for _, oracleOf := range []string{"the same oracle", "a fresh oracle"} {
		if oracleOf == "a fresh oracle" {
			serve()
		}
		code, out, stderr := runCLI(t, "", append(common, "--from", "1:95", "--max-turns", "97")...)
		if code != exitOK {
			t.Fatalf("%s: run --from 1:95: exit %d\n%s", oracleOf, code, stderr)
		}
		lines := playedLines(t, out)
		for turn := 96; turn <= 97; turn++ {
			l, ok := lines[turn]
			if !ok || l.Action != cmds[turn-1] || len(l.Critic) != 1 {
				t.Errorf("%s: turn %d played %q after %d proposals, want step %d %q at the first", oracleOf, turn, l.Action, len(l.Critic), turn, cmds[turn-1])
			}
		}
	}
}

// TestFourGamesOnOneOracle: four runs of Zork I at once on one oracle
// (as a Slurm array on one server) each win with 350 points, every move
// at its first proposal, as four oracles would: each run is a
// conversation of its own. The runs are processes of the built binary.
func TestFourGamesOnOneOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("plays Zork I four times at once")
	}
	story, _, cmds := zorkScript(t)
	dir, repo := isolate(t)
	bin := buildLantern(t, dir, repo)
	orc := oracle.New(oracle.Options{Script: cmds})
	srv := httptest.NewServer(orc)
	t.Cleanup(srv.Close)
	runs := make([]*exec.Cmd, 4)
	outs := make([]strings.Builder, 4)
	errs := make([]strings.Builder, 4)
	for i := range runs {
		runs[i] = exec.Command(bin, "run", "--headless", "--json", "--model", "oracle", "--seed", "12", "--max-turns", "1000", "--story", story,
			"--workdir", filepath.Join(dir, fmt.Sprintf("wd-%d", i)))
		runs[i].Env = append(os.Environ(), "OLLAMA_HOST="+strings.TrimPrefix(srv.URL, "http://"))
		runs[i].Stdout, runs[i].Stderr = &outs[i], &errs[i]
		if err := runs[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range runs {
		if err := r.Wait(); err != nil {
			t.Fatalf("run %d: %v\n%s", i+1, err, lastLines(errs[i].String(), 20))
		}
	}
	for i := range runs {
		lines := playedLines(t, outs[i].String())
		last := lines[len(cmds)]
		firstTime := 0
		for _, l := range lines {
			if len(l.Critic) == 1 {
				firstTime++
			}
		}
		if len(lines) != len(cmds) || last.Score != 350 || last.Ended != "victory" || firstTime != len(cmds) {
			t.Errorf("run %d: %d turns, ended %q with %d points, %d at the first proposal; want %d turns, victory, 350, all", i+1, len(lines), last.Ended, last.Score, firstTime, len(cmds))
		}
	}
	if st := orc.Stats(); len(st.Repeats) != 0 || st.Proposals != 4*len(cmds) {
		t.Errorf("oracle: %s; want %d proposals, none repeated", st, 4*len(cmds))
	}
}
