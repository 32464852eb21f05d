// Package view draws a benchmark report's tables and charts as text:
// tables through lipgloss's table (columns measured in terminal cells, so
// wide characters line up) and score charts through asciigraph.
package view

import (
	"fmt"
	"math"
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
	"github.com/guptarohit/asciigraph"
)

// Table lays out rows (the first is the header) in aligned columns three
// cells apart, with a rule under the header. No line ends in spaces.
func Table(rows [][]string) string {
	if len(rows) == 0 {
		return ""
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	pad := func(r []string) []string {
		out := make([]string, cols)
		copy(out, r)
		return out
	}
	t := table.New().
		Border(lipgloss.NormalBorder()).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).BorderColumn(false).
		BorderHeader(true).
		StyleFunc(func(_, col int) lipgloss.Style {
			if col < cols-1 {
				return lipgloss.NewStyle().PaddingRight(3)
			}
			return lipgloss.NewStyle()
		}).
		Headers(pad(rows[0])...)
	for _, r := range rows[1:] {
		t.Row(pad(r)...)
	}
	return trimLines(t.String())
}

// Series is one line of a score chart: the score after each turn.
type Series struct {
	Mark   rune // the character the line is drawn with
	Label  string
	Scores []float64
}

// Chart draws score over turns, at most width columns of plot (one per
// turn when there are fewer turns) and height rows, with the series' marks
// explained under it.
func Chart(title string, series []Series, width, height int) string {
	var b strings.Builder
	b.WriteString(title + "\n")
	turns := 0
	var data [][]float64
	var chars []asciigraph.CharSet
	var legend []string
	for _, s := range series {
		turns = max(turns, len(s.Scores))
		if len(s.Scores) == 0 {
			continue
		}
		data = append(data, s.Scores)
		chars = append(chars, asciigraph.CreateCharSet(string(s.Mark)))
		legend = append(legend, fmt.Sprintf("%c %s", s.Mark, s.Label))
	}
	if turns == 0 {
		b.WriteString("  no turns played\n")
		return b.String()
	}
	top := 0.0
	for _, d := range data {
		for _, x := range d {
			top = math.Max(top, x)
		}
	}
	if top <= 0 {
		top = 1
	}
	width = max(2, min(width, turns))
	// No more rows than whole points to the top, so no label repeats.
	rows := max(1, min(height-1, int(math.Ceil(top))))
	plot := asciigraph.PlotMany(data,
		asciigraph.Height(rows), asciigraph.Width(width),
		asciigraph.LowerBound(0), asciigraph.UpperBound(top), asciigraph.Precision(0),
		asciigraph.SeriesChars(chars...), asciigraph.Offset(2),
		asciigraph.XAxisRange(1, float64(turns)), asciigraph.XAxisTickCount(min(turns, 5)),
		asciigraph.XAxisValueFormatter(func(x float64) string { return fmt.Sprintf("%.0f", x) }))
	for _, line := range strings.Split(plot, "\n") {
		b.WriteString("  " + strings.TrimRight(line, " ") + "\n")
	}
	if len(legend) > 1 {
		legend[len(legend)-1] += " (drawn over the others where they meet)"
	}
	fmt.Fprintf(&b, "  turns 1 to %d; %s\n", turns, strings.Join(legend, ", "))
	return b.String()
}

func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}
