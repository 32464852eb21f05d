package env

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// demoEnvSavingTo starts the built-in demo with saves in saveDir.
func demoEnvSavingTo(t *testing.T, saveDir string) *Env {
	t.Helper()
	story, binding := demoStory(t)
	e, err := NewEnv(story, EnvOptions{Seed: 1, Binding: binding, SaveDir: saveDir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Start(); err != nil {
		t.Fatal(err)
	}
	return e
}

// saveOneRoomAway is a save of the demo one room away from the start:
// restoring it is visible as a change of location.
func saveOneRoomAway(t *testing.T) []byte {
	t.Helper()
	e := demoEnvSavingTo(t, "")
	start := e.Observe().Location
	o, err := e.Step("north")
	if err != nil {
		t.Fatal(err)
	}
	if o.Location == start {
		t.Fatalf("north does not leave %q", start.Name)
	}
	return e.State()
}

// treeEntry is what a test sees of a file: its kind, its content or link
// target, and its modification time.
type treeEntry struct {
	mode    fs.FileMode
	content string
	mtime   int64
}

// snapshotTree records every file under dir.
func snapshotTree(t *testing.T, dir string) map[string]treeEntry {
	t.Helper()
	out := map[string]treeEntry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		en := treeEntry{mode: fi.Mode().Type(), mtime: fi.ModTime().UnixNano()}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			en.content, err = os.Readlink(p)
		case fi.Mode().IsRegular():
			var b []byte
			b, err = os.ReadFile(p)
			en.content = string(b)
		}
		out[p] = en
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func metaStep(cmd string) func(*Env) (string, error) {
	return func(e *Env) (string, error) {
		o, err := e.Step(cmd)
		return o.Text, err
	}
}

// TestSaveFilesStayInSaveDirThroughSymlinks: a symbolic link in the save
// directory that leads out of it is neither read nor written through, by
// the save and restore meta-commands, the story's own SAVE and RESTORE, or
// the autosave; a link that stays inside still works.
func TestSaveFilesStayInSaveDirThroughSymlinks(t *testing.T) {
	save := saveOneRoomAway(t)
	storyRestore := func(e *Env) (string, error) {
		_, err := storySaver{e}.Restore()
		return "", err
	}
	storySave := func(e *Env) (string, error) { return "", storySaver{e}.Save(e.State()) }
	resume := func(e *Env) (string, error) {
		o, err := e.RestoreAutosave()
		return o.Text, err
	}
	autosave := func(e *Env) (string, error) { return "", e.Autosave() }
	tests := []struct {
		name     string
		link     string // in the save dir
		target   string // "outside/..." is made relative to the test's root
		act      func(*Env) (string, error)
		wantText string
		wantErr  error
		restored bool   // the save was restored (the player moved)
		absent   string // must not exist afterwards: "outside/..." or a name in the save dir
	}{
		{name: "restore N of a slot linked outside", link: "slot-1.qzl", target: "outside/victim.qzl",
			act: metaStep("restore 1"), wantText: "[Lantern] There is no slot 1."},
		{name: "restore the newest slot, linked outside", link: "slot-7.qzl", target: "outside/victim.qzl",
			act: metaStep("restore"), wantText: "[Lantern] There is no slot 7."},
		{name: "slot linked to /etc/passwd", link: "slot-1.qzl", target: "/etc/passwd",
			act: metaStep("restore 1"), wantText: "[Lantern] There is no slot 1."},
		{name: "save beside a slot linked outside", link: "slot-1.qzl", target: "outside/victim.qzl",
			act: metaStep("save"), wantText: "[Lantern] Saved as slot 2."},
		{name: "save beside a dangling link out", link: "slot-3.qzl", target: "outside/new.qzl",
			act: metaStep("save"), wantText: "[Lantern] Saved as slot 4.", absent: "outside/new.qzl"},
		{name: "restore a dangling link out", link: "slot-3.qzl", target: "outside/new.qzl",
			act: metaStep("restore 3"), wantText: "[Lantern] There is no slot 3.", absent: "outside/new.qzl"},
		{name: "story RESTORE through a link out", link: storySaveName, target: "outside/victim.qzl",
			act: storyRestore, wantErr: ErrOutsideSaveDir},
		{name: "story RESTORE of /etc/passwd", link: storySaveName, target: "/etc/passwd",
			act: storyRestore, wantErr: ErrOutsideSaveDir},
		{name: "story SAVE over a link out", link: storySaveName, target: "outside/victim.qzl",
			act: storySave, wantErr: ErrOutsideSaveDir, absent: storySaveName + ".backup"},
		{name: "resume an autosave linked outside", link: AutosaveName, target: "outside/victim.qzl",
			act: resume, wantErr: ErrOutsideSaveDir},
		{name: "autosave over a link out replaces the link", link: AutosaveName, target: "outside/victim.qzl",
			act: autosave},
		{name: "a link inside the save dir is followed", link: "slot-2.qzl", target: "slot-1.qzl",
			act: metaStep("restore 2"), wantText: "[Lantern] Restored slot 2.", restored: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			saves, outside := filepath.Join(root, "saves"), filepath.Join(root, "outside")
			for _, d := range []string{saves, outside} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// The victim outside is a valid save: were it read, the restore
			// would succeed and the player would move.
			if err := os.WriteFile(filepath.Join(outside, "victim.qzl"), save, 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.restored {
				if err := os.WriteFile(filepath.Join(saves, "slot-1.qzl"), save, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			target := tc.target
			if strings.HasPrefix(target, "outside/") {
				target = filepath.Join("..", target)
			}
			if err := os.Symlink(target, filepath.Join(saves, tc.link)); err != nil {
				t.Fatal(err)
			}
			e := demoEnvSavingTo(t, saves)
			start := e.Observe().Location
			before := snapshotTree(t, outside)

			text, err := tc.act(e)
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v, want %v", err, tc.wantErr)
			}
			if tc.wantText != "" && text != tc.wantText {
				t.Errorf("reply %q, want %q", text, tc.wantText)
			}
			if moved := e.Observe().Location != start; moved != tc.restored {
				t.Errorf("player moved %v, want %v: the save was read through the link", moved, tc.restored)
			}
			if after := snapshotTree(t, outside); !reflect.DeepEqual(after, before) {
				t.Errorf("outside the save dir changed:\n%v\nwant\n%v", after, before)
			}
			if tc.absent != "" {
				p := filepath.Join(root, tc.absent)
				if !strings.HasPrefix(tc.absent, "outside/") {
					p = filepath.Join(saves, tc.absent)
				}
				if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s exists (%v)", tc.absent, err)
				}
			}
		})
	}
}

// TestSaveDirReachedThroughSymlink: a save dir that is itself a symbolic
// link works, and everything lands in the directory it points to.
func TestSaveDirReachedThroughSymlink(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "saves")
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	e := demoEnvSavingTo(t, link)
	start := e.Observe().Location
	tests := []struct{ cmd, want string }{
		{"save", "[Lantern] Saved as slot 1."},
		{"north", ""},
		{"restore 1", "[Lantern] Restored slot 1."},
	}
	for _, tc := range tests {
		o, err := e.Step(tc.cmd)
		if err != nil {
			t.Fatalf("%s: %v", tc.cmd, err)
		}
		if tc.want != "" && o.Text != tc.want {
			t.Errorf("%s: %q, want %q", tc.cmd, o.Text, tc.want)
		}
	}
	if loc := e.Observe().Location; loc != start {
		t.Errorf("after restore at %q, want %q", loc.Name, start.Name)
	}
	if err := e.Autosave(); err != nil {
		t.Fatal(err)
	}
	if err := (storySaver{e}).Save(e.State()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.RestoreAutosave(); err != nil {
		t.Fatal(err)
	}
	if _, err := (storySaver{e}).Restore(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for p := range snapshotTree(t, root) {
		rel, _ := filepath.Rel(root, p)
		names = append(names, rel)
	}
	want := []string{".", "real", filepath.Join("real", AutosaveName), filepath.Join("real", "slot-1.qzl"), filepath.Join("real", storySaveName), "saves"}
	sort.Strings(names)
	if !reflect.DeepEqual(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the save dir's link was replaced (%v, %v)", fi, err)
	}
}
