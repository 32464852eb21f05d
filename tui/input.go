package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
)

const (
	escWindow   = 700 * time.Millisecond // the second esc of "esc esc" comes within this
	quitTimeout = 8 * time.Second        // how long quitting waits for the engine
	maxHistory  = 100
)

// handleKey routes a key by what the keyboard is doing.
func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	if k.String() == "ctrl+c" && (m.quitting || m.state != stNormal) {
		if m.quitting {
			return tea.Quit
		}
		return m.quit()
	}
	switch m.state {
	case stInput:
		return m.inputKey(k)
	case stSearch:
		return m.searchKey(k)
	case stObjInput:
		return m.objInputKey(k)
	case stForm:
		return m.formKey(k)
	case stHelp:
		if key.Matches(k, m.c.keys.Help, m.c.keys.Back) || k.String() == "q" {
			m.state = stNormal
		}
		return nil
	case stModels:
		c, closed := m.picker.key(k.String())
		if closed {
			m.state, m.picker = stNormal, nil
		}
		if sm, ok := c.(engine.SetModel); ok {
			m.roleModels[sm.Role] = sm.Model
			return tea.Batch(m.send(c), m.setFlash(fmt.Sprintf("%s role → %s", sm.Role, sm.Model), false))
		}
		return nil
	case stViewer:
		return m.viewerKey(k)
	case stEpisodes:
		return m.episodesKey(k)
	}
	if m.replay != nil {
		if cmd, ok := m.replayKey(k); ok {
			return cmd
		}
	}
	return m.normalKey(k)
}

func (m *Model) normalKey(k tea.KeyPressMsg) tea.Cmd {
	keys := m.c.keys
	s := k.String()
	// esc: back out of what the pane shows, else arm "esc esc".
	if key.Matches(k, keys.Cancel) {
		if m.focus == pMemory && m.memory.back() {
			return nil
		}
		if tp, _, _ := m.shown(); tp.query != "" {
			tp.clearSearch()
			return nil
		}
		return m.escape()
	}
	switch {
	case key.Matches(k, keys.Quit):
		return m.quit()
	case key.Matches(k, keys.EndEpisode):
		if m.endArmed {
			m.endArmed = false
			return tea.Batch(m.send(engine.EndEpisode{}), m.setFlash(fmt.Sprintf("ending episode %d…", m.episode), false))
		}
		m.endArmed = true
		return m.setFlash(fmt.Sprintf("press %s again to end episode %d (any other key: go on)", keys.EndEpisode.Keys()[0], m.episode), false)
	case key.Matches(k, keys.Help):
		m.state = stHelp
		return nil
	case key.Matches(k, keys.Pause):
		return m.togglePause()
	case key.Matches(k, keys.Step):
		m.mode = engine.Stepping
		return m.send(engine.Step{})
	case key.Matches(k, keys.Input):
		m.state = stInput
		m.histAt = len(m.history)
		return m.input.Focus()
	case key.Matches(k, keys.NextPane):
		m.focusPane((m.focus + 1) % numPanes)
	case key.Matches(k, keys.PrevPane):
		m.focusPane((m.focus + numPanes - 1) % numPanes)
	case key.Matches(k, keys.Jump):
		m.focusPane(paneID(s[0] - '1'))
	case key.Matches(k, keys.Memory):
		m.focusPane(pMemory)
	case key.Matches(k, keys.Objectives):
		m.focusPane(pObjectives)
	case key.Matches(k, keys.MapPane):
		if m.focus == pMap {
			_, _, mp := m.shown()
			mp.toggleMermaid()
		}
		m.focusPane(pMap)
	case key.Matches(k, keys.Search):
		m.focusPane(pTranscript)
		m.state = stSearch
		tp, _, _ := m.shown()
		m.search.SetValue(tp.query)
		return m.search.Focus()
	case key.Matches(k, keys.Theme):
		return m.nextTheme()
	case key.Matches(k, keys.Models):
		if m.opts.Models == nil {
			return m.setFlash("no model server is configured", true)
		}
		m.picker = newModelPicker(m.opts.Models, m.roleModels)
		m.state = stModels
		return listModels(m.ctx, m.opts.Models)
	case key.Matches(k, keys.Retry):
		return m.retryOllama()
	case key.Matches(k, keys.Pull):
		return m.startPull()
	case key.Matches(k, keys.Knowledge):
		return m.openKnowledge()
	case key.Matches(k, keys.Episodes):
		return m.openEpisodes()
	case key.Matches(k, keys.Up):
		m.scrollFocused(1)
	case key.Matches(k, keys.Down):
		m.scrollFocused(-1)
	case key.Matches(k, keys.PageUp):
		m.scrollFocused(m.pageOf(m.focus))
	case key.Matches(k, keys.PageDown):
		m.scrollFocused(-m.pageOf(m.focus))
	case key.Matches(k, keys.Top):
		m.scrollFocused(1 << 20)
	case key.Matches(k, keys.Bottom):
		m.scrollFocused(-(1 << 20))
	default:
		return m.paneKey(k)
	}
	return nil
}

