package tui

import (
	"fmt"
	"strings"

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
// open; Esc leaves it. The text and the history stay in the root, so the
// line comes back as it was left.
type commandLine struct{ m *Model }

func (d *commandLine) frame() frame { return frame{footer: true} }

func (d *commandLine) view(w, _ int) []string {
	m := d.m
	s := m.c.styles
	hint := s.HelpDesc.Render("  enter sends · tab completes · esc leaves")
	if m.flash != "" {
		st := s.Flash
		if m.flashErr {
			st = s.Error
		}
		hint = st.Render("  " + oneLine(m.flash))
	}
	iw := max(min(w-ansi.StringWidth(m.input.Prompt)-28, 60), 10)
	m.input.SetWidth(iw)
	return []string{m.input.View() + hint}
}

func (d *commandLine) update(msg tea.Msg) (dialog, tea.Cmd) {
	m := d.m
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return m.inputKey(d, msg)
	case tea.PasteMsg:
		return d, m.paste(msg.Content)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return d, cmd
}

// inputKey: the command line's keys.
func (m *Model) inputKey(d *commandLine, k tea.KeyPressMsg) (dialog, tea.Cmd) {
	switch k.String() {
	case "esc":
		// Esc only leaves the input; it never arms the cancel.
		m.input.Blur()
		return nil, nil
	case "pgup", "pgdown", "ctrl+end":
		// The transcript scrolls while typing.
		switch k.String() {
		case "pgup":
			m.scrollPane(pTranscript, m.pageOf(pTranscript))
		case "pgdown":
			m.scrollPane(pTranscript, -m.pageOf(pTranscript))
		default:
			m.scrollPane(pTranscript, -(1 << 20))
		}
		return d, nil
	case "end":
		if m.input.Position() >= len([]rune(m.input.Value())) {
			m.scrollPane(pTranscript, -(1 << 20)) // at the line's end: the transcript follows
			return d, nil
		}
	case "enter":
		return d, m.sendLine()
	case "up":
		if m.histAt > 0 {
			m.histAt--
			m.input.SetValue(m.history[m.histAt])
			m.input.CursorEnd()
		}
		return d, nil
	case "down":
		if m.histAt < len(m.history) {
			m.histAt++
			v := ""
			if m.histAt < len(m.history) {
				v = m.history[m.histAt]
			}
			m.input.SetValue(v)
			m.input.CursorEnd()
		}
		return d, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return d, cmd
}

// suggest asks the engine what the game lets the player do here, for the
// command line's tab completion (once per turn while the line is open).
func (m *Model) suggest() tea.Cmd {
	if m.suggested == m.turn+1 {
		return nil
	}
	m.suggested = m.turn + 1
	return m.send(engine.SuggestActions{})
}

// suggestions takes the game's answer for the command line, if it is
// still about the turn play stands at.
func (m *Model) suggestions(ev engine.ActionsSuggested) {
	if ev.Turn == m.turn {
		m.input.SetSuggestions(ev.Actions)
	}
}

// sendLine sends the typed command.
func (m *Model) sendLine() tea.Cmd {
	text := oneLine(m.input.Value())
	if text == "" {
		return nil
	}
	m.input.Reset()
	m.transcript.feed.toBottom() // sending follows the transcript
	if n := len(m.history); n == 0 || m.history[n-1] != text {
		m.history = append(m.history, text)
		if len(m.history) > maxHistory {
			m.history = m.history[1:]
		}
	}
	m.histAt = len(m.history)
	m.log.Info("override", "text", text)
	note := "it runs now"
	if m.mode == engine.Running || m.thinking {
		note = "it runs at the turn boundary"
	}
	return tea.Batch(m.send(engine.Override{Text: text}), m.setFlash(fmt.Sprintf("sent %q: %s", text, note), false))
}

// confirmPaste asks before a long paste plays one turn per line.
type confirmPaste struct {
	m    *Model
	cmds []engine.Command
	note string
}

func (d *confirmPaste) frame() frame { return frame{footer: true} }

func (d *confirmPaste) view(int, int) []string {
	s := d.m.c.styles
	return []string{s.Notice.Render(fmt.Sprintf(" Play the %d pasted lines as %d turns? ", len(d.cmds), len(d.cmds))) +
		s.HelpKey.Render("y") + s.HelpDesc.Render(" play them · ") + s.HelpKey.Render("n/esc") + s.HelpDesc.Render(" drop the paste")}
}

func (d *confirmPaste) update(msg tea.Msg) (dialog, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return d, nil
	}
	switch k.String() {
	case "y", "enter":
		return nil, d.m.playPaste(d.cmds, d.note)
	case "n", "esc", "q":
		return nil, d.m.setFlash(fmt.Sprintf("the paste of %d lines was not played", len(d.cmds)), false)
	}
	return d, nil
}

// searchLine types a search of the transcript: enter (or ↑) finds the
// next older match, ↓ a newer one, esc closes the search.
type searchLine struct {
	m  *Model
	ti textinput.Model
}

func (m *Model) openSearch() tea.Cmd {
	m.focusPane(pTranscript)
	d := &searchLine{m: m, ti: m.newInput("/ ", "search the transcript")}
	tp, _, _ := m.shown()
	d.ti.SetValue(tp.query)
	m.open(d)
	return d.ti.Focus()
}

func (d *searchLine) frame() frame { return frame{footer: true} }

func (d *searchLine) setStyles() { d.m.c.styleInput(&d.ti) }

func (d *searchLine) view(w, _ int) []string {
	d.ti.SetWidth(max(w-40, 10))
	return []string{d.ti.View() + d.m.c.styles.HelpDesc.Render("  enter older · ↓ newer · esc closes")}
}

func (d *searchLine) update(msg tea.Msg) (dialog, tea.Cmd) {
	m := d.m
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "esc":
			d.ti.Blur()
			tp, _, _ := m.shown()
			tp.clearSearch()
			return nil, nil
		case "enter", "up", "ctrl+p", "down", "ctrl+n":
			older := k.String() != "down" && k.String() != "ctrl+n"
			tp, _, _ := m.shown()
			if !tp.search(strings.TrimSpace(d.ti.Value()), older) {
				return d, m.setFlash(fmt.Sprintf("no match for %q in the transcript", d.ti.Value()), true)
			}
			return d, nil
		}
	}
	var cmd tea.Cmd
	d.ti, cmd = d.ti.Update(msg)
	return d, cmd
}

