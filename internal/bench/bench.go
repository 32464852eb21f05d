// Package bench is the measure of the agent over episodes: what a run keeps
// of each episode, the metrics computed from it (score, moves, deaths,
// milestones, repeated failed actions, location coverage, model calls,
// prompt tokens, latency, harness overhead, critic and review tallies), and
// the text report, comparison and score chart. “lantern bench“ plays the
// episodes and stores the report in the story's lantern.db.
package bench

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/memory"
)

// CallQueue receives every model call as it finishes (from the engine's
// goroutines) until the event loop attributes it to its turn.
type CallQueue struct {
	mu    sync.Mutex
	calls []llm.CallMetrics
}

func (q *CallQueue) Add(m llm.CallMetrics) {
	q.mu.Lock()
	q.calls = append(q.calls, m)
	q.mu.Unlock()
}

// Take removes and returns turn's calls. Turns close in order (the engine
// reports a turn once its calls, its managers' included, are made), but
// their calls interleave when the managers run beside the next proposal:
// every call tagged with the turn is its, calls of earlier turns still
// queued belong to turns never played (dropped with them), and calls of
// later turns stay for them.
func (q *CallQueue) Take(turn int) (calls, dropped []llm.CallMetrics) {
	q.mu.Lock()
	defer q.mu.Unlock()
	kept := q.calls[:0]
	for _, c := range q.calls {
		switch {
		case c.Turn == turn:
			calls = append(calls, c)
		case c.Turn < turn:
			dropped = append(dropped, c)
		default:
			kept = append(kept, c)
		}
	}
	q.calls = kept
	return calls, dropped
}

// rest removes and returns every queued call.
func (q *CallQueue) Rest() []llm.CallMetrics {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.calls
	q.calls = nil
	return out
}

// Episode is what a run keeps of one episode: its outcome and the
// per-turn series the metrics are computed from.
type Episode struct {
	Episode  int    `json:"episode"`
	Ending   string `json:"ending"`
	Score    int    `json:"score"`
	Moves    int    `json:"moves"`
	Turns    int    `json:"turns"`
	Deaths   int    `json:"deaths"`
	Actions  int    `json:"actions"`
	Repeats  int    `json:"repeated_failed_actions"`
	Visited  []int  `json:"visited"`
	Memories []int  `json:"locations_with_memories"` // of the visited ones, at the episode's end
	Scores   []int  `json:"score_by_turn"`           // after turn 1, 2, ...
	Prompt   []int  `json:"prompt_tokens_by_turn"`
	Calls    []int  `json:"llm_calls_by_turn"`
	// What the status event (engine.TurnCompleted, the TUI's status bar)
	// said of each turn: its calls and prompt tokens, the same as Calls and
	// Prompt when every call is counted once.
	StatusCalls  []int   `json:"status_llm_calls_by_turn,omitempty"`
	StatusPrompt []int   `json:"status_prompt_tokens_by_turn,omitempty"`
	HarnessUS    []int64 `json:"harness_us_by_turn"`
	// A turn's wall time (its span: from its start until the engine could
	// go on, so the turns add up to the run's time), and the time the
	// model server spent on its agent calls (their prompt evaluation and
	// generation as the server reports them, else their latency; queueing
	// behind other calls left out; 0 on a person's turn).
	WallUS  []int64 `json:"wall_us_by_turn,omitempty"`
	AgentUS []int64 `json:"agent_us_by_turn,omitempty"`
	// ModelUS is the model work each turn needed: the server's time on
	// every call counted with the turn (any role), as AgentUS counts it.
	ModelUS []int64 `json:"model_us_by_turn,omitempty"`
	// Memory counts the episode's memory questions and who answered them.
	Memory    MemoryTally `json:"memory"`
	LatencyUS []int64     `json:"latency_us_by_call"`
	EndCalls  int         `json:"llm_calls_at_episode_end"` // episode synthesis, after the last turn
	// EndPrompt is the prompt tokens of the EndCalls.
	EndPrompt int                `json:"prompt_tokens_at_episode_end"`
	Errors    int                `json:"llm_errors"`
	Milestone []Milestone        `json:"milestones"`
	Critic    engine.CriticTally `json:"critic"`
	// The person's reviews (review mode), when there were any.
	Reviews *ReviewTally `json:"reviews,omitempty"`
	// Objectives: the quality of the model's objectives, when it set any.
	Objectives *ObjectiveQuality `json:"objective_quality,omitempty"`
}

