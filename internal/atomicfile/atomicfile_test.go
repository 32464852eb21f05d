package atomicfile

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestWriteKeepsBackupAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	for _, v := range []string{"one", "two", "three"} {
		if err := Write(p, []byte(v), 0o644, true); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(p)
	bak, _ := os.ReadFile(p + ".backup")
	if string(got) != "three" || string(bak) != "two" {
		t.Fatalf("file %q backup %q, want three/two", got, bak)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("want only the file and its backup, got %d entries", len(entries))
	}
}

func TestWriteIntoMissingDirFails(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "no", "such"), []byte("x"), 0o644, false); err == nil {
		t.Fatal("want an error for a missing directory")
	}
}

func TestReplaceIsAtomicWithoutBackup(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "autosave.qzl")
	for _, v := range []string{"a", "b"} {
		if err := Replace(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(p)
	entries, _ := os.ReadDir(dir)
	if string(got) != "b" || len(entries) != 1 {
		t.Fatalf("content %q, %d entries; want b and no backup or temp", got, len(entries))
	}
}

// A symbolic link planted at the temporary file's name is replaced, never
// written through.
func TestPlantedTempLinkIsNotFollowed(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(outside, []byte("untouched"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "state.json")
	tmp := filepath.Join(dir, ".state.json.tmp-"+strconv.Itoa(os.Getpid()))
	if err := os.Symlink(outside, tmp); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new"), 0o644, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(outside); string(got) != "untouched" {
		t.Fatalf("the link's target was written: %q", got)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Fatalf("the file holds %q", got)
	}
}
