// Who sends what to whom, one turn:
//
//	client ──Command──▶ Engine.Send ─▶ cmds ─▶ Run (one goroutine, owns gameState,
//	                                             the map and the environment)
//	Run ─▶ Prompt: contextmgr.Build + PromptExtras (session: memories, notes,
//	       objectives, knowledge, feedback)
//	Run ─▶ agent goroutine: Agent.Propose, or ProposeRemembering with the
//	       last turn's memory question (deltas ─▶ events, droppable); Run
//	       keeps obeying commands meanwhile (apply)
//	Run ─▶ Critic.Evaluate (ground truth, then the critic model)
//	Run ─▶ env.Env.Step ─▶ Observation ─▶ map ─▶ TurnRecord (with the
//	       memory question's answer)
//	Run ─▶ Lifecycle.AfterTurn(TurnRecord) ─▶ After (session: lantern.db
//	       row and checkpoint, notes, state export; memory synthesis and
//	       planning queued beside the next turns; the next memory question)
//	Run ─▶ TurnResult ─▶ the events After holds ─▶ MapChanged ─▶
//	       TurnCompleted once the turn's work is done
//	Run ─▶ events channel ─▶ client (TUI, lantern run, bench); only
//	       ReasoningDelta may be dropped when the client lags.
//
// Episodes: startEpisode ─▶ Lifecycle.EpisodeNumber, StartEpisode ─▶
// EpisodeStarted; endEpisode ─▶ Lifecycle.EpisodeEnded ─▶ EpisodeEnded.

package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/contextmgr"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/managers/memsynth"
)

// Config tunes the turn loop.
type Config struct {
	MaxTurns        int     // per episode (the default configuration: 500); 0 means no cap
	Episodes        int     // episodes to play before stopping; 0 means 1, below 0 no limit
	CriticThreshold float64 // the lowest critic score accepted (default -0.2)
	// CriticMode says when the critic asks its model ("": always, as
	// CriticAlways; the configuration's default, loop.critic_mode, is
	// uncertain: only where the game cannot decide).
	CriticMode   CriticMode
	MaxProposals int // per turn (default 3)
	PromptBudget int // agent prompt tokens (0: no limit)
	StuckTurns   int // turns without progress before a warning (0: 20)
	MaxFailures  int // consecutive model failures before pausing (0: 3)
	StartPaused  bool
	Seed         int
	// Extractor asks the extractor role, after each turn that did
	// something, for the exits the text mentions and whether the player is
	// in a fight (what the machine cannot tell).
	Extractor bool
	// CanDoHint lists in the agent's prompt the things the game lets the
	// player do here (probed exits and valid actions).
	CanDoHint bool
	// Checkpoints puts the state after each turn (machine and engine) in
	// its TurnRecord, for a session that records it with the turn.
	Checkpoints bool
}

// Options are what an engine is made of. Env and Agent are required; the
// rest may be left zero.
type Options struct {
	Config Config
	Env    *env.Env
	Agent  Agent
	// Critic judges proposals; nil: the ground-truth stage only, at
	// Config.CriticThreshold.
	Critic *Critic
	// Client makes the engine's own model calls (the extractor) and counts
	// every call's tokens; nil for scripted runs.
	Client *llm.Client
	// Map is the map the engine keeps; nil: a new one.
	Map *mapper.Map
	// Prompt supplies the parts of the agent's prompt that live outside
	// the engine; nil leaves them out.
	Prompt PromptExtras
	// Lifecycle hears of episodes, turns and the person's edits; nil: none.
	Lifecycle Lifecycle
}

// gameState is the shared state of an episode.
type gameState struct {
	Episode int
	Turn    int
	Obs     env.Observation
	History []contextmgr.HistoryEntry
	// PersonFeedback are the person's reasons for rejecting proposals
	// (review mode), newest last, for the agent's prompt.
	PersonFeedback []string
	// Progress tracking for stuck detection.
	lastProgress int
	bestScore    int
	failedRow    int
	agentTurns   int // agent turns played this episode
	extracted    Extraction
}

