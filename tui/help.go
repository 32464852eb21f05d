package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// helpView is the full help's state: where it is scrolled and the filter
// typed after /.
type helpView struct {
	offset    int
	query     string
	searching bool
}

func (m *Model) openHelp() {
	m.help = helpView{}
	m.state = stHelp
}

// helpEntries are the full help's rows: a heading per group, then one row
// per key.
func (m *Model) helpEntries() []helpEntry {
	k := m.c.keys
	groups := []struct {
		title string
		keys  []key.Binding
	}{
		{"Game", []key.Binding{k.Pause, k.Step, k.Input, k.Review, k.Cancel, k.EndEpisode, k.Retry, k.Pull, k.Models, k.Quit}},
		{"Panes", []key.Binding{k.NextPane, k.PrevPane, k.Jump, k.Memory, k.Objectives, k.MapPane, k.Search, k.Episodes, k.Notes, k.Knowledge, k.Theme, k.Copy, k.Mouse}},
		{"Scrolling", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}},
		{"Memory pane (m)", []key.Binding{k.View, k.Edit, k.Supersede, k.Add, k.Delete, k.Undo, k.Browse, k.Back}},
		{"Objectives pane (o)", []key.Binding{k.Add, key.NewBinding(key.WithKeys(k.Edit.Keys()...), key.WithHelp(k.Edit.Help().Key, "edit objective")), k.Complete, k.Drop}},
		{"Map pane (M)", []key.Binding{
			key.NewBinding(key.WithKeys(k.View.Keys()...), key.WithHelp(k.View.Help().Key, "show the map as Mermaid source (again: the drawing)")),
			k.MapPane, k.Zoom}},
	}
	var out []helpEntry
	for _, g := range groups {
		out = append(out, helpEntry{head: g.title})
		for _, b := range g.keys {
			out = append(out, helpEntry{key: b.Help().Key, desc: b.Help().Desc})
		}
	}
	out = append(out,
		helpEntry{key: "─ │ ╱ ╲ →", desc: "map: a way in the line's compass direction (an arrow: known one way)"},
		helpEntry{key: "up:L5", desc: "map: an exit not drawn as a line (up, dn, in, out, n…nw, a verb) to L5"},
		helpEntry{head: "While typing a command (i)"},
		helpEntry{key: "enter", desc: "send (a multi-line paste plays line by line)"},
		helpEntry{key: "esc", desc: "leave the input"},
		helpEntry{key: "↑/↓", desc: "earlier commands"},
		helpEntry{key: "pgup/pgdn", desc: "scroll the transcript"},
		helpEntry{key: "end", desc: "follow the transcript (at the line's end)"},
		helpEntry{key: "ctrl+c", desc: "clear the line (again: quit)"},
		helpEntry{head: "Review mode (v): a proposal waits for you"},
		helpEntry{key: "enter/y", desc: "play the proposal"},
		helpEntry{key: "e", desc: "edit it, then enter plays your command (recorded as human-edited)"},
		helpEntry{key: "x", desc: "reject it with a reason: the agent proposes again with your reason"},
		helpEntry{key: "r", desc: "reject it and remember the reason here (a memory)"},
		helpEntry{head: "Replay (E)"},
		helpEntry{key: "←/→", desc: "step back/forward"},
		helpEntry{key: "home/end", desc: "first/last turn"},
		helpEntry{key: "esc", desc: "back to the live game"},
	)
	return out
}

type helpEntry struct{ head, key, desc string }

// helpLines are the help's rendered rows, filtered by the query (a group's
// heading stays with its matching keys).
func (m *Model) helpLines(w int) []string {
	s := m.c.styles
	q := strings.ToLower(strings.TrimSpace(m.help.query))
	var out []string
	var head string
	for _, e := range m.helpEntries() {
		if e.head != "" {
			head = e.head
			continue
		}
		if q != "" && !strings.Contains(strings.ToLower(e.key+" "+e.desc+" "+head), q) {
			continue
		}
		if head != "" {
			if len(out) > 0 {
				out = append(out, "")
			}
			out = append(out, s.Title.Render(head))
			head = ""
		}
		out = append(out, fit(s.HelpKey.Render(fmt.Sprintf("  %-11s", e.key))+" "+s.HelpDesc.Render(e.desc), w))
	}
	if len(out) == 0 {
		out = append(out, s.Muted.Render(fmt.Sprintf("no key matches %q", m.help.query)))
	}
	return out
}

// helpBody is the visible part of the help for a box of h rows inside.
func (m *Model) helpBody(w, h int) []string {
	ls := m.helpLines(w)
	page := max(h-1, 1) // the last row says where we are
	m.help.offset = min(max(m.help.offset, 0), max(len(ls)-page, 0))
	end := min(m.help.offset+page, len(ls))
	body := append([]string(nil), ls[m.help.offset:end]...)
	for len(body) < page && len(ls) > page {
		body = append(body, "")
	}
	var tail string
	switch {
	case m.help.searching:
		tail = "/" + m.help.query + "▏ enter keeps · esc clears"
	case len(ls) > page:
		tail = fmt.Sprintf("%d–%d of %d · ↑/↓ pgup/pgdn scroll · / search · esc closes", m.help.offset+1, end, len(ls))
	default:
		tail = "/ search · ? or esc closes · theme " + m.c.theme.Name
	}
	return append(body, m.c.styles.Muted.Render(ansi.Truncate(tail, w, "…")))
}

