package tui

import (
	"context"
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
	for _, msg := range run(m.loadMemories(false)) {
		m.Update(msg)
	}
	h.mustSee("⚠ Memories.md line 12: an entry needs a", "**Orchard lies north** *(Ep1, T1)*", `kept "Cottage door is boarded" at L3`)
}
