package tui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// footer is the bottom line's own state: a word shown for a moment (a
// flash), and how a line of key hints is drawn. What else the line shows
// (a typed line, a proposal waiting, the keys in focus) the root asks of
// the component in focus.
type footer struct {
	c     *common
	text  string
	isErr bool
	id    int
	hold  int // the flash that stays until another replaces it (a rewind under way)
}

// flashDoneMsg ends a flash after its time.
type flashDoneMsg struct{ id int }

// set shows a short message for a few seconds.
func (f *footer) set(s string, isErr bool) tea.Cmd {
	f.text, f.isErr = s, isErr
	f.id++
	id := f.id
	return tea.Tick(5*time.Second, func(time.Time) tea.Msg { return flashDoneMsg{id: id} })
}

// done ends the flash id, unless another replaced it or it is held.
func (f *footer) done(id int) {
	if id == f.id && id != f.hold {
		f.text = ""
	}
}

// holdIt keeps the flash shown until another replaces it.
func (f *footer) holdIt() { f.hold = f.id }

// showing reports whether the flash id is on the footer still.
func (f *footer) showing(id int) bool { return id != 0 && id == f.id && f.text != "" }

// clear takes the flash away.
func (f *footer) clear() { f.text = "" }

// flashView is the flash as a footer's message.
func (f *footer) flashView() string {
	st := f.c.styles.Flash
	if f.isErr {
		st = f.c.styles.Error
	}
	return st.Render(" " + oneLine(f.text))
}

// tail is the end of every footer: the keys given (the timeline's, for
// the panes), then "q quit • ? help".
func (f *footer) tail(extra ...key.Binding) string {
	k := f.c.keys
	f.c.help.SetWidth(0)
	return " " + f.c.help.ShortHelpView(append(extra, described(k.Quit, k.Quit.Help().Desc), described(k.Help, k.Help.Help().Desc)))
}

// withTail ends a footer message with tail, cutting the message to fit.
func (f *footer) withTail(msg string, w int, tail string) string {
	sep := f.c.styles.HelpDesc.Render(" │")
	lw := max(w-ansi.StringWidth(tail)-ansi.StringWidth(sep), 0)
	return fit(fit(msg, lw)+sep+tail, w)
}

// keysLine is a footer of keys, cut to fit, ending with tail.
func (f *footer) keysLine(keys []key.Binding, w int, tail string) string {
	c := f.c
	tw := ansi.StringWidth(tail)
	c.help.SetWidth(max(w-tw-2, 0))
	left := ""
	if w-tw-2 > 4 {
		left = " " + c.help.ShortHelpView(keys)
	}
	c.help.SetWidth(0)
	sep := c.styles.HelpDesc.Render(" │")
	if left == "" {
		sep = ""
	}
	lw := max(w-tw-ansi.StringWidth(sep), 0)
	return fit(fit(left, lw)+sep+tail, w)
}

// cachedKeysLine is keysLine drawn once per width, theme and context (ctx
// names what is in focus).
func (f *footer) cachedKeysLine(ctx string, w int, keys func() []key.Binding, tail func() string) string {
	hl := &f.c.helpLine
	if hl.w != w || hl.gen != f.c.gen || hl.ctx != ctx {
		hl.w, hl.gen, hl.ctx, hl.s = w, f.c.gen, ctx, f.keysLine(keys(), w, tail())
	}
	return hl.s
}
