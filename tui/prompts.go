package tui

import (
	"fmt"
	"log/slog"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/lantern-if/lantern/engine"
)

// The footer dialogs: lines the person types in the footer. Each is a
// dialog on the root's stack with frame().footer set.

// restyler is a dialog with inputs to restyle when the theme changes.
type restyler interface{ setStyles() }

// commandLine is the command input: Enter sends a command for the story
// (it runs at the next turn boundary, marked human) and keeps the line
// open; Esc leaves it. The root keeps the component, so the line comes
// back as it was left, with the commands sent before.
type commandLine struct {
	c     *common
	h     host
	ft    *footer
	log   *slog.Logger
	panes *paneSet
	game  *game

	input   textinput.Model
	history []string
	histAt  int
	// suggested is 1 + the turn whose actions were asked for (0: none).
	suggested int
	closed    bool
}

func newCommandLine(c *common, h host, ft *footer, log *slog.Logger, ps *paneSet, g *game) *commandLine {
	d := &commandLine{c: c, h: h, ft: ft, log: log, panes: ps, game: g}
	d.input = c.newInput("› ", "a command for the story, e.g. inventory")
	// Tab completes from what the game lets the player do here (the
	// engine's ActionsSuggested); ctrl+n/ctrl+p pick another match.
	d.input.ShowSuggestions = true
	return d
}

// open puts the line in the footer, as it was left.
func (d *commandLine) open() tea.Cmd {
	d.histAt, d.closed = len(d.history), false
	d.h.open(d)
	return tea.Batch(d.input.Focus(), d.suggest())
}

func (d *commandLine) frame() frame { return frame{footer: true} }

func (d *commandLine) setStyles() { d.c.styleInput(&d.input) }

func (d *commandLine) view(w, _ int) []string {
	s := d.c.styles
	hint := s.HelpDesc.Render("  " + rowText(d.bindings()))
	if d.ft.text != "" {
		st := s.Flash
		if d.ft.isErr {
			st = s.Error
		}
		hint = st.Render("  " + oneLine(d.ft.text))
	}
	iw := max(min(w-ansi.StringWidth(d.input.Prompt)-28, 60), 10)
	d.input.SetWidth(iw)
	return []string{d.input.View() + hint}
}

func (d *commandLine) update(msg tea.Msg) (dialog, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		var ok bool
		if cmd, ok = dispatch(d.bindings(), msg, nil); !ok {
			d.input, cmd = d.input.Update(msg)
		}
	case tea.PasteMsg:
		cmd = d.paste(msg.Content)
	default:
		d.input, cmd = d.input.Update(msg)
	}
	if d.closed {
		return nil, cmd
	}
	return d, cmd
}

// firstKey is a binding of the keyMap's first key only (a text input
// types the letters the other keys may be).
func firstKey(kb key.Binding, name, desc string) key.Binding {
	return keyOf(name, desc, kb.Keys()[0])
}

// bindings are the command line's keys; the others type.
func (d *commandLine) bindings() []binding {
	k := d.c.keys
	return []binding{
		{key: described(k.Accept, "send (a multi-line paste plays line by line)"), row: "sends", run: act(d.sendLine)},
		{key: keyOf("tab", "complete from what the game lets the player do here"), row: "completes"},
		{key: described(k.Back, "leave the input"), row: "leaves", run: do(func() { d.input.Blur(); d.closed = true })},
		bind(joined("earlier commands", firstKey(k.Up, "↑", ""), firstKey(k.Down, "↓", "")), "", d.browse),
		bind(joined("scroll the transcript", firstKey(k.PageUp, "pgup", ""), firstKey(k.PageDown, "pgdn", "")), "", d.page),
		{key: firstKey(k.Bottom, "end", "follow the transcript (at the line's end)"), run: do(d.follow), active: d.atEnd},
		bind(keyOf("ctrl+end", "follow the transcript"), "", do(d.follow)),
		bind(keyOf("ctrl+c", "clear the line (again: quit)"), "", nil),
	}
}

