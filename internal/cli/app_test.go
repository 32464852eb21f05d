package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/sharedtest"
)

// TestHelpGoesToStdout: help, a command's help through `help`, and the
// version are answers, printed on standard output with nothing on stderr.
func TestHelpGoesToStdout(t *testing.T) {
	isolate(t)
	tests := []struct {
		args []string
		want []string
		not  string
	}{
		{[]string{"--help"}, []string{"play", "run", "bench", "doctor", "completion", "Exit codes"}, ""},
		{[]string{"help", "bench"}, []string{"Plays episodes headless", "--compare", "--episodes"}, "Exit codes"},
		{[]string{"bench", "--help"}, []string{"Plays episodes headless", "lantern bench"}, "Exit codes"},
		{[]string{"play", "-h"}, []string{"Plays a story without any model", "--seed"}, ""},
		{[]string{"-v"}, []string{"lantern "}, ""},
		{[]string{"--version"}, []string{"lantern "}, ""},
		{[]string{"version"}, []string{"lantern "}, ""},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", tc.args...)
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			if tc.not != "" && strings.Contains(stdout, tc.not) {
				t.Errorf("stdout has %q (the top-level help?):\n%s", tc.not, stdout)
			}
		})
	}
	// The first lines of bench's help say what it is (lantern bench --help | head).
	_, stdout, _ := runCLI(t, "", "bench", "--help")
	head := strings.Join(strings.SplitN(stdout, "\n", 11)[:10], "\n")
	if !strings.Contains(head, "Plays episodes headless") {
		t.Errorf("bench --help's first ten lines:\n%s", head)
	}
}

func TestVersionFromBuildInfo(t *testing.T) {
	// A test binary has no module version: the plain source build's name.
	if v := version(); !strings.HasPrefix(v, "dev") {
		t.Errorf("version() = %q, want dev...", v)
	}
}

func TestCompletion(t *testing.T) {
	isolate(t)
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, stdout, stderr := runCLI(t, "", "completion", sh)
		if code != exitOK || !strings.Contains(stdout, "lantern") || stderr != "" {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q", sh, code, len(stdout), stderr)
		}
	}
	// Story files: the shell filters by the story extensions.
	code, stdout, _ := runCLI(t, "", "__complete", "play", "--story", "")
	if code != exitOK || !strings.Contains(stdout, "z5") || !strings.Contains(stdout, ":8") {
		t.Errorf("story completion: exit %d\n%s", code, stdout)
	}
	// Model names come from the server.
	s := llmtest.New(t)
	s.AddModel("qwen3:4b", 8192)
	s.AddModel("gemma3:1b", 2048)
	t.Setenv("OLLAMA_HOST", s.Host())
	code, stdout, _ = runCLI(t, "", "__complete", "run", "--model", "")
	if code != exitOK || !strings.Contains(stdout, "qwen3:4b\n") || !strings.Contains(stdout, "gemma3:1b\n") {
		t.Errorf("model completion: exit %d\n%s", code, stdout)
	}
	// An unreachable server completes nothing, quickly.
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9")
	code, stdout, _ = runCLI(t, "", "__complete", "--model", "")
	if code != exitOK || strings.Contains(stdout, "qwen3") {
		t.Errorf("model completion, no server: exit %d\n%s", code, stdout)
	}
}

// TestPlayAndRunNeedNoModeFlag: play and run have one mode each and play
// it without --plain or --headless.
func TestPlayAndRunNeedNoModeFlag(t *testing.T) {
	story := sharedtest.File(t, "stories/zork1.z3")
	walk, err := os.ReadFile(sharedtest.File(t, "walkthroughs/zork1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	_, repo := isolate(t)
	code, out, stderr := runCLI(t, string(walk), "play", "--seed", "12", "--story", story, "--savedir", t.TempDir())
	if code != exitOK || !strings.Contains(out, "Your score is 350 (total of 350 points), in 394 moves.") {
		t.Fatalf("play: exit %d: %s\n%.300s", code, stderr, out)
	}
	script := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	code, out, stderr = runCLI(t, "", "run", "--agent", "script:"+script, "--max-turns", "3", "--workdir", t.TempDir())
	if code != exitOK || !strings.Contains(out, "T3") {
		t.Fatalf("run: exit %d: %s\n%s", code, stderr, out)
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{errors.New("disk full"), exitError},
		{usageErrorf("bad %s", "flag"), exitUsage},
		{fmt.Errorf("load: %w", usageErrorf("bad")), exitUsage},
		{status(exitError), exitError},
		{status(exitOK), exitOK},
	}
	for _, tc := range tests {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
	if !reported(status(exitError)) || reported(usageErrorf("x")) {
		t.Error("reported: a bare status is reported, a usage error is not")
	}
}
