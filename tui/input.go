package tui

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/domain"
)

const (
	escWindow   = 700 * time.Millisecond // the second esc of "esc esc" comes within this
	quitTimeout = 8 * time.Second        // how long quitting waits for the engine
	maxHistory  = 100
)

// handleKey routes a key: to the top dialog when one is open, else to the
// replay, a proposal waiting for review, the focused pane, and the game's
// keys, in that order.
func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	if k.String() == "ctrl+c" && (m.game.quitting || m.dialogs.top() != nil) {
		if m.game.quitting {
			return tea.Quit
		}
		if _, ok := topIs[*commandLine](&m.dialogs); ok && m.cmdline.input.Value() != "" {
			// Like a chat box: ctrl+c clears the line first.
			m.cmdline.input.Reset()
			return m.setFlash("line cleared · ctrl+c again quits", false)
		}
		return m.quit()
	}
	if m.dialogs.top() != nil {
		return m.dialogs.updateTop(k)
	}
	for _, bs := range m.inFocus() {
		if cmd, ok := dispatch(bs, k, func(why string) tea.Cmd { return m.setFlash(why, true) }); ok {
			return cmd
		}
	}
	return m.noEffect(k)
}

// inFocus are the bindings that take a key on the panes, first first: the
// replay's (while one is shown), a waiting proposal's, the focused pane's,
// then the root's.
func (m *Model) inFocus() [][]binding {
	var out [][]binding
	if r := m.panes.replay; r != nil {
		out = append(out, r.bindings(m.c, replayActions{leave: func() tea.Cmd { return m.panes.leaveReplay(m.foot) }, timeline: m.timelineOf}))
	} else if m.review.pending != nil {
		out = append(out, m.review.bindings())
	}
	out = append(out, m.panes.at(m.focus).bindings())
	for _, g := range m.rootGroups() {
		out = append(out, g.keys)
	}
	return out
}

// noEffect says why a key did nothing where it was pressed.
func (m *Model) noEffect(k tea.KeyPressMsg) tea.Cmd {
	if where := elsewhere(k, m.panes.groups()); where != "" {
		return m.setFlash(where+"; here it does nothing · ? lists the keys", true)
	}
	if len(k.Text) > 0 {
		return m.setFlash(fmt.Sprintf("%s does nothing here · ? lists the keys", k.String()), true)
	}
	return nil
}

// rootGroups are the root's keys: the game's, the panes', scrolling.
func (m *Model) rootGroups() []bindingGroup {
	return []bindingGroup{{"Game", m.gameBindings()}, {"Panes", m.paneBindings()}, {"Scrolling", m.scrollBindings()}}
}

// gameBindings are the keys that steer the engine.
func (m *Model) gameBindings() []binding {
	k, g, sv := m.c.keys, m.game, m.server
	return []binding{
		bind(k.Pause, "run/pause", act(func() tea.Cmd { return g.togglePause(sv.unreachable()) })),
		bind(k.Step, "step", act(func() tea.Cmd { return g.step(sv.unreachable()) })),
		bind(k.Input, "type", act(m.cmdline.open)),
		bind(k.Review, "review", act(m.review.toggle)),
		bind(k.Cancel, "", act(m.cancel)),
		bind(k.EndEpisode, "", act(g.endEpisode)),
		bind(k.Retry, "", act(sv.retry)),
		bind(k.Pull, "", act(sv.startPull)),
		bind(k.Models, "", act(m.openModels)),
		bind(k.Quit, "quit", act(m.quit)),
	}
}

