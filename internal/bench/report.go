package bench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/internal/bench/view"
)

// The bench's text output: a table of the metrics (a column per episode and
// one for the run), the turns to each score milestone, and a chart of score
// over turns; --compare puts two runs side by side with the difference.

// metricRow is one line of the table: how to write a metric, and for a
// comparison, the number the difference is taken of.
type metricRow struct {
	name  string
	value func(m Metrics) string
	num   func(m Metrics) float64 // nil: no difference shown
	unit  string                  // of the difference
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// metricRows are the report's metrics, a row each.
func metricRows() []metricRow { return append(playRows(), costRows()...) }

// playRows are the report's rows of how the episodes played.
func playRows() []metricRow {
	return []metricRow{
		{"ending", func(m Metrics) string { return m.Ending }, nil, ""},
		{"score", func(m Metrics) string {
			switch {
			case m.Name != "all":
				return fmt.Sprintf("%.0f", m.Score)
			case m.Stopped > 0 && m.Stopped == m.Episodes:
				return fmt.Sprintf("- (every episode stopped), best %d", m.BestScore)
			case m.Stopped > 0:
				return fmt.Sprintf("%.1f mean of %d, best %d", m.Score, m.Episodes-m.Stopped, m.BestScore)
			}
			return fmt.Sprintf("%.1f mean, best %d", m.Score, m.BestScore)
		}, func(m Metrics) float64 { return m.Score }, ""},
		{"moves", func(m Metrics) string {
			switch {
			case m.Name != "all":
				return fmt.Sprintf("%.0f", m.Moves)
			case m.Stopped > 0 && m.Stopped == m.Episodes:
				return "-"
			case m.Stopped > 0:
				return fmt.Sprintf("%.1f mean of %d", m.Moves, m.Episodes-m.Stopped)
			}
			return fmt.Sprintf("%.1f mean", m.Moves)
		}, func(m Metrics) float64 { return m.Moves }, ""},
		{"turns", func(m Metrics) string { return fmt.Sprint(m.Turns) }, func(m Metrics) float64 { return float64(m.Turns) }, ""},
		{"deaths", func(m Metrics) string { return fmt.Sprint(m.Deaths) }, func(m Metrics) float64 { return float64(m.Deaths) }, ""},
		{"repeated failed action rate", func(m Metrics) string { return pct(m.RepeatedFailedRate) },
			func(m Metrics) float64 { return 100 * m.RepeatedFailedRate }, " pts"},
		{"location coverage", func(m Metrics) string {
			return fmt.Sprintf("%s (%d/%d)", pct(m.LocationCoverage), m.LocationsCovered, m.LocationsVisited)
		}, func(m Metrics) float64 { return 100 * m.LocationCoverage }, " pts"},
		{"LLM calls per turn", func(m Metrics) string { return fmt.Sprintf("%.2f", m.LLMCallsPerTurn) },
			func(m Metrics) float64 { return m.LLMCallsPerTurn }, ""},
		{"critic proposals per turn", func(m Metrics) string { return fmt.Sprintf("%.2f", m.ProposalsPerTurn) },
			func(m Metrics) float64 { return m.ProposalsPerTurn }, ""},
		{"critic rejections (ground truth/model), overridden", func(m Metrics) string {
			return fmt.Sprintf("%d / %d, %d", m.RejectedByStage[engine.StageGroundTruth], m.RejectedByStage[engine.StageModel], m.OverriddenRejections)
		}, func(m Metrics) float64 {
			return float64(m.RejectedByStage[engine.StageGroundTruth] + m.RejectedByStage[engine.StageModel])
		}, ""},
		{reviewRow, func(m Metrics) string {
			if m.ReviewDecisions == 0 {
				return "-"
			}
			return fmt.Sprintf("%s of %d", pct(m.ReviewAcceptance), m.ReviewDecisions)
		}, func(m Metrics) float64 { return 100 * max(m.ReviewAcceptance, 0) }, " pts"},
	}
}

// costRows are the report's rows of model cost and time.
func costRows() []metricRow {
	return []metricRow{
		{"prompt tokens/turn p50/p95", func(m Metrics) string { return fmt.Sprintf("%d / %d", m.PromptTokensP50, m.PromptTokensP95) },
			func(m Metrics) float64 { return float64(m.PromptTokensP50) }, " (p50)"},
		{"model latency p50/p95", func(m Metrics) string {
			return fmt.Sprintf("%s / %s", msText(m.LatencyP50MS), msText(m.LatencyP95MS))
		},
			func(m Metrics) float64 { return m.LatencyP50MS }, " ms (p50)"},
		{"harness overhead per turn", func(m Metrics) string { return msText(m.HarnessPerTurnMS) },
			func(m Metrics) float64 { return m.HarnessPerTurnMS }, " ms"},
		{"turn wall / agent call (mean)", func(m Metrics) string {
			if m.AgentPerTurnMS == 0 {
				return "-"
			}
			return fmt.Sprintf("%s / %s", msText(m.WallPerTurnMS), msText(m.AgentPerTurnMS))
		}, func(m Metrics) float64 { return m.WallPerTurnMS }, " ms (wall)"},
		{"wall ÷ agent mean/p50/p95", func(m Metrics) string {
			if m.AgentPerTurnMS == 0 {
				return "-"
			}
			return fmt.Sprintf("%.2f / %.2f / %.2f", m.WaitRatio, m.WaitRatioP50, m.WaitRatioP95)
		}, func(m Metrics) float64 { return m.WaitRatio }, " (mean)"},
		{"wall ÷ model work (model work)", func(m Metrics) string {
			if m.ModelPerTurnMS == 0 {
				return "-"
			}
			return fmt.Sprintf("%.2f (%s)", m.WallOverModel, msText(m.ModelPerTurnMS))
		}, func(m Metrics) float64 { return m.WallOverModel }, ""},
		{"memory questions: reply/own call/none", func(m Metrics) string {
			if m.Memory.Asked == 0 {
				return "-"
			}
			return fmt.Sprintf("%s: %d / %d / %d", pct(m.MemoryShare), m.Memory.InReply, m.Memory.OwnCall, m.Memory.Unanswered)
		}, func(m Metrics) float64 { return 100 * m.MemoryShare }, " pts"},
		{"critic decided by (game/truth/model)", func(m Metrics) string {
			return fmt.Sprintf("%d / %d / %d", m.DecidedByStage[engine.StageGame], m.DecidedByStage[engine.StageGroundTruth], m.DecidedByStage[engine.StageModel])
		}, func(m Metrics) float64 { return float64(m.DecidedByStage[engine.StageModel]) }, " (model)"},
	}
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

// Table writes rows of cells (the first is the header) in aligned columns.
func Table(w io.Writer, rows [][]string) {
	fmt.Fprint(w, view.Table(rows))
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

func RunTitle(r *Report) string {
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
	played := fmt.Sprintf("%d of %d episodes", len(r.Episodes), r.Requested)
	if n := stoppedEpisodes(r); n > 0 {
		played += fmt.Sprintf(", %d stopped", n)
	}
	if r.Shard != nil {
		played = fmt.Sprintf("shard %d/%d: %d of episodes %d to %d of %d", r.Shard.Index, r.Shard.Count, len(r.Episodes),
			r.Shard.FirstEpisode, r.Shard.FirstEpisode+r.Requested-1, r.Shard.Total)
	}
	return fmt.Sprintf("Bench %s: %s (release %d), %s, %s (%s), at most %d turns, seed %d",
		id, r.Story, r.Release, r.Label, played, state, r.MaxTurns, r.Seed)
}

func Print(w io.Writer, r *Report, width int) {
	fmt.Fprintln(w, RunTitle(r))
	fmt.Fprintf(w, "Agent %s; models: %s", r.Agent, modelsText(r.Models))
	switch line := serverText(r.Provenance); {
	case line != "":
		fmt.Fprintf(w, " (%s)", line)
	case r.Host != "":
		fmt.Fprintf(w, " (at %s)", r.Host) // format 1: no protocol recorded
	}
	fmt.Fprintln(w)
	printIdentities(w, r)
	if n := stoppedEpisodes(r); n > 0 {
		fmt.Fprintf(w, "%d episode(s) stopped before the game or the turn limit ended them: shown, left out of the means.\n", n)
	}
	if r.MemoryMode != "" {
		fmt.Fprintf(w, "Memories decided %s\n", r.MemoryMode)
	}
	switch {
	case r.Index != "" && r.ID != 0:
		fmt.Fprintf(w, "Stored as run %d in %s (its episodes in %s)\n", r.ID, r.Index, r.DB)
	case r.DB != "" && r.ID != 0:
		fmt.Fprintf(w, "Stored as run %d in %s\n", r.ID, r.DB)
	}
	eps := r.Summary[:len(r.Summary)-1]
	all := r.Summary[len(r.Summary)-1]
	// Four episodes to a table; the run's column ends the last one.
	for start := 0; start < len(eps) || start == 0; start += 4 {
		cols := eps[start:min(start+4, len(eps))]
		if start+4 >= len(eps) {
			cols = append(append([]Metrics(nil), cols...), all)
		}
		head := []string{"metric"}
		for _, c := range cols {
			head = append(head, c.Name)
		}
		rows := [][]string{head}
		for _, mr := range metricRows() {
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
		Table(w, rows)
		if start+4 >= len(eps) {
			break
		}
	}
	printRoles(w, r)
	printObjectiveQuality(w, r)
	fmt.Fprintln(w, "\nTurns to each score milestone (score@turn)")
	for _, m := range r.Summary {
		name := m.Name
		if name == "all" {
			name = "fastest"
		}
		fmt.Fprintf(w, "  %-11s %s\n", name, milestonesText(m.Milestones))
	}
	var series []ChartSeries
	for i, e := range r.Episodes {
		series = append(series, ChartSeries{mark: markFor(i), label: fmt.Sprintf("episode %d", e.Episode), scores: floats(e.Scores)})
	}
	fmt.Fprintln(w)
	ScoreChart(w, series, width, 11)
	if r.Dropped > 0 {
		fmt.Fprintf(w, "\n%d model call(s) belonged to no played turn and count in no per-turn metric.\n", r.Dropped)
	}
}

func stoppedEpisodes(r *Report) int {
	n := 0
	for _, e := range r.Episodes {
		if Stopped(e) {
			n++
		}
	}
	return n
}

// printIdentities names the weights behind each model the run used, as
// its first server described them.
func printIdentities(w io.Writer, r *Report) {
	if r.Provenance == nil {
		return
	}
	var models []string
	for _, role := range config.RoleNames() {
		if m := r.Models[role]; m != "" && !slices.Contains(models, m) {
			models = append(models, m)
		}
	}
	for _, m := range models {
		if id, ok := r.Provenance.Identity(m); ok {
			fmt.Fprintf(w, "Model %s: %s\n", m, identityText(id))
		}
	}
}

func milestonesText(ms []Milestone) string {
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
// episode that has ended counts with its final score; one a stop cut
// short, not at all.
func meanSeries(r *Report) []float64 {
	var eps []Episode
	for _, e := range r.Episodes {
		if !Stopped(e) {
			eps = append(eps, e)
		}
	}
	n := 0
	for _, e := range eps {
		n = max(n, len(e.Scores))
	}
	out := make([]float64, n)
	for t := range out {
		s := 0.0
		for _, e := range eps {
			switch {
			case t < len(e.Scores):
				s += float64(e.Scores[t])
			case len(e.Scores) > 0:
				s += float64(e.Scores[len(e.Scores)-1])
			}
		}
		out[t] = s / float64(len(eps))
	}
	return out
}

func PrintComparison(w io.Writer, a, b *Report, width int) {
	for _, side := range []struct {
		name string
		r    *Report
	}{{"A", a}, {"B", b}} {
		fmt.Fprintln(w, side.name+": "+RunTitle(side.r))
		fmt.Fprintf(w, "   models: %s", modelsText(side.r.Models))
		if line := serverText(side.r.Provenance); line != "" {
			fmt.Fprintf(w, " (%s)", line)
		}
		fmt.Fprintln(w)
	}
	if a.StoryMD5 != b.StoryMD5 {
		fmt.Fprintln(w, "Note: the runs played different story files.")
	}
	ma, mb := a.Summary[len(a.Summary)-1], b.Summary[len(b.Summary)-1]
	rows := [][]string{{"metric (whole run)", "A", "B", "B - A"}}
	for _, mr := range metricRows() {
		if mr.num == nil {
			continue
		}
		d := deltaText(mr.num(mb)-mr.num(ma)) + mr.unit
		rows = append(rows, []string{mr.name, mr.value(ma), mr.value(mb), d})
	}
	fmt.Fprintln(w)
	Table(w, rows)
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
		Table(w, mrows)
	}
	fmt.Fprintln(w)
	ScoreChart(w, []ChartSeries{{mark: 'A', label: "run A (mean of its episodes)", scores: meanSeries(a)},
		{mark: 'B', label: "run B (mean of its episodes)", scores: meanSeries(b)}}, width, 11)
}

// ChartSeries is one line of the score chart: the score after each turn.
type ChartSeries struct {
	mark   byte
	label  string
	scores []float64
}

// ScoreChart draws score over turns.
func ScoreChart(w io.Writer, series []ChartSeries, width, height int) {
	var vs []view.Series
	for _, s := range series {
		vs = append(vs, view.Series{Mark: rune(s.mark), Label: s.label, Scores: s.scores})
	}
	fmt.Fprint(w, view.Chart("Score over turns", vs, width, height))
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

// Clip shortens s to n runes, marking the cut with an ellipsis.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// printRoles prints the per-role table: calls (in all and per turn),
// prompt tokens (in all, the run's one total on the "all" row, and per
// turn), the share of prompt tokens the server's prompt cache held (from
// llm's model of the server's cache slots: the prefix a prompt shares with
// the one the slot holds), and model loads (calls whose load_duration
// reached llm.LoadThreshold).
func printRoles(w io.Writer, r *Report) {
	if len(r.Roles) == 0 {
		return
	}
	turns := 0.0
	if len(r.Summary) > 0 {
		turns = float64(r.Summary[len(r.Summary)-1].Turns)
	}
	rows := [][]string{{"role", "calls", "calls/turn", "prompt tokens", "prompt tokens/turn", "cache share", "model loads"}}
	for _, rs := range r.Roles {
		rows = append(rows, []string{rs.Role, fmt.Sprint(rs.Calls), fmt.Sprintf("%.2f", rs.CallsPerTurn), fmt.Sprintf("%.0f", rolePrompt(r, rs, turns)),
			fmt.Sprintf("%.0f", rs.PromptPerTurn), pct(rs.CacheShare), fmt.Sprint(rs.Loads)})
	}
	fmt.Fprintln(w, "\nModel calls by role (prompt tokens: as the server counted them, every call of the run)")
	Table(w, rows)
}