// MemoryTally counts an episode's memory questions (the turns that
// triggered memory synthesis) by who answered: the agent in its reply, the
// memory role in a call of its own, or nobody (the line was rewound).
type MemoryTally struct {
	Asked      int `json:"asked"`
	InReply    int `json:"in_agent_reply"`
	OwnCall    int `json:"memory_role_call"`
	Unanswered int `json:"unanswered"`
	Kept       int `json:"kept"` // answers that stored a memory
}

// Add counts another tally in.
func (t *MemoryTally) Add(o MemoryTally) {
	t.Asked, t.InReply, t.OwnCall, t.Unanswered, t.Kept = t.Asked+o.Asked, t.InReply+o.InReply, t.OwnCall+o.OwnCall, t.Unanswered+o.Unanswered, t.Kept+o.Kept
}

// Milestone is a score reached for the first time in an episode.
type Milestone struct {
	Score int `json:"score"`
	Turn  int `json:"turn"`
}

// Report is a whole run.
type Report struct {
	ID       int64             `json:"id,omitempty"`
	Label    string            `json:"label"`
	Story    string            `json:"story"`
	StoryMD5 string            `json:"story_md5"`
	Release  int               `json:"release"`
	MaxScore int               `json:"max_score,omitempty"`
	Agent    string            `json:"agent"`
	Models   map[string]string `json:"models,omitempty"`
	// Host lists the model servers, as messages name them (format 1
	// called it ollama_host, whatever the protocol).
	Host      string    `json:"server,omitempty"`
	Seed      int       `json:"seed"`
	MaxTurns  int       `json:"max_turns"`
	Requested int       `json:"episodes_requested"`
	Complete  bool      `json:"complete"`
	Error     string    `json:"error,omitempty"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended"`
	DB        string    `json:"database,omitempty"`
	Episodes  []Episode `json:"episodes"`
	Dropped   int       `json:"llm_calls_unattributed,omitempty"`
	// DroppedPrompt is the prompt tokens of the Dropped calls.
	DroppedPrompt int             `json:"prompt_tokens_unattributed,omitempty"`
	Summary       []Metrics       `json:"metrics"`         // one per episode, then the whole run
	Roles         []llm.RoleStats `json:"roles,omitempty"` // per role over the run, then "all"
	// Shard is the part of a split benchmark the run played (nil: all).
	Shard *ShardInfo `json:"shard,omitempty"`
	// Index is the work dir's lantern.db that lists the run when it
	// played in a work dir of its own (DB).
	Index string `json:"index_database,omitempty"`
	// Format is FormatVersion; Lantern the version that played the run;
	// Seeds each episode's seed, in the order of Episodes.
	Format  int    `json:"format_version"`
	Lantern string `json:"lantern_version,omitempty"`
	Seeds   []int  `json:"seeds"`
	// RoleWallMS is the time spent waiting on each role's model calls.
	RoleWallMS map[string]float64 `json:"role_wall_ms,omitempty"`
	// MemoryMode is where memory questions were answered and why
	// (managers.memory_synthesis and, with auto, the server's slots).
	MemoryMode string `json:"memory_mode,omitempty"`
	// RolePrompt is each role's prompt tokens over the run (every call,
	// as PromptTokens counts them), and "all"; the per-role table's
	// figures come from it (format 1: from the whole-prompt estimate).
	RolePrompt map[string]int `json:"role_prompt_tokens,omitempty"`
	// Provenance is how the run was made (format 2 on).
	Provenance *Provenance `json:"provenance,omitempty"`
	// WorkDir is where the run played (its bench.json is there, or in
	// its story's folder when the work dir was given and may be shared).
	WorkDir string `json:"work_dir,omitempty"`
}