// Engine is the orchestrator: one goroutine (Run) plays turns, reports
// Events and obeys Commands.
type Engine struct {
	cfg    Config
	env    *env.Env
	agent  Agent
	critic *Critic
	client *llm.Client // may be nil (scripted runs)
	gmap   *mapper.Map
	extras PromptExtras
	life   Lifecycle

	events   chan Event
	cmds     chan Command
	mode     Mode
	pending  []string
	quitting bool
	// Review mode: the person decides on each proposal after the critic.
	reviewing  bool
	autoAccept time.Duration
	ending     bool    // the person ended the episode (EndEpisode)
	rewinding  *Rewind // the person went back to a turn (Rewind), done at the turn boundary
	abandon    bool

	// waiting are the played turns whose background work is not done.
	waiting []unsettled
	// ask is the last played turn's memory question for the agent's next
	// reply (After.Ask); answer what became of a question put or not put,
	// until a played turn's record (or the next Settle) carries it.
	ask    *MemoryQuestion
	answer *MemoryAnswer

	st       gameState
	resume   *resumeState       // a checkpoint Run continues (ResumeFrom)
	played   int                // episodes this Run started (or resumed)
	seed     int                // the running episode's seed
	failed   map[string]bool    // failedKey: actions that did nothing (the repeated-failure metric)
	refused  map[string]refusal // key → what an action that did nothing left (the critic)
	actions  int
	repeats  int
	failures int
	dict     map[string]bool
	wordLen  int
	nouns    map[string]bool
}

// New makes an engine from its options. Run starts it.
func New(o Options) *Engine {
	cfg, critic, gmap := o.Config, o.Critic, o.Map
	cfg.MaxProposals = domain.PositiveOr(cfg.MaxProposals, 3)
	cfg.StuckTurns = domain.PositiveOr(cfg.StuckTurns, 20)
	cfg.MaxFailures = domain.PositiveOr(cfg.MaxFailures, 3)
	if cfg.Episodes == 0 {
		cfg.Episodes = 1
	}
	if gmap == nil {
		gmap = mapper.New()
	}
	if critic == nil {
		critic = NewCritic(nil, cfg.CriticThreshold)
	}
	e := &Engine{cfg: cfg, env: o.Env, agent: o.Agent, critic: critic, client: o.Client, gmap: gmap, extras: o.Prompt, life: o.Lifecycle,
		events: make(chan Event, 256), cmds: make(chan Command, 16), mode: Running, failed: map[string]bool{}, refused: map[string]refusal{}}
	if cfg.StartPaused {
		e.mode = Paused
	}
	e.indexStory()
	return e
}

// Events is the engine's event stream; it is closed after Stopped.
func (e *Engine) Events() <-chan Event { return e.events }