// browse goes through the commands sent before.
func (d *commandLine) browse(k tea.KeyPressMsg) tea.Cmd {
	if key.Matches(k, firstKey(d.c.keys.Up, "", "")) {
		if d.histAt > 0 {
			d.histAt--
			d.input.SetValue(d.history[d.histAt])
			d.input.CursorEnd()
		}
		return nil
	}
	if d.histAt < len(d.history) {
		d.histAt++
		v := ""
		if d.histAt < len(d.history) {
			v = d.history[d.histAt]
		}
		d.input.SetValue(v)
		d.input.CursorEnd()
	}
	return nil
}

// page scrolls the transcript while typing.
func (d *commandLine) page(k tea.KeyPressMsg) tea.Cmd {
	n := max(d.panes.transcript.feed.h-1, 1)
	if key.Matches(k, firstKey(d.c.keys.PageDown, "", "")) {
		n = -n
	}
	d.panes.scroll(pTranscript, n)
	return nil
}

// follow scrolls the transcript to its newest line.
func (d *commandLine) follow() { d.panes.scroll(pTranscript, -(1 << 20)) }

// atEnd reports whether the cursor is at the line's end (end then
// follows the transcript).
func (d *commandLine) atEnd() bool { return d.input.Position() >= len([]rune(d.input.Value())) }

// suggest asks the engine what the game lets the player do here, for the
// tab completion (once per turn while the line is open).
func (d *commandLine) suggest() tea.Cmd {
	if d.suggested == d.game.turn+1 {
		return nil
	}
	d.suggested = d.game.turn + 1
	return d.h.send(engine.SuggestActions{})
}

// suggestions takes the game's answer, if it is still about the turn
// play stands at.
func (d *commandLine) suggestions(ev engine.ActionsSuggested) {
	if ev.Turn == d.game.turn {
		d.input.SetSuggestions(ev.Actions)
	}
}

// played forgets what could be done before the turn, and asks again while
// the line is open.
func (d *commandLine) played(open bool) tea.Cmd {
	d.input.SetSuggestions(nil)
	if open {
		return d.suggest()
	}
	return nil
}

// sendLine sends the typed command.
func (d *commandLine) sendLine() tea.Cmd {
	text := oneLine(d.input.Value())
	if text == "" {
		return nil
	}
	d.input.Reset()
	d.panes.transcript.feed.toBottom() // sending follows the transcript
	if n := len(d.history); n == 0 || d.history[n-1] != text {
		d.history = append(d.history, text)
		if len(d.history) > maxHistory {
			d.history = d.history[1:]
		}
	}
	d.histAt = len(d.history)
	d.log.Info("override", "text", text)
	note := "it runs now"
	if d.game.mode == engine.Running || d.game.thinking {
		note = "it runs at the turn boundary"
	}
	return tea.Batch(d.h.send(engine.Override{Text: text}), d.ft.set(fmt.Sprintf("sent %q: %s", text, note), false))
}

// maxCommand is the longest command the input takes.
const maxCommand = 200

// pasteAsk is the most pasted lines played without asking first.
const pasteAsk = 5

// paste takes a paste (lines end in LF, CR LF or CR, as terminals send
// them): one line joins what is typed (cut at maxCommand, with a word);
// several lines are sent as commands, one per line, in order, as if each
// were typed and sent.
func (d *commandLine) paste(content string) tea.Cmd {
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
		return d.pasteOne(lines[0])
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
		d.h.open(&confirmPaste{d: d, cmds: cmds, note: note})
		return nil
	}
	return d.playPaste(cmds, note)
}

// pasteOne puts a pasted line where the cursor is.
func (d *commandLine) pasteOne(l string) tea.Cmd {
	v := []rune(d.input.Value())
	at := min(len(v), d.input.Position())
	text := string(v[:at]) + l
	rest := string(v[at:])
	all := []rune(text + rest)
	if len(all) <= maxCommand {
		d.input.SetValue(text + rest)
		d.input.SetCursor(len([]rune(text)))
		return nil
	}
	d.input.SetValue(string(all[:maxCommand]))
	d.input.CursorEnd()
	return d.ft.set(fmt.Sprintf("paste cut to %d of %d characters", maxCommand, len(all)), true)
}

