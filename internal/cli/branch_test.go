package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/internal/export"
	"github.com/lantern-if/lantern/internal/shared"
)

// run --from plays on from a recorded turn on a new branch; episodes lists
// the tree, show and export print each branch's whole line, and the first
// branch's later turns are unchanged.
func TestRunFromBranchesAnEpisode(t *testing.T) {
	story := shared.File(t, "stories/zork1.z3")
	walk, err := os.ReadFile(shared.File(t, "walkthroughs/zork1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := isolate(t)
	lines := strings.Split(strings.TrimSpace(string(walk)), "\n")
	first := filepath.Join(dir, "first.txt")
	// The second script: the same first 20 moves (a resumed script skips
	// the moves already played), then the person's own.
	mine := []string{"inventory", "diagnose", "look", "score", "wait"}
	second := filepath.Join(dir, "second.txt")
	for path, ls := range map[string][]string{first: lines[:30], second: append(lines[:20:20], mine...)} {
		if err := os.WriteFile(path, []byte(strings.Join(ls, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	work := filepath.Join(dir, "work")
	common := []string{"--story", story, "--workdir", work, "--seed", "12"}
	if code, _, stderr := runCLI(t, "", append([]string{"run", "--agent", "script:" + first, "--max-turns", "30"}, common...)...); code != exitOK {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	exportJSON := func(id string) export.Episode {
		t.Helper()
		code, out, stderr := runCLI(t, "", "episodes", "export", id, "--format", "json", "--story", story, "--workdir", work)
		if code != exitOK {
			t.Fatalf("export %s: exit %d: %s", id, code, stderr)
		}
		var ep export.Episode
		if err := json.Unmarshal([]byte(out), &ep); err != nil {
			t.Fatal(err)
		}
		return ep
	}
	before := exportJSON("1")

	for _, bad := range [][]string{{"--from", "1"}, {"--from", "x:3"}, {"--from", "1:0"}, {"--from", "1:3", "--resume"}, {"--branch", "east"},
		{"--from", "1:3", "--branch", "main"}, {"--from", "1:3", "--branch", "a\x1b]0;title\x07"}, {"--from", "1:3", "--branch", strings.Repeat("x", 41)}} {
		if code, _, stderr := runCLI(t, "", append(append([]string{"run", "--agent", "script:" + second}, bad...), common...)...); code != exitUsage {
			t.Errorf("run %v: exit %d, want %d (usage): %s", bad, code, exitUsage, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "", append([]string{"run", "--agent", "script:" + second, "--from", "1:31"}, common...)...); code != exitError ||
		!strings.Contains(stderr, "--from 1:31") {
		t.Errorf("--from past the last turn: exit %d: %s", code, stderr)
	}
	// The episode ended (the turn cap) at turn 30: nothing plays on after it.
	if code, _, stderr := runCLI(t, "", append([]string{"run", "--agent", "script:" + second, "--from", "1:30"}, common...)...); code != exitError ||
		!strings.Contains(stderr, "ended (turn cap) at turn 30") {
		t.Errorf("--from an ended episode's last turn: exit %d: %s", code, stderr)
	}

	code, out, stderr := runCLI(t, "", append([]string{"run", "--agent", "script:" + second, "--max-turns", "25", "--from", "1:20", "--branch", "mine"}, common...)...)
	if code != exitOK {
		t.Fatalf("run --from: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "playing on from turn 20 of #1 on branch #2 (mine)") || !strings.Contains(stderr, "the last turn, T20") {
		t.Errorf("run --from did not say where it plays on from:\n%s", stderr)
	}
	if !strings.Contains(out, "T21") || strings.Contains(out, "T20 ") {
		t.Errorf("run --from printed turns other than 21-25:\n%s", out)
	}

	_, list, _ := runCLI(t, "", "episodes", "list", "--story", story, "--workdir", work)
	if !strings.Contains(list, "BRANCH") || !strings.Contains(list, "mine") || !strings.Contains(list, "main") {
		t.Errorf("episodes list does not show the tree:\n%s", list)
	}
	after, branch := exportJSON("1"), exportJSON("2")
	if len(after.Turns) != 30 || len(branch.Turns) != 25 {
		t.Fatalf("turns: first %d (want 30), branch %d (want 25)", len(after.Turns), len(branch.Turns))
	}
	for i := 20; i < 30; i++ {
		b, _ := json.Marshal(before.Turns[i])
		a, _ := json.Marshal(after.Turns[i])
		if string(a) != string(b) {
			t.Errorf("turn %d of the first branch changed:\n%s\n%s", i+1, b, a)
		}
	}
	for i := 0; i < 25; i++ {
		tr := branch.Turns[i]
		switch {
		case i < 20 && (tr.Action != before.Turns[i].Action || tr.Response != before.Turns[i].Response || tr.PlayedOn != 1):
			t.Errorf("the branch's turn %d is not the first's: %+v", i+1, tr)
		case i >= 20 && (tr.Action != mine[i-20] || tr.PlayedOn != 0):
			t.Errorf("the branch's turn %d is %q on #%d, want %q on its own", i+1, tr.Action, tr.PlayedOn, mine[i-20])
		}
	}
	if len(branch.Branches) != 2 || !branch.Branches[1].This || branch.Branches[1].Label != "mine" || len(after.Branches) != 2 {
		t.Errorf("the exports' trees: first %+v, branch %+v", after.Branches, branch.Branches)
	}
	_, md, _ := runCLI(t, "", "episodes", "show", "2", "--story", story, "--workdir", work)
	if !strings.Contains(md, "## Branches") || !strings.Contains(md, "mine (\\#2)") {
		t.Errorf("episodes show lacks the tree:\n%.2000s", md)
	}
}