// paneKey handles the keys that belong to the focused pane.
func (m *Model) paneKey(k tea.KeyPressMsg) tea.Cmd {
	keys := m.c.keys
	switch m.focus {
	case pMemory:
		switch {
		case key.Matches(k, keys.View):
			if m.memory.browsing {
				m.memory.open()
				return nil
			}
			return m.openMemory()
		case key.Matches(k, keys.Browse):
			m.memory.toggleBrowser()
		case key.Matches(k, keys.Edit):
			return m.openForm(engine.MemoryEditText)
		case key.Matches(k, keys.Supersede):
			return m.openForm(engine.MemorySupersede)
		case key.Matches(k, keys.Add):
			return m.openForm(engine.MemoryAdd)
		case key.Matches(k, keys.Delete):
			return m.deleteMemory()
		case key.Matches(k, keys.Undo):
			return tea.Batch(m.send(engine.MemoryEdit{Op: engine.MemoryUndo}), m.setFlash("undo: the last deleted memory comes back", false))
		}
	case pObjectives:
		switch {
		case key.Matches(k, keys.Add):
			return m.openObjInput("add", "")
		case key.Matches(k, keys.Complete):
			return m.objectiveOp("complete")
		case key.Matches(k, keys.Drop):
			return m.objectiveOp("drop")
		}
	case pMap:
		if key.Matches(k, keys.View) {
			_, _, mp := m.shown()
			mp.toggleMermaid()
		}
	}
	return nil
}

func (m *Model) focusPane(p paneID) {
	if p >= 0 && p < numPanes {
		m.focus = p
	}
}

// pageOf is a pane's page height.
func (m *Model) pageOf(p paneID) int {
	_, h := m.inner(p)
	return max(h-1, 1)
}

// scrollFocused scrolls the focused pane n lines up (n < 0: down).
func (m *Model) scrollFocused(n int) { m.scrollPane(m.focus, n) }

func (m *Model) scrollPane(p paneID, n int) {
	tp, rp, mp := m.shown()
	switch p {
	case pTranscript:
		tp.scroll(n)
	case pReasoning:
		rp.scroll(n)
	case pMemory:
		m.memory.scroll(n)
	case pObjectives:
		m.objectives.scroll(n)
	case pMap:
		mp.scroll(n)
	}
}

func (m *Model) togglePause() tea.Cmd {
	if m.mode == engine.Running {
		m.mode = engine.Paused
		return m.send(engine.Pause{})
	}
	m.mode = engine.Running
	return m.send(engine.Resume{})
}

// escape arms "esc esc"; the second esc in time cancels the model call in
// flight (the turn is not played; the engine pauses).
func (m *Model) escape() tea.Cmd {
	if m.escArmed {
		m.escArmed = false
		m.mode = engine.Paused
		return tea.Batch(m.send(engine.CancelTurn{}), m.setFlash("cancelled the model call; paused", false))
	}
	m.escArmed = true
	m.escID++
	id := m.escID
	return tea.Tick(escWindow, func(time.Time) tea.Msg { return escDoneMsg{id: id} })
}

// quit asks the engine to stop at a turn boundary; the TUI ends when it has
// (or after quitTimeout).
func (m *Model) quit() tea.Cmd {
	if m.stopped {
		return tea.Quit
	}
	if m.quitting {
		return nil
	}
	m.quitting = true
	m.state = stNormal
	return tea.Batch(m.send(engine.Quit{}), m.setFlash("quitting: the engine stops at the turn boundary…", false),
		tea.Tick(quitTimeout, func(time.Time) tea.Msg { return forceQuitMsg{} }))
}

// inputKey: the command line. Enter sends the command (it runs at the next
// turn boundary, marked human) and keeps the line open; Esc leaves it.
func (m *Model) inputKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.state = stNormal
		m.input.Blur()
		return m.escape()
	case "enter":
		text := oneLine(m.input.Value())
		if text == "" {
			return nil
		}
		m.input.Reset()
		if n := len(m.history); n == 0 || m.history[n-1] != text {
			m.history = append(m.history, text)
			if len(m.history) > maxHistory {
				m.history = m.history[1:]
			}
		}
		m.histAt = len(m.history)
		m.log.Info("override", "text", text)
		note := "it runs now"
		if m.mode == engine.Running || m.thinking {
			note = "it runs at the turn boundary"
		}
		return tea.Batch(m.send(engine.Override{Text: text}), m.setFlash(fmt.Sprintf("sent %q: %s", text, note), false))
	case "up":
		if m.histAt > 0 {
			m.histAt--
			m.input.SetValue(m.history[m.histAt])
			m.input.CursorEnd()
		}
		return nil
	case "down":
		if m.histAt < len(m.history) {
			m.histAt++
			v := ""
			if m.histAt < len(m.history) {
				v = m.history[m.histAt]
			}
			m.input.SetValue(v)
			m.input.CursorEnd()
		}
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// searchKey: enter (or ↑) finds the next older match, ↓ a newer one, esc
// closes the search.
func (m *Model) searchKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.state = stNormal
		m.search.Blur()
		tp, _, _ := m.shown()
		tp.clearSearch()
		return nil
	case "enter", "up", "ctrl+p", "down", "ctrl+n":
		older := k.String() != "down" && k.String() != "ctrl+n"
		tp, _, _ := m.shown()
		if !tp.search(strings.TrimSpace(m.search.Value()), older) {
			return m.setFlash(fmt.Sprintf("no match for %q", m.search.Value()), true)
		}
		return nil
	}
	var cmd tea.Cmd
	m.search, cmd = m.search.Update(k)
	return cmd
}

