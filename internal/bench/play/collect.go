package play

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/bench/progress"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/memsynth"
	"github.com/lantern-if/lantern/managers/objectives"
	"github.com/lantern-if/lantern/memory/rundb"
)

// collector reads a session's engine events into the report's episodes.
type collector struct {
	ctx      context.Context
	sess     *session.Session
	queue    *bench.CallQueue
	rep      *bench.Report
	progress *progress.Tracker

	ep            *bench.Episode
	visited       map[int]bool
	repeatsRun    int                // repeated failed actions so far in the run
	repeatsAt     int                // ... when the episode began
	best          int                // the episode's best score so far
	objAt         objectives.Quality // the objectives' quality when the episode began
	engineEpisode int                // the engine's number of the episode (lantern.db's)
	episode       int                // the benchmark's number of the episode
	last          env.Observation
	code          int
}

// collect reads the engine's events until it stops, filling in the
// report's episodes; it gives the exit code the play earned.
func collect(ctx context.Context, sess *session.Session, queue *bench.CallQueue, rep *bench.Report, tracker *progress.Tracker) int {
	c := &collector{ctx: ctx, sess: sess, queue: queue, rep: rep, progress: tracker, visited: map[int]bool{}, code: exitOK,
		episode: rep.FirstEpisode() - 1}
	for ev := range sess.Engine.Events() {
		c.event(ev)
	}
	if c.ep != nil {
		// The run stopped inside an episode (a script ran out, an
		// interruption, a failure).
		why := bench.EndingStopped
		if rep.Error == "" && ctx.Err() == nil {
			why = "script ended"
		}
		c.finish(why, c.last.Score, c.last.Moves, len(c.ep.Scores))
	}
	dropCalls(rep, queue.Rest())
	return c.code
}

// event takes one engine event.
func (c *collector) event(ev engine.Event) {
	rep := c.rep
	switch v := ev.(type) {
	case engine.EpisodeStarted:
		c.last = v.Observation
		c.engineEpisode = v.Episode
		c.episode++
		c.begin(c.episode, v.Observation)
	case engine.TurnCompleted:
		c.last = v.Result.Observation
		if c.ep != nil {
			c.turn(v)
		}
	case engine.EpisodeEnded:
		c.episodeEnd()
		c.finish(string(v.Reason), v.Score, v.Moves, v.Turns)
	case engine.ErrorEvent:
		c.progress.Line(fmt.Sprintf("lantern bench: turn %d: %v", v.Turn, v.Err))
		if v.Fatal || engine.Halts(v.Err) {
			rep.Error = v.Err.Error()
			c.code = exitError
		}
	case engine.Idle:
		// The engine pauses after repeated model failures or a turn it
		// could not record: the run ends.
		if rep.Error == "" {
			rep.Error = "the agent paused after repeated model failures"
		}
		c.sess.Engine.Send(c.ctx, engine.Quit{})
	case engine.Stopped:
		if v.Err != nil && rep.Error == "" {
			rep.Error = v.Err.Error()
		}
	}
}

func (c *collector) begin(n int, opening env.Observation) {
	c.ep = &bench.Episode{Episode: n, Critic: engine.CriticTally{Rejected: map[engine.Stage]int{}}}
	c.objAt = c.sess.Objectives.Quality()
	c.visited = map[int]bool{opening.Location.ID: true}
	c.repeatsAt = c.repeatsRun
	c.best = opening.Score
	c.progress.EpisodeStarted(n, opening.Score)
}

// turn adds a completed turn to the episode.
func (c *collector) turn(v engine.TurnCompleted) {
	ep := c.ep
	turnOf(ep, v, c.queue, c.rep, c.progress)
	c.repeatsRun = v.Repeats
	o := v.Result.Observation
	if o.Location.ID != 0 {
		c.visited[o.Location.ID] = true
	}
	if o.Died {
		ep.Deaths++
	}
	if o.Score > c.best {
		c.best = o.Score
		ep.Milestone = append(ep.Milestone, bench.Milestone{Score: o.Score, Turn: v.Result.Turn})
	}
	ep.Scores = append(ep.Scores, o.Score)
	c.progress.Turn(v.Result.Turn, o.Score)
	ep.Critic.Add(engine.Tally(v.Result.Verdicts))
	if len(v.Result.Reviews) > 0 {
		if ep.Reviews == nil {
			ep.Reviews = &bench.ReviewTally{}
		}
		ep.Reviews.Add(v.Result.Reviews)
	}
}

// episodeEnd counts the episode synthesis's calls: it runs after the last
// turn, before the episode's end event, so its calls belong to the
// episode, no turn.
func (c *collector) episodeEnd() {
	if c.ep == nil {
		return
	}
	for _, call := range c.queue.Rest() {
		c.ep.EndCalls++
		c.ep.EndPrompt += call.PromptTokens
		c.ep.LatencyUS = append(c.ep.LatencyUS, call.Latency.Microseconds())
		if call.Err != "" {
			c.ep.Errors++
		}
		c.progress.Calls(1, call.Latency)
	}
}