// Send gives the engine a command; it waits while the command queue is full.
func (e *Engine) Send(ctx context.Context, c Command) error {
	select {
	case e.cmds <- c:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *Engine) indexStory() {
	m := e.env.Machine()
	e.dict = map[string]bool{}
	for _, w := range m.DictionaryWords() {
		e.dict[strings.ToLower(w)] = true
	}
	e.wordLen = 6
	if m.Version() >= 4 {
		e.wordLen = 9
	}
	e.nouns = map[string]bool{}
	for o := 1; o <= m.ObjectCount(); o++ {
		if n := env.Noun(m.ObjectName(uint16(o))); n != "" {
			e.nouns[n] = true
		}
	}
}

// emit delivers an event; only cancellation of ctx can stop it, and only
// while the client lags: an event the channel has room for is always
// sent (a select between a free send and a done context would pick at
// random).
func (e *Engine) emit(ctx context.Context, ev Event) {
	select {
	case e.events <- ev:
		return
	default:
	}
	select {
	case e.events <- ev:
	case <-ctx.Done():
	}
}

// delta delivers a streaming delta unless the client is behind; a delta
// the client had no room for is counted on its turn (t.dropped).
func (e *Engine) delta(t *turn, d llm.Delta) {
	if d.Content != "" {
		select {
		case e.events <- ReasoningDelta{Turn: t.number, Text: d.Content}:
		default:
			t.dropped.Add(1)
		}
	}
	if d.Thinking != "" {
		select {
		case e.events <- ReasoningDelta{Turn: t.number, Text: d.Thinking, Thinking: true}:
		default:
			t.dropped.Add(1)
		}
	}
}

// Run plays until Quit, the episodes run out, or ctx ends. A panic is
// recovered and reported; Stopped is always the last event.
func (e *Engine) Run(ctx context.Context) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("engine panic: %v\n%s", r, debug.Stack())
			e.emit(ctx, ErrorEvent{Turn: e.st.Turn, Err: err, Fatal: true})
		} else {
			e.closeTurns(ctx)
		}
		final := Stopped{Err: err}
		select {
		case e.events <- final:
		case <-time.After(time.Second):
		}
		close(e.events)
	}()
	if e.resume != nil {
		if err := e.resumeEpisode(ctx); err != nil {
			return err
		}
		if done, err := e.endIfOver(ctx); err != nil || done {
			return err
		}
	} else if err := e.startEpisode(ctx, false); err != nil {
		return err
	}
	for {
		if e.quitting || ctx.Err() != nil {
			return nil
		}
		e.drain(ctx)
		if to := e.rewinding; to != nil && !e.quitting {
			e.rewinding = nil
			e.rewindTo(ctx, *to)
			continue
		}
		if e.ending && !e.quitting {
			e.ending = false
			if err := e.endEpisode(ctx, env.EndPerson); err != nil {
				return err
			}
			continue
		}
		switch {
		case e.quitting:
			return nil
		case len(e.pending) > 0:
			a := e.pending[0]
			e.pending = e.pending[1:]
			if err := e.play(ctx, e.personTurn(a)); err != nil {
				return err
			}
		case e.mode == Running || e.mode == Stepping:
			if err := e.agentTurn(ctx); err != nil {
				return err
			}
			if e.mode == Stepping {
				e.mode = Paused
			}
		default:
			e.settle(ctx) // out of work means the background's too
			e.emit(ctx, Idle{Turn: e.st.Turn, Mode: e.mode})
			select {
			case c := <-e.cmds:
				e.apply(ctx, c)
			case <-ctx.Done():
				return nil
			}
		}
		if done, err := e.checkEpisode(ctx); err != nil || done {
			return err
		}
	}
}

// drain applies the commands waiting at a turn boundary, and delivers the
// background work finished meanwhile.
func (e *Engine) drain(ctx context.Context) {
	e.takeSettled(ctx)
	for {
		select {
		case c := <-e.cmds:
			e.apply(ctx, c)
		default:
			return
		}
	}
}

// apply obeys a command at a turn boundary or during a proposal; it returns
// whether a proposal in flight should be abandoned. The events it causes
// are delivered like every other event (waiting while the client lags).
func (e *Engine) apply(ctx context.Context, c Command) bool {
	switch c := c.(type) {
	case Pause:
		e.mode = Paused
	case Unpause:
		e.mode = Running
	case Step:
		e.mode = Stepping
	case Override:
		if t := env.Sanitize(c.Text); t != "" {
			e.pending = append(e.pending, t)
		}
		if c.Cancel {
			e.mode = Paused
			return true
		}
	case CancelTurn:
		e.mode = Paused
		return true
	case SetModel:
		if e.client != nil {
			if err := e.client.SetModel(c.Role, c.Model); err != nil {
				e.emit(ctx, ErrorEvent{Turn: e.st.Turn, Err: err})
			}
		}
	case Quit:
		e.quitting = true
		return true
	case EndEpisode:
		e.ending = true
		return true
	case Rewind:
		e.rewinding = &c
		return true
	case SuggestActions:
		e.suggest(ctx)
	case MemoryEdit, ObjectiveEdit:
		e.edit(ctx, c)
	case SetReview:
		e.reviewing, e.autoAccept = c.On, c.AutoAccept
		e.emit(ctx, ReviewMode{On: c.On, AutoAccept: c.AutoAccept})
	}
	return false
}

