package cli

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/zmachine"
)

// TestResumePrintsTheLastTurn: `lantern run` killed with SIGKILL after
// turns were recorded; `--resume` prints the last recorded turn (its
// number, action and the game's response, as lantern.db holds them)
// before it plays on. The kill comes while the run waits for a review
// decision on the next turn, so lantern.db holds exactly the turns decided.
func TestResumePrintsTheLastTurn(t *testing.T) {
	dir, repo := isolate(t)
	bin := buildLantern(t, dir, repo)
	script := filepath.Join(dir, "script.txt")
	if err := os.WriteFile(script, []byte("look\nnorth\nsouth\nwest\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wd := filepath.Join(dir, "wd")
	args := []string{"run", "--headless", "--agent", "script:" + script, "--workdir", wd}
	for _, recorded := range []int{1, 2} {
		t.Run(strconv.Itoa(recorded), func(t *testing.T) {
			os.RemoveAll(wd)
			cmd := exec.Command(bin, append(args, "--review")...)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Accept the first turns, then wait for the next proposal: the
			// run waits there with the accepted turns recorded.
			io.WriteString(stdin, strings.Repeat("y\n", recorded))
			waitFor := "T" + strconv.Itoa(recorded+1) + " proposal"
			sc := bufio.NewScanner(stderr)
			var seen []string
			for sc.Scan() && !strings.HasPrefix(sc.Text(), waitFor) {
				seen = append(seen, sc.Text())
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if sc.Err() != nil || !strings.HasPrefix(sc.Text(), waitFor) {
				t.Fatalf("no %q on stderr before the run ended:\n%s", waitFor, strings.Join(seen, "\n"))
			}

			story, err := zmachine.LoadStory(demo.Story())
			if err != nil {
				t.Fatal(err)
			}
			sd := filepath.Join(wd, session.StoryDir(demo.FileName, story.Info().Release))
			turns := episodeTurns(t, sd, story.Info().MD5)
			if len(turns) != recorded {
				t.Fatalf("lantern.db holds %d turns after the kill, want %d", len(turns), recorded)
			}
			last := turns[recorded-1]

			// One writer for both streams: exec writes them in order.
			var out strings.Builder
			res := exec.Command(bin, append(args, "--resume", "--max-turns", strconv.Itoa(recorded+1))...)
			res.Stdout, res.Stderr = &out, &out
			if err := res.Run(); err != nil {
				t.Fatalf("resume: %v\n%s", err, out.String())
			}
			got := out.String()
			head := "the last turn, T" + strconv.Itoa(last.Turn) + " agent " + strconv.Quote(last.Action)
			at := strings.Index(got, head)
			if at < 0 {
				t.Fatalf("the resume does not print %q:\n%s", head, got)
			}
			firstLine := strings.TrimSpace(strings.SplitN(strings.TrimSpace(last.Response), "\n", 2)[0])
			if firstLine == "" || !strings.Contains(got[at:], "  "+firstLine) {
				t.Errorf("the resume does not print the game's response %q after %q:\n%s", firstLine, head, got)
			}
			next := "T" + strconv.Itoa(recorded+1) + " "
			if i := strings.Index(got, next); i < 0 || i < at {
				t.Errorf("the turn after (%q) is not played after the last turn is shown:\n%s", next, got)
			}
			t.Logf("killed after turn %d; the resume printed:\n%s", recorded, got)
		})
	}
}
