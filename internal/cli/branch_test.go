package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/internal/export"
	"github.com/lantern-if/lantern/sharedtest"
)

// run --from plays on from a recorded turn on a new branch; episodes lists
// the tree, show and export print each branch's whole line, and the first
// branch's later turns are unchanged. Every listing, export and --json
// line names the branch the same way (1/mine), and --from given that name
// plays on from that line's turn; a line its turn cap ended plays on from
// its last turn.
func TestRunFromBranchesAnEpisode(t *testing.T) {
	story := sharedtest.File(t, "stories/zork1.z3")
	walk, err := os.ReadFile(sharedtest.File(t, "walkthroughs/zork1.txt"))
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
	if before.Line != "1/main" || before.Episode != 1 {
		t.Errorf("the first line exported as %q of episode %d, want 1/main of 1", before.Line, before.Episode)
	}

	for _, bad := range [][]string{{"--from", "1"}, {"--from", "x:3"}, {"--from", "1:0"}, {"--from", "1:3", "--resume"}, {"--branch", "east"},
		{"--from", "1:3", "--branch", "main"}, {"--from", "1:3", "--branch", "a\x1b]0;title\x07"}, {"--from", "1:3", "--branch", strings.Repeat("x", 41)},
		{"--from", "1:3", "--branch", "ma\u200bin"}, {"--from", "1:3", "--branch", "#2 from #1@10"}, {"--from", "1/:3"}} {
		if code, _, stderr := runCLI(t, "", append(append([]string{"run", "--agent", "script:" + second}, bad...), common...)...); code != exitUsage {
			t.Errorf("run %v: exit %d, want %d (usage): %s", bad, code, exitUsage, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "", append([]string{"run", "--agent", "script:" + second, "--from", "1:31"}, common...)...); code != exitError ||
		!strings.Contains(stderr, "--from 1:31") {
		t.Errorf("--from past the last turn: exit %d: %s", code, stderr)
	}
	code, out, stderr := runCLI(t, "", append([]string{"run", "--json", "--agent", "script:" + second, "--max-turns", "25", "--from", "1:20", "--branch", "mine"}, common...)...)
	if code != exitOK {
		t.Fatalf("run --from: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "playing on from 1/main:20 on the new branch 1/mine (#2)") || !strings.Contains(stderr, "the last turn, T20") {
		t.Errorf("run --from did not say where it plays on from:\n%s", stderr)
	}
	var turns []int
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r runLine
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Line != "1/mine" || r.Episode != 1 || r.Branch != 2 {
			t.Errorf("run --json line %s (%v): want line 1/mine, episode 1, branch 2", l, err)
		}
		turns = append(turns, r.Turn)
	}
	if len(turns) != 5 || turns[0] != 21 || turns[4] != 25 {
		t.Errorf("run --from played turns %v, want 21-25", turns)
	}
	// The same name, however written, is refused for another branch.
	if code, _, stderr := runCLI(t, "", append([]string{"run", "--agent", "script:" + second, "--from", "1:20", "--branch", "MINE"}, common...)...); code != exitError ||
		!strings.Contains(stderr, `already has a branch named "mine"`) {
		t.Errorf("a second branch named MINE: exit %d: %s", code, stderr)
	}

	_, list, _ := runCLI(t, "", "episodes", "list", "--story", story, "--workdir", work)
	if !strings.Contains(list, "FORKED FROM") || !regexp.MustCompile(`(?m)^1/mine +#2 .* turn cap +\d+ +\d+ +25 +1/main:20$`).MatchString(list) ||
		!regexp.MustCompile(`(?m)^1/main +#1 `).MatchString(list) {
		t.Errorf("episodes list does not show the tree:\n%s", list)
	}
	if code, _, stderr := runCLI(t, "", "episodes", "show", "2", "--story", story, "--workdir", work); code == exitOK || !strings.Contains(stderr, "write 1/mine or #2") {
		t.Errorf("episodes show 2 (a branch's number): exit %d: %s", code, stderr)
	}
	after, branch := exportJSON("1"), exportJSON("1/mine")
	if branch.Line != "1/mine" || branch.ID != 2 || exportJSON("#2").Line != "1/mine" {
		t.Errorf("the branch exported as %q (#%d), want 1/mine (#2)", branch.Line, branch.ID)
	}
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
	if len(branch.Branches) != 2 || !branch.Branches[1].This || branch.Branches[1].Label != "1/mine" || branch.Branches[1].From != "1/main:20" || len(after.Branches) != 2 {
		t.Errorf("the exports' trees: first %+v, branch %+v", after.Branches, branch.Branches)
	}
	_, md, _ := runCLI(t, "", "episodes", "show", "1/mine", "--story", story, "--workdir", work)
	if !strings.Contains(md, "# Line 1/mine (\\#2)") || !strings.Contains(md, "## Branches") || !strings.Contains(md, "1/mine (\\#2) from 1/main:20") {
		t.Errorf("episodes show lacks the line or the tree:\n%.2000s", md)
	}

	// Both lines ended at their turn caps: each plays on from its last
	// turn, on itself, named as listed.
	third := filepath.Join(dir, "third.txt")
	if err := os.WriteFile(third, []byte(strings.Join(append(append(lines[:20:20], mine...), "look"), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "", append([]string{"run", "--json", "--agent", "script:" + third, "--max-turns", "26", "--from", "1/mine:25"}, common...)...)
	if code != exitOK || !strings.Contains(stderr, "playing on 1/mine (#2) from its last turn, 25") || !strings.Contains(out, `"line":"1/mine","episode":1,"branch":2,"turn":26`) {
		t.Errorf("run --from 1/mine:25 (its last turn, the cap): exit %d:\n%s\n%s", code, out, stderr)
	}
}
