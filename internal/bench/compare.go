package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
)

// Reading reports back, and --compare of two suites: each game both
// played side by side with the difference and its standard error, and,
// per pairing of models, the overall result over the games both played.

// Read decodes --json's output or a bench.json: a report (rep) or a suite
// (suite), of any format up to FormatVersion (ErrNewerFormat beyond it,
// ErrNotReport for anything else).
func Read(data []byte) (rep *Report, suite *Suite, err error) {
	var probe struct {
		Format  int             `json:"format_version"`
		Runs    json.RawMessage `json:"runs"`
		Metrics json.RawMessage `json:"metrics"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNotReport, err)
	}
	if probe.Format > FormatVersion {
		return nil, nil, fmt.Errorf("%w: format %d, this Lantern reads up to %d", ErrNewerFormat, probe.Format, FormatVersion)
	}
	switch {
	case probe.Runs != nil:
		var s Suite
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrNotReport, err)
		}
		for _, r := range s.Runs {
			if r == nil || r.Format > FormatVersion {
				return nil, nil, fmt.Errorf("%w: a run of the suite is missing or of a newer format", ErrNewerFormat)
			}
		}
		return nil, &s, nil
	case probe.Metrics != nil:
		var r Report
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrNotReport, err)
		}
		if len(r.Summary) == 0 {
			return nil, nil, fmt.Errorf("%w: no metrics", ErrNotReport)
		}
		return &r, nil, nil
	}
	return nil, nil, fmt.Errorf("%w: neither a run's report nor a suite", ErrNotReport)
}

// SuiteComparison is two suites side by side: the games both played and,
// per pairing of models, the overall result over those games.
type SuiteComparison struct {
	A       *Suite     `json:"a"`
	B       *Suite     `json:"b"`
	Games   []GamePair `json:"games"`
	Overall []GamePair `json:"overall"`
	// OnlyA and OnlyB are the games (story, and model in a sweep) one
	// suite played and the other did not: left out of Overall.
	OnlyA []string `json:"only_in_a,omitempty"`
	OnlyB []string `json:"only_in_b,omitempty"`
}

// GamePair is one game (or, Story "all", a pairing's overall result) in
// both suites, and the difference B − A: of the normalised score (null
// when either has no maximum) and of the score in points, each with its
// standard error (√(s.e.A² + s.e.B²): the suites' episodes are
// independent samples).
type GamePair struct {
	Story            string     `json:"story"`
	StoryMD5         string     `json:"story_md5,omitempty"`
	A                GameResult `json:"a"`
	B                GameResult `json:"b"`
	NormalizedDiff   *float64   `json:"normalized_score_diff"`
	NormalizedDiffSE *float64   `json:"normalized_score_diff_se"`
	ScoreDiff        float64    `json:"score_diff"`
	ScoreDiffSE      float64    `json:"score_diff_se"`
}

func pairOf(story, md5 string, a, b GameResult) GamePair {
	p := GamePair{Story: story, StoryMD5: md5, A: a, B: b, ScoreDiff: b.Score - a.Score, ScoreDiffSE: math.Hypot(a.ScoreSE, b.ScoreSE)}
	if !math.IsNaN(a.Normalized) && !math.IsNaN(b.Normalized) {
		d, se := b.Normalized-a.Normalized, math.Hypot(a.NormalizedSE, b.NormalizedSE)
		p.NormalizedDiff, p.NormalizedDiffSE = &d, &se
	}
	return p
}

// gameModels are the models a suite's games were played with.
func gameModels(s *Suite) []string {
	var out []string
	seen := map[string]bool{}
	for _, g := range s.Games {
		if !seen[g.Model] {
			seen[g.Model] = true
			out = append(out, g.Model)
		}
	}
	return out
}

// CompareSuites pairs two suites' games: by story when each suite played
// one model (A's model against B's: the usual comparison of two models,
// or two settings, over the same games), else by story and model. The
// overall rows are each pairing's, over the games both played.
func CompareSuites(a, b *Suite) *SuiteComparison {
	c := &SuiteComparison{A: a, B: b}
	byModel := len(gameModels(a)) > 1 || len(gameModels(b)) > 1
	key := func(g GameResult) string {
		if byModel {
			return g.StoryMD5 + "\x00" + g.Model
		}
		return g.StoryMD5
	}
	name := func(g GameResult) string {
		if byModel {
			return g.Story + " " + g.Model
		}
		return g.Story
	}
	inB := map[string]GameResult{}
	for _, g := range b.Games {
		inB[key(g)] = g
	}
	paired := map[string]bool{}
	type group struct {
		modelA, modelB string
		a, b           []GameResult
	}
	var groups []*group
	groupOf := func(ma, mb string) *group {
		for _, g := range groups {
			if g.modelA == ma && g.modelB == mb {
				return g
			}
		}
		g := &group{modelA: ma, modelB: mb}
		groups = append(groups, g)
		return g
	}
	for _, ga := range a.Games {
		gb, ok := inB[key(ga)]
		if !ok {
			c.OnlyA = append(c.OnlyA, name(ga))
			continue
		}
		paired[key(ga)] = true
		c.Games = append(c.Games, pairOf(ga.Story, ga.StoryMD5, ga, gb))
		g := groupOf(ga.Model, gb.Model)
		g.a, g.b = append(g.a, ga), append(g.b, gb)
	}
	for _, gb := range b.Games {
		if !paired[key(gb)] {
			c.OnlyB = append(c.OnlyB, name(gb))
		}
	}
	for _, g := range groups {
		c.Overall = append(c.Overall, pairOf("all", "", Overall(g.modelA, g.a), Overall(g.modelB, g.b)))
	}
	return c
}

// diffText is a difference with its standard error.
func diffText(d, se float64, format string) string {
	if math.IsNaN(d) {
		return "-"
	}
	return fmt.Sprintf("%+"+format+" ± %"+format, d, se)
}

// PrintSuiteComparison writes two suites side by side: per game and
// overall, each suite's normalised score and score in points (mean ±
// standard error over the episodes) and the difference B − A with its
// standard error.
func PrintSuiteComparison(w io.Writer, c *SuiteComparison) {
	fmt.Fprintln(w, "A: "+SuiteTitle(c.A))
	fmt.Fprintln(w, "B: "+SuiteTitle(c.B))
	for _, side := range []struct {
		name string
		s    *Suite
	}{{"A", c.A}, {"B", c.B}} {
		if line := suiteServer(side.s); line != "" {
			fmt.Fprintf(w, "%s's server: %s\n", side.name, line)
		}
	}
	rows := [][]string{{"game", "model A / B", "episodes A / B", "A: score / max", "B: score / max", "B - A", "A: score", "B: score", "B - A (points)"}}
	row := func(label string, p GamePair) []string {
		models := p.A.Model
		if p.B.Model != p.A.Model {
			models += " / " + p.B.Model
		}
		nd := "-"
		if p.NormalizedDiff != nil {
			nd = diffText(*p.NormalizedDiff, *p.NormalizedDiffSE, ".3f")
		}
		return []string{label, models, episodesText(p.A.Episodes, p.A.Stopped) + " / " + episodesText(p.B.Episodes, p.B.Stopped),
			normText(p.A.Normalized, p.A.NormalizedSE), normText(p.B.Normalized, p.B.NormalizedSE), nd,
			fmt.Sprintf("%.1f ± %.1f", p.A.Score, p.A.ScoreSE), fmt.Sprintf("%.1f ± %.1f", p.B.Score, p.B.ScoreSE),
			diffText(p.ScoreDiff, p.ScoreDiffSE, ".1f")}
	}
	for _, p := range c.Games {
		rows = append(rows, row(p.Story, p))
	}
	for _, p := range c.Overall {
		rows = append(rows, row(fmt.Sprintf("all (%d games)", p.A.Games), p))
	}
	fmt.Fprintln(w)
	Table(w, rows)
	if len(c.Games) == 0 {
		fmt.Fprintln(w, "\nThe suites played no game in common: nothing to compare.")
	}
	if len(c.OnlyA) > 0 {
		fmt.Fprintf(w, "\nOnly in A, left out: %s\n", strings.Join(c.OnlyA, ", "))
	}
	if len(c.OnlyB) > 0 {
		fmt.Fprintf(w, "\nOnly in B, left out: %s\n", strings.Join(c.OnlyB, ", "))
	}
	stopped := 0
	for _, p := range c.Overall {
		stopped += p.A.Stopped + p.B.Stopped
	}
	if stopped > 0 {
		fmt.Fprintf(w, "\n%d episode(s) stopped before the game or the turn limit ended them: counted in the episodes, left out of the means.\n", stopped)
	}
}
