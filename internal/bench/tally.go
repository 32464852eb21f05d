package bench

import (
	"fmt"
	"sort"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
)

// The bench's metrics: per episode and for the whole run, the critic's
// verdicts and the person's reviews, and the statistics they use.

// ReviewTally counts the person's decisions.
type ReviewTally struct {
	Decisions int      `json:"decisions"`
	Accepted  int      `json:"accepted"`
	Edited    int      `json:"edited"`
	Rejected  int      `json:"rejected"`
	Reasons   []string `json:"reasons,omitempty"`
}

func (t *ReviewTally) Add(rs []engine.Review) {
	for _, r := range rs {
		t.Decisions++
		switch r.Decision {
		case engine.DecisionAccept:
			t.Accepted++
		case engine.DecisionEdit:
			t.Edited++
		case engine.DecisionReject:
			t.Rejected++
			if r.Reason != "" {
				t.Reasons = append(t.Reasons, r.Reason)
			}
		}
	}
}

// percentile is the nearest-rank percentile of llm.Aggregate.
func percentile[T int | int64](xs []T, p int) T {
	if len(xs) == 0 {
		return 0
	}
	s := append([]T(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100]
}

func mean[T int | int64](xs []T) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += float64(x)
	}
	return sum / float64(len(xs))
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Summarize computes the metrics of each episode and of the whole run.
// The run's means (score, moves) are over the episodes no stop cut short
// (Stopped); its counts and per-turn figures are over every episode.
func Summarize(eps []Episode) []Metrics {
	var out []Metrics
	all := Metrics{Name: "all", Episodes: len(eps)}
	var prompt []int
	var harness, latency, wall, agent, model []int64
	calls, actions, repeats := 0, 0, 0
	critic := engine.CriticTally{Rejected: map[engine.Stage]int{}}
	reviews := ReviewTally{}
	visited, covered := map[int]bool{}, map[int]bool{}
	fastest := map[int]int{}
	var scoreSum, movesSum float64
	for i, e := range eps {
		out = append(out, episodeMetrics(e))
		all.Memory.Add(e.Memory)
		critic.Add(e.Critic)
		if e.Reviews != nil {
			reviews.Decisions += e.Reviews.Decisions
			reviews.Accepted += e.Reviews.Accepted
		}
		if i == 0 || e.Score > all.BestScore {
			all.BestScore = e.Score
		}
		if Stopped(e) {
			all.Stopped++ // cut short by a stop: left out of the means, counted
		} else {
			scoreSum += float64(e.Score)
			movesSum += float64(e.Moves)
		}
		all.Turns += e.Turns
		all.Deaths += e.Deaths
		prompt = append(prompt, e.Prompt...)
		harness = append(harness, e.HarnessUS...)
		wall = append(wall, e.WallUS...)
		agent = append(agent, e.AgentUS...)
		model = append(model, pad(e.ModelUS, len(e.WallUS))...)
		latency = append(latency, e.LatencyUS...)
		calls += sum(e.Calls)
		actions += e.Actions
		repeats += e.Repeats
		for _, id := range e.Visited {
			visited[id] = true
		}
		for _, id := range e.Memories {
			covered[id] = true
		}
		for _, ms := range e.Milestone {
			if t, ok := fastest[ms.Score]; !ok || ms.Turn < t {
				fastest[ms.Score] = ms.Turn
			}
		}
	}
	if n := len(eps) - all.Stopped; n > 0 {
		all.Score, all.Moves = scoreSum/float64(n), movesSum/float64(n)
	}
	all.Milestones = []Milestone{}
	for s, t := range fastest {
		all.Milestones = append(all.Milestones, Milestone{Score: s, Turn: t})
	}
	sort.Slice(all.Milestones, func(i, j int) bool { return all.Milestones[i].Score < all.Milestones[j].Score })
	all.RepeatedFailedRate = ratio(repeats, actions)
	all.LocationsVisited, all.LocationsCovered = len(visited), len(covered)
	all.LocationCoverage = ratio(len(covered), len(visited))
	all.LLMCallsPerTurn = ratio(calls, len(prompt))
	all.PromptTokensP50, all.PromptTokensP95 = percentile(prompt, 50), percentile(prompt, 95)
	all.LatencyP50MS, all.LatencyP95MS = float64(percentile(latency, 50))/1000, float64(percentile(latency, 95))/1000
	all.HarnessPerTurnMS = mean(harness) / 1000
	all.setWait(wall, agent)
	all.setModelWork(wall, agent, model)
	all.MemoryShare = ratio(all.Memory.Asked, all.Turns)
	all.SetCritic(critic)
	all.SetReviews(&reviews)
	return append(out, all)
}

