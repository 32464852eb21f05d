package stories

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func touch(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("story"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolve(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "here")
	work := filepath.Join(root, "work")
	touch(t, filepath.Join(cwd, "local.z5"))
	touch(t, filepath.Join(cwd, "game_files", "cloned.z3"))
	touch(t, filepath.Join(cwd, "game_files", "both.z3")) // before the work dir's
	touch(t, filepath.Join(work, "stories", "zork1.z3"))
	touch(t, filepath.Join(work, "stories", "both.z3"))
	touch(t, filepath.Join(work, "both.z3"))
	touch(t, filepath.Join(work, "stories", "noext"))
	os.Mkdir(filepath.Join(work, "stories", "dir.z3"), 0o755)
	t.Chdir(cwd)
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{"zork1", filepath.Join(work, "stories", "zork1.z3"), nil},
		{"zork1.z3", filepath.Join(work, "stories", "zork1.z3"), nil},
		{"local", "local.z5", nil},
		{"local.z5", "local.z5", nil},
		{"./local.z5", "./local.z5", nil},
		{"both", filepath.Join("game_files", "both.z3"), nil}, // game_files/ before the work dir
		{"cloned", filepath.Join("game_files", "cloned.z3"), nil},
		{"noext", filepath.Join(work, "stories", "noext"), nil},
		{"missing", "", ErrNotFound},
		{"dir", "", ErrNotFound}, // a folder is not a story
		{"sub/zork1.z3", "", os.ErrNotExist},
		{"", "", ErrNotFound},
	} {
		got, err := Resolve(tc.name, work)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("Resolve(%q) = %q, %v; want %v", tc.name, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	var nf *NotFoundError
	if _, err := Resolve("missing", work); !errors.As(err, &nf) || !slices.Equal(nf.Looked, []string{".", "game_files", work, filepath.Join(work, "stories")}) {
		t.Errorf("not found error: %v", err)
	}
}

func TestListAndShortName(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "work")
	touch(t, filepath.Join(root, "a.z5"))
	touch(t, filepath.Join(root, "readme.txt"))
	touch(t, filepath.Join(work, "stories", "zork1.z3"))
	touch(t, filepath.Join(work, "stories", "a.z5")) // shadowed by ./a.z5
	t.Chdir(root)
	got, err := List(work)
	if err != nil {
		t.Fatal(err)
	}
	want := []Found{
		{Path: "a.z5", Name: "a"},
		{Path: filepath.Join(work, "stories", "a.z5"), Name: filepath.Join(work, "stories", "a.z5")},
		{Path: filepath.Join(work, "stories", "zork1.z3"), Name: "zork1"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("List = %+v\nwant %+v", got, want)
	}
	// The work dir as the current directory: each file once.
	t.Chdir(work)
	got, _ = List(".")
	if len(got) != 2 {
		t.Errorf("List(.) = %+v, want the two files in stories/ once each", got)
	}
}