// playPaste sends a paste's commands, one turn each, and keeps them in the
// history.
func (d *commandLine) playPaste(cmds []engine.Command, note string) tea.Cmd {
	for _, c := range cmds {
		if o, ok := c.(engine.Override); ok {
			d.history = append(d.history, o.Text)
		}
	}
	if n := len(d.history); n > maxHistory {
		d.history = d.history[n-maxHistory:]
	}
	d.histAt = len(d.history)
	d.panes.transcript.feed.toBottom()
	d.log.Info("paste", "commands", len(cmds))
	return tea.Batch(d.h.send(cmds...), d.ft.set(note, strings.Contains(note, " cut at ")))
}

// typedInto runs d's binding for a key; any other message (a key no
// binding takes, a paste) goes to the input in.
func typedInto(d dialog, closed *bool, msg tea.Msg, in *textinput.Model) (dialog, tea.Cmd) {
	var cmd tea.Cmd
	took := false
	if k, ok := msg.(tea.KeyPressMsg); ok {
		cmd, took = dispatch(d.bindings(), k, nil)
	}
	if !took {
		*in, cmd = in.Update(msg)
	}
	if *closed {
		return nil, cmd
	}
	return d, cmd
}

// no is the key that says no to a question: n (and the others given),
// esc and q.
func no(k keyMap, desc string, keys ...string) key.Binding {
	all := joined("", keyOf("n", "", keys...), k.Back, k.Quit)
	return key.NewBinding(key.WithKeys(all.Keys()...), key.WithHelp("n/"+k.Back.Help().Key, desc))
}

// confirmPaste asks before a long paste plays one turn per line.
type confirmPaste struct {
	d      *commandLine
	cmds   []engine.Command
	note   string
	closed bool
}

func (d *confirmPaste) frame() frame { return frame{footer: true} }

// bindings: y (or enter) plays the paste, n (or esc) drops it.
func (d *confirmPaste) bindings() []binding {
	k := d.d.c.keys
	return []binding{
		shown(alias(keyOf("y", "play them"), "", k.Accept), act(func() tea.Cmd { d.closed = true; return d.d.playPaste(d.cmds, d.note) })),
		shown(no(k, "drop the paste", "n"), act(func() tea.Cmd {
			d.closed = true
			return d.d.ft.set(fmt.Sprintf("the paste of %d lines was not played", len(d.cmds)), false)
		})),
	}
}

func (d *confirmPaste) view(int, int) []string {
	s := d.d.c.styles
	return []string{s.Notice.Render(fmt.Sprintf(" Play the %d pasted lines as %d turns? ", len(d.cmds), len(d.cmds))) +
		keyRows(d.d.c, 1<<20, rowKeys(d.bindings())...)[0]}
}

func (d *confirmPaste) update(msg tea.Msg) (dialog, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		return pressed(d, &d.closed, k, nil)
	}
	return d, nil
}

// searchLine types a search of the transcript shown: enter (or ↑) finds
// the next older match, ↓ a newer one, esc closes the search.
type searchLine struct {
	c      *common
	ft     *footer
	panes  *paneSet
	ti     textinput.Model
	closed bool
}

func (d *searchLine) frame() frame { return frame{footer: true} }

// bindings: enter (or ↑) finds an older match, ↓ a newer one, esc
// closes; the input types the rest.
func (d *searchLine) bindings() []binding {
	k := d.c.keys
	find := func(older bool) func(tea.KeyPressMsg) tea.Cmd { return act(func() tea.Cmd { return d.find(older) }) }
	return []binding{
		shown(alias(described(k.Accept, "older"), "", firstKey(k.Up, "", ""), keyOf("ctrl+p", "")), find(true)),
		shown(alias(firstKey(k.Down, "↓", "newer"), "", keyOf("ctrl+n", "")), find(false)),
		shown(described(k.Back, "closes"), do(func() {
			d.ti.Blur()
			tp, _, _ := d.panes.shown()
			tp.clearSearch()
			d.closed = true
		})),
	}
}

