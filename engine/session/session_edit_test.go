package session

import (
	"errors"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory"
)

// TestPersonAddsMemoryWithStatus: the memory form's status reaches
// Memories.md (ACTIVE by default, TENTATIVE when chosen); SUPERSEDED is
// refused for a new memory, with an error event and nothing written.
func TestPersonAddsMemoryWithStatus(t *testing.T) {
	sess, h := pausedDemo(t, recording())
	for _, tc := range []struct {
		title   string
		status  memory.Status
		want    memory.Status
		refused bool
	}{
		{"Default status", "", memory.StatusActive, false},
		{"Maybe the gate", "TENTATIVE", memory.StatusTentative, false},
		{"Already old", "SUPERSEDED", "", true},
	} {
		h.send(engine.MemoryEdit{Op: engine.MemoryAdd, Location: 3, NewTitle: tc.title, Text: "A note by hand.", Category: "NOTE", Status: tc.status})
		var got engine.Event
		for ev := range sess.Engine.Events() {
			if _, ok := ev.(engine.MemoryChanged); ok {
				got = ev
				break
			}
			if _, ok := ev.(engine.ErrorEvent); ok {
				got = ev
				break
			}
		}
		if e, isErr := got.(engine.ErrorEvent); isErr != tc.refused {
			t.Fatalf("%s: event %#v", tc.title, got)
		} else if isErr && !strings.Contains(e.Err.Error(), "ACTIVE or TENTATIVE") {
			t.Errorf("%s: error %v", tc.title, e.Err)
		}
		var found *memory.Memory
		for _, m := range sess.Memories.List(3) {
			if m.Title == tc.title {
				found = &m
			}
		}
		switch {
		case tc.refused && found != nil:
			t.Errorf("%s: written anyway", tc.title)
		case !tc.refused && (found == nil || found.Status != tc.want):
			t.Errorf("%s: stored %+v, want status %s", tc.title, found, tc.want)
		}
	}
}

// TestPersonRestoresHandDeletionThroughTheSession: bringing back what a
// deletion by hand removed is a command to the session like every other
// edit; with nothing kept it says so (ErrNothingToUndo), writing nothing.
func TestPersonRestoresHandDeletionThroughTheSession(t *testing.T) {
	sess, h := pausedDemo(t, recording())
	h.send(engine.MemoryEdit{Op: engine.MemoryRestoreHand})
	for ev := range sess.Engine.Events() {
		if e, ok := ev.(engine.ErrorEvent); ok {
			if !errors.Is(e.Err, memory.ErrNothingToUndo) {
				t.Fatalf("error %v, want ErrNothingToUndo", e.Err)
			}
			return
		}
		if _, ok := ev.(engine.MemoryChanged); ok {
			t.Fatal("a restore with nothing kept changed the memories")
		}
	}
}
