// Package supervisor is a two-stage manager with its own memory: a
// supervisor that watches the agent as a person would. A round (every
// turn, or every N turns) is one conversation with the supervisor
// role in two stages: an evaluation of the agent's reasoning and actions,
// the turns' outcomes, the ground truth and the supervisor's memory, which
// sets its three gauges in [-1, 1] — trust_level (do the agent's claims
// match the ground truth), work_satisfaction (progress: score, new rooms,
// objectives met), relational_comfort (does it follow the person's
// overrides or undo them) — and then feedback for the agent, which reaches
// the agent's next prompt (Reflexion-style).
//
// ManagerMemory: the last K rounds are kept in full and shown to every
// evaluation; older rounds are summarised by the model into a long-term
// memory. Every round is handed whole to a Recorder (the session keeps them
// in lantern.db). Claims the ground truth contradicts lower trust whatever
// the model says. Replies are parsed strictly (llm.Structured: 3 tries with
// a format reminder, then a typed error); a failed round leaves no
// feedback.
//
// Lifecycle (every planning manager's): New with its dependencies, Reset per episode (the
// gauges and the memory are long-term and survive), ProcessTurn after each
// turn (ProcessPeriodic when a round is due), Status for the UI.
// ProcessTurn and ProcessPeriodic belong to one goroutine (the engine's);
// Feedback and Status may be called from any.
package supervisor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/mapper"
)

// Config tunes the supervisor.
type Config struct {
	Every        int     // a round every this many turns (1), or sooner when the turns would not fit the context whole
	K            int     // rounds kept in full (3)
	TrustPenalty float64 // trust lost per contradicted claim, at least (0.25)
	Initial      Gauges  // the gauges before the first round
}

func (c Config) withDefaults() Config {
	c.Every = domain.PositiveOr(c.Every, 1)
	c.K = domain.PositiveOr(c.K, 3)
	c.TrustPenalty = domain.PositiveOr(c.TrustPenalty, 0.25)
	return c
}

// Gauges are the supervisor's three-dimensional state, each in [-1, 1].
type Gauges struct {
	Trust   float64 `json:"trust_level"`
	Work    float64 `json:"work_satisfaction"`
	Comfort float64 `json:"relational_comfort"`
}

func (g Gauges) String() string {
	return fmt.Sprintf("trust %+.2f, work satisfaction %+.2f, relational comfort %+.2f", g.Trust, g.Work, g.Comfort)
}

// Mood is a word for the gauges, for the UI.
func (g Gauges) Mood() string {
	switch {
	case g.Trust <= -0.3:
		return "distrustful"
	case g.Work <= -0.3:
		return "dissatisfied"
	case g.Comfort <= -0.3:
		return "uneasy"
	case g.Trust >= 0.3 && g.Work >= 0.3 && g.Comfort >= 0.3:
		return "satisfied"
	}
	return "watchful"
}

// Evaluation is the supervisor role's stage-1 reply: the new gauges, as
// integers from -10 to 10 (grammar-constrained decoding keeps small models
// within range), and its reasons.
type Evaluation struct {
	Assessment        string `json:"assessment" maxLength:"300" desc:"how the agent did, citing the facts"`
	TrustLevel        int    `json:"trust_level" minimum:"-10" maximum:"10"`
	WorkSatisfaction  int    `json:"work_satisfaction" minimum:"-10" maximum:"10"`
	RelationalComfort int    `json:"relational_comfort" minimum:"-10" maximum:"10"`
}

// FeedbackReply is the stage-2 reply: what the agent reads next turn.
type FeedbackReply struct {
	Reasoning string `json:"feedback_reasoning" maxLength:"200"`
	Feedback  string `json:"feedback" maxLength:"240" desc:"at most two sentences to the agent"`
}

// SummaryReply is the memory's summary of the rounds that left the window.
type SummaryReply struct {
	Summary string `json:"summary" maxLength:"600"`
}

