package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
)

// The bench's text output: a table of the metrics (a column per episode and
// one for the run), the turns to each score milestone, and a chart of score
// over turns; --compare puts two runs side by side with the difference.

// metricRow is one line of the table: how to write a metric, and for a
// comparison, the number the difference is taken of.
type metricRow struct {
	name  string
	value func(m benchMetrics) string
	num   func(m benchMetrics) float64 // nil: no difference shown
	unit  string                       // of the difference
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

var metricRows = []metricRow{
	{"ending", func(m benchMetrics) string { return m.Ending }, nil, ""},
	{"score", func(m benchMetrics) string {
		if m.Name == "all" {
			return fmt.Sprintf("%.1f mean, best %d", m.Score, m.BestScore)
		}
		return fmt.Sprintf("%.0f", m.Score)
	}, func(m benchMetrics) float64 { return m.Score }, ""},
	{"moves", func(m benchMetrics) string {
		if m.Name == "all" {
			return fmt.Sprintf("%.1f mean", m.Moves)
		}
		return fmt.Sprintf("%.0f", m.Moves)
	}, func(m benchMetrics) float64 { return m.Moves }, ""},
	{"turns", func(m benchMetrics) string { return fmt.Sprint(m.Turns) }, func(m benchMetrics) float64 { return float64(m.Turns) }, ""},
	{"deaths", func(m benchMetrics) string { return fmt.Sprint(m.Deaths) }, func(m benchMetrics) float64 { return float64(m.Deaths) }, ""},
	{"repeated failed action rate", func(m benchMetrics) string { return pct(m.RepeatedFailedRate) },
		func(m benchMetrics) float64 { return 100 * m.RepeatedFailedRate }, " pts"},
	{"location coverage", func(m benchMetrics) string {
		return fmt.Sprintf("%s (%d/%d)", pct(m.LocationCoverage), m.LocationsCovered, m.LocationsVisited)
	}, func(m benchMetrics) float64 { return 100 * m.LocationCoverage }, " pts"},
	{"LLM calls per turn", func(m benchMetrics) string { return fmt.Sprintf("%.2f", m.LLMCallsPerTurn) },
		func(m benchMetrics) float64 { return m.LLMCallsPerTurn }, ""},
	{"critic proposals per turn", func(m benchMetrics) string { return fmt.Sprintf("%.2f", m.ProposalsPerTurn) },
		func(m benchMetrics) float64 { return m.ProposalsPerTurn }, ""},
	{"critic rejections (ground truth/model), overridden", func(m benchMetrics) string {
		return fmt.Sprintf("%d / %d, %d", m.RejectedByStage[engine.StageGroundTruth], m.RejectedByStage[engine.StageModel], m.OverriddenRejections)
	}, func(m benchMetrics) float64 {
		return float64(m.RejectedByStage[engine.StageGroundTruth] + m.RejectedByStage[engine.StageModel])
	}, ""},
	{reviewRow, func(m benchMetrics) string {
		if m.ReviewDecisions == 0 {
			return "-"
		}
		return fmt.Sprintf("%s of %d", pct(m.ReviewAcceptance), m.ReviewDecisions)
	}, func(m benchMetrics) float64 { return 100 * max(m.ReviewAcceptance, 0) }, " pts"},
	{"prompt tokens/turn p50/p95", func(m benchMetrics) string { return fmt.Sprintf("%d / %d", m.PromptTokensP50, m.PromptTokensP95) },
		func(m benchMetrics) float64 { return float64(m.PromptTokensP50) }, " (p50)"},
	{"model latency p50/p95", func(m benchMetrics) string {
		return fmt.Sprintf("%s / %s", msText(m.LatencyP50MS), msText(m.LatencyP95MS))
	},
		func(m benchMetrics) float64 { return m.LatencyP50MS }, " ms (p50)"},
	{"harness overhead per turn", func(m benchMetrics) string { return msText(m.HarnessPerTurnMS) },
		func(m benchMetrics) float64 { return m.HarnessPerTurnMS }, " ms"},
}

const reviewRow = "person's acceptance (review mode)"

func msText(ms float64) string {
	switch {
	case ms >= 10000:
		return fmt.Sprintf("%.1fs", ms/1000)
	case ms >= 100:
		return fmt.Sprintf("%.0fms", ms)
	}
	return fmt.Sprintf("%.2fms", ms)
}

// table writes rows of cells with aligned columns.
func table(w io.Writer, rows [][]string) {
	widths := map[int]int{}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len([]rune(c))+3))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

func modelsText(models map[string]string) string {
	if len(models) == 0 {
		return "no model (ground-truth critic only)"
	}
	first := models[config.RoleAgent]
	same := true
	for _, m := range models {
		same = same && m == first
	}
	if same {
		return "every role " + first
	}
	var parts []string
	for _, r := range config.RoleNames() {
		parts = append(parts, r+" "+models[r])
	}
	return strings.Join(parts, ", ")
}

