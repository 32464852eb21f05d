package cli

import (
	"bufio"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/zmachine"
)

// stopAfter runs `lantern run --json args...` and stops it, as a signal
// does, once it has printed n turns: the line is left unfinished.
func stopAfter(t *testing.T, n int, args ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, sampleConfig(t), append([]string{"run", "--json"}, args...), strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			cancel()
		}
	}
	<-done
}

// Resuming never loses a line of play: with main stopped at turn ~15 and a
// branch ended at its cap, --resume continues main; nothing is recorded as
// interrupted; with several unfinished lines and none played last,
// --resume names them and exits 2, and --from continues the one named.
func TestResumeNeverLosesALine(t *testing.T) {
	dir, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	wd := filepath.Join(dir, "wd")
	common := []string{"--agent", "script:" + walk, "--workdir", wd}
	stopAfter(t, 15, append([]string{"--max-turns", "40"}, common...)...)

	story, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(wd, session.StoryDir(demo.FileName, story.Info().Release), "lantern.db")
	lines := func() []rundb.EpisodeSummary {
		t.Helper()
		db, err := rundb.OpenRunDB(dbPath, story.Info().MD5)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		sums, err := db.EpisodeSummaries(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sums {
			if s.Reason == "interrupted" {
				t.Errorf("%s was recorded as interrupted", s.Line())
			}
		}
		return sums
	}
	main := lines()[0].Turns
	if main < 15 {
		t.Fatalf("main stopped at turn %d, want 15 or more", main)
	}

	code, _, stderr := runCLI(t, "", append([]string{"run", "--from", "1:5", "--branch", "side", "--max-turns", "8"}, common...)...)
	if code != exitOK {
		t.Fatalf("run --from 1:5 --branch side: exit %d: %s", code, stderr)
	}
	code, out, stderr := runCLI(t, "", append([]string{"run", "--json", "--resume", "--max-turns", itoa(main + 2)}, common...)...)
	if code != exitOK || !strings.Contains(stderr, "resuming 1/main after turn "+itoa(main)) ||
		!strings.Contains(out, `"line":"1/main","episode":1,"branch":1,"turn":`+itoa(main+1)) {
		t.Fatalf("--resume after the side branch ended: exit %d, want main continued after turn %d:\n%s\n%s", code, main, out, stderr)
	}
	sums := lines()
	if len(sums) != 2 || sums[1].Reason != "turn cap" || sums[1].Turns != main+2 || sums[0].Reason != "turn cap" || sums[0].Turns != 8 {
		t.Errorf("lines after the resume: %+v", sums)
	}

	// Two unfinished lines, neither played last (a new episode ended
	// since): --resume names both and asks for --from.
	stopAfter(t, 3, append([]string{"--from", "1:10", "--branch", "east", "--max-turns", "40"}, common...)...)
	stopAfter(t, 3, append([]string{"--from", "1:12", "--branch", "west", "--max-turns", "40"}, common...)...)
	if code, _, stderr := runCLI(t, "", append([]string{"run", "--max-turns", "2"}, common...)...); code != exitOK ||
		!strings.Contains(stderr, "unfinished lines of play stay as they are: 1/west:") {
		t.Fatalf("a new episode beside two unfinished lines: exit %d: %s", code, stderr)
	}
	last := map[string]int{}
	for _, s := range lines() {
		last[s.Line().String()] = s.Turns
	}
	east, west := "1/east:"+itoa(last["1/east"]), "1/west:"+itoa(last["1/west"])
	code, _, stderr = runCLI(t, "", append([]string{"run", "--resume"}, common...)...)
	if code != exitUsage || !strings.Contains(stderr, west+" (#4") || !strings.Contains(stderr, east+" (#3") || !strings.Contains(stderr, "--from LINE:TURN") {
		t.Errorf("--resume with two unfinished lines: exit %d, want %d naming %s and %s:\n%s", code, exitUsage, west, east, stderr)
	}
	code, out, stderr = runCLI(t, "", append([]string{"run", "--json", "--from", east, "--max-turns", itoa(last["1/east"] + 1)}, common...)...)
	if code != exitOK || !strings.Contains(out, `"line":"1/east","episode":1,"branch":3,"turn":`+itoa(last["1/east"]+1)) {
		t.Errorf("--from %s (its last turn): exit %d:\n%s\n%s", east, code, out, stderr)
	}
	lines()
}

// The TUI's start asks which unfinished line to continue: Enter or y for
// the only (or last played) one, a number among several, n for a new
// episode (the lines stay), and asks again after an answer it cannot read.
func TestAskResumeNamesEachLine(t *testing.T) {
	mainLine := rundb.BranchInfo{Episode: 1, ID: 1, Turns: 15, Score: 10}
	side := rundb.BranchInfo{Episode: 1, ID: 2, Name: "side", Parent: 1, ForkTurn: 5, Turns: 8, Score: 5}
	for _, c := range []struct {
		name   string
		r      session.Resumable
		answer string
		want   int64 // 0: a new episode
		says   string
	}{
		{"one line, Enter", session.Resumable{Lines: []rundb.BranchInfo{mainLine}}, "\n", 1, "Line of play 1/main stopped after turn 15"},
		{"one line, n", session.Resumable{Lines: []rundb.BranchInfo{mainLine}}, "n\n", 0, "Continue it? [Y/n]"},
		{"two, none last, picks 2", session.Resumable{Lines: []rundb.BranchInfo{mainLine, side}}, "2\n", 2, "2) 1/side (#2) after turn 8, score 5"},
		{"two, none last, Enter asks again", session.Resumable{Lines: []rundb.BranchInfo{mainLine, side}}, "\n9\n1\n", 1, `"9" is not one of them`},
		{"two, last played, Enter", session.Resumable{Lines: []rundb.BranchInfo{side, mainLine}, Last: true}, "\n", 2, "← played last"},
		{"two, new episode", session.Resumable{Lines: []rundb.BranchInfo{mainLine, side}}, "n\n", 0, "n: a new episode"},
		{"two, end of input", session.Resumable{Lines: []rundb.BranchInfo{mainLine, side}}, "", 0, "1) 1/main (#1)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stderr strings.Builder
			b, ok := askResume(c.r, strings.NewReader(c.answer), &stderr)
			if got := map[bool]int64{true: b.ID}[ok]; got != c.want || !strings.Contains(stderr.String(), c.says) {
				t.Errorf("askResume(%q) = #%d (%v), want #%d; the question:\n%s\nwant it to say %q", c.answer, b.ID, ok, c.want, stderr.String(), c.says)
			}
		})
	}
}