func (c *collector) finish(ending string, score, moves, turns int) {
	ep := c.ep
	if ep == nil {
		return
	}
	ep.Ending, ep.Score, ep.Moves, ep.Turns = ending, score, moves, turns
	ep.Repeats = c.repeatsRun - c.repeatsAt
	for id := range c.visited {
		ep.Visited = append(ep.Visited, id)
	}
	sort.Ints(ep.Visited)
	ep.Memories = bench.WithMemories(filepath.Join(c.sess.Dir, "Memories.md"), ep.Visited)
	ep.Objectives = objectiveQuality(c.sess, c.objAt)
	ep.Memory = memoryTally(c.ctx, c.sess.DB, c.engineEpisode)
	c.rep.Episodes = append(c.rep.Episodes, *ep)
	c.progress.EpisodeEnded(fmt.Sprintf("lantern bench: episode %d: %s, score %d in %d moves, %d turns", ep.Episode, ending, score, moves, turns))
	c.ep = nil
}

// dropCalls counts calls that belong to no played turn: in the run's
// totals, in no per-turn metric.
func dropCalls(rep *bench.Report, calls []llm.CallMetrics) {
	rep.Dropped += len(calls)
	for _, c := range calls {
		rep.DroppedPrompt += c.PromptTokens
	}
}

// turnOf adds a completed turn's model calls and time to the episode.
func turnOf(ep *bench.Episode, v engine.TurnCompleted, queue *bench.CallQueue, rep *bench.Report, tracker *progress.Tracker) {
	calls, dropped := queue.Take(v.Result.Turn)
	dropCalls(rep, dropped)
	prompt, lat := 0, time.Duration(0)
	for _, c := range calls {
		prompt += c.PromptTokens
		lat += c.Latency
		ep.LatencyUS = append(ep.LatencyUS, c.Latency.Microseconds())
		if c.Err != "" {
			ep.Errors++
		}
	}
	harness := max(v.Duration-lat, 0)
	tracker.Calls(len(calls), lat)
	ep.Prompt = append(ep.Prompt, prompt)
	ep.Calls = append(ep.Calls, len(calls))
	ep.StatusCalls = append(ep.StatusCalls, v.LLM.Calls)
	ep.StatusPrompt = append(ep.StatusPrompt, v.LLM.PromptTokens)
	ep.HarnessUS = append(ep.HarnessUS, harness.Microseconds())
	ep.WallUS = append(ep.WallUS, v.Span.Microseconds())
	ep.AgentUS = append(ep.AgentUS, modelService(calls, config.RoleAgent).Microseconds())
	ep.ModelUS = append(ep.ModelUS, modelService(calls, "").Microseconds())
	ep.Actions++
}

// memoryTally counts an episode's memory questions from its decisions in
// lantern.db (episode: the engine's number).
func memoryTally(ctx context.Context, db *rundb.RunDB, episode int) bench.MemoryTally {
	var t bench.MemoryTally
	ds, err := db.Decisions(ctx, episode)
	if err != nil {
		return t
	}
	for _, d := range ds {
		t.Asked++
		switch {
		case strings.HasPrefix(d.Outcome, memsynth.Unanswered):
			t.Unanswered++
		case slices.Contains(d.Triggers, memsynth.AnsweredInReply):
			t.InReply++
		default:
			t.OwnCall++
		}
		if strings.HasPrefix(d.Outcome, "stored") {
			t.Kept++
		}
	}
	return t
}

// modelService is the time the model server spent on calls of a role (""
// every role): their prompt evaluation and generation as it reports them
// (a call it reported none for counts its latency). Time a call waited
// behind others at the server is not the role's; with the agent's role it
// is the agent's service time of a turn.
func modelService(calls []llm.CallMetrics, role string) time.Duration {
	var d time.Duration
	for _, c := range calls {
		if role != "" && c.Role != role {
			continue
		}
		if s := c.PromptEval + c.Eval; s > 0 {
			d += s
		} else {
			d += c.Latency
		}
	}
	return d
}

// objectiveQuality is the quality of the objectives the model set since
// the reading before (nil when it set none).
func objectiveQuality(sess *session.Session, before objectives.Quality) *bench.ObjectiveQuality {
	q := sess.Objectives.Quality().Sub(before)
	if q.Objectives == 0 {
		return nil
	}
	return &bench.ObjectiveQuality{Objectives: q.Objectives, CiteLocation: q.CiteLocation, CiteKnowledge: q.CiteKnowledge}
}

// roleClock sums the time spent waiting on each role's model calls, and
// their prompt tokens.
type roleClock struct {
	mu     sync.Mutex
	by     map[string]time.Duration
	tokens map[string]int
	any    bool
}

// add wraps a call observer so that each call's latency and prompt tokens
// are counted too.
func (c *roleClock) add(next func(llm.CallMetrics)) func(llm.CallMetrics) {
	return func(m llm.CallMetrics) {
		c.mu.Lock()
		if c.by == nil {
			c.by, c.tokens = map[string]time.Duration{}, map[string]int{}
		}
		c.by[m.Role] += m.Latency
		c.tokens[m.Role] += m.PromptTokens
		c.tokens["all"] += m.PromptTokens
		c.any = true
		c.mu.Unlock()
		next(m)
	}
}

// prompt is each role's prompt tokens, and "all" (nil: no call).
func (c *roleClock) prompt() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.any {
		return nil
	}
	out := make(map[string]int, len(c.tokens))
	for r, n := range c.tokens {
		out[r] = n
	}
	return out
}

func (c *roleClock) ms() map[string]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.any {
		return nil
	}
	out := map[string]float64{}
	for r, d := range c.by {
		out[r] = float64(d.Microseconds()) / 1000
	}
	return out
}