// find goes to the next match, older or newer.
func (d *searchLine) find(older bool) tea.Cmd {
	tp, _, _ := d.panes.shown()
	if !tp.search(strings.TrimSpace(d.ti.Value()), older) {
		return d.ft.set(fmt.Sprintf("no match for %q in the transcript", d.ti.Value()), true)
	}
	return nil
}

func (d *searchLine) setStyles() { d.c.styleInput(&d.ti) }

func (d *searchLine) view(w, _ int) []string {
	d.ti.SetWidth(max(w-40, 10))
	return []string{d.ti.View() + d.c.styles.HelpDesc.Render("  "+rowText(d.bindings()))}
}

func (d *searchLine) update(msg tea.Msg) (dialog, tea.Cmd) {
	return typedInto(d, &d.closed, msg, &d.ti)
}

// objectiveLine types an objective: a new one, an edit of the selected one,
// or the one to complete or drop.
type objectiveLine struct {
	p       *objectivesPane
	ti      textinput.Model
	op      string
	editing string // the objective being edited
	closed  bool
}

func (d *objectiveLine) frame() frame { return frame{footer: true} }

// bindings: enter sends the objective, esc drops it; the input types
// the rest.
func (d *objectiveLine) bindings() []binding {
	k := d.p.c.keys
	return []binding{
		bind(described(k.Accept, "send the objective"), "", act(func() tea.Cmd { d.closed = true; return d.send() })),
		bind(described(k.Back, "leave it"), "", do(func() { d.closed = true })),
	}
}

func (d *objectiveLine) setStyles() { d.p.c.styleInput(&d.ti) }

func (d *objectiveLine) view(w, _ int) []string {
	d.ti.SetWidth(max(w-ansi.StringWidth(d.ti.Prompt)-4, 10))
	return []string{d.ti.View()}
}

func (d *objectiveLine) update(msg tea.Msg) (dialog, tea.Cmd) {
	return typedInto(d, &d.closed, msg, &d.ti)
}

// send sends the objective typed.
func (d *objectiveLine) send() tea.Cmd {
	p := d.p
	text := oneLine(d.ti.Value())
	if text == "" {
		return nil
	}
	if d.op == "edit" {
		// An edit replaces the objective: the old text goes, the new comes.
		if text == d.editing {
			return nil
		}
		return tea.Batch(p.host.send(engine.ObjectiveEdit{Op: "drop", Text: d.editing}, engine.ObjectiveEdit{Op: "add", Text: text}),
			p.ft.set("objective edited: "+text, false))
	}
	if d.op == string(engine.ObjectiveDrop) {
		p.dropped = text
	}
	return tea.Batch(p.host.send(engine.ObjectiveEdit{Op: engine.ObjectiveOp(d.op), Text: text}), p.ft.set(fmt.Sprintf("objective %s: %s", d.op, text), false))
}

// reviewPrompt types the edited command, or the reason against a proposal,
// in review mode.
type reviewPrompt struct {
	r        *reviewer
	ti       textinput.Model
	op       engine.Decision
	remember bool
	closed   bool
}

func (d *reviewPrompt) frame() frame { return frame{footer: true} }

// bindings: enter sends the command or the reason, esc goes back to
// the proposal; the input types the rest.
func (d *reviewPrompt) bindings() []binding {
	r, k := d.r, d.r.c.keys
	return []binding{
		shown(described(k.Accept, "sends"), act(d.send)),
		shown(described(k.Back, "back"), act(func() tea.Cmd {
			d.closed = true
			return r.ft.set("back to the proposal: "+rowText(r.bindings()), false)
		})),
	}
}

func (d *reviewPrompt) setStyles() { d.r.c.styleInput(&d.ti) }

func (d *reviewPrompt) view(w, _ int) []string {
	d.ti.SetWidth(max(w-ansi.StringWidth(d.ti.Prompt)-24, 10))
	return []string{d.ti.View() + d.r.c.styles.HelpDesc.Render("  "+rowText(d.bindings()))}
}
