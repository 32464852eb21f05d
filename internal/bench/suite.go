package bench

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/lantern-if/lantern/internal/bench/view"
	"github.com/lantern-if/lantern/llm"
)

// A suite is a benchmark over several stories (and, for a model sweep,
// several models): one Report per story and model, and the per-game and
// overall results computed from them — the score as a share of the story's
// maximum with its standard error over the episodes (each with its own
// seed), the highscore, steps, deaths and the model cost by role.

// Suite is a suite run, or one shard of it.
type Suite struct {
	Format   int          `json:"format_version"`
	Lantern  string       `json:"lantern_version"`
	Label    string       `json:"label"`
	Agent    string       `json:"agent"`
	Stories  []SuiteStory `json:"stories"`
	Models   []string     `json:"models"` // the sweep, in order; [""] when no model is named
	Episodes int          `json:"episodes_per_game"`
	Seed     int          `json:"seed"`
	Seeds    []int        `json:"seeds"` // each episode's: seed, seed+1, ...
	MaxTurns int          `json:"max_turns"`
	// Shard is the part of the suite this run played (nil: all of it).
	Shard    *ShardInfo `json:"shard,omitempty"`
	Complete bool       `json:"complete"`
	Error    string     `json:"error,omitempty"`
	Started  time.Time  `json:"started"`
	Ended    time.Time  `json:"ended"`
	WorkDir  string     `json:"work_dir,omitempty"`
	// Runs holds one report per story and model played, in the suite's
	// order (story by story, model by model).
	Runs    []*Report    `json:"runs"`
	Games   []GameResult `json:"games"`
	Overall []GameResult `json:"overall"` // one per model, Story "all"
	Roles   []RoleCost   `json:"roles,omitempty"`
}

// SuiteStory is one story of a suite.
type SuiteStory struct {
	Name     string `json:"name"` // the file's name
	Path     string `json:"path"` // as given ("" for the built-in demo)
	MD5      string `json:"md5"`
	Release  int    `json:"release"`
	MaxScore int    `json:"max_score"` // 0: unknown
	// Seed is the story's first episode's seed (the suite's, unless a
	// seed file names one for the story).
	Seed int `json:"seed"`
}

// GameResult is a story's result with one model, or (Story "all") the
// model's over every story.
type GameResult struct {
	Story    string `json:"story"`
	StoryMD5 string `json:"story_md5,omitempty"`
	Model    string `json:"model"`
	MaxScore int    `json:"max_score,omitempty"`
	Games    int    `json:"games"`
	// Episodes are every episode played, Stopped those of them a stop cut
	// short (see Stopped): the means and their errors are over the others.
	Episodes int `json:"episodes"`
	Stopped  int `json:"stopped_episodes"`
	// Normalized is the mean of score / max score over the episodes (for
	// "all", the mean of the games' means), NormalizedSE its standard
	// error; NaN (null in JSON) without a maximum.
	Normalized   float64 `json:"-"`
	NormalizedSE float64 `json:"-"`
	Score        float64 `json:"score_mean"`
	ScoreSE      float64 `json:"score_se"`
	Highscore    int     `json:"highscore"` // the best score any episode reached, at any turn
	Steps        float64 `json:"steps_mean"`
	Moves        float64 `json:"moves_mean"`
	Deaths       int     `json:"deaths"`
	Wins         int     `json:"wins"`
	// Calls and PromptTokens are every model call of the game's run (see
	// Report.PromptTokens): the per-role table's figures for the model.
	Calls        int     `json:"llm_calls"`
	PromptTokens int     `json:"prompt_tokens"`
	WallMS       float64 `json:"wall_ms"`
	// NormalizedJSON carries Normalized (null when there is no maximum).
	NormalizedJSON   *float64 `json:"normalized_score"`
	NormalizedSEJSON *float64 `json:"normalized_score_se"`
}

// RoleCost is one role's model cost over a model's runs.
type RoleCost struct {
	Model        string  `json:"model"`
	Role         string  `json:"role"`
	Calls        int     `json:"calls"`
	Errors       int     `json:"errors"`
	PromptTokens int     `json:"prompt_tokens"`
	CacheShare   float64 `json:"cache_share"`
	WallMS       float64 `json:"wall_ms"`
}

