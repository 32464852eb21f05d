package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
)

type (
	// undoCheckMsg says whether a deletion made in this session can be undone.
	undoCheckMsg struct{ pending int }
)

// undoMemory is u in the Memory pane: a deletion made here comes back
// first; with none, u asks, and u again brings back the memories the last
// deletion by hand removed (as `lantern memories undo` does). Both go to
// the session as commands.
func (m *Model) undoMemory() tea.Cmd {
	src := m.opts.Memories
	if src == nil {
		return m.undoSessionDelete()
	}
	if m.undoArmed != 0 && m.undoArmed == m.flashID && m.flash != "" {
		m.undoArmed = 0
		m.log.Info("memory restore generation")
		return tea.Batch(m.send(engine.MemoryEdit{Op: engine.MemoryRestoreHand}),
			m.setFlash("undo: the memories last deleted by hand come back", false))
	}
	// The store is asked off the update loop: it may be busy saving.
	return func() tea.Msg { return undoCheckMsg{pending: src.Stats().UndoPending} }
}

func (m *Model) undoSessionDelete() tea.Cmd {
	return tea.Batch(m.send(engine.MemoryEdit{Op: engine.MemoryUndo}), m.setFlash("undo: the last deleted memory comes back", false))
}

// handleUndo acts on the answer of undoMemory's check.
func (m *Model) handleUndo(msg undoCheckMsg) tea.Cmd {
	if msg.pending > 0 {
		return m.undoSessionDelete()
	}
	cmd := m.setFlash("no deletion here · u again undoes the last hand deletion", false)
	m.undoArmed = m.flashID
	return cmd
}
