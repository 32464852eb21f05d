package session

import (
	"context"
	"errors"
	"testing"

	"github.com/lantern-if/lantern/memory/rundb"
)

// TestNotesAreChangedThroughTheSession: a person's edit and deletion of a
// note go through the session (the TUI's path) and reach the prompt's
// notes; a missing note is an error found with errors.Is.
func TestNotesAreChangedThroughTheSession(t *testing.T) {
	sess := demoSession(t, recording())
	ctx := context.Background()
	id, _, err := sess.DB.Remember(ctx, rundb.Note{Session: sess.noteSession(), Turn: 2, Content: "the gate is locked", Importance: 10, LocationID: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.EditNote(ctx, id, "the gate opens with the key", 900); err != nil {
		t.Fatal(err)
	}
	if got := sess.notes(); len(got) != 1 || got[0] != "[T2 @ L3] the gate opens with the key" {
		t.Fatalf("prompt notes after the edit = %q", got)
	}
	ns, err := sess.Notes(ctx)
	if err != nil || len(ns) != 1 || ns[0].Importance != 900 || ns[0].Edited.IsZero() {
		t.Fatalf("notes = %+v, %v; want the edited note, importance 900, marked edited", ns, err)
	}
	if err := sess.DeleteNote(ctx, id); err != nil {
		t.Fatal(err)
	}
	if got := sess.notes(); len(got) != 0 {
		t.Fatalf("prompt notes after the deletion = %q", got)
	}
	if err := sess.EditNote(ctx, id, "again", 5); !errors.Is(err, rundb.ErrNoNote) {
		t.Fatalf("editing a deleted note: %v, want ErrNoNote", err)
	}
}