// UnmarshalJSON reads a report of any format up to FormatVersion: format
// 1's ollama_host is the server.
func (r *Report) UnmarshalJSON(data []byte) error {
	type plain Report
	var v struct {
		plain
		OldHost string `json:"ollama_host"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*r = Report(v.plain)
	if r.Host == "" {
		r.Host = v.OldHost
	}
	return nil
}

// PromptTokens is the run's one total of prompt tokens: every model call
// it made (its turns', its episodes' ends' and those of no turn), each
// prompt as the server counted it (PromptTokens of llm.CallMetrics:
// Lantern's estimate for a call the server gave no count for).
func (r *Report) PromptTokens() int {
	n := r.DroppedPrompt
	for _, e := range r.Episodes {
		n += sum(e.Prompt) + e.EndPrompt
	}
	return n
}

// Calls is the run's number of model calls, counted as PromptTokens is.
func (r *Report) Calls() int {
	n := r.Dropped
	for _, e := range r.Episodes {
		n += sum(e.Calls) + e.EndCalls
	}
	return n
}

// Stopped reports whether an episode was cut short by a stop (an
// interruption, a failure, the person): neither the game nor the turn
// limit ended it, so its score says nothing of the agent. The means leave
// it out and count it beside them.
func Stopped(e Episode) bool {
	return e.Ending == EndingStopped || e.Ending == "person"
}

// EndingStopped is the ending of an episode the run stopped inside.
const EndingStopped = "stopped"

// ShardInfo is the part of a benchmark a run played.
type ShardInfo struct {
	Index        int `json:"index"`
	Count        int `json:"count"`
	FirstEpisode int `json:"first_episode"` // the benchmark's number of the run's first episode
	Total        int `json:"episodes_total"`
}

// FirstEpisode is the benchmark's number of the run's first episode.
func (r *Report) FirstEpisode() int {
	if r.Shard == nil {
		return 1
	}
	return r.Shard.FirstEpisode
}

// Metrics are the measures of an episode or of a whole run.
type Metrics struct {
	Name     string `json:"name"` // "episode 1", ..., "all"
	Episodes int    `json:"episodes"`
	// Stopped counts the Episodes cut short by a stop (see Stopped),
	// which the means (score, moves) leave out.
	Stopped            int         `json:"stopped_episodes"`
	Ending             string      `json:"ending,omitempty"`
	Score              float64     `json:"score"` // the final score; for a run, the mean
	BestScore          int         `json:"best_score"`
	Moves              float64     `json:"moves"` // a run: the mean
	Turns              int         `json:"turns"`
	Deaths             int         `json:"deaths"`
	Milestones         []Milestone `json:"milestones"` // a run: the fewest turns any episode took
	RepeatedFailedRate float64     `json:"repeated_failed_action_rate"`
	LocationCoverage   float64     `json:"location_coverage"`
	LocationsVisited   int         `json:"locations_visited"`
	LocationsCovered   int         `json:"locations_with_memories"`
	LLMCallsPerTurn    float64     `json:"llm_calls_per_turn"`
	PromptTokensP50    int         `json:"prompt_tokens_per_turn_p50"`
	PromptTokensP95    int         `json:"prompt_tokens_per_turn_p95"`
	LatencyP50MS       float64     `json:"model_latency_p50_ms"`
	LatencyP95MS       float64     `json:"model_latency_p95_ms"`
	HarnessPerTurnMS   float64     `json:"harness_overhead_per_turn_ms"`
	// What a person waits for: the mean wall time of the agent's turns,
	// the mean time of their agent calls, and the wall time over the
	// agent's time (mean: of the totals; p50 and p95: of the turns).
	WallPerTurnMS  float64 `json:"wall_per_turn_ms"`
	AgentPerTurnMS float64 `json:"agent_call_per_turn_ms"`
	WaitRatio      float64 `json:"wall_over_agent"`
	WaitRatioP50   float64 `json:"wall_over_agent_p50"`
	WaitRatioP95   float64 `json:"wall_over_agent_p95"`
	// The model work a turn needed (every call of the turn, as the server
	// reports its time) and the wall time over it (mean: of the totals),
	// over the same turns: how near the run comes to what the server must
	// do anyway.
	ModelPerTurnMS float64 `json:"model_work_per_turn_ms"`
	WallOverModel  float64 `json:"wall_over_model_work"`
	// Memory: the share of turns that asked a memory question, and who
	// answered.
	MemoryShare float64     `json:"memory_question_share"`
	Memory      MemoryTally `json:"memory"`
	// The critic: proposals per judged turn, rejections by stage, and
	// rejections played anyway.
	ProposalsPerTurn float64              `json:"critic_proposals_per_turn"`
	RejectedByStage  map[engine.Stage]int `json:"critic_rejected_by_stage"`
	// DecidedByStage counts the proposals each stage decided (accepted
	// or rejected).
	DecidedByStage       map[engine.Stage]int `json:"critic_decided_by_stage"`
	OverriddenRejections int                  `json:"critic_overridden_rejections"`
	// ReviewAcceptance is the person's acceptance rate (review mode); -1
	// when nobody reviewed.
	ReviewAcceptance float64 `json:"review_acceptance_rate"`
	ReviewDecisions  int     `json:"review_decisions"`
}

// Comparison is --compare --json's output.
type Comparison struct {
	A *Report `json:"a"`
	B *Report `json:"b"`
}

// WithMemories lists the visited locations that have at least one memory
// the agent sees in Memories.md.
func WithMemories(path string, visited []int) []int {
	f, err := memory.Load(path)
	if err != nil {
		return nil
	}
	var out []int
	for _, id := range visited {
		sec, ok := f.Section(id)
		if !ok {
			continue
		}
		for _, m := range sec.Memories {
			if m.Visible() {
				out = append(out, id)
				break
			}
		}
	}
	return out
}