// helpKey: scroll, search and close the help.
func (m *Model) helpKey(k tea.KeyPressMsg) tea.Cmd {
	hv := &m.help
	s := k.String()
	if hv.searching {
		switch s {
		case "enter":
			hv.searching = false
		case "esc":
			hv.searching, hv.query = false, ""
		case "backspace":
			if r := []rune(hv.query); len(r) > 0 {
				hv.query = string(r[:len(r)-1])
			}
		default:
			if k.Text != "" {
				hv.query += k.Text
			}
		}
		hv.offset = 0
		return nil
	}
	page := max(m.lay.area.h-5, 1)
	switch s {
	case "?", "esc", "q":
		if s == "esc" && hv.query != "" {
			hv.query, hv.offset = "", 0
			return nil
		}
		m.state = stNormal
	case "/":
		hv.searching = true
	case "up", "k":
		hv.offset--
	case "down", "j":
		hv.offset++
	case "pgup", "ctrl+u":
		hv.offset -= page
	case "pgdown", "ctrl+d", "space":
		hv.offset += page
	case "home", "g":
		hv.offset = 0
	case "end", "G":
		hv.offset = 1 << 20
	}
	return nil
}

// footerKeys are the keys the footer offers: the focused pane's (or the
// replay's), before the help and quit keys that always end it. The
// descriptions are short; the help (?) has the long ones.
func (m *Model) footerKeys() []key.Binding {
	k := m.c.keys
	b := func(kb key.Binding, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(kb.Keys()...), key.WithHelp(kb.Help().Key, desc))
	}
	lit := func(keys, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, desc))
	}
	switch m.state {
	case stHelp:
		return []key.Binding{lit("↑/↓", "scroll"), lit("/", "search"), lit("esc", "close")}
	case stForm, stModels, stViewer, stEpisodes, stNotes:
		return []key.Binding{lit("esc", "close")}
	}
	if m.replay != nil {
		return []key.Binding{lit("←/→", "step"), lit("home/end", "first/last"), lit("esc", "live game"), b(k.NextPane, "pane")}
	}
	game := []key.Binding{b(k.Pause, "run/pause"), b(k.Step, "step"), b(k.Input, "type"), b(k.Review, "review")}
	pane := b(k.NextPane, "pane")
	switch m.focus {
	case pMemory:
		return []key.Binding{b(k.View, "read"), b(k.Edit, "edit"), b(k.Add, "add"), b(k.Supersede, "supersede"), b(k.Delete, "delete"),
			b(k.Browse, "browse"), b(k.Undo, "undo"), pane}
	case pObjectives:
		return []key.Binding{b(k.Add, "add"), b(k.Edit, "edit"), b(k.Complete, "complete"), b(k.Drop, "drop"), lit("↑/↓", "choose"), pane}
	case pMap:
		if m.mapZoom {
			return append([]key.Binding{b(k.Zoom, "back"), lit("enter", "Mermaid"), lit("↑/↓", "scroll")}, game...)
		}
		return append([]key.Binding{lit("enter", "Mermaid"), b(k.Zoom, "full screen"), lit("↑/↓", "scroll")}, append(game, pane)...)
	case pReasoning:
		return append(game, lit("↑/↓", "scroll"), pane)
	}
	return append(game, b(k.Search, "search"), lit("pgup/pgdn", "scroll"), pane, b(k.Episodes, "episodes"))
}

// helpTail is the end of every footer: "q quit • ? help".
func (m *Model) helpTail() string {
	k := m.c.keys
	m.c.help.SetWidth(0)
	return " " + m.c.help.ShortHelpView([]key.Binding{k.Quit, k.Help})
}

// withHelpKey ends a footer message with the help key, cutting the message
// to fit.
func (m *Model) withHelpKey(msg string, w int) string {
	tail := m.helpTail()
	sep := m.c.styles.HelpDesc.Render(" │")
	lw := max(w-ansi.StringWidth(tail)-ansi.StringWidth(sep), 0)
	return fit(fit(msg, lw)+sep+tail, w)
}

// shortHelp is the footer's help line: the pane's keys, cut to fit, then
// "q quit • ? help", which are always shown and end the line.
func (m *Model) shortHelp(w int) string {
	tail := m.helpTail()
	tw := ansi.StringWidth(tail)
	m.c.help.SetWidth(max(w-tw-2, 0))
	left := ""
	if w-tw-2 > 4 {
		left = " " + m.c.help.ShortHelpView(m.footerKeys())
	}
	m.c.help.SetWidth(0)
	sep := m.c.styles.HelpDesc.Render(" │")
	if left == "" {
		sep = ""
	}
	lw := max(w-tw-ansi.StringWidth(sep), 0)
	return fit(fit(left, lw)+sep+tail, w)
}
