package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
)

// dialog is anything that takes the keyboard from the panes: an overlay
// drawn over the panes area (the help, the memory form, the model picker,
// a Markdown viewer, the episode list, the notes, the timeline) or a line
// typed in the footer (a command for the story, a search, an objective, a
// review's edit or reason). The root keeps the open dialogs on a stack: the top one gets
// the keys and every message the root does not handle itself.
//
// A dialog never does I/O in update: what it reads or writes goes through
// the commands it returns, or to the engine through the host.
type dialog interface {
	// update handles a message; it returns the dialog that takes its place
	// on the stack (nil: it closed) and a command.
	update(msg tea.Msg) (dialog, tea.Cmd)
	// view draws an overlay's body for a box of w×h cells inside its
	// border, or a footer dialog's one line w cells wide.
	view(w, h int) []string
	// frame says how the dialog is drawn.
	frame() frame
}

// frame is how a dialog is drawn.
type frame struct {
	title string
	// footer: the dialog is the footer line (h is 1), not an overlay.
	footer bool
	// wide: the overlay may take up to 100 columns (a Markdown viewer).
	wide bool
	// keys are the footer's keys while the overlay is open.
	keys []key.Binding
}

// footerLiner is an overlay that draws the footer itself (every key types
// into the memory form, so the help key is not offered there).
type footerLiner interface {
	footerLine(w int) string
}

// host is what a dialog may ask of the root: send commands to the engine
// (queued in order, sent by the returned command), rewind (a command whose
// outcome the root reports when the engine answers), say something in the
// footer, and the height of the panes area.
type host interface {
	send(cmds ...engine.Command) tea.Cmd
	rewind(to engine.Rewind, ask rewindAsk) tea.Cmd
	setFlash(s string, isErr bool) tea.Cmd
	areaHeight() int
}

func (m *Model) areaHeight() int { return m.lay.area.h }

// top is the dialog that has the keyboard, or nil.
func (m *Model) top() dialog {
	if n := len(m.dialogs); n > 0 {
		return m.dialogs[n-1]
	}
	return nil
}

// open puts a dialog on top of the stack.
func (m *Model) open(d dialog) { m.dialogs = append(m.dialogs, d) }

// closeDialogs closes every dialog.
func (m *Model) closeDialogs() { m.dialogs = nil }

// updateTop gives a message to the top dialog and puts what it returns in
// its place; a dialog it opened meanwhile stays above it.
func (m *Model) updateTop(msg tea.Msg) tea.Cmd {
	i := len(m.dialogs) - 1
	if i < 0 {
		return nil
	}
	d, cmd := m.dialogs[i].update(msg)
	if i >= len(m.dialogs) {
		return cmd // the stack was closed meanwhile (quit)
	}
	if d == nil {
		m.dialogs = append(m.dialogs[:i], m.dialogs[i+1:]...)
	} else {
		m.dialogs[i] = d
	}
	return cmd
}

// overlay is the uppermost overlay dialog, or nil.
func (m *Model) overlay() dialog {
	for i := len(m.dialogs) - 1; i >= 0; i-- {
		if !m.dialogs[i].frame().footer {
			return m.dialogs[i]
		}
	}
	return nil
}

// typing reports whether the command line is open.
func (m *Model) typing() bool {
	for _, d := range m.dialogs {
		if _, ok := d.(*commandLine); ok {
			return true
		}
	}
	return false
}

// topIs reports whether the top dialog is a T.
func topIs[T dialog](m *Model) (T, bool) {
	d, ok := m.top().(T)
	return d, ok
}

// dialogView draws the uppermost overlay centred in the panes area.
func (m *Model) dialogView(d dialog, w, h int) []string {
	f := d.frame()
	dw := m.dialogWidth()
	if f.wide {
		dw = min(max(w-4, 20), 100)
	}
	body := d.view(dw-4, h-2)
	bh := min(len(body)+2, h)
	inner := make([]string, 0, max(bh-2, 0))
	for _, l := range body {
		if len(inner) == bh-2 {
			break
		}
		inner = append(inner, fit(l, dw-4))
	}
	box := m.c.box(f.title, "", true, dw, bh, inner)
	out := blank(w, h)
	top := max((h-bh)/2, 0)
	left := max((w-dw)/2, 0)
	pad := strings.Repeat(" ", left)
	for i, l := range box {
		if top+i < h {
			out[top+i] = fit(pad+l, w)
		}
	}
	return out
}

// dialogFooter is the footer while a dialog is open: a footer dialog's
// line, an overlay's own footer, or its keys; ok is false when no dialog
// is open.
func (m *Model) dialogFooter(w int) (string, bool) {
	d := m.top()
	if d == nil {
		return "", false
	}
	f := d.frame()
	if f.footer {
		if ls := d.view(w, 1); len(ls) > 0 {
			return fit(ls[0], w), true
		}
		return fit("", w), true
	}
	if fl, ok := d.(footerLiner); ok {
		return fit(fl.footerLine(w), w), true
	}
	hl := &m.c.helpLine
	ctx := fmt.Sprintf("dialog %T", d)
	if hl.w != w || hl.gen != m.c.gen || hl.ctx != ctx {
		hl.w, hl.gen, hl.ctx, hl.s = w, m.c.gen, ctx, m.helpLineOf(f.keys, w)
	}
	return hl.s, true
}

// wrapStyled wraps plain text to w cells and styles every line (dialog
// text that must show whole at any width).
func (c *common) wrapStyled(text string, w int, st styleID) []string {
	var out []string
	for _, l := range wrap(text, max(w, 10), st, "") {
		out = append(out, c.render(l, max(w, 10), "", false))
	}
	return out
}

// closeKeys are the footer's keys of a dialog that esc closes.
func closeKeys() []key.Binding {
	return []key.Binding{key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close"))}
}
