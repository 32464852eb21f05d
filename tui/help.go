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
	if d.searching {
		return []binding{
			footed(described(k.Accept, "keeps"), do(func() { d.searching = false })),
			footed(described(k.Back, "clears"), do(func() { d.searching, d.query = false, "" })),
			bind(keyOf("backspace", "delete a letter"), "", do(func() {
				if r := []rune(d.query); len(r) > 0 {
					d.query = string(r[:len(r)-1])
				}
			})),
		}
	}
	page := func() int { return max(d.h.areaHeight()-5, 1) }
	bs := append([]binding{bind(joined("scroll", k.Up, k.Down), "scroll", nil), scrollRow(k)}, scrolling(k, &d.offset, page)...)
	bs = append(bs,
		footed(described(k.Search, "search"), do(func() { d.searching = true })),
		binding{key: described(k.Back, "close (with a search: clear it)"), short: "close", row: "closes", run: do(d.back)},
		bind(joined("close", k.Help, k.Quit), "", do(func() { d.closed = true })),
	)
	return bs
}

// scrollRow names the scroll keys in a dialog's row: "↑/↓ pgup/pgdn
// scroll".
func scrollRow(k keyMap) binding {
	return binding{key: keyOf(joined("", k.Up, k.Down).Help().Key+" "+joined("", k.PageUp, k.PageDown).Help().Key, "scroll"), row: "scroll"}
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
		tail = "/" + d.query + "▏ " + rowText(d.bindings())
	case len(ls) > page:
		tail = fmt.Sprintf("%d–%d of %d · %s", d.offset+1, end, len(ls), rowText(d.bindings()))
	default:
		k := d.c.keys
		tail = fmt.Sprintf("%s search · %s or %s closes · theme %s", k.Search.Help().Key, k.Help.Help().Key, k.Back.Help().Key, d.c.theme.Name)
	}
	return append(body, d.c.styles.Muted.Render(ansi.Truncate(tail, w, "…")))
}

// update: scroll, search and close the help.
func (d *helpDialog) update(msg tea.Msg) (dialog, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return d, nil
	}
	if !d.searching {
		return pressed(d, &d.closed, k, nil)
	}
	if _, ok := dispatch(d.bindings(), k, nil); !ok && k.Text != "" {
		d.query += k.Text
	}
	d.offset = 0
	return d, nil
}
