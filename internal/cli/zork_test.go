package cli

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/oracle"
	"github.com/lantern-if/lantern/sharedtest"
	"github.com/lantern-if/lantern/zmachine"
)

// zorkScript is what the oracle tests on Zork I share: the story's and
// the walkthrough's paths in the shared data, and the walkthrough's
// commands.
func zorkScript(t *testing.T) (story, walk string, cmds []string) {
	t.Helper()
	story = sharedtest.File(t, "stories/zork1.z3")
	walk = sharedtest.File(t, "walkthroughs/zork1.txt")
	cmds, err := oracle.LoadScript(walk)
	if err != nil {
		t.Fatal(err)
	}
	return story, walk, cmds
}

// loadStoryFile loads a story file.
func loadStoryFile(t *testing.T, path string) *zmachine.Story {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	story, err := zmachine.LoadStory(data)
	if err != nil {
		t.Fatal(err)
	}
	return story
}

// storyDecisions are the memory decisions in a story folder's lantern.db.
func storyDecisions(t *testing.T, sd, md5 string) []rundb.Decision {
	t.Helper()
	db, err := rundb.OpenRunDB(filepath.Join(sd, "lantern.db"), md5)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds, err := db.Decisions(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// startLines starts a process whose standard output is read line by line
// (lines up to 1 MiB); its standard error is kept for the failure message.
func startLines(t *testing.T, cmd *exec.Cmd) (*bufio.Scanner, *strings.Builder) {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return sc, &stderr
}
