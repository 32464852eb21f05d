package memory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	var out strings.Builder
	if code := Check(&out, filepath.Join("testdata", "seed003_example.md")); code != 0 || out.Len() != 0 {
		t.Errorf("valid file: exit %d, output %q", code, out.String())
	}
	out.Reset()
	path := filepath.Join("testdata", "broken.md")
	if code := Check(&out, path); code != 1 {
		t.Errorf("broken file: exit %d", code)
	}
	want := strings.ReplaceAll(string(readFile(t, filepath.Join("testdata", "golden", "broken.md.check"))), "broken.md:", path+":")
	if out.String() != want {
		t.Errorf("check output:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	if code := Check(&out, filepath.Join(t.TempDir(), "missing.md")); code != 1 || !strings.Contains(out.String(), "missing.md: ") {
		t.Errorf("missing file: exit %d, output %q", code, out.String())
	}
}

func TestFmt(t *testing.T) {
	var out strings.Builder
	if err := Fmt(&out, filepath.Join("testdata", "broken.md")); err != nil {
		t.Fatal(err)
	}
	if want := string(readFile(t, filepath.Join("testdata", "golden", "broken.md.fmt"))); out.String() != want {
		t.Errorf("fmt:\n%s", out.String())
	}
	if err := Fmt(&out, filepath.Join(t.TempDir(), "missing.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestShow(t *testing.T) {
	path := filepath.Join("testdata", "seed003_example.md")
	var all strings.Builder
	if err := Show(&all, path, 0); err != nil {
		t.Fatal(err)
	}
	seed := string(readFile(t, path))
	if want := strings.TrimPrefix(seed, "# Location Memories\n\n"); all.String() != want {
		t.Errorf("show all:\n%s", all.String())
	}
	var one strings.Builder
	if err := Show(&one, path, 15); err != nil {
		t.Fatal(err)
	}
	got := one.String()
	if !strings.HasPrefix(got, "## Location 15: West of House\n**Visits:** 3") || strings.Contains(got, "Living Room") ||
		!strings.Contains(got, "---\n\nAgent's context:\n\nLocation Memory for West of House (Location 15):") {
		t.Errorf("show 15:\n%s", got)
	}
	if err := Show(&one, path, 99); !errors.Is(err, ErrNotFound) {
		t.Errorf("show 99: %v", err)
	}
	var empty strings.Builder
	emptyFile := filepath.Join(t.TempDir(), "Memories.md")
	if err := os.WriteFile(emptyFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Show(&empty, emptyFile, 0); err != nil || empty.String() != "No location memories.\n" {
		t.Errorf("show empty: %v %q", err, empty.String())
	}
}