// EpisodeSeed is the seed an episode of the run started with.
func (r *Report) EpisodeSeed(e Episode) int { return r.Seed + e.Episode - 1 }

// Normalized is an episode's final score as a share of the maximum; NaN
// without one.
func (r *Report) Normalized(e Episode) float64 {
	if r.MaxScore <= 0 {
		return math.NaN()
	}
	return float64(e.Score) / float64(r.MaxScore)
}

// Highscore is the best score an episode reached at any turn.
func Highscore(e Episode) int {
	h := e.Score
	for _, s := range e.Scores {
		h = max(h, s)
	}
	return h
}

// meanSE is the mean of xs and its standard error (the sample standard
// deviation over the square root of the count; 0 for fewer than two).
func meanSE(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	if len(xs) < 2 {
		return m, 0
	}
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	v /= float64(len(xs) - 1)
	return m, math.Sqrt(v / float64(len(xs)))
}

// runModel is the model a report's agent played with ("" for none).
func runModel(r *Report) string {
	if r.Models == nil {
		return ""
	}
	return r.Models["agent"]
}

// Game computes a story's result from its report.
func Game(r *Report) GameResult {
	g := GameResult{Story: r.Story, StoryMD5: r.StoryMD5, Model: runModel(r), MaxScore: r.MaxScore, Games: 1, Episodes: len(r.Episodes)}
	var norm, score []float64
	steps, moves := 0.0, 0.0
	for _, e := range r.Episodes {
		g.Highscore = max(g.Highscore, Highscore(e))
		g.Deaths += e.Deaths
		if e.Ending == "victory" {
			g.Wins++
		}
		if Stopped(e) {
			g.Stopped++
			continue
		}
		norm = append(norm, r.Normalized(e))
		score = append(score, float64(e.Score))
		steps += float64(e.Turns)
		moves += float64(e.Moves)
	}
	g.Calls, g.PromptTokens = r.Calls(), r.PromptTokens()
	g.Normalized, g.NormalizedSE = meanSE(norm)
	g.Score, g.ScoreSE = meanSE(score)
	if n := len(score); n > 0 {
		g.Steps, g.Moves = steps/float64(n), moves/float64(n)
	} else {
		g.Score, g.ScoreSE = 0, 0
	}
	if r.MaxScore <= 0 {
		g.Normalized, g.NormalizedSE = math.NaN(), math.NaN()
	}
	if !r.Ended.IsZero() {
		g.WallMS = float64(r.Ended.Sub(r.Started).Microseconds()) / 1000
	}
	g.setJSON()
	return g
}

func (g *GameResult) setJSON() {
	g.NormalizedJSON, g.NormalizedSEJSON = nil, nil
	if !math.IsNaN(g.Normalized) {
		n, se := g.Normalized, g.NormalizedSE
		g.NormalizedJSON, g.NormalizedSEJSON = &n, &se
	}
}

// Overall combines one model's games: the mean of the games' normalised
// means (each game weighs the same; a game whose every episode stopped has
// none), its standard error from the games' (sqrt of the sum of squares
// over the count), and the totals.
func Overall(model string, games []GameResult) GameResult {
	o := GameResult{Story: "all", Model: model}
	var se2, nsum, ssum, ssum2 float64
	normGames, scoreGames, counted := 0, 0, 0
	for _, g := range games {
		o.Games++
		o.Episodes += g.Episodes
		o.Stopped += g.Stopped
		o.Highscore = max(o.Highscore, g.Highscore)
		n := g.Episodes - g.Stopped
		counted += n
		o.Steps += g.Steps * float64(n)
		o.Moves += g.Moves * float64(n)
		o.Deaths += g.Deaths
		o.Wins += g.Wins
		o.Calls += g.Calls
		o.PromptTokens += g.PromptTokens
		o.WallMS += g.WallMS
		if n == 0 {
			continue // every episode stopped: no mean to take
		}
		scoreGames++
		ssum += g.Score
		ssum2 += g.ScoreSE * g.ScoreSE
		if !math.IsNaN(g.Normalized) {
			normGames++
			nsum += g.Normalized
			se2 += g.NormalizedSE * g.NormalizedSE
		}
	}
	if counted > 0 {
		o.Steps /= float64(counted)
		o.Moves /= float64(counted)
	}
	if scoreGames > 0 {
		o.Score, o.ScoreSE = ssum/float64(scoreGames), math.Sqrt(ssum2)/float64(scoreGames)
	}
	o.Normalized, o.NormalizedSE = math.NaN(), math.NaN()
	if normGames > 0 {
		o.Normalized, o.NormalizedSE = nsum/float64(normGames), math.Sqrt(se2)/float64(normGames)
	}
	o.setJSON()
	return o
}

