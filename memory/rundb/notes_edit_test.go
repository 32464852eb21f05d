package rundb

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

func TestEditAndDeleteNotes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lantern.db")
	db, err := OpenRunDB(path, "story-a")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := OpenRunDB(path, "story-b")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	a, _, _ := db.Remember(ctx, Note{Content: "The grating is locked.", Importance: 3})
	b, _, _ := db.Remember(ctx, Note{Content: "Lamp in the living room.", Importance: 9})
	foreign, _, _ := other.Remember(ctx, Note{Content: "Another story's note.", Importance: 5})

	ns, err := db.Notes(ctx)
	if err != nil || len(ns) != 2 || ns[0].ID != b || ns[1].ID != a {
		t.Fatalf("Notes = %+v, %v", ns, err)
	}
	if _, err := db.TopNotes(ctx, 5); err != nil { // fill the cache
		t.Fatal(err)
	}
	if err := db.EditNote(ctx, a, "  The grating opens with the key.  ", 2000); err != nil {
		t.Fatal(err)
	}
	n, err := db.Note(ctx, a)
	if err != nil || n.Content != "The grating opens with the key." || n.Importance != 1000 || n.Edited.IsZero() {
		t.Fatalf("edited note = %+v, %v", n, err)
	}
	if top, _ := db.TopNotes(ctx, 1); len(top) != 1 || top[0].ID != a {
		t.Fatalf("TopNotes after the edit = %+v (stale cache?)", top)
	}
	for _, tc := range []struct {
		name string
		err  error
		fn   func() error
	}{
		{"empty text", ErrEmptyNote, func() error { return db.EditNote(ctx, a, "   ", 1) }},
		{"edit missing", ErrNoNote, func() error { return db.EditNote(ctx, 9999, "x", 1) }},
		{"edit another story's", ErrNoNote, func() error { return db.EditNote(ctx, foreign, "x", 1) }},
		{"delete missing", ErrNoNote, func() error { return db.DeleteNote(ctx, 9999) }},
		{"delete another story's", ErrNoNote, func() error { return db.DeleteNote(ctx, foreign) }},
		{"get missing", ErrNoNote, func() error { _, err := db.Note(ctx, 9999); return err }},
	} {
		if err := tc.fn(); !errors.Is(err, tc.err) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.err)
		}
	}
	if n, _ := db.Note(ctx, a); n.Content != "The grating opens with the key." {
		t.Errorf("a refused edit changed the note: %q", n.Content)
	}
	if err := db.DeleteNote(ctx, b); err != nil {
		t.Fatal(err)
	}
	if ns, _ := db.Notes(ctx); len(ns) != 1 || ns[0].ID != a {
		t.Fatalf("after delete: %+v", ns)
	}
	if ns, _ := other.Notes(ctx); len(ns) != 1 || ns[0].ID != foreign {
		t.Fatalf("the other story's notes: %+v", ns)
	}
}

// A note edited through another connection (lantern notes edit while a
// session runs) reaches the session's TopNotes.
func TestTopNotesSeesAnotherProcesssEdit(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lantern.db")
	session, err := OpenRunDB(path, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	id, _, _ := session.Remember(ctx, Note{Content: "Old text.", Importance: 5})
	if top, _ := session.TopNotes(ctx, 5); len(top) != 1 || top[0].Content != "Old text." {
		t.Fatalf("top = %+v", top)
	}
	cli, err := OpenRunDB(path, "s")
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.EditNote(ctx, id, "New text.", 5); err != nil {
		t.Fatal(err)
	}
	cli.Close()
	if top, _ := session.TopNotes(ctx, 5); len(top) != 1 || top[0].Content != "New text." {
		t.Fatalf("top after another connection's edit = %+v", top)
	}
}
