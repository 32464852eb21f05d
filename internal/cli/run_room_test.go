package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunLineNamesTheRoom: `lantern run`'s turn lines name the room the
// turn ended in, as the story calls it.
func TestRunLineNamesTheRoom(t *testing.T) {
	_, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	code, out, stderr := runCLI(t, "", "run", "--headless", "--agent", "script:"+walk, "--max-turns", "3")
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	lines := regexp.MustCompile(`(?m)^T\d+ .*score \d+ moves \d+  (\S.*?)  \d+ms`).FindAllStringSubmatch(out, -1)
	if len(lines) != 3 {
		t.Fatalf("%d turn lines:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l[1], "[") || !strings.HasSuffix(l[1], "]") || len(l[1]) < 4 {
			t.Errorf("turn line without a room name: %q", l[0])
		}
	}
	if roomText("", 7) != "L7" || roomText(" Muddy Lane ", 3) != "[Muddy Lane]" {
		t.Errorf("roomText: %q, %q", roomText("", 7), roomText(" Muddy Lane ", 3))
	}
}