// Round is one complete round, as recorded.
type Round struct {
	Number            int           `json:"round"`
	Episode           int           `json:"episode"`
	FirstTurn         int           `json:"first_turn"`
	LastTurn          int           `json:"last_turn"`
	Turns             []domain.Turn `json:"turns"`
	Findings          []Finding     `json:"findings"`
	Facts             []string      `json:"facts"`
	Memory            string        `json:"memory_context"`
	Evaluation        Evaluation    `json:"evaluation"`
	EvaluationReply   string        `json:"evaluation_reply"`
	Previous          Gauges        `json:"previous"`
	State             Gauges        `json:"state"`
	Mood              string        `json:"mood"`
	FeedbackReasoning string        `json:"feedback_reasoning"`
	Feedback          string        `json:"feedback"`
	Error             string        `json:"error,omitempty"`
	Time              time.Time     `json:"time"`
}

// Recorder keeps every round's complete data (lantern.db).
type Recorder interface {
	RecordRound(ctx context.Context, r Round) error
}

// Deps are the supervisor's dependencies; all but Client may be nil.
type Deps struct {
	Client *llm.Client
	Map    *mapper.Map // rooms seen, for claims about them
	// Completed counts the objectives completed so far (progress).
	Completed func() int
	// Hints are the person's standing requests to the agent (their
	// objectives), for relational comfort.
	Hints    func() []string
	Recorder Recorder
}

// Supervisor watches the agent.
type Supervisor struct {
	deps Deps
	cfg  Config

	mu         sync.Mutex
	state      Gauges
	prev       Gauges
	rounds     int
	window     []Round // the last K rounds, in full
	summary    string  // long-term memory: the rounds before the window
	summarized int     // rounds folded into the summary
	pending    []domain.Turn
	feedback   string
	lastErr    string
	done       int       // objectives completed at the last round
	person     *personAt // the person's latest command
}

type personAt struct {
	turn   int
	action string
}

// New makes a supervisor.
func New(deps Deps, cfg Config) *Supervisor {
	cfg = cfg.withDefaults()
	return &Supervisor{deps: deps, cfg: cfg, state: cfg.Initial, prev: cfg.Initial}
}

// Reset starts a new episode: turns waiting for a round and the feedback
// go (they are about the old game); the gauges and the memory stay.
func (s *Supervisor) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending, s.feedback, s.person = nil, "", nil
}

// Feedback is the coaching for the agent's next prompt ("" when the last
// round failed or none has run).
func (s *Supervisor) Feedback() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.feedback
}

// State is the current gauges and the previous ones.
func (s *Supervisor) State() (now, previous Gauges) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state, s.prev
}

// ProcessTurn adds a turn; when a round is due it runs it (ProcessPeriodic)
// and returns it with ran set.
func (s *Supervisor) ProcessTurn(ctx context.Context, t domain.Turn) (r Round, ran bool, err error) {
	s.mu.Lock()
	s.pending = append(s.pending, t)
	due := len(s.pending) >= s.cfg.Every
	s.mu.Unlock()
	if s.deps.Client == nil {
		return Round{}, false, nil
	}
	if !due && !s.wouldOverflow(ctx, t) {
		return Round{}, false, nil
	}
	r, err = s.ProcessPeriodic(ctx)
	return r, true, err
}

// MinFinalRound is the fewest turns an episode's last, partial round
// judges: a shorter remainder (an episode that ended a few turns after a
// round, or after a few turns) is not worth two model calls.
const MinFinalRound = 5

// Finish runs the episode's last, partial round at its end, when at least
// MinFinalRound turns wait for one; ran reports whether it did.
func (s *Supervisor) Finish(ctx context.Context) (r Round, ran bool, err error) {
	s.mu.Lock()
	n := len(s.pending)
	s.mu.Unlock()
	if s.deps.Client == nil || n < MinFinalRound {
		return Round{}, false, nil
	}
	r, err = s.ProcessPeriodic(ctx)
	return r, true, err
}

// wouldOverflow reports whether the round's turns, with one more turn
// like last, would no longer fit the supervisor's context whole beside its
// long-term summary: the round is then held now, early, rather than have
// its input cut (the supervisor judges complete turns, never clipped
// ones). The window's past rounds make room when the round is held
// (fitWindow).
func (s *Supervisor) wouldOverflow(ctx context.Context, last domain.Turn) bool {
	budget, err := s.deps.Client.PromptBudget(ctx, config.RoleSupervisor)
	if err != nil || budget <= 0 {
		return false
	}
	s.mu.Lock()
	chars := len(turnText(last)) + len(s.summary)
	for _, t := range s.pending {
		chars += len(turnText(t))
	}
	s.mu.Unlock()
	return chars/charsPerToken > budget-overheadTokens
}

