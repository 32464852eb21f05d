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

// handleKey routes a key: to the top dialog when one is open, else to the
// replay or the panes.
func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	if k.String() == "ctrl+c" && (m.quitting || m.top() != nil) {
		if m.quitting {
			return tea.Quit
		}
		if _, ok := topIs[*commandLine](m); ok && m.input.Value() != "" {
			// Like a chat box: ctrl+c clears the line first.
			m.input.Reset()
			return m.setFlash("line cleared · ctrl+c again quits", false)
		}
		return m.quit()
	}
	if m.top() != nil {
		return m.updateTop(k)
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
		if m.notice.kind != noticeNone && !m.notice.hidden && !m.thinking {
			// The notice gives its rows back to the panes; r checks again.
			m.notice.hidden = true
			return m.setFlash("notice hidden: r checks the model server again", false)
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
		m.histAt = len(m.history)
		m.open(&commandLine{m: m})
		return tea.Batch(m.input.Focus(), m.suggest())
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
		return m.openSearch()
	case key.Matches(k, keys.Theme):
		return m.nextTheme()
	case key.Matches(k, keys.Models):
		if m.opts.Models == nil {
			return m.setFlash("no model server is configured", true)
		}
		p := newModelPicker(m.opts.Models, m.roleModels)
		p.c, p.h = m.c, m
		if m.opts.SavePrefs != nil {
			p.save = func(models map[string]string) tea.Cmd { return m.savePrefs("", models) }
		}
		m.open(p)
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
	case key.Matches(k, keys.Timeline):
		return m.openTimeline()
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
			return nil
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
			return m.openObjInput("edit", o)
		case key.Matches(k, keys.Complete):
			return m.objectiveOp("complete")
		case key.Matches(k, keys.Drop):
			return m.objectiveOp("drop")
		case key.Matches(k, keys.Undo):
			return m.undoObjectiveDrop()
		}
	case pMap:
		_, _, mp := m.shown()
		switch {
		case key.Matches(k, keys.View):
			mp.toggleMermaid()
			return nil
		case k.String() == "left" || k.String() == "right":
			// Pan the grid sideways: rooms beyond a narrow pane's edge.
			mp.panBy(map[string]int{"left": -1, "right": 1}[k.String()])
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
	case key.Matches(k, keys.Edit, keys.Supersede, keys.Browse, keys.View):
		return m.setFlash(fmt.Sprintf("%s works in the Memory pane (m); here it does nothing · ? lists the keys", name), true)
	case key.Matches(k, keys.Complete):
		return m.setFlash(fmt.Sprintf("%s works in the Objectives pane (o); here it does nothing · ? lists the keys", name), true)
	case key.Matches(k, keys.Add, keys.Delete, keys.Undo):
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
		m.reasoning.cancelled()
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
	m.closeDialogs()
	return tea.Batch(m.send(engine.Quit{}), m.setFlash("quitting: the engine stops at the turn boundary…", false),
		tea.Tick(quitTimeout, func(time.Time) tea.Msg { return forceQuitMsg{} }))
}

func (m *Model) objectiveOp(op string) tea.Cmd {
	if o, ok := m.objectives.selected(); ok {
		word := fmt.Sprintf("%s: %s", op, o)
		if op == string(engine.ObjectiveDrop) {
			m.objectives.dropped = o
			word = fmt.Sprintf("dropped %q · u brings it back", o)
		}
		return tea.Batch(m.send(engine.ObjectiveEdit{Op: engine.ObjectiveOp(op), Text: o}), m.setFlash(word, false))
	}
	return m.openObjInput(op, "")
}

// undoObjectiveDrop is u in the Objectives pane: the objective dropped last
// comes back (as the person's).
func (m *Model) undoObjectiveDrop() tea.Cmd {
	o := m.objectives.dropped
	if o == "" {
		return m.setFlash("nothing dropped here to bring back", false)
	}
	m.objectives.dropped = ""
	return tea.Batch(m.send(engine.ObjectiveEdit{Op: engine.ObjectiveAdd, Text: o}), m.setFlash(fmt.Sprintf("brought back %q", o), false))
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
	f := newMemForm(m, op, formPlace{loc: loc, name: name, orig: sel})
	f.setWidth(m.dialogWidth())
	m.open(f)
	return f.focusField(0)
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
	if m.top() != nil {
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
	if _, typing := topIs[*commandLine](m); p < 0 || (m.top() != nil && !typing) {
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
	}
	note := fmt.Sprintf("pasted %d lines: each plays as a command, in order", len(cmds))
	if cut > 0 {
		note += fmt.Sprintf(" (%d cut at %d characters)", cut, maxCommand)
	}
	if len(cmds) > pasteAsk {
		m.open(&confirmPaste{m: m, cmds: cmds, note: note})
		return nil
	}
	return m.playPaste(cmds, note)
}

// pasteAsk is the most pasted lines played without asking first.
const pasteAsk = 5

// playPaste sends a paste's commands, one turn each, and keeps them in the
// history.
func (m *Model) playPaste(cmds []engine.Command, note string) tea.Cmd {
	for _, c := range cmds {
		if o, ok := c.(engine.Override); ok {
			m.history = append(m.history, o.Text)
		}
	}
	if n := len(m.history); n > maxHistory {
		m.history = m.history[n-maxHistory:]
	}
	m.histAt = len(m.history)
	m.transcript.feed.toBottom()
	m.log.Info("paste", "commands", len(cmds))
	return tea.Batch(m.send(cmds...), m.setFlash(note, strings.Contains(note, " cut at ")))
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