// Compute fills in the suite's per-game, overall and per-role results
// from its runs.
func (s *Suite) Compute() {
	s.Games, s.Overall, s.Roles = nil, nil, nil
	byModel := map[string][]GameResult{}
	for _, r := range s.Runs {
		g := Game(r)
		s.Games = append(s.Games, g)
		byModel[g.Model] = append(byModel[g.Model], g)
	}
	for _, m := range s.Models {
		s.Overall = append(s.Overall, Overall(m, byModel[m]))
		s.Roles = append(s.Roles, RoleCosts(m, s.Runs)...)
	}
}

// rolePrompt is a role's prompt tokens over a run: as counted (format 2),
// else the per-turn mean times the turns.
func rolePrompt(r *Report, rs llm.RoleStats, turns float64) float64 {
	if n, ok := r.RolePrompt[rs.Role]; ok {
		return float64(n)
	}
	return rs.PromptPerTurn * turns
}

// RoleCosts sums the per-role model cost of a model's runs: calls,
// errors, prompt tokens (as Report.PromptTokens counts them, so the "all"
// row's are the games table's), the cache share weighted by tokens, and
// the time spent waiting on the model.
func RoleCosts(model string, runs []*Report) []RoleCost {
	type acc struct {
		RoleCost
		cached float64
	}
	by := map[string]*acc{}
	var order []string
	for _, r := range runs {
		if runModel(r) != model || len(r.Summary) == 0 {
			continue
		}
		turns := float64(r.Summary[len(r.Summary)-1].Turns)
		for _, rs := range r.Roles {
			a, ok := by[rs.Role]
			if !ok {
				a = &acc{RoleCost: RoleCost{Model: model, Role: rs.Role}}
				by[rs.Role] = a
				order = append(order, rs.Role)
			}
			tok := rolePrompt(r, rs, turns)
			a.Calls += rs.Calls
			a.Errors += rs.Errors
			a.PromptTokens += int(math.Round(tok))
			a.cached += rs.CacheShare * tok
			if rs.Role == "all" {
				for _, ms := range r.RoleWallMS {
					a.WallMS += ms
				}
			} else {
				a.WallMS += r.RoleWallMS[rs.Role]
			}
		}
	}
	var out []RoleCost
	for _, role := range order {
		a := by[role]
		if a.PromptTokens > 0 {
			a.CacheShare = a.cached / float64(a.PromptTokens)
		}
		out = append(out, a.RoleCost)
	}
	// "all" last, as in the per-run table.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Role != "all" && out[j].Role == "all" })
	return out
}