// fitWindow folds the window's oldest rounds into the long-term summary
// while the memory and the round's turns would not fit the context whole
// together (the K-window shrinks to what fits; nothing is cut).
func (s *Supervisor) fitWindow(ctx context.Context, turns []domain.Turn) error {
	budget, err := s.deps.Client.PromptBudget(ctx, config.RoleSupervisor)
	if err != nil || budget <= 0 {
		return nil
	}
	chars := 0
	for _, t := range turns {
		chars += len(turnText(t))
	}
	for {
		s.mu.Lock()
		n, mem := len(s.window), len(s.memoryLocked())
		s.mu.Unlock()
		if n == 0 || (chars+mem)/charsPerToken <= budget-overheadTokens {
			return nil
		}
		if err := s.summarize(ctx, turnOf(turns), n-1); err != nil {
			return err
		}
	}
}

func turnOf(turns []domain.Turn) int {
	if len(turns) == 0 {
		return 0
	}
	return turns[len(turns)-1].Turn
}

// charsPerToken is the estimate of a prompt's tokens the early round uses
// (English text runs near four characters a token; three leaves room; the
// client's own estimate follows the model's counts, which the agent's
// calls on the same model have given it by the first round), and
// overheadTokens what the rest of an evaluation takes: the instructions,
// the ground-truth facts, the feedback stage's messages.
const (
	charsPerToken  = 3
	overheadTokens = 1200
)

// ProcessPeriodic runs a round over the turns since the last one.
func (s *Supervisor) ProcessPeriodic(ctx context.Context) (Round, error) {
	s.mu.Lock()
	turns := s.pending
	s.pending = nil
	s.rounds++
	r := Round{Number: s.rounds, Turns: turns, Previous: s.state, Time: time.Now()}
	s.mu.Unlock()
	var fitErr error
	if s.deps.Client != nil {
		fitErr = s.fitWindow(ctx, turns)
	}
	s.mu.Lock()
	memoryCtx := s.memoryLocked()
	s.mu.Unlock()
	if len(turns) > 0 {
		r.Episode, r.FirstTurn, r.LastTurn = turns[0].Episode, turns[0].Turn, turns[len(turns)-1].Turn
	}
	r.Memory = memoryCtx
	r.Findings, r.Facts = s.groundTruth(turns)
	if s.deps.Client == nil {
		return r, nil
	}
	msgs := []llm.Message{llm.System(systemPrompt), llm.User(s.evaluationInput(r))}

	// Stage 1: evaluation.
	eval, reply, err := llm.Structured[Evaluation](ctx, s.deps.Client, llm.Request{Role: config.RoleSupervisor, Messages: msgs, Turn: r.LastTurn})
	if err != nil {
		err = fmt.Errorf("supervisor round %d (evaluation): %w", r.Number, err)
		s.failed(ctx, r, err)
		return r, err
	}
	r.Evaluation, r.EvaluationReply = eval, reply.Content
	r.State = s.gauges(r.Previous, eval, r.Findings)
	r.Mood = r.State.Mood()
	// The state changes before anything else can fail: a later failure
	// must not leave the gauges of the round before.
	s.mu.Lock()
	s.prev, s.state = r.Previous, r.State
	s.mu.Unlock()

	// Stage 2: feedback, in the same conversation.
	msgs = append(msgs, llm.Assistant(reply.Content), llm.User(feedbackPrompt))
	fb, _, ferr := llm.Structured[FeedbackReply](ctx, s.deps.Client, llm.Request{Role: config.RoleSupervisor, Messages: msgs, Turn: r.LastTurn})
	if ferr != nil {
		ferr = fmt.Errorf("supervisor round %d (feedback): %w", r.Number, ferr)
		r.Error = ferr.Error()
	} else {
		r.FeedbackReasoning, r.Feedback = fb.Reasoning, strings.TrimSpace(fb.Feedback)
	}
	s.mu.Lock()
	s.feedback = r.Feedback
	s.window = append(s.window, r)
	overflow := len(s.window) > s.cfg.K
	s.mu.Unlock()
	var errs []error
	if ferr != nil {
		errs = append(errs, ferr)
	}
	if fitErr != nil {
		errs = append(errs, fitErr)
	}
	if overflow {
		if err := s.summarize(ctx, r.LastTurn, s.cfg.K); err != nil {
			errs = append(errs, err)
		}
	}
	if s.deps.Recorder != nil {
		if err := s.deps.Recorder.RecordRound(ctx, r); err != nil {
			errs = append(errs, fmt.Errorf("supervisor round %d: %w", r.Number, err))
		}
	}
	err = errors.Join(errs...)
	s.mu.Lock()
	s.lastErr = ""
	if err != nil {
		s.lastErr = err.Error()
	}
	s.mu.Unlock()
	return r, err
}

