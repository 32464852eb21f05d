package cli

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/memory/rundb"
)

func TestNotesCommand(t *testing.T) {
	dir, _ := isolate(t)
	work := filepath.Join(dir, "work")
	story, name, err := openStory("", work)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "", "notes", "--workdir", work); code != exitError || !strings.Contains(errs, "nothing recorded") {
		t.Errorf("no database: exit %d %s", code, errs)
	}
	sdir := filepath.Join(work, session.StoryDir(name, story.Info().Release))
	os.MkdirAll(sdir, 0o755)
	db, err := rundb.OpenRunDB(filepath.Join(sdir, "lantern.db"), story.Info().MD5)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db.Remember(ctx, rundb.Note{Content: "The keeper's key is under the mat.", Importance: 4, Location: "Porch", Turn: 3})
	db.Remember(ctx, rundb.Note{Content: "Do not climb the tower in the dark.", Importance: 8, Location: "Stair", Turn: 9})
	db.Close()

	code, out, _ := runCLI(t, "", "notes", "list", "--workdir", work)
	want := "#2  importance 8  Stair (turn 9)\n    Do not climb the tower in the dark.\n#1  importance 4  Porch (turn 3)\n    The keeper's key is under the mat.\n"
	if code != exitOK || out != want {
		t.Errorf("list: exit %d\n%s\nwant\n%s", code, out, want)
	}
	if code, _, errs := runCLI(t, "", "notes", "edit", "1", "--text", "The key is in the pot.", "--importance", "9", "--workdir", work); code != exitOK {
		t.Fatalf("edit: exit %d %s", code, errs)
	}
	// Without --text the editor edits it.
	script := filepath.Join(dir, "ed.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nprintf 'Climb only with the lamp lit.\\n' > \"$1\"\n"), 0o755)
	t.Setenv("VISUAL", script)
	if code, _, errs := runCLI(t, "", "notes", "edit", "2", "--workdir", work); code != exitOK {
		t.Fatalf("edit in editor: exit %d %s", code, errs)
	}
	_, out, _ = runCLI(t, "", "notes", "--workdir", work)
	want = "#1  importance 9  Porch (turn 3, edited)\n    The key is in the pot.\n#2  importance 8  Stair (turn 9, edited)\n    Climb only with the lamp lit.\n"
	if out != want {
		t.Errorf("after edits:\n%s\nwant\n%s", out, want)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"notes", "edit", "7", "--text", "x"}, exitError, "no such note"},
		{[]string{"notes", "edit", "1", "--text", "   "}, exitError, "empty note"},
		{[]string{"notes", "edit", "abc"}, exitUsage, "not a note ID"},
		{[]string{"notes", "edit"}, exitUsage, "name one note ID"},
		{[]string{"notes", "delete"}, exitUsage, "name the note IDs"},
		{[]string{"notes", "frob"}, exitUsage, `unexpected "frob"`},
	} {
		code, _, errs := runCLI(t, "", append(tc.args, "--workdir", work)...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d %q, want %d %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
	if code, out, _ := runCLI(t, "", "notes", "delete", "1", "--workdir", work); code != exitOK || !strings.Contains(out, "deleted note 1") {
		t.Errorf("delete: exit %d %s", code, out)
	}
	if code, _, errs := runCLI(t, "", "notes", "delete", "1", "--workdir", work); code != exitError || !strings.Contains(errs, "no such note") {
		t.Errorf("delete again: exit %d %s", code, errs)
	}
	_, out, _ = runCLI(t, "", "notes", "--workdir", work)
	if strings.Contains(out, "#1 ") || !strings.Contains(out, "#2 ") {
		t.Errorf("after delete:\n%s", out)
	}

}

// A lantern.db written by a newer Lantern is refused with a message that
// says what to do, and is left as it was.
func TestNewerRunDatabaseRefusedByCommands(t *testing.T) {
	dir, _ := isolate(t)
	work := filepath.Join(dir, "work")
	story, name, err := openStory("", work)
	if err != nil {
		t.Fatal(err)
	}
	sdir := filepath.Join(work, session.StoryDir(name, story.Info().Release))
	os.MkdirAll(sdir, 0o755)
	path := filepath.Join(sdir, "lantern.db")
	db, err := rundb.OpenRunDB(path, story.Info().MD5)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	code, _, errs := runCLI(t, "", "notes", "--workdir", work)
	if code != exitError || !strings.Contains(errs, "has schema version 99") || !strings.Contains(errs, "upgrade Lantern") {
		t.Errorf("notes on a newer database: exit %d %s", code, errs)
	}
}
