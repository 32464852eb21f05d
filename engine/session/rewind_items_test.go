package session

import (
	"testing"

	"github.com/lantern-if/lantern/memory"
)

// TestRewindPutsItemsBackAsTheyStood: the ITEM entries of the branch a
// rewind leaves are undone as of the turn play goes on from: a find and a
// drop after it withdrawn, an item taken back after it left where it was
// left before it, what came before it and other episodes untouched.
func TestRewindPutsItemsBackAsTheyStood(t *testing.T) {
	sess := demoSession(t, recording())
	add := func(loc int, title string, ep, turn int, p memory.Persistence, text string) memory.Ref {
		t.Helper()
		m := memory.Memory{Category: memory.CategoryItem, Status: memory.StatusActive, Persistence: p, Title: title, Episode: ep, Turn: turn, Text: text}
		if err := sess.Memories.Add(loc, "Room", m); err != nil {
			t.Fatal(err)
		}
		return memory.Ref{Location: loc, Title: title, Text: text}
	}
	foundBefore := add(3, "key", 1, 4, "", "Found here.")
	foundAfter := add(3, "lamp", 1, 12, "", "Found here.")
	leftAfter := add(4, "key", 1, 15, memory.PersistenceEphemeral, "Left here.")
	takenBack := add(5, "rope", 1, 8, memory.PersistenceEphemeral, "Left here.")
	if err := sess.Memories.Invalidate(takenBack, "taken back: get rope", 14); err != nil {
		t.Fatal(err)
	}
	otherEpisode := add(5, "sword", 2, 20, "", "Found here.")
	evs, err := sess.undoItems(1, 10, "rewound to turn 10")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 {
		t.Errorf("%d memory changes announced, want 3: %v", len(evs), evs)
	}
	visible := func(r memory.Ref) bool {
		for _, m := range sess.Memories.List(r.Location) {
			if m.Title == r.Title && m.Text == r.Text {
				return m.Visible()
			}
		}
		t.Fatalf("%v is gone", r)
		return false
	}
	for _, c := range []struct {
		ref  memory.Ref
		want bool
	}{{foundBefore, true}, {foundAfter, false}, {leftAfter, false}, {takenBack, true}, {otherEpisode, true}} {
		if got := visible(c.ref); got != c.want {
			t.Errorf("%s at L%d visible = %v, want %v", c.ref.Title, c.ref.Location, got, c.want)
		}
	}
}