// failed ends a round that has no evaluation: no feedback this time.
func (s *Supervisor) failed(ctx context.Context, r Round, err error) {
	r.Error, r.State = err.Error(), r.Previous
	s.mu.Lock()
	s.feedback, s.lastErr = "", err.Error()
	s.mu.Unlock()
	if s.deps.Recorder != nil {
		_ = s.deps.Recorder.RecordRound(ctx, r) // the error is what gets reported
	}
}

// gauges turns the model's levels into the new state; each contradicted
// claim costs at least TrustPenalty of trust, whatever the model said.
func (s *Supervisor) gauges(prev Gauges, e Evaluation, findings []Finding) Gauges {
	g := Gauges{Trust: level(e.TrustLevel), Work: level(e.WorkSatisfaction), Comfort: level(e.RelationalComfort)}
	n := 0
	for _, f := range findings {
		if f.Contradicted {
			n++
		}
	}
	if n > 0 {
		g.Trust = math.Min(g.Trust, clamp(prev.Trust-s.cfg.TrustPenalty*float64(n)))
	}
	return g
}

func level(v int) float64 { return clamp(float64(v) / 10) }

func clamp(v float64) float64 { return math.Max(-1, math.Min(1, v)) }

// summarize folds the window's rounds but the last keep into the
// long-term memory. When the model fails, they stay in the window and the
// next round tries again.
func (s *Supervisor) summarize(ctx context.Context, turn, keep int) error {
	s.mu.Lock()
	if len(s.window) <= keep {
		s.mu.Unlock()
		return nil
	}
	over := append([]Round(nil), s.window[:len(s.window)-keep]...)
	prompt := summaryInput(s.summary, over)
	s.mu.Unlock()
	rep, _, err := llm.Structured[SummaryReply](ctx, s.deps.Client, llm.Request{Role: config.RoleSupervisor, Turn: turn,
		Messages: []llm.Message{llm.System(summaryPrompt), llm.User(prompt)}})
	if err != nil {
		return fmt.Errorf("supervisor memory summary: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.summary = strings.TrimSpace(rep.Summary)
	s.window = s.window[len(over):]
	s.summarized += len(over)
	return nil
}

// Memory is the supervisor's memory context: the long-term summary and
// the rounds in the window.
func (s *Supervisor) Memory() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.memoryLocked()
}

// Status is the supervisor's state for the UI.
type Status struct {
	State      Gauges `json:"state"`
	Previous   Gauges `json:"previous"`
	Mood       string `json:"mood"`
	Rounds     int    `json:"rounds"`
	Window     int    `json:"window"`
	Summarized int    `json:"summarized"`
	Summary    string `json:"summary,omitempty"`
	Feedback   string `json:"feedback,omitempty"`
	Pending    int    `json:"pending_turns"`
	LastError  string `json:"last_error,omitempty"`
}

// Status reports the supervisor's state.
func (s *Supervisor) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Status{State: s.state, Previous: s.prev, Mood: s.state.Mood(), Rounds: s.rounds, Window: len(s.window),
		Summarized: s.summarized, Summary: s.summary, Feedback: s.feedback, Pending: len(s.pending), LastError: s.lastErr}
}
