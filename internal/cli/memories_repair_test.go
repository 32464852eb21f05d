package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// memories fmt offers to repair a mistyped location header (on stderr),
// and --repair -w rewrites it in place: one section for the room, its
// memories back, the repair said.
func TestMemoriesFmtRepairsAMistypedHeader(t *testing.T) {
	dir, _ := isolate(t)
	path := filepath.Join(dir, "Memories.md")
	text := "# Location Memories\n\n" +
		"## Location 2: Orchard\n**Visits:** 1 | **Episodes:** 1\n\n### Memories\n\n**[NOTE] Apples** *(Ep1, T1)*\nRipe.\n\n---\n\n" +
		"## Locaton three: Muddy Lane\n**Visits:** 2 | **Episodes:** 1\n\n### Memories\n\n" +
		"**[DANGER] Deep mud** *(Ep1, T3)*\nDo not go south.\n\n---\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "memories", "fmt", path)
	if code != exitOK || !strings.Contains(out, "## Locaton three: Muddy Lane") ||
		!strings.Contains(stderr, `"## Locaton three: Muddy Lane" hides 1 memories from the agent; --repair rewrites it as "## Location 3: Muddy Lane"`) {
		t.Errorf("memories fmt: exit %d, stdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "", "memories", "fmt", "--repair", "-w", path)
	if code != exitOK || !strings.Contains(stderr, `header repaired as "## Location 3: Muddy Lane"`) || !strings.Contains(out, "formatted") {
		t.Fatalf("memories fmt --repair -w: exit %d\n%s\n%s", code, out, stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(data); strings.Count(got, "## Location 3: ") != 1 || strings.Contains(got, "Locaton") || !strings.Contains(got, "Deep mud") {
		t.Errorf("after the repair:\n%s", got)
	}
	if code, out, _ := runCLI(t, "", "memories", "show", "--location", "3", path); code != exitOK || !strings.Contains(out, "Deep mud") {
		t.Errorf("memories show --location 3 after the repair: exit %d\n%s", code, out)
	}
}

// memories show --level keeps the memories of one level; a level that is
// none of them is a usage error.
func TestMemoriesShowByLevel(t *testing.T) {
	dir, _ := isolate(t)
	path := filepath.Join(dir, "Memories.md")
	text := "# Location Memories\n\n" +
		"## Location 2: Orchard\n**Visits:** 1 | **Episodes:** 1\n\n### Memories\n\n" +
		"**[NOTE - CORE] Apples** *(Ep1, T1, +0)*\nRipe.\n\n" +
		"**[DANGER - EPHEMERAL] Wasps** *(Ep1, T2, +0)*\nA nest today.\n\n" +
		"**[NOTE] Ladder** *(Ep1, T3, +0)*\nLeaning on the tree.\n\n---\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		level      string
		has, lacks []string
	}{
		{"core", []string{"Apples"}, []string{"Wasps", "Ladder"}},
		{"ephemeral", []string{"Wasps"}, []string{"Apples", "Ladder"}},
		{"permanent", []string{"Ladder"}, []string{"Apples", "Wasps"}},
	} {
		code, out, stderr := runCLI(t, "", "memories", "show", "--level", c.level, path)
		if code != exitOK {
			t.Fatalf("--level %s: exit %d: %s", c.level, code, stderr)
		}
		for _, w := range c.has {
			if !strings.Contains(out, w) {
				t.Errorf("--level %s lacks %q:\n%s", c.level, w, out)
			}
		}
		for _, w := range c.lacks {
			if strings.Contains(out, "] "+w) {
				t.Errorf("--level %s shows %q:\n%s", c.level, w, out)
			}
		}
	}
	if code, _, _ := runCLI(t, "", "memories", "show", "--level", "forever", path); code != exitUsage {
		t.Errorf("--level forever: exit %d, want %d", code, exitUsage)
	}
}
