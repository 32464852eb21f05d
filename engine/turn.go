package engine

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/contextmgr"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/sanitize"
)

// A turn is one action played in an episode, by the agent or the person,
// with everything that followed it. This file holds the turn's nouns (who
// played, the critic's verdicts, the person's reviews, the record the
// session keeps) and the code that plays one: a turn value is made once
// when the turn starts (its number, its clock), filled in as proposals
// are judged and reviewed, and handed whole to play, which makes the
// record every later stage reads.

// Actor says who chose an action.
type Actor string

const (
	ActorAgent Actor = "agent"
	ActorHuman Actor = "human"
	// ActorHumanEdited: the person changed the agent's proposal before it
	// was played.
	ActorHumanEdited Actor = "human-edited"
)

// Verdict is the critic's decision on one proposal.
type Verdict struct {
	Action        string  `json:"action"`
	Stage         Stage   `json:"stage"`
	Score         float64 `json:"score"`
	Accepted      bool    `json:"accepted"`
	Justification string  `json:"justification,omitempty"`
}

// Decision is the person's verdict on a proposal.
type Decision string

// The person's decisions.
const (
	DecisionAccept Decision = "accept"
	DecisionEdit   Decision = "edit"
	DecisionReject Decision = "reject"
)

// Review is one decision of the person's, as recorded with the turn.
type Review struct {
	Proposal   string   `json:"proposal"`
	Decision   Decision `json:"decision"`
	Command    string   `json:"command,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	Remembered bool     `json:"remembered,omitempty"`
	Auto       bool     `json:"auto,omitempty"` // accepted by the timer
}

// TurnRecord is a played turn as the session receives it
// (Lifecycle.AfterTurn): everything the run database, the checkpoint and
// the managers need. Clients see it through Result (the TurnResult event);
// the managers read it as a domain.Turn, which the session builds from it.
type TurnRecord struct {
	Episode   int
	Turn      int
	Actor     Actor
	Action    string
	Reasoning string
	Proposal  Proposal
	Verdicts  []Verdict
	Reviews   []Review // the person's decisions (review mode)
	// Answer is what became of the last turn's memory question (nil: none
	// was asked): the note the agent's proposal for this turn wrote, or
	// why it is unanswered.
	Answer    *MemoryAnswer
	Before    env.Observation
	After     env.Observation
	Extracted Extraction
	Failed    bool // no world change, no score change, no move
	Repeated  bool // the same action had already failed here
	NewRoom   bool // the destination was not on the map before
	// Stuck: this turn the agent became stuck (stuckRepeats failed
	// actions in a row, or StuckTurns turns without a new room or points);
	// the session refreshes the objectives at once.
	Stuck    bool
	Duration time.Duration
	LLMTime  time.Duration
	// AgentTime is the time the agent's calls took (every proposal of the
	// turn): the part of Duration a person must wait for whatever else
	// the turn does.
	AgentTime  time.Duration
	LLMMetrics llm.Summary
	// Prompt is the agent's prompt for this turn (nil for a person's
	// action). A manager that asks the same model after the turn (memory
	// synthesis) continues it, so Ollama's prompt cache still holds it
	// when the next turn's prompt comes.
	Prompt []llm.Message
	// Seed is the random seed the episode started with.
	Seed int
	// History is a copy of the recent turns the agent's prompt shows,
	// this one last; the receiver may keep it.
	History []contextmgr.HistoryEntry
	// Checkpoint is the state after this turn when Config.Checkpoints is
	// on; nil otherwise (or when it could not be made: an ErrorEvent says
	// why).
	Checkpoint *Checkpoint
	// Map is the map after this turn, a copy the receiver may keep (work
	// that runs beside the next turns reads it, never the engine's).
	Map mapper.Snapshot
	// Line is the line of play the turn was recorded on (set by the
	// engine once the Lifecycle recorded it).
	Line Branch
	// actions and repeats are the run's counts after this turn.
	actions, repeats int
	// dropped is how many of the turn's reasoning deltas were dropped.
	dropped int
}

// Result is the clients' view of the record: the TurnResult event.
func (r TurnRecord) Result() TurnResult {
	return TurnResult{Turn: r.Turn, Actor: r.Actor, Action: r.Action, Reasoning: r.Reasoning, Observation: r.After,
		Duration: r.Duration, LLMTime: r.LLMTime, Verdicts: r.Verdicts, Reviews: r.Reviews, Line: r.Line}
}

// turn is a turn being played: made once when it starts (newTurn), filled
// in as proposals are judged and reviewed, then played whole (play).
type turn struct {
	number    int
	actor     Actor
	action    string
	proposal  Proposal
	verdicts  []Verdict
	reviews   []Review
	prompt    []llm.Message   // the agent's (nil for the person's action)
	ask       *MemoryQuestion // the last turn's question, for the first proposal
	answer    *MemoryAnswer   // what became of it (the turn's record carries it)
	start     time.Time
	llmBefore time.Duration // the client's model time when the turn began
	agent     time.Duration // the agent's calls so far (every proposal)
	// dropped counts the reasoning deltas of the turn's proposals the
	// client had no room for; the agent's goroutine adds to it.
	dropped atomic.Int64
}

// newTurn starts the next turn of the episode by actor.
func (e *Engine) newTurn(actor Actor) *turn {
	return &turn{number: e.st.Turn + 1, actor: actor, start: time.Now(), llmBefore: e.llmTime()}
}

// personTurn is the person's command as a turn of its own.
func (e *Engine) personTurn(action string) *turn {
	t := e.newTurn(ActorHuman)
	t.action, t.proposal = action, Proposal{Action: action}
	e.takeAsk(t) // the person plays: no agent reply answers the last turn's question
	return t
}

// keepAnswer keeps what became of the memory question of an agent turn
// that was not played (abandoned, failed): the next played turn's record
// or the next Settle carries it.
func (e *Engine) keepAnswer(t *turn) {
	if t.answer != nil {
		e.answer, t.answer = t.answer, nil
	}
}

// choose settles what the turn plays: the proposal p as actor (the agent's,
// or the person's edit of it as ActorHumanEdited with the command).
func (t *turn) choose(actor Actor, action string, p Proposal) *turn {
	t.actor, t.action, t.proposal = actor, action, p
	if actor != ActorAgent {
		t.prompt = nil // the person chose: no prompt of the agent's led here
	}
	return t
}

// play runs the turn's action through the environment and every manager;
// the person's and the agent's actions take the same path.
func (e *Engine) play(ctx context.Context, t *turn) error {
	if t.actor == ActorHuman {
		e.emit(ctx, TurnStarted{Turn: t.number, Actor: ActorHuman})
	}
	before := e.st.Obs
	obs, err := e.env.Step(t.action)
	if err != nil {
		e.emit(ctx, ErrorEvent{Turn: t.number, Err: err, Fatal: errors.Is(err, env.ErrEnded)})
		if errors.Is(err, env.ErrEnded) {
			return e.endEpisode(ctx, env.EndHalted)
		}
		return nil
	}
	if t.answer == nil {
		t.answer, e.answer = e.answer, nil
	}
	rec, mapChanged := e.advance(ctx, t, before, obs)
	rec.Answer, t.answer = t.answer, nil
	// The turn is recorded first (a few milliseconds), so a client that
	// reports each result (lantern run) reports recorded turns, as soon as
	// the story has answered; then clients see the result, then what the
	// session made of it (memories, objectives, the supervisor), then the
	// map, and the whole turn (TurnCompleted) once its work is done.
	var after After
	if e.life != nil {
		after, err = e.life.AfterTurn(ctx, rec)
	}
	e.ask = after.Ask
	rec.Line = e.line() // recorded now: the row the turn is on
	res := rec.Result()
	res.Unrecorded = errors.Is(err, ErrNotRecorded)
	if e.client != nil {
		res.LLM = e.client.Metrics.Turn(t.number)
	}
	lctx, cancel := lasting(ctx) // a recorded turn's result outlives a stop, as its TurnCompleted does
	e.emit(lctx, res)
	cancel()
	if e.life != nil {
		for _, ev := range after.Events {
			e.emit(ctx, ev)
		}
		if err != nil {
			e.emit(ctx, ErrorEvent{Turn: t.number, Err: err})
		}
		if Halts(err) {
			// Playing on would lose every turn from here: stop until the
			// person has fixed the disk or the database. A turn whose row
			// was written is still closed: clients report what is recorded,
			// whatever the context's state when the rest failed.
			e.mode, e.pending = Paused, nil
			if !errors.Is(err, ErrNotRecorded) {
				e.close(ctx, t, rec)
			}
			return nil
		}
	}
	if mapChanged {
		e.emitMap(ctx)
	}
	e.close(ctx, t, rec)
	if obs.Ended != env.NotEnded {
		return e.endEpisode(ctx, obs.Ended)
	}
	return nil
}

// close ends a recorded turn: with the lifecycle's background work it
// waits for that work (deliver sends its TurnCompleted), without it
// TurnCompleted goes now, outliving a stop (lasting).
func (e *Engine) close(ctx context.Context, t *turn, rec TurnRecord) {
	if e.background() != nil {
		e.waiting = append(e.waiting, unsettled{rec: rec, start: t.start, span: time.Since(t.start)})
		return
	}
	lctx, cancel := lasting(ctx)
	defer cancel()
	e.emit(lctx, e.completed(rec, t.start, time.Since(t.start)))
}

// advance moves the game state past a played action and makes the turn's
// record: failures and progress, the extractor, the map, the history and
// the checkpoint. mapChanged: the map learned a room or a connection.
func (e *Engine) advance(ctx context.Context, t *turn, before, obs env.Observation) (rec TurnRecord, mapChanged bool) {
	n := t.number
	e.st.Turn, e.st.Obs = n, obs
	failed := !obs.WorldChanged && obs.Score == before.Score && obs.Location.ID == before.Location.ID && !obs.Meta
	k := failedKey(before.Location.ID, t.action, before.WorldHash)
	repeated := failed && e.failed[k]
	e.actions++
	if repeated {
		e.repeats++
	}
	if failed {
		e.failed[k] = true
		e.refused[key(before.Location.ID, t.action)] = refusal{World: obs.WorldHash, Reply: sanitize.OneLine(obs.Text)}
		e.st.failedRow++
	} else {
		e.st.failedRow = 0
	}
	e.critic.Observe(before.Location.ID, t.action, !failed)
	x, xerr := e.extract(ctx, n, obs, failed)
	if xerr != nil {
		// The facts from the machine stand; only the model's are missing.
		e.emit(ctx, ErrorEvent{Turn: n, Err: xerr})
	}
	e.st.extracted = x
	newRoom := !e.gmap.Known(obs.Location.ID)
	mapChanged = e.gmap.ProcessTurn(before.Location.ID, t.action, obs.Location.ID, obs.Location.Name)
	if newRoom || obs.Score > e.st.bestScore {
		e.st.lastProgress = n
		e.st.bestScore = max(e.st.bestScore, obs.Score)
	}
	e.st.History = append(e.st.History, contextmgr.HistoryEntry{Turn: n, Actor: string(t.actor), Action: t.action, Reasoning: t.proposal.Reasoning, Response: obs.Text})
	if len(e.st.History) > 10 {
		e.st.History = e.st.History[len(e.st.History)-10:]
	}
	if t.actor == ActorAgent {
		e.st.agentTurns++
	}
	rec = TurnRecord{Episode: e.st.Episode, Turn: n, Actor: t.actor, Action: t.action, Reasoning: t.proposal.Reasoning, Proposal: t.proposal,
		Verdicts: t.verdicts, Reviews: t.reviews, Before: before, After: obs, Extracted: x, Failed: failed, Repeated: repeated, NewRoom: newRoom,
		Stuck: e.becameStuck(n), Duration: time.Since(t.start), LLMTime: e.llmTime() - t.llmBefore, AgentTime: t.agent, Seed: e.seed,
		History: slices.Clone(e.st.History), Prompt: t.prompt, Map: e.gmap.Snapshot(), actions: e.actions, repeats: e.repeats,
		dropped: int(t.dropped.Load())}
	if e.client != nil {
		rec.LLMMetrics = e.client.Metrics.Turn(n)
	}
	if e.cfg.Checkpoints {
		cp, err := e.Checkpoint()
		if err != nil {
			e.emit(ctx, ErrorEvent{Turn: n, Err: err})
		} else {
			rec.Checkpoint = &cp
		}
	}
	return rec, mapChanged
}

// completed is the turn's closing event, once the session's work is done:
// the managers' model calls count with the turn that caused them.
func (e *Engine) completed(rec TurnRecord, start time.Time, span time.Duration) TurnCompleted {
	c := TurnCompleted{Result: rec.Result(), Duration: time.Since(start), Span: span, Agent: rec.AgentTime, Actions: rec.actions, Repeats: rec.repeats,
		DroppedDeltas: rec.dropped}
	if e.client != nil {
		c.LLM = e.client.Metrics.Turn(rec.Turn)
	}
	return c
}
