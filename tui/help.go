package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// helpDialog is the full help: every key by group, scrolled, filtered by
// the query typed after /.
type helpDialog struct {
	c         *common
	h         host
	offset    int
	query     string
	searching bool
}

func (m *Model) openHelp() { m.open(&helpDialog{c: m.c, h: m}) }

func (d *helpDialog) frame() frame {
	lit := func(keys, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, desc))
	}
	return frame{title: "Keys", keys: []key.Binding{lit("↑/↓", "scroll"), lit("/", "search"), lit("esc", "close")}}
}

// helpEntries are the full help's rows: a heading per group, then one row
// per key.
func helpEntries(k keyMap) []helpEntry {
	groups := []struct {
		title string
		keys  []key.Binding
	}{
		{"Game", []key.Binding{k.Pause, k.Step, k.Input, k.Review, k.Cancel, k.EndEpisode, k.Retry, k.Pull, k.Models, k.Quit}},
		{"Panes", []key.Binding{k.NextPane, k.PrevPane, k.Jump, k.Memory, k.Objectives, k.MapPane, k.Search, k.Episodes, k.Timeline, k.Notes, k.Knowledge, k.Theme, k.Copy, k.Mouse}},
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
		helpEntry{head: "Timeline (T)"},
		helpEntry{key: "enter", desc: "rewind to the turn (asks first; memories are not rewound)"},
		helpEntry{key: "b", desc: "the episode's branches; enter switches to one"},
		helpEntry{head: "Replay (E)"},
		helpEntry{key: "←/→", desc: "step back/forward"},
		helpEntry{key: "home/end", desc: "first/last turn"},
		helpEntry{key: "T", desc: "timeline of the replayed episode: rewind to one of its turns"},
		helpEntry{key: "esc", desc: "back to the live game"},
	)
	return out
}

type helpEntry struct{ head, key, desc string }

// lines are the help's rendered rows, filtered by the query (a group's
// heading stays with its matching keys).
func (d *helpDialog) lines(w int) []string {
	s := d.c.styles
	q := strings.ToLower(strings.TrimSpace(d.query))
	var out []string
	var head string
	for _, e := range helpEntries(d.c.keys) {
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
		out = append(out, s.Muted.Render(fmt.Sprintf("no key matches %q", d.query)))
	}
	return out
}

// view is the visible part of the help for a box of h rows inside.
func (d *helpDialog) view(w, h int) []string {
	ls := d.lines(w)
	page := max(h-1, 1) // the last row says where we are
	d.offset = min(max(d.offset, 0), max(len(ls)-page, 0))
	end := min(d.offset+page, len(ls))
	body := append([]string(nil), ls[d.offset:end]...)
	for len(body) < page && len(ls) > page {
		body = append(body, "")
	}
	var tail string
	switch {
	case d.searching:
		tail = "/" + d.query + "▏ enter keeps · esc clears"
	case len(ls) > page:
		tail = fmt.Sprintf("%d–%d of %d · ↑/↓ pgup/pgdn scroll · / search · esc closes", d.offset+1, end, len(ls))
	default:
		tail = "/ search · ? or esc closes · theme " + d.c.theme.Name
	}
	return append(body, d.c.styles.Muted.Render(ansi.Truncate(tail, w, "…")))
}