// edit hands a person's edit to the hook that owns that data.
func (e *Engine) edit(ctx context.Context, c Command) { e.editAt(ctx, c, e.st.Turn) }

// editAt hands the hook an edit stamped with a turn (the last played, or
// the one in progress when the edit belongs to it).
func (e *Engine) editAt(ctx context.Context, c Command, turn int) {
	if e.life == nil {
		return
	}
	evs, err := e.life.Edit(ctx, c, e.st.Episode, turn)
	for _, ev := range evs {
		e.emit(ctx, ev)
	}
	if err != nil {
		e.emit(ctx, ErrorEvent{Turn: turn, Err: err})
	}
}

var errAbandoned = errors.New("proposal abandoned")

// propose asks the agent for turn t's next proposal while commands keep
// being obeyed; a command that abandons the turn cancels the proposal at
// once. With a memory question on the turn (t.ask: its first proposal
// only) the agent's reply answers it too, and what became of it waits in
// t.answer for the turn's record.
func (e *Engine) propose(ctx context.Context, t *turn, rejected []string) (Proposal, error) {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		p    Proposal
		note memsynth.Note
		err  error
	}
	q := t.ask
	mp, _ := e.agent.(MemoryProposer) // takeAsk put q only for an agent that answers
	t.ask = nil
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- result{err: fmt.Errorf("agent panic: %v\n%s", r, debug.Stack())}
			}
		}()
		onDelta := func(d llm.Delta) { e.delta(t, d) }
		if q != nil {
			p, n, err := mp.ProposeRemembering(pctx, t.prompt, q.Text, t.number, onDelta)
			ch <- result{p, n, err}
			return
		}
		p, err := e.agent.Propose(pctx, t.prompt, rejected, t.number, onDelta)
		ch <- result{p: p, err: err}
	}()
	answered := func(r result) {
		if q != nil {
			t.answer = &MemoryAnswer{Question: *q, Note: r.note, Err: r.err}
		}
	}
	for {
		select {
		case r := <-ch:
			answered(r) // a reply that came back whole answered, abandoned or not
			if e.abandon {
				e.abandon = false
				r.err = errAbandoned
			}
			if errors.Is(r.err, ErrNoMemoryAnswer) {
				r.err = nil // the proposal stands; the question goes elsewhere
			}
			return r.p, r.err
		case c := <-e.cmds:
			if e.apply(ctx, c) {
				e.abandon = true
				cancel()
			}
		case <-e.ready():
			e.takeSettled(ctx) // the last turns' managers finished beside this proposal
		case <-ctx.Done():
			cancel()
			<-ch
			answered(result{err: ctx.Err()})
			return Proposal{}, ctx.Err()
		}
	}
}

// takeAsk puts the last turn's memory question on turn t when the agent
// can answer it in its reply; otherwise its outcome is ErrUnasked.
func (e *Engine) takeAsk(t *turn) {
	q := e.ask
	if q == nil {
		return
	}
	e.ask = nil
	if _, ok := e.agent.(MemoryProposer); ok && t.actor == ActorAgent {
		t.ask = q
		return
	}
	t.answer = &MemoryAnswer{Question: *q, Err: ErrUnasked}
}

// leftover is what became of a memory question no played turn's record
// carries (the engine settles: it pauses, stops, ends the episode or
// rewinds); why is the outcome of a question never put (ErrUnasked, or
// ErrLineAbandoned for a rewind, which also drops an answer the line left
// behind).
func (e *Engine) leftover(why error) *MemoryAnswer {
	a := e.answer
	e.answer = nil
	if q := e.ask; q != nil {
		e.ask = nil
		a = &MemoryAnswer{Question: *q, Err: why}
	}
	if a != nil && errors.Is(why, ErrLineAbandoned) {
		a.Note, a.Err = memsynth.Note{}, why
	}
	return a
}