func runTitle(r *benchReport) string {
	state := "complete"
	if !r.Complete {
		state = "incomplete"
		if r.Error != "" {
			state += ": " + r.Error
		}
	}
	id := "run"
	if r.ID != 0 {
		id = fmt.Sprintf("run %d", r.ID)
	}
	return fmt.Sprintf("Bench %s: %s (release %d), %s, %d of %d episodes (%s), at most %d turns, seed %d",
		id, r.Story, r.Release, r.Label, len(r.Episodes), r.Requested, state, r.MaxTurns, r.Seed)
}

func printBench(w io.Writer, r *benchReport, width int) {
	fmt.Fprintln(w, runTitle(r))
	fmt.Fprintf(w, "Agent %s; models: %s", r.Agent, modelsText(r.Models))
	if r.Host != "" {
		fmt.Fprintf(w, " (Ollama at %s)", r.Host)
	}
	fmt.Fprintln(w)
	if r.DB != "" && r.ID != 0 {
		fmt.Fprintf(w, "Stored as run %d in %s\n", r.ID, r.DB)
	}
	eps := r.Summary[:len(r.Summary)-1]
	all := r.Summary[len(r.Summary)-1]
	// Four episodes to a table; the run's column ends the last one.
	for start := 0; start < len(eps) || start == 0; start += 4 {
		cols := eps[start:min(start+4, len(eps))]
		if start+4 >= len(eps) {
			cols = append(append([]benchMetrics(nil), cols...), all)
		}
		head := []string{"metric"}
		for _, c := range cols {
			head = append(head, c.Name)
		}
		rows := [][]string{head}
		for _, mr := range metricRows {
			if mr.name == reviewRow && all.ReviewDecisions == 0 {
				continue // nobody reviewed: no column of dashes
			}
			row := []string{mr.name}
			for _, c := range cols {
				row = append(row, mr.value(c))
			}
			rows = append(rows, row)
		}
		fmt.Fprintln(w)
		table(w, rows)
		if start+4 >= len(eps) {
			break
		}
	}
	printRoles(w, r.Roles)
	fmt.Fprintln(w, "\nTurns to each score milestone (score@turn)")
	for _, m := range r.Summary {
		name := m.Name
		if name == "all" {
			name = "fastest"
		}
		fmt.Fprintf(w, "  %-11s %s\n", name, milestonesText(m.Milestones))
	}
	var series []chartSeries
	for i, e := range r.Episodes {
		series = append(series, chartSeries{mark: markFor(i), label: fmt.Sprintf("episode %d", e.Episode), scores: floats(e.Scores)})
	}
	fmt.Fprintln(w)
	scoreChart(w, series, width, 11)
	if r.Dropped > 0 {
		fmt.Fprintf(w, "\n%d model call(s) belonged to no played turn and count in no per-turn metric.\n", r.Dropped)
	}
}

func milestonesText(ms []milestone) string {
	if len(ms) == 0 {
		return "no points scored"
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = fmt.Sprintf("%d@T%d", m.Score, m.Turn)
	}
	return strings.Join(parts, " ")
}

func markFor(i int) byte {
	const marks = "123456789abcdefghijklmnopqrstuvwxyz"
	return marks[i%len(marks)]
}

func floats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// meanSeries is the mean score over a run's episodes at each turn; an
// episode that has ended counts with its final score.
func meanSeries(r *benchReport) []float64 {
	n := 0
	for _, e := range r.Episodes {
		n = max(n, len(e.Scores))
	}
	out := make([]float64, n)
	for t := range out {
		s := 0.0
		for _, e := range r.Episodes {
			switch {
			case t < len(e.Scores):
				s += float64(e.Scores[t])
			case len(e.Scores) > 0:
				s += float64(e.Scores[len(e.Scores)-1])
			}
		}
		out[t] = s / float64(len(r.Episodes))
	}
	return out
}