// update: scroll, search and close the help.
func (d *helpDialog) update(msg tea.Msg) (dialog, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return d, nil
	}
	s := k.String()
	if d.searching {
		switch s {
		case "enter":
			d.searching = false
		case "esc":
			d.searching, d.query = false, ""
		case "backspace":
			if r := []rune(d.query); len(r) > 0 {
				d.query = string(r[:len(r)-1])
			}
		default:
			if k.Text != "" {
				d.query += k.Text
			}
		}
		d.offset = 0
		return d, nil
	}
	page := max(d.h.areaHeight()-5, 1)
	switch s {
	case "?", "esc", "q":
		if s == "esc" && d.query != "" {
			d.query, d.offset = "", 0
			return d, nil
		}
		return nil, nil
	case "/":
		d.searching = true
	case "up", "k":
		d.offset--
	case "down", "j":
		d.offset++
	case "pgup", "ctrl+u":
		d.offset -= page
	case "pgdown", "ctrl+d", "space":
		d.offset += page
	case "home", "g":
		d.offset = 0
	case "end", "G":
		d.offset = 1 << 20
	}
	return d, nil
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
	if m.replay != nil {
		return []key.Binding{lit("←/→", "step"), lit("home/end", "first/last"), lit("T", "rewind here"), lit("esc", "live game"), b(k.NextPane, "pane")}
	}
	game := []key.Binding{b(k.Pause, "run/pause"), b(k.Step, "step"), b(k.Input, "type"), b(k.Review, "review")}
	pane := b(k.NextPane, "pane")
	switch m.focus {
	case pMemory:
		return []key.Binding{b(k.View, "read"), b(k.Edit, "edit"), b(k.Add, "add"), b(k.Supersede, "supersede"), b(k.Delete, "delete"),
			b(k.Browse, "browse"), b(k.Undo, "undo"), pane}
	case pObjectives:
		return []key.Binding{b(k.Add, "add"), b(k.Edit, "edit"), b(k.Complete, "complete"), b(k.Drop, "drop"), b(k.Undo, "undrop"), lit("↑/↓", "choose"), pane}
	case pMap:
		if m.mapZoom {
			return append([]key.Binding{b(k.Zoom, "back"), lit("enter", "Mermaid"), lit("↑/↓", "scroll")}, game...)
		}
		return append([]key.Binding{lit("enter", "Mermaid"), b(k.Zoom, "full screen"), lit("↑/↓", "scroll")}, append(game, pane)...)
	case pReasoning:
		return append(game, lit("↑/↓", "scroll"), pane)
	}
	// The timeline's key is the footer's tail (footTail): always shown.
	return append(game, b(k.Search, "search"), lit("pgup/pgdn", "scroll"), pane, b(k.Episodes, "episodes"))
}

// helpTail is the end of every footer: "q quit • ? help".
func (m *Model) helpTail() string {
	k := m.c.keys
	m.c.help.SetWidth(0)
	return " " + m.c.help.ShortHelpView([]key.Binding{k.Quit, k.Help})
}

// footTail is the end of the panes' footer, whatever it says: the
// timeline's key (outside a replay, whose own T rewinds from it), then
// "q quit • ? help". The other keys are cut first.
func (m *Model) footTail() string {
	k := m.c.keys
	keys := []key.Binding{k.Quit, k.Help}
	if m.replay == nil {
		tl := key.NewBinding(key.WithKeys(k.Timeline.Keys()...), key.WithHelp(k.Timeline.Help().Key, "timeline"))
		keys = append([]key.Binding{tl}, keys...)
	}
	m.c.help.SetWidth(0)
	return " " + m.c.help.ShortHelpView(keys)
}

// withHelpKey ends a footer message with the help key, cutting the message
// to fit.
func (m *Model) withHelpKey(msg string, w int) string { return m.withTail(msg, w, m.helpTail()) }

// withTail ends a footer message with tail, cutting the message to fit.
func (m *Model) withTail(msg string, w int, tail string) string {
	sep := m.c.styles.HelpDesc.Render(" │")
	lw := max(w-ansi.StringWidth(tail)-ansi.StringWidth(sep), 0)
	return fit(fit(msg, lw)+sep+tail, w)
}

// shortHelp is the panes' footer: the pane's keys, cut to fit, then the
// timeline, quit and help keys, which are always shown and end the line.
func (m *Model) shortHelp(w int) string { return m.keysLine(m.footerKeys(), w, m.footTail()) }

// helpLineOf is a dialog's footer of keys, cut to fit, ending with the
// help key.
func (m *Model) helpLineOf(keys []key.Binding, w int) string {
	return m.keysLine(keys, w, m.helpTail())
}

// keysLine is a footer of keys, cut to fit, ending with tail.
func (m *Model) keysLine(keys []key.Binding, w int, tail string) string {
	tw := ansi.StringWidth(tail)
	m.c.help.SetWidth(max(w-tw-2, 0))
	left := ""
	if w-tw-2 > 4 {
		left = " " + m.c.help.ShortHelpView(keys)
	}
	m.c.help.SetWidth(0)
	sep := m.c.styles.HelpDesc.Render(" │")
	if left == "" {
		sep = ""
	}
	lw := max(w-tw-ansi.StringWidth(sep), 0)
	return fit(fit(left, lw)+sep+tail, w)
}