// agentTurn asks for proposals (at most MaxProposals), has the critic judge
// them, and plays the first accepted one, or the best.
func (e *Engine) agentTurn(ctx context.Context) error {
	t := e.newTurn(ActorAgent)
	e.emit(ctx, TurnStarted{Turn: t.number, Actor: ActorAgent})
	t.prompt = e.Prompt(ctx, t.number)
	scope := e.scope()
	var rejected []string
	modelRejected := map[string]bool{}
	var best *Proposal
	bestScore, bestAt := -2.0, 0
	e.takeAsk(t) // answered by the first proposal's reply
	defer e.keepAnswer(t)
	for attempt := 1; attempt <= e.cfg.MaxProposals; attempt++ {
		asked := time.Now()
		p, err := e.propose(ctx, t, rejected)
		t.agent += time.Since(asked)
		switch {
		case errors.Is(err, errAbandoned):
			return nil
		case errors.Is(err, ErrScriptDone):
			e.quitting = true
			return nil
		case ctx.Err() != nil:
			return nil
		case err != nil:
			return e.modelFailed(ctx, t.number, err)
		}
		e.failures = 0
		proposalNo := attempt + len(t.reviews) // numbered across the person's rejections
		e.emit(ctx, ProposalMade{Turn: t.number, Attempt: proposalNo, Action: p.Action, Reasoning: p.Reasoning, Thinking: p.Thinking})
		norm := mapper.NormalizeAction(p.Action)
		v, err := e.critic.Evaluate(ctx, scope, p, judging{Prompt: t.prompt, Turn: t.number, Advisory: e.agent.Scripted(), Insisted: modelRejected[norm]})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			// A critic that cannot answer does not block the agent.
			e.emit(ctx, ErrorEvent{Turn: t.number, Err: fmt.Errorf("critic: %w", err)})
			v = Verdict{Action: p.Action, Accepted: true, Stage: StageUnavailable, Justification: err.Error()}
		}
		t.verdicts = append(t.verdicts, v)
		e.emit(ctx, CriticVerdict{Turn: t.number, Attempt: proposalNo, Action: p.Action, Score: v.Score, Justification: v.Justification, Accepted: v.Accepted, Stage: v.Stage})
		if e.reviewing && (v.Accepted || attempt == e.cfg.MaxProposals) {
			if !v.Accepted && best != nil && bestScore > v.Score {
				p, v = *best, t.verdicts[bestAt] // the cap: the best proposal goes to the person
			}
			again, err := e.reviewed(ctx, t, proposalNo, p, v)
			if !again {
				return err
			}
			rejected = append(rejected, fmt.Sprintf("%q (the person: %s)", p.Action, t.reviews[len(t.reviews)-1].Reason))
			t.prompt = e.Prompt(ctx, t.number)
			attempt-- // the person's rejections do not count against the critic's cap
			best, bestScore = nil, -2.0
			continue
		}
		if v.Accepted {
			return e.play(ctx, t.choose(ActorAgent, p.Action, p))
		}
		if v.Stage == StageModel {
			modelRejected[norm] = true
		}
		if v.Score > bestScore {
			bp := p
			best, bestScore, bestAt = &bp, v.Score, len(t.verdicts)-1
		}
		rejected = append(rejected, fmt.Sprintf("%q (%s)", p.Action, v.Justification))
	}
	if best == nil {
		return nil
	}
	return e.play(ctx, t.choose(ActorAgent, best.Action, *best))
}

