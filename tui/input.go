package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

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
		if m.state == stInput && m.input.Value() != "" {
			// Like a chat box: ctrl+c clears the line first.
			m.input.Reset()
			return m.setFlash("line cleared · ctrl+c again quits", false)
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
	case stReviewInput:
		return m.reviewInputKey(k)
	case stForm:
		return m.formKey(k)
	case stHelp:
		return m.helpKey(k)
	case stModels:
		c, closed := m.picker.key(k.String())
		if closed {
			m.state, m.picker = stNormal, nil
		}
		if sm, ok := c.(engine.SetModel); ok {
			m.roleModels[sm.Role] = sm.Model
			return tea.Batch(m.send(c), m.setFlash(fmt.Sprintf("%s role → %s", sm.Role, sm.Model), false),
				m.savePrefs("", map[string]string{sm.Role: sm.Model}))
		}
		return nil
	case stViewer:
		return m.viewerKey(k)
	case stEpisodes:
		return m.episodesKey(k)
	case stNotes:
		return m.notesKey(k)
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
	if m.pending != nil && m.replay == nil {
		if cmd, ok := m.reviewKey(k); ok {
			return cmd
		}
	}
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
		m.openHelp()
		return nil
	case key.Matches(k, keys.Pause):
		return m.togglePause()
	case key.Matches(k, keys.Review):
		return m.toggleReview()
	case key.Matches(k, keys.Step):
		return m.step()
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
	case key.Matches(k, keys.Zoom):
		m.mapZoom = !m.mapZoom
		m.focusPane(pMap)
		m.relayout()
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
	case key.Matches(k, keys.Copy):
		return m.copyFocused()
	case key.Matches(k, keys.Mouse):
		m.mouseOff = !m.mouseOff
		if m.mouseOff {
			return m.setFlash("mouse off: the terminal selects text (ctrl+o turns the mouse back on)", false)
		}
		return m.setFlash("mouse on: click focuses, the wheel scrolls", false)
	case key.Matches(k, keys.Retry):
		return m.retryOllama()
	case key.Matches(k, keys.Pull):
		return m.startPull()
	case key.Matches(k, keys.Knowledge):
		return m.openKnowledge()
	case key.Matches(k, keys.Episodes):
		return m.openEpisodes()
	case key.Matches(k, keys.Notes):
		return m.openNotes()
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

// step plays one agent turn; presses while a step is in flight are queued
// and played one after another (the engine takes one step at a time).
func (m *Model) step() tea.Cmd {
	if m.notice.kind == noticeUnreachable {
		return m.setFlash("n needs the model server, which is not reachable: type a command (i), or r to check again", true)
	}
	if m.stepping {
		m.queuedSteps++
		return m.setFlash(fmt.Sprintf("step queued: %d more after this one", m.queuedSteps), false)
	}
	m.stepping = true
	m.mode = engine.Stepping
	return m.send(engine.Step{})
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
			return m.undoMemory()
		}
	case pObjectives:
		switch {
		case key.Matches(k, keys.Add):
			return m.openObjInput("add", "")
		case key.Matches(k, keys.Edit):
			o, ok := m.objectives.selected()
			if !ok {
				return m.setFlash("no objective selected (a adds one)", true)
			}
			m.objEditing = o
			return m.openObjInput("edit", o)
		case key.Matches(k, keys.Complete):
			return m.objectiveOp("complete")
		case key.Matches(k, keys.Drop):
			return m.objectiveOp("drop")
		}
	case pMap:
		if key.Matches(k, keys.View) {
			_, _, mp := m.shown()
			mp.toggleMermaid()
			return nil
		}
	}
	return m.noEffect(k)
}

// noEffect says why a key did nothing where it was pressed.
func (m *Model) noEffect(k tea.KeyPressMsg) tea.Cmd {
	keys := m.c.keys
	name := k.String()
	switch {
	case key.Matches(k, keys.Edit, keys.Supersede, keys.Browse, keys.Undo, keys.View):
		return m.setFlash(fmt.Sprintf("%s works in the Memory pane (m); here it does nothing · ? lists the keys", name), true)
	case key.Matches(k, keys.Complete):
		return m.setFlash(fmt.Sprintf("%s works in the Objectives pane (o); here it does nothing · ? lists the keys", name), true)
	case key.Matches(k, keys.Add, keys.Delete):
		return m.setFlash(fmt.Sprintf("%s works in the Memory (m) and Objectives (o) panes; here it does nothing · ? lists the keys", name), true)
	case len(k.Text) > 0:
		return m.setFlash(fmt.Sprintf("%s does nothing here · ? lists the keys", name), true)
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
	m.queuedSteps = 0
	if m.mode == engine.Running {
		m.mode = engine.Paused
		return m.send(engine.Pause{})
	}
	if m.notice.kind == noticeUnreachable {
		return m.setFlash("the agent needs the model server, which is not reachable: type a command (i), or r to check again", true)
	}
	m.mode = engine.Running
	return m.send(engine.Unpause{})
}

// escape arms "esc esc" while a model call is in flight; the second esc in
// time cancels it (the turn is not played; the engine pauses). With no call
// in flight esc only says so.
func (m *Model) escape() tea.Cmd {
	if !m.thinking {
		m.escArmed = false
		return m.setFlash("esc: nothing to leave or cancel here (esc esc cancels a model call in flight)", false)
	}
	if m.escArmed {
		m.escArmed = false
		m.mode = engine.Paused
		m.queuedSteps = 0
		return tea.Batch(m.send(engine.CancelTurn{}), m.setFlash("cancelled the model call; paused", false))
	}
	m.escArmed = true
	m.flash = "" // the footer shows the armed cancel
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
		// Esc only leaves the input; it never arms the cancel.
		m.state = stNormal
		m.input.Blur()
		return nil
	case "pgup", "pgdown", "ctrl+end":
		// The transcript scrolls while typing.
		switch k.String() {
		case "pgup":
			m.scrollPane(pTranscript, m.pageOf(pTranscript))
		case "pgdown":
			m.scrollPane(pTranscript, -m.pageOf(pTranscript))
		default:
			m.scrollPane(pTranscript, -(1 << 20))
		}
		return nil
	case "end":
		if m.input.Position() >= len([]rune(m.input.Value())) {
			m.scrollPane(pTranscript, -(1 << 20)) // at the line's end: the transcript follows
			return nil
		}
	case "enter":
		text := oneLine(m.input.Value())
		if text == "" {
			return nil
		}
		m.input.Reset()
		m.transcript.feed.toBottom() // sending follows the transcript
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
	case "edit":
		m.objInput.Prompt = "objective: "
	default:
		m.objInput.Prompt = op + " objective (text or ID): "
	}
	m.objInput.SetValue(value)
	m.state = stObjInput
	return m.objInput.Focus()
}

