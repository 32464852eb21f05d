package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

type paneID int

const (
	pTranscript paneID = iota
	pReasoning
	pMemory
	pObjectives
	pMap
	numPanes
)

// paneNames are the panes' titles.
func paneNames() [numPanes]string {
	return [numPanes]string{"Transcript", "Reasoning", "Memory", "Objectives", "Map"}
}

type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

func (r rect) empty() bool { return r.w <= 0 || r.h <= 0 }

// Layout sizes: below these the panes become tabs; from wideWidth on they
// stand in three columns.
const (
	columnsWidth  = 100
	columnsHeight = 20
	wideWidth     = 160
)

// layout is where every pane goes for a screen size.
type layout struct {
	tabs   bool
	tabBar rect
	tabAt  [numPanes][2]int // tab x ranges in the tab bar
	panes  [numPanes]rect
	area   rect // everything the panes take
}

// computeLayout places the panes in the area w×h starting at row top: tabs
// (one pane, a tab bar) on small screens, two columns (the transcript, then
// the others stacked) on medium ones, three columns on wide ones.
func computeLayout(w, h, top int, active paneID) layout {
	l := layout{area: rect{0, top, w, h}}
	if w < columnsWidth || h < columnsHeight {
		l.tabs = true
		l.tabBar = rect{0, top, w, 1}
		x := 0
		for i, n := range paneNames() {
			tw := ansi.StringWidth(tabLabel(paneID(i), n))
			l.tabAt[i] = [2]int{x, x + tw}
			x += tw
		}
		l.panes[active] = rect{0, top + 1, w, max(h-1, 0)}
		return l
	}
	if w < wideWidth {
		left := w * 55 / 100
		l.panes[pTranscript] = rect{0, top, left, h}
		hs := split(h, []int{30, 34, 16, 20}, 3)
		y := top
		for i, p := range []paneID{pReasoning, pMemory, pObjectives, pMap} {
			l.panes[p] = rect{left, y, w - left, hs[i]}
			y += hs[i]
		}
		return l
	}
	c1 := w * 40 / 100
	c2 := (w - c1) / 2
	c3 := w - c1 - c2
	l.panes[pTranscript] = rect{0, top, c1, h}
	mid := split(h, []int{60, 40}, 3)
	l.panes[pReasoning] = rect{c1, top, c2, mid[0]}
	l.panes[pObjectives] = rect{c1, top + mid[0], c2, mid[1]}
	right := split(h, []int{60, 40}, 3)
	l.panes[pMemory] = rect{c1 + c2, top, c3, right[0]}
	l.panes[pMap] = rect{c1 + c2, top + right[0], c3, right[1]}
	return l
}

func tabLabel(p paneID, name string) string {
	return " " + string(rune('1'+int(p))) + " " + name + " "
}

// split divides total by weights, each part at least least (when it fits),
// the rounding going to the last part.
func split(total int, weights []int, least int) []int {
	sum := 0
	for _, w := range weights {
		sum += w
	}
	out := make([]int, len(weights))
	used := 0
	for i, w := range weights {
		out[i] = max(total*w/sum, least)
		used += out[i]
	}
	out[len(out)-1] += total - used
	for i := len(out) - 1; i > 0 && out[i] < 0; i-- {
		out[i-1] += out[i]
		out[i] = 0
	}
	return out
}

// paneAt is the pane at a screen position (mouse), or -1.
func (l layout) paneAt(x, y int) paneID {
	if l.tabs && l.tabBar.contains(x, y) {
		for i, r := range l.tabAt {
			if x >= r[0] && x < r[1] {
				return paneID(i)
			}
		}
		return -1
	}
	for i, r := range l.panes {
		if !r.empty() && r.contains(x, y) {
			return paneID(i)
		}
	}
	return -1
}

// tabBarView draws the tab bar.
func (c *common) tabBarView(l layout, active paneID) string {
	var b strings.Builder
	for i, n := range paneNames() {
		st := c.styles.Tab
		if paneID(i) == active {
			st = c.styles.TabActive
		}
		b.WriteString(st.Padding(0).Render(tabLabel(paneID(i), n)))
	}
	s := b.String()
	if rest := l.tabBar.w - ansi.StringWidth(s); rest > 0 {
		s += c.styles.TabBar.Render(strings.Repeat(" ", rest))
	}
	return fit(s, l.tabBar.w)
}