// openObjInput asks for an objective's text (to add, or to name the one to
// complete or drop).
func (m *Model) openObjInput(op, value string) tea.Cmd {
	m.objOp = op
	switch op {
	case "add":
		m.objInput.Prompt = "new objective: "
	default:
		m.objInput.Prompt = op + " objective (text or ID): "
	}
	m.objInput.SetValue(value)
	m.state = stObjInput
	return m.objInput.Focus()
}

func (m *Model) objectiveOp(op string) tea.Cmd {
	if o, ok := m.objectives.selected(); ok {
		return tea.Batch(m.send(engine.ObjectiveEdit{Op: op, Text: o}), m.setFlash(fmt.Sprintf("%s: %s", op, o), false))
	}
	return m.openObjInput(op, "")
}

func (m *Model) objInputKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.state = stNormal
		m.objInput.Blur()
		return nil
	case "enter":
		text := oneLine(m.objInput.Value())
		m.state = stNormal
		m.objInput.Blur()
		m.objInput.Reset()
		if text == "" {
			return nil
		}
		return tea.Batch(m.send(engine.ObjectiveEdit{Op: m.objOp, Text: text}), m.setFlash(fmt.Sprintf("objective %s: %s", m.objOp, text), false))
	}
	var cmd tea.Cmd
	m.objInput, cmd = m.objInput.Update(k)
	return cmd
}

// openForm opens the memory form for the selected memory (or a new one).
func (m *Model) openForm(op engine.MemoryOp) tea.Cmd {
	loc, name := m.memory.location()
	if loc <= 0 {
		return m.setFlash("no location yet", true)
	}
	sel, ok := m.memory.selected()
	if op != engine.MemoryAdd && !ok {
		return m.setFlash("no memory selected here (a adds one)", true)
	}
	m.form = newMemForm(m.c, op, loc, name, sel)
	m.form.setWidth(m.dialogWidth())
	m.state = stForm
	return m.form.focusField(0)
}

func (m *Model) formKey(k tea.KeyPressMsg) tea.Cmd {
	res, cmd := m.form.update(k)
	switch res {
	case formCancel:
		m.state, m.form = stNormal, nil
		return nil
	case formSave:
		if m.form.outsideChange(m.opts.Memories) {
			return nil // the form asks: reload, overwrite or merge
		}
		cmds, err := m.form.commands()
		if err != nil {
			m.form.err = err.Error()
			return nil
		}
		what := map[engine.MemoryOp]string{engine.MemoryAdd: "added", engine.MemoryEditText: "edited", engine.MemorySupersede: "superseded"}[m.form.op]
		m.log.Info("memory edit", "op", m.form.op, "location", m.form.loc)
		m.state, m.form = stNormal, nil
		return tea.Batch(m.send(cmds...), m.setFlash("memory "+what, false))
	}
	return cmd
}

func (m *Model) deleteMemory() tea.Cmd {
	sel, ok := m.memory.selected()
	if !ok {
		return m.setFlash("no memory selected", true)
	}
	loc, _ := m.memory.location()
	m.log.Info("memory delete", "location", loc, "title", sel.Title)
	return tea.Batch(m.send(engine.MemoryEdit{Op: engine.MemoryDelete, Location: loc, Title: sel.Title}),
		m.setFlash(fmt.Sprintf("deleted %q: u undoes", sel.Title), false))
}

// handleClick focuses the pane under the pointer (or the tab clicked).
func (m *Model) handleClick(ms tea.Mouse) tea.Cmd {
	if m.state != stNormal {
		return nil
	}
	if p := m.lay.paneAt(ms.X, ms.Y); p >= 0 {
		m.focusPane(p)
	}
	return nil
}

// handleWheel scrolls the pane under the pointer.
func (m *Model) handleWheel(ms tea.Mouse) tea.Cmd {
	p := m.lay.paneAt(ms.X, ms.Y)
	if p < 0 || m.state != stNormal {
		return nil
	}
	if m.lay.tabs {
		p = m.focus
	}
	switch ms.Button {
	case tea.MouseWheelUp:
		m.scrollPane(p, 3)
	case tea.MouseWheelDown:
		m.scrollPane(p, -3)
	}
	return nil
}