func (m *Model) objectiveOp(op string) tea.Cmd {
	if o, ok := m.objectives.selected(); ok {
		return tea.Batch(m.send(engine.ObjectiveEdit{Op: engine.ObjectiveOp(op), Text: o}), m.setFlash(fmt.Sprintf("%s: %s", op, o), false))
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
		if m.objOp == "edit" {
			// An edit replaces the objective: the old text goes, the new comes.
			old := m.objEditing
			m.objEditing = ""
			if text == old {
				return nil
			}
			return tea.Batch(m.send(engine.ObjectiveEdit{Op: "drop", Text: old}, engine.ObjectiveEdit{Op: "add", Text: text}),
				m.setFlash("objective edited: "+text, false))
		}
		return tea.Batch(m.send(engine.ObjectiveEdit{Op: engine.ObjectiveOp(m.objOp), Text: text}), m.setFlash(fmt.Sprintf("objective %s: %s", m.objOp, text), false))
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
	if p < 0 || (m.state != stNormal && m.state != stInput) {
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

// maxCommand is the longest command the input takes.
const maxCommand = 200

// paste takes a paste into the command input (lines end in LF, CR LF or
// CR, as terminals send them): one line joins what is typed
// (cut at maxCommand, with a word); several lines are sent as commands, one
// per line, in order, as if each were typed and sent.
func (m *Model) paste(content string) tea.Cmd {
	var lines []string
	for _, l := range strings.Split(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(content), "\n") {
		if l = oneLine(l); l != "" {
			lines = append(lines, l)
		}
	}
	switch len(lines) {
	case 0:
		return nil
	case 1:
		v := []rune(m.input.Value())
		at := min(len(v), m.input.Position())
		text := string(v[:at]) + lines[0]
		rest := string(v[at:])
		all := []rune(text + rest)
		if len(all) <= maxCommand {
			m.input.SetValue(text + rest)
			m.input.SetCursor(len([]rune(text)))
			return nil
		}
		m.input.SetValue(string(all[:maxCommand]))
		m.input.CursorEnd()
		return m.setFlash(fmt.Sprintf("paste cut to %d of %d characters", maxCommand, len(all)), true)
	}
	cut := 0
	cmds := make([]engine.Command, 0, len(lines))
	for _, l := range lines {
		if r := []rune(l); len(r) > maxCommand {
			l = string(r[:maxCommand])
			cut++
		}
		cmds = append(cmds, engine.Override{Text: l})
		m.history = append(m.history, l)
	}
	if n := len(m.history); n > maxHistory {
		m.history = m.history[n-maxHistory:]
	}
	m.histAt = len(m.history)
	m.transcript.feed.toBottom()
	m.log.Info("paste", "commands", len(cmds))
	note := fmt.Sprintf("pasted %d lines: each plays as a command, in order", len(cmds))
	if cut > 0 {
		note += fmt.Sprintf(" (%d cut at %d characters)", cut, maxCommand)
	}
	return tea.Batch(m.send(cmds...), m.setFlash(note, cut > 0))
}

// copyFocused puts the focused pane's content on the clipboard through the
// terminal (OSC 52): the selected memory, the map as Mermaid, or the
// transcript lines on screen.
func (m *Model) copyFocused() tea.Cmd {
	var text, what string
	tp, _, mp := m.shown()
	switch m.focus {
	case pMemory:
		sel, ok := m.memory.selected()
		if !ok {
			return m.setFlash("no memory selected to copy", true)
		}
		text, what = sel.Title+"\n"+sel.Text, "the memory"
	case pMap:
		text, what = mp.mermaidText(), "the map (Mermaid)"
	default:
		var ls []string
		for _, l := range tp.view() {
			ls = append(ls, strings.TrimRight(ansi.Strip(l), " "))
		}
		text, what = strings.TrimSpace(strings.Join(ls, "\n")), "the transcript shown"
	}
	if strings.TrimSpace(text) == "" {
		return m.setFlash("nothing to copy here", true)
	}
	m.clipboard = text
	return tea.Batch(tea.SetClipboard(text), m.setFlash(fmt.Sprintf("copied %s (%d characters)", what, len(text)), false))
}
