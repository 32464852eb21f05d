package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/zmachine"
)

// An episode stopped at its turn cap before its end was recorded (killed
// while it ended) is resumed to its end, not played past the cap: no turn
// after the checkpoint's, the episode ended at the turn cap, one note for
// it in knowledgebase.md.
func TestResumeAtTheTurnCapEnds(t *testing.T) {
	dir, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	wd := filepath.Join(dir, "wd")
	// Stop the first run after a few turns, as a signal does: the episode
	// is left unfinished with its checkpoint.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, sampleConfig(t), []string{"run", "--json", "--agent", "script:" + walk, "--workdir", wd, "--max-turns", "40"}, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	for n := 0; sc.Scan(); n++ {
		if n == 3 {
			cancel()
		}
	}
	<-done
	story, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		t.Fatal(err)
	}
	sd := filepath.Join(wd, session.StoryDir(demo.FileName, story.Info().Release))
	db, err := rundb.OpenRunDB(filepath.Join(sd, "lantern.db"), story.Info().MD5)
	if err != nil {
		t.Fatal(err)
	}
	turns, err := db.Turns(context.Background(), 1)
	db.Close()
	if err != nil || len(turns) < 3 {
		t.Fatalf("%d turns recorded, %v", len(turns), err)
	}
	last := len(turns)
	// Resume with the cap at the last recorded turn: the state of a run
	// killed between its last turn and its end.
	capArg := []string{"--max-turns", itoa(last)}
	code, out, stderr := runCLI(t, "", append([]string{"run", "--json", "--resume", "--agent", "script:" + walk, "--workdir", wd}, capArg...)...)
	if code != exitOK {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var l struct{ Turn int }
		if line != "" && json.Unmarshal([]byte(line), &l) == nil && l.Turn > last {
			t.Fatalf("turn %d played past the cap of %d:\n%s", l.Turn, last, out)
		}
	}
	db, err = rundb.OpenRunDB(filepath.Join(sd, "lantern.db"), story.Info().MD5)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	eps, _ := db.Episodes(context.Background())
	if len(eps) != 1 || eps[0].Reason != "turn cap" {
		t.Fatalf("episodes %+v, want the one episode ended at the turn cap", eps)
	}
	if kb, err := os.ReadFile(filepath.Join(sd, "knowledgebase.md")); err == nil && strings.Count(string(kb), "Episode 1 (") > 1 {
		t.Fatalf("knowledgebase.md has %d notes for episode 1", strings.Count(string(kb), "Episode 1 ("))
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
