package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory"
)

// noticingMemories is a store that also reports unreadable entries and
// memories its guard put back, as memory.Store does.
type noticingMemories struct {
	fakeMemories
	problems []memory.Problem
	kept     []memory.Kept
}

func (f *noticingMemories) Problems() []memory.Problem { return f.problems }
func (f *noticingMemories) TakeKept() []memory.Kept {
	k := f.kept
	f.kept = nil
	return k
}

// An entry broken by hand stays in view where it stands, with its line;
// a memory the guard put back is announced.
func TestMemoryPaneShowsBrokenEntriesAndKeptMemories(t *testing.T) {
	mem := &noticingMemories{
		problems: []memory.Problem{{Line: 12, Msg: "an entry needs a category", Location: 3, Text: "**Orchard lies north** *(Ep1, T1)*"}},
		kept:     []memory.Kept{{Location: 3, Name: "Muddy Lane", Title: "Cottage door is boarded", Written: time.Now()}},
	}
	mem.secs = sampleSections()
	eng := newFakeEngine()
	m := New(context.Background(), Options{Engine: eng, Memories: mem, Theme: "dark", RefreshEvery: -1})
	h := &harness{t: t, m: m, eng: eng}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	for _, msg := range run(h.events(opening(), engine.Idle{Mode: engine.Paused})) {
		m.Update(msg)
	}
	for _, msg := range run(loadMemories(m.opts.Memories, false)) {
		m.Update(msg)
	}
	h.mustSee("⚠ Memories.md line 12: an entry needs a", "**Orchard lies north** *(Ep1, T1)*", `kept "Cottage door is boarded" at L3`)
}

// A location header mistyped by hand hides the room's memories: the pane
// shows the header's problem where the memories would be (the line, what
// is wrong, how it is repaired), and once the store repaired it for a new
// memory, one section holds them all and the repair is announced.
func TestMemoryPaneShowsAMistypedHeader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Memories.md")
	text := "# Location Memories\n\n" +
		"## Locaton three: Muddy Lane\n**Visits:** 2 | **Episodes:** 1\n\n### Memories\n\n" +
		"**[DANGER] Deep mud** *(Ep1, T3)*\nDo not go south.\n\n---\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := memory.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	eng := newFakeEngine()
	m := New(context.Background(), Options{Engine: eng, Memories: store, Theme: "dark", RefreshEvery: -1})
	h := &harness{t: t, m: m, eng: eng}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	for _, msg := range run(h.events(opening(), engine.Idle{Mode: engine.Paused})) {
		m.Update(msg)
	}
	for _, msg := range run(loadMemories(m.opts.Memories, false)) {
		m.Update(msg)
	}
	h.mustSee("⚠ Memories.md line 3:", "## Locaton three: Muddy Lane", "hidden from the agent", "Repair: lantern memories")
	if err := store.Add(3, "Muddy Lane", memory.Memory{Category: memory.CategoryNote, Status: memory.StatusActive, Title: "Boot", Text: "A boot."}); err != nil {
		t.Fatal(err)
	}
	for _, msg := range run(loadMemories(m.opts.Memories, false)) { // as a MemoryChanged makes it
		m.Update(msg)
	}
	h.mustSee("Deep mud", "Boot", `header was repaired as "## Location 3: Muddy Lane"`)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "## Location 3: "); n != 1 || strings.Contains(string(data), "Locaton") {
		t.Errorf("%d sections for location 3 after the add:\n%s", n, data)
	}
}
