package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// helpDialog is the full help: every binding by group, generated from the
// components' bindings (so a remapped key shows remapped), scrolled, and
// filtered by the query typed after /.
type helpDialog struct {
	c         *common
	h         host
	rows      []helpRow
	offset    int
	query     string
	searching bool
	closed    bool
}

func newHelp(c *common, h host, rows []helpRow) *helpDialog {
	return &helpDialog{c: c, h: h, rows: rows}
}

func (d *helpDialog) frame() frame { return frame{title: "Keys"} }

// mapLegend are the help's rows that are not keys: how the map draws.
func mapLegend() []helpRow {
	return []helpRow{
		{head: "Map legend"},
		{key: "─ │ ╱ ╲ →", desc: "a way in the line's compass direction (an arrow: known one way)"},
		{key: "up:L5", desc: "an exit not drawn as a line (up, dn, in, out, n…nw, a verb) to L5"},
	}
}

// bindings are the help's keys: scrolling, search, close.
func (d *helpDialog) bindings() []binding {
	k := d.c.keys
	page := func() int { return max(d.h.areaHeight()-5, 1) }
	bs := append([]binding{bind(joined("scroll", k.Up, k.Down), "scroll", nil)}, scrolling(k, &d.offset, page)...)
	bs = append(bs,
		bind(keyOf("/", "search the keys"), "search", do(func() { d.searching = true })),
		bind(described(k.Back, "close (with a search: clear it)"), "close", do(d.back)),
		bind(joined("close", k.Help, k.Quit), "", do(func() { d.closed = true })),
	)
	return bs
}

// back clears the search, else closes.
func (d *helpDialog) back() {
	if d.query != "" {
		d.query, d.offset = "", 0
		return
	}
	d.closed = true
}

// scrolling are the keyMap's scroll keys moving *at by a row, a page,
// or to either end (views clamp it).
func scrolling(k keyMap, at *int, page func() int) []binding {
	by := func(n func() int) func(tea.KeyPressMsg) tea.Cmd {
		return func(tea.KeyPressMsg) tea.Cmd { *at += n(); return nil }
	}
	one := func() int { return 1 }
	return []binding{
		bind(k.Up, "", by(func() int { return -one() })),
		bind(k.Down, "", by(one)),
		bind(k.PageUp, "", by(func() int { return -page() })),
		bind(k.PageDown, "", by(page)),
		bind(described(k.Top, "top"), "", do(func() { *at = 0 })),
		bind(described(k.Bottom, "bottom"), "", do(func() { *at = 1 << 20 })),
	}
}

// scrollHint names the scroll keys for a dialog's last row: "↑/↓ pgup/pgdn".
func scrollHint(k keyMap) string {
	return joined("", k.Up, k.Down).Help().Key + " " + joined("", k.PageUp, k.PageDown).Help().Key
}

// lines are the help's rendered rows, filtered by the query (a group's
// heading stays with its matching keys).
func (d *helpDialog) lines(w int) []string {
	s := d.c.styles
	q := strings.ToLower(strings.TrimSpace(d.query))
	var out []string
	var head string
	for _, e := range d.rows {
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
		tail = fmt.Sprintf("%d–%d of %d · %s scroll · / search · esc closes", d.offset+1, end, len(ls), scrollHint(d.c.keys))
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
	if d.searching {
		d.search(k)
		return d, nil
	}
	cmd, _ := dispatch(d.bindings(), k, nil)
	if d.closed {
		return nil, cmd
	}
	return d, cmd
}

// search types the query.
func (d *helpDialog) search(k tea.KeyPressMsg) {
	switch k.String() {
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
}
