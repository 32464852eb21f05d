package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/memory/rundb"
)

// The two lists of lines of play, the timeline's branch list (b) and the
// episode list (E), show every line alike, from the line's own row: its
// written form, its #ID, where it forked (a turn of its parent line, for
// every branch, named or not), its last turn, score and moves, and how it
// ended.

// lineRow is a line of play as the lists show it.
type lineRow struct {
	line                domain.Line
	from                string // where it forked ("" for an episode's main line)
	turns, score, moves int
	ending              string // how it ended, "" while unfinished
	started             string // when it started ("" to leave the column out)
}

// cells are the row's columns, as lineColumns names them.
func (r lineRow) cells() []string {
	ending := r.ending
	if ending == "" {
		ending = "unfinished"
	}
	from := r.from
	if from == "" {
		from = "—"
	}
	return []string{lineName(r.line), "#" + strconv.FormatInt(r.line.ID, 10), from, strconv.Itoa(r.turns),
		strconv.Itoa(r.score), strconv.Itoa(r.moves), ending, r.started}
}

// lineColumns are the lists' columns; the started column comes last and
// goes first when the width is short.
var lineColumns = []column{
	{head: "line", flex: true}, {head: "id"}, {head: "from", flex: true}, {head: "turns", right: true},
	{head: "score", right: true}, {head: "moves", right: true}, {head: "ending"}, {head: "started", optional: true},
}

// column is a column of a table.
type column struct {
	head     string
	right    bool // numbers: aligned right
	flex     bool // cut to share the width when the row is too wide
	optional bool // left out when the row is too wide
}

// table lays rows of cells out in columns two cells apart, each as wide
// as its widest cell: when that is wider than w, the optional columns go,
// then the flexible ones are cut (the widest first, to 8 cells at the
// least). A column empty in every row is left out. It returns the head
// and the rows, in plain text.
func table(cols []column, rows [][]string, w int) (string, []string) {
	const gap = 2
	widths := make([]int, len(cols))
	used := make([]bool, len(cols))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], ansi.StringWidth(c))
			used[i] = used[i] || c != ""
		}
	}
	total := 0
	for i, c := range cols {
		if used[i] {
			widths[i] = max(widths[i], ansi.StringWidth(c.head))
			total += widths[i] + gap
		}
	}
	total -= gap
	for i := len(cols) - 1; i >= 0 && total > w; i-- {
		if cols[i].optional && used[i] {
			used[i] = false
			total -= widths[i] + gap
		}
	}
	for total > w {
		j := -1
		for i, c := range cols {
			if used[i] && c.flex && widths[i] > 8 && (j < 0 || widths[i] > widths[j]) {
				j = i
			}
		}
		if j < 0 {
			break
		}
		widths[j]--
		total--
	}
	lay := func(cells []string) string {
		var parts []string
		for i, c := range cells {
			switch {
			case !used[i]:
			case cols[i].right:
				parts = append(parts, fmt.Sprintf("%*s", widths[i], c))
			default:
				parts = append(parts, fit(c, widths[i]))
			}
		}
		return strings.TrimRight(strings.Join(parts, strings.Repeat(" ", gap)), " ")
	}
	heads := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = c.head
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = lay(r)
	}
	return lay(heads), out
}

// lineTable lays lines of play out at width w.
func lineTable(rows []lineRow, w int) (string, []string) {
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = r.cells()
	}
	return table(lineColumns, cells, w)
}

// branchRows are the timeline's branch rows as lines of play.
func (d *timeline) branchRows() []lineRow {
	lines := make(map[int64]domain.Line, len(d.rows))
	for _, r := range d.rows {
		lines[r.ID] = d.rowLine(r)
	}
	out := make([]lineRow, len(d.rows))
	for i, r := range d.rows {
		l := lines[r.ID]
		out[i] = lineRow{line: l, from: forkedFrom(l, lines), turns: r.Turns, score: r.Score, moves: r.Moves}
		if r.Ended {
			out[i].ending = orDash(r.Reason)
		}
	}
	return out
}

// branchView is the branch list.
func (d *timeline) branchView(w, h int) []string {
	s := d.c.styles
	switch {
	case !d.rowsRead:
		return []string{s.Muted.Render("Reading lantern.db…")}
	case d.rowsErr != "":
		return append([]string{s.Error.Render(fit(d.rowsErr, w)), ""}, d.keysLines(w)...)
	}
	keys := d.keysLines(w)
	out := []string{d.c.render(mkLine(seg{"The lines of play of this episode (● the one being played):", stMuted}), w, "", false)}
	head, rows := lineTable(d.branchRows(), w-2)
	out = append(out, d.c.render(mkLine(seg{"  " + head, stMuted}), w, "", false))
	listH := max(h-2-len(keys), 1)
	top := min(max(d.rowSel-listH/2, 0), max(len(d.rows)-listH, 0))
	for i := top; i < top+listH && i < len(d.rows); i++ {
		cursor, st := "  ", stText
		if d.rows[i].ID == d.live {
			cursor, st = "● ", stTitle
		}
		out = append(out, d.c.render(mkLine(seg{cursor, stTitle}, seg{rows[i], st}), w, "", i == d.rowSel))
	}
	for len(out) < h-len(keys) {
		out = append(out, "")
	}
	return append(out, keys...)
}

// episodeRows are the stored lines of play as the episode list shows
// them.
func episodeRows(eps []rundb.EpisodeSummary) []lineRow {
	lines := make(map[int64]domain.Line, len(eps))
	for _, e := range eps {
		lines[e.ID] = e.Line()
	}
	out := make([]lineRow, len(eps))
	for i, e := range eps {
		l := lines[e.ID]
		out[i] = lineRow{line: l, from: forkedFrom(l, lines), turns: e.Turns, score: e.Score, moves: e.Moves, ending: e.Reason, started: "—"}
		if !e.Started.IsZero() {
			out[i].started = e.Started.Local().Format("2006-01-02 15:04")
		}
	}
	return out
}

// keyRows lays a dialog's keys out ("key desc · key desc"), wrapped
// between keys to w cells.
func keyRows(c *common, w int, keys ...key.Binding) []string {
	s := c.styles
	const sep = " · "
	sw := ansi.StringWidth(sep)
	var out []string
	var b strings.Builder
	used := 0
	for _, kb := range keys {
		k := [2]string{kb.Help().Key, kb.Help().Desc}
		kw := ansi.StringWidth(k[0]) + 1 + ansi.StringWidth(k[1])
		if used > 0 && used+sw+kw > w {
			out = append(out, b.String())
			b.Reset()
			used = 0
		}
		if used > 0 {
			b.WriteString(s.HelpDesc.Render(sep))
			used += sw
		}
		b.WriteString(s.HelpKey.Render(k[0]) + s.HelpDesc.Render(" "+k[1]))
		used += kw
	}
	return append(out, b.String())
}
