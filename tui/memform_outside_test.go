package tui

import (
	"reflect"
	"testing"

	"github.com/lantern-if/lantern/engine"
)

// TestMemFormOutsideChangeAsks: a memory edited in Memories.md while the
// form is open is not overwritten on ctrl+s; the form asks, and merge keeps
// the person's changed title with the file's new text.
func TestMemFormOutsideChangeAsks(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(opening())
	h.mem.secs = sampleSections()
	h.m.Update(memoriesMsg{secs: sampleSections()})
	h.key("m", "down", "e")
	h.mustSee("Edit memory at L3 Muddy Lane")
	h.key("ctrl+u")
	h.typeText("Door is boarded up")
	// Meanwhile, in an editor: the same memory's text changes.
	h.mem.mu.Lock()
	secs := sampleSections()
	secs[0].Memories[1].Text = "Boarded shut, but a window at the back is open."
	h.mem.secs = secs
	h.mem.mu.Unlock()
	h.do("ctrl+s") // Memories.md is read in a command; its answer comes back
	if got := h.pending(); len(got) != 0 {
		t.Fatalf("saved over the outside change: %#v", got)
	}
	h.mustSee("changed outside")
	h.key("m")
	want := []engine.Command{engine.MemoryEdit{Op: engine.MemoryEditText, Location: 3, Title: "Cottage door is boarded",
		NewTitle: "Door is boarded up", Text: "Boarded shut, but a window at the back is open.", Category: "FAILURE"}}
	if got := h.pending(); !reflect.DeepEqual(got, want) {
		t.Fatalf("merge queued %#v\nwant %#v", got, want)
	}
}
