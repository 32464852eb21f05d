package view

import (
	"fmt"
	"math"
	"strings"
)

// Bar is one bar of a bar chart: a share from 0 to 1, with its error.
type Bar struct {
	Label string
	Value float64 // NaN: no value (drawn as "-")
	Err   float64 // the standard error shown beside the value
}

// Bars draws horizontal bars of shares (0 to 1) at most width cells long,
// labels left-aligned before them and the value ± error after; a Label of
// "" leaves a blank line (a gap between groups).
func Bars(title string, bars []Bar, width int) string {
	var b strings.Builder
	b.WriteString(title + "\n")
	width = max(width, 10)
	lw := 0
	for _, x := range bars {
		lw = max(lw, len([]rune(x.Label)))
	}
	for _, x := range bars {
		if x.Label == "" {
			b.WriteString("\n")
			continue
		}
		pad := strings.Repeat(" ", lw-len([]rune(x.Label)))
		if math.IsNaN(x.Value) {
			fmt.Fprintf(&b, "  %s%s |%s -\n", x.Label, pad, strings.Repeat(" ", width))
			continue
		}
		v := math.Max(0, math.Min(1, x.Value))
		n := int(math.Round(v * float64(width)))
		fmt.Fprintf(&b, "  %s%s |%s%s %.2f ± %.2f\n", x.Label, pad, strings.Repeat("█", n), strings.Repeat(" ", width-n), x.Value, x.Err)
	}
	fmt.Fprintf(&b, "  %s  0%s1\n", strings.Repeat(" ", lw), strings.Repeat(" ", width-1))
	return b.String()
}