// paneBindings are the keys that move between the panes and open the
// views over them.
func (m *Model) paneBindings() []binding {
	k, c, ft, o := m.c.keys, m.c, m.foot, m.opts
	focus := func(p paneID) func(tea.KeyPressMsg) tea.Cmd { return do(func() { m.focusPane(p) }) }
	return []binding{
		bind(k.NextPane, "pane", do(func() { m.focusPane((m.focus + 1) % numPanes) })),
		bind(k.PrevPane, "", do(func() { m.focusPane((m.focus + numPanes - 1) % numPanes) })),
		bind(k.Jump, "", func(key tea.KeyPressMsg) tea.Cmd { m.focusPane(paneID(key.String()[0] - '1')); return nil }),
		bind(k.Memory, "", focus(pMemory)),
		bind(k.Objectives, "", focus(pObjectives)),
		bind(k.MapPane, "", do(func() { m.panes.mapKey(m.focus); m.focusPane(pMap) })),
		bind(k.Zoom, "full screen", do(func() { m.panes.mapZoom = !m.panes.mapZoom; m.focusPane(pMap) })),
		bind(k.Search, "search", act(m.openSearch)),
		bind(k.Episodes, "episodes", act(func() tea.Cmd { return openEpisodes(m.ctx, c, m, ft, o.Episodes) })),
		bind(k.Timeline, "timeline", act(func() tea.Cmd { return m.timelineOf(domain.Line{}, -1) })),
		bind(k.Notes, "", act(func() tea.Cmd { return openNotes(m.ctx, c, m, ft, o.Notes, m.dialogWidth()-4) })),
		bind(k.Knowledge, "", act(func() tea.Cmd {
			if o.KnowledgePath == "" {
				return m.setFlash("no knowledge base for this story", true)
			}
			return m.openViewer("Knowledge base", knowledgeLoader(c.md, o.KnowledgePath))
		})),
		bind(k.Theme, "", act(m.nextTheme)),
		bind(k.Copy, "", act(func() tea.Cmd { return m.panes.copy(m.focus, ft, &m.clipboard) })),
		bind(k.Mouse, "", act(func() tea.Cmd {
			if m.mouseOff = !m.mouseOff; m.mouseOff {
				return m.setFlash("mouse off: the terminal selects text (ctrl+o turns the mouse back on)", false)
			}
			return m.setFlash("mouse on: click focuses, the wheel scrolls", false)
		})),
		bind(k.Help, "help", do(func() { m.open(newHelp(c, m, helpRows(m.helpGroups(), mapLegend()...))) })),
	}
}

// scrollBindings scroll the focused pane.
func (m *Model) scrollBindings() []binding {
	k := m.c.keys
	by := func(n func() int) func(tea.KeyPressMsg) tea.Cmd {
		return do(func() { m.panes.scroll(m.focus, n()) })
	}
	page := func() int { _, h := m.inner(m.focus); return max(h-1, 1) }
	return []binding{
		bind(k.Up, "", by(func() int { return 1 })),
		bind(k.Down, "", by(func() int { return -1 })),
		bind(k.PageUp, "", by(page)),
		bind(k.PageDown, "", by(func() int { return -page() })),
		bind(k.Top, "", by(func() int { return 1 << 20 })),
		bind(k.Bottom, "", by(func() int { return -(1 << 20) })),
	}
}

// focusHints are the footer's keys for what has the focus: the replay's,
// else the focused pane's (with the game's keys where the pane wants
// them).
func (m *Model) focusHints() []binding {
	k := m.c.keys
	gb, pb := m.gameBindings(), m.paneBindings()
	g := gameKeys{
		game: []binding{find(gb, k.Pause), find(gb, k.Step), find(gb, k.Input), find(gb, k.Review)},
		next: find(pb, k.NextPane), search: find(pb, k.Search), episodes: find(pb, k.Episodes), zoom: find(pb, k.Zoom),
		pages:  bind(joined("scroll", k.PageUp, k.PageDown), "scroll", nil),
		arrows: bind(joined("scroll", k.Up, k.Down), "scroll", nil),
		zoomed: m.panes.mapZoom,
	}
	if r := m.panes.replay; r != nil {
		return append(r.bindings(m.c, replayActions{}), g.next)
	}
	if g.zoomed {
		g.zoom.short = "back"
	}
	return m.panes.at(m.focus).hints(g)
}

