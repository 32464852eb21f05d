package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// pane is a component in the panes area: it owns its size, its keys (as
// bindings) and its view. hints are the keys its footer offers, with the
// game's keys g where the pane wants them.
type pane interface {
	setSize(w, h int)
	view() []string
	info() string
	scroll(n int)
	bindings() []binding
	hints(g gameKeys) []binding
}

// gameKeys are the root's keys a pane's footer may offer.
type gameKeys struct {
	game           []binding // pause, step, type, review
	search, pages  binding   // the transcript's search and page keys
	arrows         binding   // ↑/↓ scroll
	next, episodes binding
	zoom           binding // f: full screen, or back when zoomed
	zoomed         bool
}

// paneSet is the panes: the live ones, a replay's (shown instead of the
// live transcript, reasoning and map while it is open), and whether the
// map takes the whole area.
type paneSet struct {
	c          *common
	transcript *transcriptPane
	reasoning  *reasoningPane
	memory     *memoryPane
	objectives *objectivesPane
	mapp       *mapPane
	mapZoom    bool
	replay     *replay
}

// shown are the panes on screen: the live ones, or a replay's.
func (ps *paneSet) shown() (*transcriptPane, *reasoningPane, *mapPane) {
	if r := ps.replay; r != nil {
		return r.transcript, r.reasoning, r.mapp
	}
	return ps.transcript, ps.reasoning, ps.mapp
}

// at is the pane component shown at p.
func (ps *paneSet) at(p paneID) pane {
	tp, rp, mp := ps.shown()
	switch p {
	case pReasoning:
		return rp
	case pMemory:
		return ps.memory
	case pObjectives:
		return ps.objectives
	case pMap:
		return mp
	}
	return tp
}

// scroll scrolls pane p n lines up (n < 0: down).
func (ps *paneSet) scroll(p paneID, n int) { ps.at(p).scroll(n) }

// groups are every pane's own keys, titled for the help.
func (ps *paneSet) groups() []bindingGroup {
	return []bindingGroup{
		{"Memory pane (m)", ps.memory.bindings()},
		{"Objectives pane (o)", ps.objectives.bindings()},
		{"Map pane (M)", ps.mapp.bindings()},
	}
}

// setSizes sizes every pane for the layout (inner gives a pane's content
// size); the zoomed map takes the whole area.
func (ps *paneSet) setSizes(lay layout, focus paneID, inner func(paneID) (int, int)) {
	for p := range numPanes {
		ps.live(p).setSize(inner(p))
	}
	if r := ps.replay; r != nil {
		r.transcript.setSize(inner(pTranscript))
		r.reasoning.setSize(inner(pReasoning))
		r.mapp.setSize(inner(pMap))
	}
	if focus != pMap {
		ps.mapZoom = false
	}
	if ps.mapZoom {
		w, h := max(lay.area.w-4, 0), max(lay.area.h-2, 0)
		ps.mapp.setSize(w, h)
		if r := ps.replay; r != nil {
			r.mapp.setSize(w, h)
		}
	}
}

// live is the live pane at p.
func (ps *paneSet) live(p paneID) pane {
	return [numPanes]pane{ps.transcript, ps.reasoning, ps.memory, ps.objectives, ps.mapp}[p]
}

// box draws pane p in its border; title adds to its name.
func (ps *paneSet) box(p paneID, r rect, focused bool, title string) []string {
	pn := ps.at(p)
	name := paneNames()[p]
	if ps.replay != nil && (p == pTranscript || p == pReasoning || p == pMap) {
		name += " · replay of " + lineName(ps.replay.line)
	}
	return ps.c.box(name+title, pn.info(), focused, r.w, r.h, pn.view())
}

// view draws the panes area: a tab bar and the focused pane on small
// screens, else the panes in columns (title: a pane's addition to its
// title).
func (ps *paneSet) view(l layout, focus paneID, title func(paneID) string) []string {
	if l.tabs {
		r := l.panes[focus]
		return append([]string{ps.c.tabBarView(l, focus)}, ps.box(focus, r, true, title(focus))...)
	}
	grid := make([][]string, 0, 3)
	for _, x := range columns(l) {
		var col []string
		for y := l.area.y; y < l.area.y+l.area.h; {
			next := -1
			for i, r := range l.panes {
				if !r.empty() && r.x == x && r.y == y {
					next = i
				}
			}
			if next < 0 {
				break
			}
			r := l.panes[next]
			col = append(col, ps.box(paneID(next), r, paneID(next) == focus, title(paneID(next)))...)
			y += r.h
		}
		grid = append(grid, col)
	}
	return hjoin(grid...)
}

// columns are the x of the layout's columns, left to right.
func columns(l layout) []int {
	xs := []int{}
	for _, r := range l.panes {
		if r.empty() {
			continue
		}
		found := false
		for _, x := range xs {
			found = found || x == r.x
		}
		if !found {
			xs = append(xs, r.x)
		}
	}
	return xs
}

// copyText is what y copies from pane p: the selected memory, the map as
// Mermaid, or the transcript lines on screen; what names it.
func (ps *paneSet) copyText(p paneID) (text, what, fail string) {
	tp, _, mp := ps.shown()
	switch p {
	case pMemory:
		sel, ok := ps.memory.selected()
		if !ok {
			return "", "", "no memory selected to copy"
		}
		return sel.Title + "\n" + sel.Text, "the memory", ""
	case pMap:
		return mp.mermaidText(), "the map (Mermaid)", ""
	}
	var ls []string
	for _, l := range tp.view() {
		ls = append(ls, strings.TrimRight(ansi.Strip(l), " "))
	}
	return strings.TrimSpace(strings.Join(ls, "\n")), "the transcript shown", ""
}

// copy puts pane p's content on the clipboard through the terminal (OSC
// 52); clip keeps it.
func (ps *paneSet) copy(p paneID, ft *footer, clip *string) tea.Cmd {
	text, what, fail := ps.copyText(p)
	if fail != "" {
		return ft.set(fail, true)
	}
	if strings.TrimSpace(text) == "" {
		return ft.set("nothing to copy here", true)
	}
	*clip = text
	return tea.Batch(tea.SetClipboard(text), ft.set(fmt.Sprintf("copied %s (%d characters)", what, len(text)), false))
}

// leaveReplay returns to the live game.
func (ps *paneSet) leaveReplay(ft *footer) tea.Cmd {
	ps.replay = nil
	return ft.set("back to the live game", false)
}

// mapKey is M pressed with focus on p: in the map, it shows the map as
// Mermaid source (again: the drawing).
func (ps *paneSet) mapKey(p paneID) {
	if p == pMap {
		_, _, mp := ps.shown()
		mp.toggleMermaid()
	}
}