// objectiveLine types an objective: a new one, an edit of the selected one,
// or the one to complete or drop.
type objectiveLine struct {
	m       *Model
	ti      textinput.Model
	op      string
	editing string // the objective being edited
}

// openObjInput asks for an objective's text (to add, or to name the one to
// complete or drop).
func (m *Model) openObjInput(op, value string) tea.Cmd {
	d := &objectiveLine{m: m, ti: m.newInput("objective: ", ""), op: op}
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
	m.open(d)
	return d.ti.Focus()
}

func (d *objectiveLine) frame() frame { return frame{footer: true} }

func (d *objectiveLine) setStyles() { d.m.c.styleInput(&d.ti) }

func (d *objectiveLine) view(w, _ int) []string {
	d.ti.SetWidth(max(w-ansi.StringWidth(d.ti.Prompt)-4, 10))
	return []string{d.ti.View()}
}

func (d *objectiveLine) update(msg tea.Msg) (dialog, tea.Cmd) {
	m := d.m
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "esc":
			return nil, nil
		case "enter":
			text := oneLine(d.ti.Value())
			if text == "" {
				return nil, nil
			}
			if d.op == "edit" {
				// An edit replaces the objective: the old text goes, the new comes.
				if text == d.editing {
					return nil, nil
				}
				return nil, tea.Batch(m.send(engine.ObjectiveEdit{Op: "drop", Text: d.editing}, engine.ObjectiveEdit{Op: "add", Text: text}),
					m.setFlash("objective edited: "+text, false))
			}
			if d.op == string(engine.ObjectiveDrop) {
				m.objectives.dropped = text
			}
			return nil, tea.Batch(m.send(engine.ObjectiveEdit{Op: engine.ObjectiveOp(d.op), Text: text}), m.setFlash(fmt.Sprintf("objective %s: %s", d.op, text), false))
		}
	}
	var cmd tea.Cmd
	d.ti, cmd = d.ti.Update(msg)
	return d, cmd
}

// reviewPrompt types the edited command, or the reason against a proposal,
// in review mode.
type reviewPrompt struct {
	m        *Model
	ti       textinput.Model
	op       engine.Decision
	remember bool
}

func (d *reviewPrompt) frame() frame { return frame{footer: true} }

func (d *reviewPrompt) setStyles() { d.m.c.styleInput(&d.ti) }

func (d *reviewPrompt) view(w, _ int) []string {
	d.ti.SetWidth(max(w-ansi.StringWidth(d.ti.Prompt)-24, 10))
	return []string{d.ti.View() + d.m.c.styles.HelpDesc.Render("  enter sends · esc back")}
}
