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
// review's edit or reason). The root keeps the open dialogs on a stack: the
// top one gets the keys and every message the root does not handle itself.
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
	// bindings are the dialog's keys: the footer shows those with a short
	// word while an overlay is open, and the help lists them.
	bindings() []binding
}

// frame is how a dialog is drawn.
type frame struct {
	title string
	// footer: the dialog is the footer line (h is 1), not an overlay.
	footer bool
	// wide: the overlay may take up to 100 columns (a Markdown viewer).
	wide bool
}

// footerLiner is an overlay that draws the footer itself (every key types
// into the memory form, so the help key is not offered there).
type footerLiner interface {
	footerLine(w int) string
}

// host is what a component may ask of the root: send commands to the
// engine (queued in order, sent by the returned command), rewind (a
// command whose outcome the root reports when the engine answers), say
// something in the footer, open a dialog or a Markdown viewer, and the
// sizes of the panes area and of a dialog.
type host interface {
	send(cmds ...engine.Command) tea.Cmd
	rewind(to engine.Rewind, ask rewindAsk) tea.Cmd
	setFlash(s string, isErr bool) tea.Cmd
	areaHeight() int
	dialogWidth() int
	open(d dialog)
	openViewer(title string, load func(at mdAt, id int) tea.Cmd) tea.Cmd
}

// dialogStack is the open dialogs, the top one last: it has the keyboard.
type dialogStack struct {
	open    []dialog
	viewers int // viewers opened (a viewer's answer names its viewer)
}

// top is the dialog that has the keyboard, or nil.
func (s *dialogStack) top() dialog {
	if n := len(s.open); n > 0 {
		return s.open[n-1]
	}
	return nil
}

// push puts a dialog on top of the stack.
func (s *dialogStack) push(d dialog) { s.open = append(s.open, d) }

// closeAll closes every dialog.
func (s *dialogStack) closeAll() { s.open = nil }

// updateTop gives a message to the top dialog and puts what it returns in
// its place; a dialog it opened meanwhile stays above it.
func (s *dialogStack) updateTop(msg tea.Msg) tea.Cmd {
	i := len(s.open) - 1
	if i < 0 {
		return nil
	}
	d, cmd := s.open[i].update(msg)
	if i >= len(s.open) {
		return cmd // the stack was closed meanwhile (quit)
	}
	if d == nil {
		s.open = append(s.open[:i], s.open[i+1:]...)
	} else {
		s.open[i] = d
	}
	return cmd
}

// overlay is the uppermost overlay dialog, or nil.
func (s *dialogStack) overlay() dialog {
	for i := len(s.open) - 1; i >= 0; i-- {
		if !s.open[i].frame().footer {
			return s.open[i]
		}
	}
	return nil
}

// typing reports whether the command line is open.
func (s *dialogStack) typing() bool {
	for _, d := range s.open {
		if _, ok := d.(*commandLine); ok {
			return true
		}
	}
	return false
}

// topIs reports whether the top dialog is a T.
func topIs[T dialog](s *dialogStack) (T, bool) {
	d, ok := s.top().(T)
	return d, ok
}

// resizer is a dialog that follows a new size with a command: the panes
// area's width and an overlay's (a narrow one's).
type resizer interface {
	resized(areaW, dialogW int) tea.Cmd
}

// resized tells the open dialogs the new widths.
func (s *dialogStack) resized(areaW, dialogW int) tea.Cmd {
	var cmds []tea.Cmd
	for _, d := range s.open {
		if r, ok := d.(resizer); ok {
			cmds = append(cmds, r.resized(areaW, dialogW))
		}
	}
	return tea.Batch(cmds...)
}

// overlayView draws an overlay dialog dw cells wide (a wide one wider)
// centred in a panes area w×h.
func overlayView(c *common, d dialog, dw, w, h int) []string {
	f := d.frame()
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
	box := c.box(f.title, "", true, dw, bh, inner)
	out := blank(w, h)
	top := max((h-bh)/2, 0)
	pad := strings.Repeat(" ", max((w-dw)/2, 0))
	for i, l := range box {
		if top+i < h {
			out[top+i] = fit(pad+l, w)
		}
	}
	return out
}

// dialogFooter is the footer while dialog d is open: a footer dialog's
// line, an overlay's own footer, or its keys.
func dialogFooter(ft *footer, d dialog, w int) string {
	if d.frame().footer {
		if ls := d.view(w, 1); len(ls) > 0 {
			return fit(ls[0], w)
		}
		return fit("", w)
	}
	if fl, ok := d.(footerLiner); ok {
		return fit(fl.footerLine(w), w)
	}
	keys := hints(d.bindings())
	ctx := fmt.Sprintf("dialog %T", d)
	for _, kb := range keys {
		ctx += "\x00" + kb.Help().Key + " " + kb.Help().Desc
	}
	return ft.cachedKeysLine(ctx, w, func() []key.Binding { return keys }, func() string { return ft.tail() })
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
