package cli

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/sharedtest"
	"github.com/lantern-if/lantern/zmachine"
)

// zorkProcessFixture is what the process tests share: Zork I and its
// walkthrough from the shared data, an isolated dir with the binary built
// into it, and the loaded story.
func zorkProcessFixture(t *testing.T) (storyPath, walk, dir, bin string, story *zmachine.Story) {
	t.Helper()
	storyPath = sharedtest.File(t, "stories/zork1.z3")
	walk = sharedtest.File(t, "walkthroughs/zork1.txt")
	dir, repo := isolate(t)
	bin = buildLantern(t, dir, repo)
	return storyPath, walk, dir, bin, loadStoryFile(t, storyPath)
}

// walkthroughRunArgs is a headless JSON run of the whole walkthrough as
// the script agent, in work dir wd.
func walkthroughRunArgs(storyPath, walk, wd string) []string {
	return []string{"run", "--headless", "--json", "--story", storyPath, "--seed", "12", "--agent", "script:" + walk, "--workdir", wd, "--max-turns", "0"}
}

// TestSignalsEndASessionCleanly: SIGTERM and SIGHUP stop a headless run as
// SIGINT does: exit 0, the last recorded turn reported, no temporary file
// left; --resume then continues at the next turn with no gap.
func TestSignalsEndASessionCleanly(t *testing.T) {
	storyPath, walk, dir, bin, story := zorkProcessFixture(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			wd := filepath.Join(dir, "wd-"+strconv.Itoa(int(sig)))
			sd := filepath.Join(wd, session.StoryDir(storyPath, story.Info().Release))
			args := walkthroughRunArgs(storyPath, walk, wd)
			cmd := exec.Command(bin, args...)
			sc, stderr := startLines(t, cmd)
			last, lines := 0, 0
			signalled := false
			for sc.Scan() {
				var l runLine
				if json.Unmarshal(sc.Bytes(), &l) == nil && l.Turn > 0 {
					last = l.Turn
				}
				if lines++; lines == 20 && !signalled {
					signalled = true
					cmd.Process.Signal(sig)
				}
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() != 0 || err != nil && !errors.As(err, &ee) {
				t.Fatalf("exit: %v\n%s", err, stderr.String())
			}
			if !signalled {
				t.Fatalf("the run ended before the signal")
			}
			turns := episodeTurns(t, sd, story.Info().MD5)
			if len(turns) == 0 || turns[len(turns)-1].Turn != last {
				t.Errorf("last reported turn %d, last recorded %d", last, len(turns))
			}
			entries, _ := os.ReadDir(sd)
			for _, e := range entries {
				if strings.Contains(e.Name(), ".tmp-") {
					t.Errorf("temporary file left: %s", e.Name())
				}
			}
			if _, inUse, _ := memory.WorkDirOwner(sd); inUse {
				t.Errorf("the work dir is still locked")
			}
			// Resume: the next turn follows with no gap.
			res := exec.Command(bin, append(args, "--resume", "--max-turns", strconv.Itoa(last+3))...)
			if o, err := res.CombinedOutput(); err != nil {
				t.Fatalf("resume: %v\n%.2000s", err, o)
			}
			after := episodeTurns(t, sd, story.Info().MD5)
			for i, tr := range after {
				if tr.Turn != i+1 {
					t.Fatalf("after resume: turn %d at position %d", tr.Turn, i+1)
				}
			}
			if len(after) != last+3 {
				t.Errorf("after resume %d turns, want %d", len(after), last+3)
			}
			t.Logf("%v after turn %d; resumed to %d", sig, last, len(after))
		})
	}
}
