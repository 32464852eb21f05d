package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
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
	host              host
	ft                *footer
	has               bool
	active, completed []string
	nActive, nDone    int // from ObjectivesChanged, when there is no source
	sel               int
	dropped           string // the objective the person dropped last (u brings it back)
	offset            int
	w, h              int
}

func newObjectivesPane(c *common, h host, ft *footer, has bool) *objectivesPane {
	return &objectivesPane{c: c, host: h, ft: ft, has: has}
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

// bindings are the Objectives pane's keys.
func (p *objectivesPane) bindings() []binding {
	k := p.c.keys
	return []binding{
		bind(described(k.Add, "add objective"), "add", func(tea.KeyPressMsg) tea.Cmd { return p.openInput("add", "") }),
		bind(described(k.Edit, "edit objective"), "edit", act(p.edit)),
		bind(k.Complete, "complete", func(tea.KeyPressMsg) tea.Cmd { return p.op(string(engine.ObjectiveComplete)) }),
		bind(k.Drop, "drop", func(tea.KeyPressMsg) tea.Cmd { return p.op(string(engine.ObjectiveDrop)) }),
		bind(described(k.Undo, "bring back the objective dropped last"), "undrop", act(p.undrop)),
		bind(joined("choose an objective", k.Up, k.Down), "choose", nil),
	}
}

// hints are the Objectives pane's footer: its own keys, then the pane key.
func (p *objectivesPane) hints(g gameKeys) []binding { return append(p.bindings(), g.next) }

func (p *objectivesPane) edit() tea.Cmd {
	o, ok := p.selected()
	if !ok {
		return p.ft.set("no objective selected (a adds one)", true)
	}
	return p.openInput("edit", o)
}

// op completes or drops the selected objective (asks which when none is).
func (p *objectivesPane) op(op string) tea.Cmd {
	if o, ok := p.selected(); ok {
		word := fmt.Sprintf("%s: %s", op, o)
		if op == string(engine.ObjectiveDrop) {
			p.dropped = o
			word = fmt.Sprintf("dropped %q · u brings it back", o)
		}
		return tea.Batch(p.host.send(engine.ObjectiveEdit{Op: engine.ObjectiveOp(op), Text: o}), p.ft.set(word, false))
	}
	return p.openInput(op, "")
}

// undrop is u: the objective dropped last comes back (as the person's).
func (p *objectivesPane) undrop() tea.Cmd {
	o := p.dropped
	if o == "" {
		return p.ft.set("nothing dropped here to bring back", false)
	}
	p.dropped = ""
	return tea.Batch(p.host.send(engine.ObjectiveEdit{Op: engine.ObjectiveAdd, Text: o}), p.ft.set(fmt.Sprintf("brought back %q", o), false))
}

// openInput asks for an objective's text (to add, or to name the one to
// complete or drop).
func (p *objectivesPane) openInput(op, value string) tea.Cmd {
	d := &objectiveLine{p: p, ti: p.c.newInput("objective: ", ""), op: op}
	switch op {
	case "add":
		d.ti.Prompt = "new objective: "
	case "edit":
		d.ti.Prompt = "objective: "
		d.editing = value
	default:
		d.ti.Prompt = op + " objective (text or ID): "
	}
	d.ti.SetValue(value)
	p.host.open(d)
	return d.ti.Focus()
}