// helpGroups are every binding by context, for the help: the root's, the
// panes', the command line's, a waiting proposal's, the timeline's and a
// replay's.
func (m *Model) helpGroups() []bindingGroup {
	gs := append(m.rootGroups(), m.panes.groups()...)
	gs = append(gs, bindingGroup{"While typing a command (" + m.c.keys.Input.Help().Key + ")", m.cmdline.bindings()},
		bindingGroup{"Review mode (" + m.c.keys.Review.Help().Key + "): a proposal waits for you", m.review.bindings()},
		bindingGroup{"Timeline (" + m.c.keys.Timeline.Help().Key + ")", (&timeline{c: m.c}).turnKeys()})
	if r := m.panes.replay; r != nil {
		gs = append(gs, bindingGroup{"Replay (" + m.c.keys.Episodes.Help().Key + ")", r.bindings(m.c, replayActions{})})
	} else {
		gs = append(gs, bindingGroup{"Replay (" + m.c.keys.Episodes.Help().Key + ")", (&replay{}).bindings(m.c, replayActions{})})
	}
	return gs
}

// find is the binding of bs for the keyMap's kb.
func find(bs []binding, kb key.Binding) binding {
	for _, b := range bs {
		if b.key.Help().Key == kb.Help().Key && len(b.key.Keys()) == len(kb.Keys()) {
			return b
		}
	}
	return bind(kb, "", nil)
}

// cancel is esc on the panes: a notice hides, else "esc esc" cancels the
// model call in flight.
func (m *Model) cancel() tea.Cmd {
	if cmd, ok := m.server.hide(m.game.thinking); ok {
		return cmd
	}
	return m.game.escape(m.panes.reasoning.cancelled)
}

// quit stops the engine (at the turn boundary) and closes the dialogs.
func (m *Model) quit() tea.Cmd {
	if !m.game.stopped && !m.game.quitting {
		m.dialogs.closeAll()
	}
	return m.game.quit()
}

func (m *Model) focusPane(p paneID) {
	if p >= 0 && p < numPanes {
		m.focus = p
	}
}

// openSearch opens the search of the transcript shown.
func (m *Model) openSearch() tea.Cmd {
	m.focusPane(pTranscript)
	d := &searchLine{c: m.c, ft: m.foot, panes: m.panes, ti: m.c.newInput("/ ", "search the transcript")}
	tp, _, _ := m.panes.shown()
	d.ti.SetValue(tp.query)
	m.open(d)
	return d.ti.Focus()
}

// openModels opens the model picker.
func (m *Model) openModels() tea.Cmd {
	var save func(map[string]string) tea.Cmd
	if m.opts.SavePrefs != nil {
		save = func(models map[string]string) tea.Cmd { return m.savePrefs("", models) }
	}
	return m.server.openModels(m, m.game.roleModels, save)
}

// timelineOf opens the timeline of line l (the zero line: the one being
// played) with turn selected (-1: where play stands).
func (m *Model) timelineOf(l domain.Line, turn int) tea.Cmd {
	o, g := m.opts, m.game
	if o.Episodes == nil && o.Branches == nil {
		return m.setFlash("no run database attached: the timeline reads the turns from lantern.db", true)
	}
	d := &timeline{c: m.c, h: m, ctx: m.ctx, eps: o.Episodes, br: o.Branches, branch: l, current: l.ID, live: g.branchID(), at: turn, replayed: true}
	if turn < 0 {
		d.branch, d.current, d.at, d.replayed = g.line(), g.branchID(), g.turn, false
		if d.branch.ID == 0 && d.branch.Parent == 0 {
			d.branch.ID = g.branchID() // an episode's main line is its own row
		}
	}
	return showTimeline(m, d)
}

// handleClick focuses the pane under the pointer (or the tab clicked).
func (m *Model) handleClick(ms tea.Mouse) tea.Cmd {
	if m.dialogs.top() != nil {
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
	if _, typing := topIs[*commandLine](&m.dialogs); p < 0 || (m.dialogs.top() != nil && !typing) {
		return nil
	}
	if m.lay.tabs {
		p = m.focus
	}
	switch ms.Button {
	case tea.MouseWheelUp:
		m.panes.scroll(p, 3)
	case tea.MouseWheelDown:
		m.panes.scroll(p, -3)
	}
	return nil
}