// modelFailed reports a failed proposal and pauses after too many in a
// row, or at once when no retry can help (the model is not on the server,
// the server rejects the request's options or its credentials, or asks to
// be called again later than a call waits): the person must act first.
func (e *Engine) modelFailed(ctx context.Context, turn int, err error) error {
	e.failures++
	e.emit(ctx, ErrorEvent{Turn: turn, Err: err})
	final := errors.Is(err, llm.ErrModelNotFound) || errors.Is(err, llm.ErrBadRequest) || errors.Is(err, llm.ErrReplyTooLarge) ||
		errors.Is(err, llm.ErrUnauthorized) || errors.Is(err, llm.ErrRetryLater)
	if final || e.failures >= e.cfg.MaxFailures {
		e.mode = Paused
		e.failures = 0
	}
	return nil
}

func (e *Engine) llmTime() time.Duration {
	if e.client == nil {
		return 0
	}
	return e.client.Metrics.Latency()
}

func (e *Engine) scope() scope {
	s := scope{Location: e.st.Obs.Location.ID, Dictionary: e.dict, WordLen: e.wordLen, AllNouns: e.nouns, InScope: map[string]bool{},
		Knows: e.env.Machine().KnowsWord, Refused: e.refused, WorldHash: e.st.Obs.WorldHash,
		Mode: e.cfg.CriticMode, Game: e.env, KnownExits: e.gmap.Exits(e.st.Obs.Location.ID)}
	for _, n := range e.env.Scope() {
		s.InScope[n] = true
	}
	s.Refuses = func(action, word string) bool {
		refused, _ := e.env.Refuses(action, word, e.dict, e.wordLen)
		return refused
	}
	s.Idle = func(action, reply string) bool {
		idle, ok := e.env.Idle(action, reply)
		return idle && ok
	}
	s.RefusesUnknown = func(action, word string) bool {
		refused, ok := e.env.RefusesUnknown(action, word, e.dict, e.wordLen)
		return refused && ok
	}
	return s
}

// Prompt is the agent's prompt for a turn as the loop builds it. Only the
// engine's goroutine may call it, or anyone once Run has returned.
func (e *Engine) Prompt(ctx context.Context, turn int) []llm.Message {
	obs := e.st.Obs
	in := contextmgr.Input{
		Turn: turn, LocationID: obs.Location.ID, LocationName: obs.Location.Name, Score: obs.Score, Moves: obs.Moves,
		LastText: obs.Text, Recent: e.st.History, Map: e.gmap.Neighbourhood(obs.Location.ID),
		Budget: e.cfg.PromptBudget, Person: e.st.PersonFeedback,
		Description: e.env.Look(), InScope: e.env.ScopeNames(),
		Thinking: e.client != nil && !e.agent.Scripted() && e.client.Thinks(ctx, config.RoleAgent),
	}
	for _, it := range obs.Inventory {
		in.Inventory = append(in.Inventory, it.Name)
	}
	if e.cfg.CanDoHint {
		in.CanDo = canDo(e.env)
	}
	if x := e.st.extracted; x.FromModel && x.Location.ID == obs.Location.ID {
		known := e.gmap.Exits(obs.Location.ID)
		for _, d := range x.Exits {
			if _, ok := known[d]; !ok {
				d += " (unexplored)"
			}
			in.Exits = append(in.Exits, d)
		}
		in.InCombat = x.InCombat
	}
	if x := e.extras; x != nil {
		in.LocationMemory = x.LocationMemory(obs.Location.ID)
		in.Notes = x.Notes()
		in.Objectives = x.Objectives()
		in.Knowledge = x.Knowledge()
		in.Feedback = x.Feedback()
	}
	in.Warning = e.warning(turn)
	return contextmgr.Build(in)
}

// stuckRepeats is the run of actions that changed nothing after which the
// agent counts as stuck.
const stuckRepeats = 5

// becameStuck reports whether the agent became stuck with this turn: the
// run of failed actions or of turns without progress just crossed its
// limit (once per run, not every turn after).
func (e *Engine) becameStuck(turn int) bool {
	return e.st.failedRow == stuckRepeats || turn-e.st.lastProgress == e.cfg.StuckTurns+1
}