// MergeRolePrompt adds up the runs' prompt tokens by role; nil when one
// run did not count them (format 1).
func MergeRolePrompt(runs []*Report) map[string]int {
	out := map[string]int{}
	for _, r := range runs {
		if r.RolePrompt == nil && len(r.Roles) > 0 {
			return nil
		}
		for role, n := range r.RolePrompt {
			out[role] += n
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// MergeRoles joins the per-role tables of runs that played parts of one
// benchmark into the table the whole run would have: counts add up, the
// per-turn figures are taken over all the turns, the cache share is
// weighted by prompt tokens and the latency p50 by calls (an estimate:
// the shards' medians, not the median of all calls).
func MergeRoles(runs []*Report) []llm.RoleStats {
	type acc struct {
		llm.RoleStats
		tokens, cached, p50 float64
	}
	by := map[string]*acc{}
	var order []string
	turns := 0.0
	for _, r := range runs {
		if len(r.Summary) == 0 {
			continue
		}
		t := float64(r.Summary[len(r.Summary)-1].Turns)
		turns += t
		for _, rs := range r.Roles {
			a, ok := by[rs.Role]
			if !ok {
				a = &acc{RoleStats: llm.RoleStats{Role: rs.Role}}
				by[rs.Role] = a
				order = append(order, rs.Role)
			}
			tok := rolePrompt(r, rs, t)
			a.Calls += rs.Calls
			a.Errors += rs.Errors
			a.Loads += rs.Loads
			a.tokens += tok
			a.cached += rs.CacheShare * tok
			a.p50 += rs.P50MS * float64(rs.Calls)
		}
	}
	var out []llm.RoleStats
	for _, role := range order {
		a := by[role]
		if turns > 0 {
			a.CallsPerTurn = float64(a.Calls) / turns
			a.PromptPerTurn = a.tokens / turns
		}
		if a.tokens > 0 {
			a.CacheShare = a.cached / a.tokens
		}
		if a.Calls > 0 {
			a.P50MS = a.p50 / float64(a.Calls)
		}
		out = append(out, a.RoleStats)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Role != "all" && out[j].Role == "all" })
	return out
}

// SuiteTitle is the suite's heading: what was played, and which shard.
func SuiteTitle(s *Suite) string {
	state := "complete"
	if !s.Complete {
		state = "incomplete"
		if s.Error != "" {
			state += ": " + s.Error
		}
	}
	models := "no model"
	if len(s.Models) > 1 || len(s.Models) == 1 && s.Models[0] != "" {
		models = strings.Join(s.Models, ", ")
	}
	seeds := fmt.Sprintf("seed %d", s.Seed)
	if s.Episodes > 1 {
		seeds = fmt.Sprintf("seeds %d to %d", s.Seed, s.Seed+s.Episodes-1)
	}
	for _, st := range s.Stories {
		if st.Seed != s.Seed {
			seeds = "each story's seed"
			if s.Episodes > 1 {
				seeds += fmt.Sprintf(" and the %d after it", s.Episodes-1)
			}
			seeds += " (a seed file's)"
			break
		}
	}
	title := fmt.Sprintf("Bench suite: %d game(s) × %d episode(s), %s, %s; at most %d turns, %s",
		len(s.Stories), s.Episodes, s.Label, models, s.MaxTurns, seeds)
	if s.Shard != nil {
		title += fmt.Sprintf("; shard %d/%d", s.Shard.Index, s.Shard.Count)
	}
	return title + " (" + state + ")"
}

func normText(x, se float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.3f ± %.3f", x, se)
}

// PrintSuite writes the suite's per-game table (with each model's overall
// row), the per-role cost, and a chart of the normalised score by game.
// Nothing in it depends on the clock, so a scripted suite prints the same
// on every machine.
func PrintSuite(w io.Writer, s *Suite, width int) {
	fmt.Fprintln(w, SuiteTitle(s))
	fmt.Fprintf(w, "Lantern %s, report format %d; agent %s\n", s.Lantern, s.Format, s.Agent)
	if line := suiteServer(s); line != "" {
		fmt.Fprintln(w, "Server: "+line)
	}
	if s.Shard != nil {
		fmt.Fprintf(w, "This is shard %d of %d: join the shards with lantern bench merge.\n", s.Shard.Index, s.Shard.Count)
	}
	sweep := len(s.Models) > 1
	fmt.Fprintln(w)
	Table(w, suiteRows(s, sweep))
	if len(s.Roles) > 0 {
		rrows := [][]string{{"model", "role", "calls", "errors", "prompt tokens", "cache share", "wall time"}}
		for _, r := range s.Roles {
			rrows = append(rrows, []string{r.Model, r.Role, fmt.Sprint(r.Calls), fmt.Sprint(r.Errors), fmt.Sprint(r.PromptTokens), pct(r.CacheShare),
				msText(r.WallMS)})
		}
		fmt.Fprintln(w, "\nModel cost by role")
		Table(w, rrows)
	}
	bars := suiteBars(s, sweep)
	fmt.Fprintln(w)
	fmt.Fprint(w, view.Bars("Score as a share of the maximum, by game (mean ± standard error over episodes)", bars, max(width/2, 10)))
	if stopped := stoppedOf(s.Overall); stopped > 0 {
		fmt.Fprintf(w, "\n%d episode(s) stopped before the game or the turn limit ended them: counted in the episodes, left out of the means.\n", stopped)
	}
	if !s.Complete && s.Error != "" {
		fmt.Fprintf(w, "\nThe suite stopped early: %s\n", s.Error)
	}
}

// suiteRows is the suite's per-game table: a row per game (and model),
// then each model's overall row.
func suiteRows(s *Suite, sweep bool) [][]string {
	head := []string{"game"}
	if sweep {
		head = append(head, "model")
	}
	head = append(head, "episodes", "score / max (± s.e.)", "score (± s.e.)", "highscore", "max", "steps", "deaths", "wins", "LLM calls", "prompt tokens")
	rows := [][]string{head}
	row := func(g GameResult) []string {
		r := []string{g.Story}
		if sweep {
			r = append(r, g.Model)
		}
		max := "-"
		if g.MaxScore > 0 {
			max = fmt.Sprint(g.MaxScore)
		}
		score, steps := fmt.Sprintf("%.1f ± %.1f", g.Score, g.ScoreSE), fmt.Sprintf("%.1f", g.Steps)
		if g.Episodes > 0 && g.Stopped == g.Episodes {
			score, steps = "-", "-" // every episode stopped: no mean
		}
		return append(r, episodesText(g.Episodes, g.Stopped), normText(g.Normalized, g.NormalizedSE), score,
			fmt.Sprint(g.Highscore), max, steps, fmt.Sprint(g.Deaths), fmt.Sprint(g.Wins), fmt.Sprint(g.Calls), fmt.Sprint(g.PromptTokens))
	}
	for _, g := range s.Games {
		rows = append(rows, row(g))
	}
	for _, o := range s.Overall {
		r := row(o)
		r[0] = fmt.Sprintf("all (%d games)", o.Games)
		if o.Games > 1 {
			// Points of different games: no one maximum or highscore.
			r[len(r)-6], r[len(r)-7] = "-", "-"
		}
		rows = append(rows, r)
	}
	return rows
}

// suiteBars is the chart of the normalised score by game (and model),
// then overall.
func suiteBars(s *Suite, sweep bool) []view.Bar {
	var bars []view.Bar
	for i, g := range s.Games {
		label := g.Story
		if sweep {
			label += " " + g.Model
			if i > 0 && s.Games[i-1].Story != g.Story {
				bars = append(bars, view.Bar{})
			}
		}
		bars = append(bars, view.Bar{Label: label, Value: g.Normalized, Err: g.NormalizedSE})
	}
	if len(bars) > 0 {
		bars = append(bars, view.Bar{})
	}
	for _, o := range s.Overall {
		label := "all"
		if sweep {
			label += " " + o.Model
		}
		bars = append(bars, view.Bar{Label: label, Value: o.Normalized, Err: o.NormalizedSE})
	}
	return bars
}

func stoppedOf(gs []GameResult) int {
	n := 0
	for _, g := range gs {
		n += g.Stopped
	}
	return n
}

// episodesText is an episode count with the stopped ones: "3, 1 stopped".
func episodesText(n, stopped int) string {
	if stopped == 0 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d, %d stopped", n, stopped)
}

// suiteServer says which server and profile the suite's runs played
// with, when a model played: "" otherwise, or when they differ.
func suiteServer(s *Suite) string {
	line := ""
	for _, r := range s.Runs {
		l := serverText(r.Provenance)
		switch {
		case l == "":
			continue
		case line != "" && l != line:
			return "the runs' differ (each run's report names its own)"
		}
		line = l
	}
	return line
}

// serverText is a run's protocol, server and profile: "Ollama API at
// http://127.0.0.1:11434, profile lean"; "" when no model played.
func serverText(p *Provenance) string {
	if p == nil || p.API == "" {
		return ""
	}
	at := p.BaseURL
	if len(p.Hosts) > 1 || at == "" {
		at = strings.Join(p.Hosts, ", ")
	}
	return fmt.Sprintf("%s at %s, profile %s", APIName(p.API), at, p.Profile)
}
