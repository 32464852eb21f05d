package view

import (
	"flag"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/lantern-if/lantern/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name, got string) {
	t.Helper()
	sharedtest.Golden(t, filepath.Join("testdata", name+".golden"), []byte(got), *update)
}

// TestTableWideCharacters: columns line up in terminal cells when cells
// hold wide characters (CJK, emoji) and accents.
func TestTableWideCharacters(t *testing.T) {
	got := Table([][]string{
		{"metric", "episode 1", "all"},
		{"score", "10", "10.0 mean, best 10"},
		{"部屋 visited", "見る", "3"},
		{"café ☕ lamp", "yes", ""},
		{"short row"},
	})
	golden(t, "table_wide", got)
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	// The second and third columns start at the same cell on every line.
	for _, cells := range [][2]string{{"episode 1", "all"}, {"10", "10.0 mean"}, {"見る", "3"}} {
		for i, l := range lines {
			if !strings.Contains(l, cells[0]) {
				continue
			}
			second := ansi.StringWidth(l[:strings.Index(l, cells[0])])
			third := ansi.StringWidth(l[:strings.LastIndex(l, cells[1])])
			if second != 15 || third != 27 {
				t.Errorf("line %d: columns at cells %d and %d, want 15 and 27:\n%s", i, second, third, got)
			}
		}
	}
	for _, l := range lines {
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing spaces: %q", l)
		}
	}
	if Table(nil) != "" {
		t.Error("an empty table is not empty")
	}
}

func TestChart(t *testing.T) {
	tests := []struct {
		name   string
		series []Series
		width  int
	}{
		{"chart_two_episodes", []Series{
			{'1', "episode 1", []float64{0, 0, 5, 5, 10, 10, 10, 25, 25, 30}},
			{'2', "episode 2", []float64{0, 5, 5, 5, 5, 15}},
		}, 60},
		{"chart_narrowed", []Series{{'A', "run A", ramp(200)}, {'B', "run B", ramp(120)}}, 40},
		{"chart_no_score", []Series{{'1', "episode 1", []float64{0, 0, 0}}}, 60},
		{"chart_empty", []Series{{'1', "episode 1", nil}}, 60},
	}
	for _, tc := range tests {
		got := Chart("Score over turns", tc.series, tc.width, 11)
		golden(t, tc.name, got)
		for _, l := range strings.Split(got, "\n") {
			if w := ansi.StringWidth(l); w > tc.width+12 && !strings.HasPrefix(l, "  turns ") {
				t.Errorf("%s: line %d cells wide for a %d-column plot: %q", tc.name, w, tc.width, l)
			}
			if strings.Contains(l, "\x1b") {
				t.Errorf("%s: escape codes in a plain chart: %q", tc.name, l)
			}
		}
	}
}

func ramp(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i / 10 * 5)
	}
	return out
}

func TestBars(t *testing.T) {
	got := Bars("Normalised score", []Bar{{Label: "905", Value: 1, Err: 0}, {Label: "advent", Value: 0.25, Err: 0.125},
		{Label: ""}, {Label: "no max", Value: math.NaN()}}, 20)
	golden(t, "bars", got)
}
