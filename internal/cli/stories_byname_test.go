package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/sharedtest"
)

// storyInWorkDir puts a copy of Zork I in the work dir's stories/ folder
// and moves to another directory; it returns the work dir.
func storyInWorkDir(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(sharedtest.File(t, "stories/zork1.z3"))
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := isolate(t)
	work := filepath.Join(dir, "data", "lantern")
	if err := os.MkdirAll(filepath.Join(work, "stories"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "stories", "zork1.z3"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(dir, "elsewhere")
	os.Mkdir(elsewhere, 0o755)
	t.Chdir(elsewhere)
	return work
}

// lantern play --story zork1, run from another directory, finds the story
// in the work dir's stories/ folder and plays the walkthrough to the end.
func TestPlayStoryByNameFromTheWorkDir(t *testing.T) {
	walk, err := os.ReadFile(sharedtest.File(t, "walkthroughs/zork1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	storyInWorkDir(t)
	for _, name := range []string{"zork1", "zork1.z3"} {
		code, out, stderr := runCLI(t, string(walk), "play", "--story", name, "--seed", "12", "--savedir", t.TempDir())
		if code != exitOK {
			t.Fatalf("--story %s: exit %d: %s", name, code, stderr)
		}
		if want := "Your score is 350 (total of 350 points), in 394 moves."; !strings.Contains(out, want) {
			t.Fatalf("--story %s: output lacks %q", name, want)
		}
	}
	// --workdir names another work dir: the name is then not found there.
	other := t.TempDir()
	code, _, stderr := runCLI(t, "", "play", "--story", "zork1", "--workdir", other)
	if code != exitError || !strings.Contains(stderr, filepath.Join(other, "stories")) {
		t.Errorf("--workdir elsewhere: exit %d %s", code, stderr)
	}
}

func TestStoriesListsWhatTheResolverFinds(t *testing.T) {
	work := storyInWorkDir(t)
	code, out, stderr := runCLI(t, "", "stories")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"1 story (in ., game_files, " + work + ", " + filepath.Join(work, "stories") + ")",
		"zork1          " + filepath.Join(work, "stories", "zork1.z3"),
		"release 119", "md5 1d4606016ea58ee038da53d994392323",
		"ground truth: binding zork1",
		"bound stories known",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stories output lacks %q:\n%s", want, out)
		}
	}
	// A name works as --story takes it.
	code, out, _ = runCLI(t, "", "stories", "zork1")
	if code != exitOK || !strings.Contains(out, "binding  zork1") {
		t.Errorf("stories zork1: exit %d\n%s", code, out)
	}
	// Doctor suggests the name the resolver takes.
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9")
	_, out, _ = runCLI(t, "", "doctor", "--timeout", "1s")
	if !strings.Contains(out, "(lantern play --story zork1)") {
		t.Errorf("doctor does not suggest the short name:\n%s", out)
	}
	// An empty work dir says where to put stories.
	code, out, _ = runCLI(t, "", "stories", "--workdir", t.TempDir())
	if code != exitOK || !strings.Contains(out, "No story files") {
		t.Errorf("empty: exit %d\n%s", code, out)
	}
}
