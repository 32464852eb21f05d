package tui

import (
	"fmt"
	"strings"
)

// ObjectiveSource is the read side of the objectives manager: the current
// and completed objectives, for the Objectives pane. It is read only from
// commands, never in Update.
type ObjectiveSource interface {
	Objectives() (active, completed []string)
}

// objectivesPane lists the current and completed objectives; a person adds,
// completes and drops them through engine.ObjectiveEdit commands.
type objectivesPane struct {
	c                 *common
	has               bool
	active, completed []string
	nActive, nDone    int // from ObjectivesChanged, when there is no source
	sel               int
	dropped           string // the objective the person dropped last (u brings it back)
	offset            int
	w, h              int
}

func newObjectivesPane(c *common, has bool) *objectivesPane {
	return &objectivesPane{c: c, has: has}
}

func (p *objectivesPane) setSize(w, h int) { p.w, p.h = w, h }

func (p *objectivesPane) set(active, completed []string) {
	p.active, p.completed = active, completed
	p.nActive, p.nDone = len(active), len(completed)
	p.sel = min(max(p.sel, 0), max(p.rows()-1, 0))
}

// rows is how many objectives the cursor moves over: the active ones, then
// the completed ones (shown, not edited).
func (p *objectivesPane) rows() int { return len(p.active) + len(p.completed) }

func (p *objectivesPane) counts(active, done int) { p.nActive, p.nDone = active, done }

// selected is the active objective under the cursor.
func (p *objectivesPane) selected() (string, bool) {
	if p.sel < 0 || p.sel >= len(p.active) {
		return "", false
	}
	return p.active[p.sel], true
}

func (p *objectivesPane) scroll(n int) {
	p.sel = min(max(p.sel-n, 0), max(p.rows()-1, 0))
}

func (p *objectivesPane) info() string {
	return fmt.Sprintf("%d active · %d done", p.nActive, p.nDone)
}

func (p *objectivesPane) lines() (out []line, selAt int) {
	selAt = -1
	w := p.w
	if !p.has && len(p.active) == 0 {
		out = append(out, wrap("The objectives manager sets objectives as the agent plays. a adds one by hand; c completes, d drops one.", w, stMuted, "")...)
		return out, -1
	}
	out = append(out, mkLine(seg{fmt.Sprintf("Current (%d)", len(p.active)), stEpisode}))
	if len(p.active) == 0 {
		out = append(out, mkLine(seg{"  none yet · a adds one", stMuted}))
	}
	for i, o := range p.active {
		if i == p.sel {
			selAt = len(out)
		}
		ls := wrap(o, w, stText, "    ")
		if len(ls) > 0 && len(ls[0].segs) == 2 {
			ls[0].segs[0] = seg{"  • ", stInfo}
		}
		out = append(out, ls...)
	}
	if len(p.completed) > 0 {
		out = append(out, mkLine(seg{fmt.Sprintf("Completed (%d)", len(p.completed)), stEpisode}))
		for i, o := range p.completed {
			if len(p.active)+i == p.sel {
				selAt = len(out)
			}
			ls := wrap(o, w, stMuted, "    ")
			if len(ls) > 0 && len(ls[0].segs) == 2 {
				ls[0].segs[0] = seg{"  ✓ ", stSuccess}
			}
			out = append(out, ls...)
		}
	}
	return out, selAt
}

func (p *objectivesPane) view() []string {
	if p.w <= 0 || p.h <= 0 {
		return nil
	}
	ls, selAt := p.lines()
	if selAt >= 0 {
		if selAt < p.offset {
			p.offset = selAt
		}
		if selAt >= p.offset+p.h {
			p.offset = selAt - p.h + 1
		}
	}
	p.offset = min(p.offset, max(len(ls)-p.h, 0))
	out := make([]string, 0, p.h)
	for i := p.offset; i < len(ls) && len(out) < p.h; i++ {
		out = append(out, p.c.render(ls[i], p.w, "", i == selAt))
	}
	for len(out) < p.h {
		out = append(out, strings.Repeat(" ", p.w))
	}
	return out
}
