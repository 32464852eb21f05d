package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/memory/rundb"
)

// sampleNotes is a run database holding three of the agent's notes.
func sampleNotes(t *testing.T) *rundb.RunDB {
	t.Helper()
	db, err := rundb.OpenRunDB(filepath.Join(t.TempDir(), "lantern.db"), "demo")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	for _, n := range []rundb.Note{
		{Content: "The well rope is frayed: do not climb down twice.", Importance: 40, Location: "Old Well", Turn: 7},
		{Content: "The cottage door is boarded from inside.", Importance: 80, Location: "Muddy Lane", Turn: 4},
		{Content: "Apples in the orchard; the tree is easy to climb.", Importance: 10, Location: "Orchard", Turn: 1},
	} {
		if _, _, err := db.Remember(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func (h *harness) do(names ...string) {
	for _, n := range names {
		for _, msg := range run(h.key(n)) {
			h.m.Update(msg)
		}
	}
}

// doRendering is do for keys whose command reads and renders Markdown (K,
// N): given time enough on a loaded machine under -race (run's 200 ms is
// for ticks, which never end in a test).
func (h *harness) doRendering(names ...string) {
	for _, n := range names {
		for _, msg := range runWithin(h.key(n), 20*time.Second) {
			h.m.Update(msg)
		}
	}
}

// The Notes view (N) lists the agent's notes, most important first, and
// edits and deletes them in the run database.
func TestNotesView(t *testing.T) {
	h := newHarness(t, 80, 24, "dark")
	db := sampleNotes(t)
	h.m.opts.Notes = db
	scene(h)
	h.doRendering("N")
	golden(t, "notes_80x24", h.m.Render())

	// e edits the selected note's text in place.
	h.do("down", "e")
	h.key("ctrl+u")
	for _, r := range "Boarded; try the well" {
		if r == ' ' {
			h.key("space")
		} else {
			h.key(string(r))
		}
	}
	golden(t, "notes_80x24_edit", h.m.Render())
	h.do("enter")
	ctx := context.Background()
	n, err := db.Note(ctx, 1)
	if err != nil || n.Content != "Boarded; try the well" || n.Edited.IsZero() {
		t.Fatalf("edited note = %+v, %v", n, err)
	}
	h.mustSee("#1     40  Old Well: Boarded; try the well ✎")

	// An empty edit is refused and changes nothing.
	h.do("e")
	h.key("ctrl+u")
	h.do("enter")
	h.mustSee("a note needs some text")
	if n, _ := db.Note(ctx, 1); n.Content != "Boarded; try the well" {
		t.Fatalf("an empty edit changed the note: %q", n.Content)
	}

	// d asks, a second d deletes; another key keeps the note.
	h.do("d", "j")
	if ns, _ := db.Notes(ctx); len(ns) != 3 {
		t.Fatalf("d then j deleted a note: %d left", len(ns))
	}
	h.do("d")
	h.mustSee("d again deletes the note")
	h.do("d")
	ns, _ := db.Notes(ctx)
	if len(ns) != 2 || ns[0].ID != 2 || ns[1].ID != 1 {
		t.Fatalf("after d d: %+v", ns)
	}
	h.mustNotSee("Apples in the orchard")
	h.do("esc")
	if h.m.dialogs.top() != nil {
		t.Fatal("esc did not close the Notes view")
	}
	helpListsNotes(t, h)
}

// helpListsNotes: the help lists the Notes key.
func helpListsNotes(t *testing.T, h *harness) {
	t.Helper()
	found := false
	for _, e := range helpRows(h.m.helpGroups()) {
		found = found || (e.key == "N" && strings.Contains(e.desc, "the agent's notes"))
	}
	if !found {
		t.Error("the help lacks the Notes key")
	}
}

func TestNotesViewWithoutDatabase(t *testing.T) {
	h := newHarness(t, 80, 24, "dark")
	scene(h)
	h.do("N") // a flash, whose expiry is a tick: nothing to render
	if h.m.dialogs.top() != nil || !strings.Contains(h.screen(), "no run database attached") {
		t.Errorf("N without a database:\n%s", h.screen())
	}
}
