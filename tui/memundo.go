package tui

import (
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory"
)

// memoryUndoer is the store's side of u in the Memory pane (*memory.Store):
// the deletions this session made, and the versions kept when memories
// were deleted by hand in an editor.
type memoryUndoer interface {
	Stats() memory.Stats
	RestoreGeneration() (int, error)
}

type (
	// undoCheckMsg says whether a deletion made in this session can be undone.
	undoCheckMsg struct{ pending int }
	// handUndoneMsg is what bringing back a hand deletion did.
	handUndoneMsg struct {
		n   int
		err error
	}
)

// undoMemory is u in the Memory pane: a deletion made here comes back
// first; with none, u asks, and u again brings back the memories the last
// deletion by hand removed (as `lantern memories undo` does).
func (m *Model) undoMemory() tea.Cmd {
	u, ok := m.opts.Memories.(memoryUndoer)
	if !ok {
		return m.undoSessionDelete()
	}
	if m.undoArmed != 0 && m.undoArmed == m.flashID && m.flash != "" {
		m.undoArmed = 0
		return func() tea.Msg {
			n, err := u.RestoreGeneration()
			return handUndoneMsg{n: n, err: err}
		}
	}
	// The store is asked off the update loop: it may be busy saving.
	return func() tea.Msg { return undoCheckMsg{pending: u.Stats().UndoPending} }
}

func (m *Model) undoSessionDelete() tea.Cmd {
	return tea.Batch(m.send(engine.MemoryEdit{Op: engine.MemoryUndo}), m.setFlash("undo: the last deleted memory comes back", false))
}

// handleUndo acts on the answers of undoMemory's commands.
func (m *Model) handleUndo(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case undoCheckMsg:
		if msg.pending > 0 {
			return m.undoSessionDelete()
		}
		cmd := m.setFlash("Nothing deleted here to undo. u again brings back the memories last deleted by hand (kept in Memories.md.history)", false)
		m.undoArmed = m.flashID
		return cmd
	case handUndoneMsg:
		switch {
		case errors.Is(msg.err, memory.ErrNothingToUndo):
			return m.setFlash("nothing to undo: no deletion by hand is kept", false)
		case msg.err != nil:
			return m.setFlash("undo: "+msg.err.Error(), true)
		}
		m.log.Info("memory restore generation", "memories", msg.n)
		return tea.Batch(m.loadMemories(false), m.setFlash(fmt.Sprintf("undo: %s deleted by hand came back", plural(msg.n, "memory", "memories")), false))
	}
	return nil
}