func printComparison(w io.Writer, a, b *benchReport, width int) {
	fmt.Fprintln(w, "A: "+runTitle(a))
	fmt.Fprintf(w, "   models: %s\n", modelsText(a.Models))
	fmt.Fprintln(w, "B: "+runTitle(b))
	fmt.Fprintf(w, "   models: %s\n", modelsText(b.Models))
	if a.StoryMD5 != b.StoryMD5 {
		fmt.Fprintln(w, "Note: the runs played different story files.")
	}
	ma, mb := a.Summary[len(a.Summary)-1], b.Summary[len(b.Summary)-1]
	rows := [][]string{{"metric (whole run)", "A", "B", "B - A"}}
	for _, mr := range metricRows {
		if mr.num == nil {
			continue
		}
		d := deltaText(mr.num(mb)-mr.num(ma)) + mr.unit
		rows = append(rows, []string{mr.name, mr.value(ma), mr.value(mb), d})
	}
	fmt.Fprintln(w)
	table(w, rows)
	fmt.Fprintln(w, "\nTurns to each score milestone (fastest episode)")
	scores := map[int]bool{}
	ta, tb := map[int]int{}, map[int]int{}
	for _, m := range ma.Milestones {
		scores[m.Score], ta[m.Score] = true, m.Turn
	}
	for _, m := range mb.Milestones {
		scores[m.Score], tb[m.Score] = true, m.Turn
	}
	var list []int
	for s := range scores {
		list = append(list, s)
	}
	sort.Ints(list)
	if len(list) == 0 {
		fmt.Fprintln(w, "  neither run scored")
	} else {
		mrows := [][]string{{"  score", "A", "B"}}
		turn := func(m map[int]int, s int) string {
			if t, ok := m[s]; ok {
				return fmt.Sprintf("T%d", t)
			}
			return "-"
		}
		for _, s := range list {
			mrows = append(mrows, []string{fmt.Sprintf("  %d", s), turn(ta, s), turn(tb, s)})
		}
		table(w, mrows)
	}
	fmt.Fprintln(w)
	scoreChart(w, []chartSeries{{mark: 'A', label: "run A (mean of its episodes)", scores: meanSeries(a)},
		{mark: 'B', label: "run B (mean of its episodes)", scores: meanSeries(b)}}, width, 11)
}

// chartSeries is one line of the score chart: the score after each turn.
type chartSeries struct {
	mark   byte
	label  string
	scores []float64
}

// scoreChart draws score over turns in text: a column per group of turns,
// a row per band of score; '*' where two series meet.
func scoreChart(w io.Writer, series []chartSeries, width, height int) {
	turns := 0
	top := 0.0
	for _, s := range series {
		turns = max(turns, len(s.scores))
		for _, x := range s.scores {
			top = math.Max(top, x)
		}
	}
	fmt.Fprintln(w, "Score over turns")
	if turns == 0 {
		fmt.Fprintln(w, "  no turns played")
		return
	}
	if top <= 0 {
		top = 1
	}
	width = max(1, min(width, turns))
	height = max(2, height)
	overlap := false
	grid := make([][]byte, height)
	for i := range grid {
		grid[i] = []byte(strings.Repeat(" ", width))
	}
	for _, s := range series {
		for c := 0; c < width; c++ {
			t := (c+1)*turns/width - 1 // the last turn of the column
			if t >= len(s.scores) {
				break
			}
			row := int(math.Round(s.scores[t] / top * float64(height-1)))
			cell := &grid[height-1-row][c]
			if *cell != ' ' && *cell != s.mark {
				*cell = '*'
				overlap = true
			} else {
				*cell = s.mark
			}
		}
	}
	labels := make([]string, height)
	labels[0] = trimFloat(top)
	labels[height-1] = "0"
	if height >= 5 {
		labels[(height-1)/2] = trimFloat(top * float64(height-1-(height-1)/2) / float64(height-1))
	}
	lw := 0
	for _, l := range labels {
		lw = max(lw, len(l))
	}
	for i, row := range grid {
		fmt.Fprintf(w, "  %*s |%s\n", lw, labels[i], strings.TrimRight(string(row), " "))
	}
	fmt.Fprintf(w, "  %*s +%s\n", lw, "", strings.Repeat("-", width))
	end := fmt.Sprintf("%d", turns)
	gap := max(1, width-1-len(end))
	fmt.Fprintf(w, "  %*s  1%s%s turns\n", lw, "", strings.Repeat(" ", gap), end)
	var legend []string
	for _, s := range series {
		legend = append(legend, fmt.Sprintf("%c %s", s.mark, s.label))
	}
	if overlap {
		legend = append(legend, "* more than one")
	}
	fmt.Fprintf(w, "  %s\n", strings.Join(legend, ", "))
}

// deltaText writes a difference with its sign, whole numbers without
// decimals.
func deltaText(d float64) string {
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return "-"
	}
	if math.Abs(d-math.Round(d)) < 1e-9 {
		return fmt.Sprintf("%+.0f", d)
	}
	return fmt.Sprintf("%+.2f", d)
}

func trimFloat(x float64) string {
	if x == math.Trunc(x) {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.1f", x)
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// printRoles prints the per-role table: calls and whole-prompt tokens per
// turn, the share of prompt tokens Ollama's cache served (the whole prompt
// is Lantern's estimate at the model's learned tokens per character;
// Ollama counts only the tokens it evaluated), and model loads (calls
// whose load_duration reached llm.LoadThreshold).
func printRoles(w io.Writer, roles []llm.RoleStats) {
	if len(roles) == 0 {
		return
	}
	rows := [][]string{{"role", "calls/turn", "prompt tokens/turn", "cache share", "model loads"}}
	for _, r := range roles {
		rows = append(rows, []string{r.Role, fmt.Sprintf("%.2f", r.CallsPerTurn), fmt.Sprintf("%.0f", r.PromptPerTurn), pct(r.CacheShare), fmt.Sprint(r.Loads)})
	}
	fmt.Fprintln(w, "\nModel calls by role")
	table(w, rows)
}