// warning is the loop and stuck detection's word to the agent.
func (e *Engine) warning(turn int) string {
	var w []string
	if e.st.failedRow >= 3 {
		w = append(w, fmt.Sprintf("Your last %d actions changed nothing. Try something different.", e.st.failedRow))
	}
	if turn-e.st.lastProgress > e.cfg.StuckTurns {
		w = append(w, fmt.Sprintf("No new room and no points for %d turns: explore elsewhere or rethink the plan.", turn-e.st.lastProgress))
	}
	return strings.Join(w, " ")
}

// checkEpisode ends an episode at the turn cap; it reports whether the
// engine is done.
func (e *Engine) checkEpisode(ctx context.Context) (bool, error) {
	if e.cfg.MaxTurns > 0 && e.st.Turn >= e.cfg.MaxTurns && !e.quitting {
		if err := e.endEpisode(ctx, env.EndTurnCap); err != nil {
			return true, err
		}
	}
	return e.quitting, nil
}

// endEpisode reports the end and starts the next episode, or stops.
func (e *Engine) endEpisode(ctx context.Context, why env.Ending) error {
	e.settle(ctx) // the last turns' work belongs to this episode
	ep := EpisodeEnded{Episode: e.st.Episode, Line: e.line(), Reason: why, Score: e.st.Obs.Score, Moves: e.st.Obs.Moves, Turns: e.st.Turn}
	if e.life != nil {
		if err := e.life.EpisodeEnded(ctx, ep); err != nil {
			e.emit(ctx, ErrorEvent{Turn: e.st.Turn, Err: err})
		}
	}
	e.emit(ctx, EpisodeEnded(ep))
	if e.cfg.Episodes > 0 && e.played >= e.cfg.Episodes {
		e.quitting = true
		return nil
	}
	return e.startEpisode(ctx, true)
}

// startEpisode begins an episode: the story from the start (a new seed for
// each new episode), the managers reset in dependency order.
func (e *Engine) startEpisode(ctx context.Context, reset bool) error {
	var obs env.Observation
	var err error
	if reset {
		obs, err = e.env.Reset(e.cfg.Seed + e.played)
	} else {
		obs, err = e.env.Start()
	}
	if err != nil {
		e.emit(ctx, ErrorEvent{Err: err, Fatal: true})
		return err
	}
	e.gmap.Reset()
	e.gmap.Visit(obs.Location.ID, obs.Location.Name)
	// An action that failed in an earlier episode may work in this one.
	e.failed, e.refused = map[string]bool{}, map[string]refusal{}
	number := e.st.Episode + 1
	if e.life != nil {
		n, err := e.life.EpisodeNumber(ctx)
		if err != nil {
			e.emit(ctx, ErrorEvent{Err: err})
		} else if n > 0 {
			number = n
		}
	}
	e.seed = e.cfg.Seed + e.played
	e.played++
	e.st = gameState{Episode: number, Obs: obs, bestScore: obs.Score}
	if e.client != nil {
		e.client.Metrics.ResetTurns() // turn numbers start again
	}
	e.announce(ctx, EpisodeStarted{Episode: number, Seed: e.seed, Observation: obs})
	return nil
}

// announce tells the session, then the clients, that an episode started
// (or resumed), and gives the clients its map.
func (e *Engine) announce(ctx context.Context, ev EpisodeStarted) {
	ev.Branch = e.line()
	if e.life != nil {
		if err := e.life.StartEpisode(ctx, ev); err != nil {
			e.emit(ctx, ErrorEvent{Err: err})
		}
	}
	e.emit(ctx, ev)
	e.emitMap(ctx)
}

// emitMap sends a copy of the map to the clients.
func (e *Engine) emitMap(ctx context.Context) {
	st := e.gmap.Status()
	e.emit(ctx, MapChanged{Rooms: st.Rooms, Connections: st.Connections, Map: e.gmap.Snapshot()})
}