// episodeMetrics computes one episode's metrics.
func episodeMetrics(e Episode) Metrics {
	m := Metrics{Name: fmt.Sprintf("episode %d", e.Episode), Episodes: 1, Ending: e.Ending, Score: float64(e.Score), BestScore: e.Score,
		Moves: float64(e.Moves), Turns: e.Turns, Deaths: e.Deaths, Milestones: e.Milestone,
		RepeatedFailedRate: ratio(e.Repeats, e.Actions), LocationsVisited: len(e.Visited), LocationsCovered: len(e.Memories),
		LocationCoverage: ratio(len(e.Memories), len(e.Visited)), LLMCallsPerTurn: ratio(sum(e.Calls), len(e.Calls)),
		PromptTokensP50: percentile(e.Prompt, 50), PromptTokensP95: percentile(e.Prompt, 95),
		LatencyP50MS: float64(percentile(e.LatencyUS, 50)) / 1000, LatencyP95MS: float64(percentile(e.LatencyUS, 95)) / 1000,
		HarnessPerTurnMS: mean(e.HarnessUS) / 1000}
	m.setWait(e.WallUS, e.AgentUS)
	m.setModelWork(e.WallUS, e.AgentUS, e.ModelUS)
	m.MemoryShare, m.Memory = ratio(e.Memory.Asked, e.Turns), e.Memory
	m.SetCritic(e.Critic)
	m.SetReviews(e.Reviews)
	if m.Milestones == nil {
		m.Milestones = []Milestone{}
	}
	if Stopped(e) {
		m.Stopped = 1
	}
	return m
}

// setWait computes what a person waits for from the per-turn wall and
// agent times, over the turns whose agent calls took any time.
func (m *Metrics) setWait(wall, agent []int64) {
	var w, a []int64
	var ratios []float64
	for i := range min(len(wall), len(agent)) {
		if agent[i] <= 0 {
			continue
		}
		w, a = append(w, wall[i]), append(a, agent[i])
		ratios = append(ratios, float64(wall[i])/float64(agent[i]))
	}
	if len(ratios) == 0 {
		return
	}
	m.WallPerTurnMS, m.AgentPerTurnMS = mean(w)/1000, mean(a)/1000
	m.WaitRatio = mean(w) / mean(a)
	sort.Float64s(ratios)
	m.WaitRatioP50, m.WaitRatioP95 = ratios[(len(ratios)-1)*50/100], ratios[(len(ratios)-1)*95/100]
}

// setModelWork compares the wall time with the model work over the
// agent's turns (those setWait counts).
func (m *Metrics) setModelWork(wall, agent, model []int64) {
	var w, g []int64
	for i := range min(len(wall), len(agent), len(model)) {
		if agent[i] > 0 {
			w, g = append(w, wall[i]), append(g, model[i])
		}
	}
	if len(g) == 0 || mean(g) == 0 {
		return
	}
	m.ModelPerTurnMS, m.WallOverModel = mean(g)/1000, mean(w)/mean(g)
}

// pad is xs at length n (zeros added): a run stored before a series
// existed lacks it.
func pad(xs []int64, n int) []int64 {
	for len(xs) < n {
		xs = append(xs, 0)
	}
	return xs
}

func (m *Metrics) SetReviews(t *ReviewTally) {
	m.ReviewAcceptance, m.ReviewDecisions = -1, 0
	if t != nil && t.Decisions > 0 {
		m.ReviewAcceptance, m.ReviewDecisions = ratio(t.Accepted, t.Decisions), t.Decisions
	}
}

func (m *Metrics) SetCritic(t engine.CriticTally) {
	m.ProposalsPerTurn = t.ProposalsPerTurn()
	m.RejectedByStage = t.Rejected
	if m.RejectedByStage == nil {
		m.RejectedByStage = map[engine.Stage]int{}
	}
	m.DecidedByStage = t.Decided
	if m.DecidedByStage == nil {
		m.DecidedByStage = map[engine.Stage]int{}
	}
	m.OverriddenRejections = t.Overridden
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// CountedPrompt puts the run's counted prompt tokens (RolePrompt) in its
// per-role table: each role's tokens per turn are its RolePrompt over the
// turns, so the table's figures and the run's total (PromptTokens) are one
// count. llm.Aggregate's own per-turn figure is of whole prompts as
// Lantern estimates them before sending (the larger of that and the
// server's count), a different measure.
func CountedPrompt(r *Report) {
	if r.RolePrompt == nil || len(r.Summary) == 0 {
		return
	}
	turns := r.Summary[len(r.Summary)-1].Turns
	for i := range r.Roles {
		n := r.RolePrompt[r.Roles[i].Role]
		r.Roles[i].PromptPerTurn = 0
		if turns > 0 {
			r.Roles[i].PromptPerTurn = float64(n) / float64(turns)
		}
	}
}

// RoleStats is the per-role table of the run's model calls (llm.Aggregate
// computes it), over the turns of every episode; nil without a model.
func RoleStats(client *llm.Client, summary []Metrics) []llm.RoleStats {
	if client == nil || len(summary) == 0 {
		return nil
	}
	return client.Metrics.Roles(summary[len(summary)-1].Turns, config.RoleNames())
}
