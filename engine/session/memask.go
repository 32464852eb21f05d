package session

import (
	"errors"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/managers/contextmgr"
	"github.com/lantern-if/lantern/managers/memsynth"
)

// Memory synthesis in the agent's call (Options.MemoryWithAgent). When a
// turn triggers memory synthesis, its question rides the turn: AfterTurn
// returns it (engine.After.Ask), the engine puts it to the agent's next
// first proposal, and the next played turn's record brings back what
// became of it (engine.TurnRecord.Answer); when no played turn does (the
// engine pauses, stops, ends the episode or rewinds), Settle brings it.
// The turn's work in the back office waits for that outcome
// (memsynth.Synthesizer.Answer stores an answer). A question no agent
// reply answered — the person played the next turn, the engine settled,
// the call failed, the reply left the field out — goes to the memory role
// as before; one a rewind left behind is recorded unanswered. Every
// question gets exactly one outcome, so its memory is written once; a
// session killed meanwhile keeps the work stored and its resume asks the
// memory role.

// memoryMode says who decides memories and why, for a person (bench,
// doctor, the log): the agent's reply, or the memory role's own call.
func memoryMode(opts Options, asking bool) string {
	switch {
	case asking:
		return "in the agent's reply (" + opts.MemoryWhy + ")"
	case opts.MemoryWithAgent:
		return "in the memory role's own call (" + opts.MemoryWhy + ", but the agent cannot answer here: a scripted agent, " +
			"the memory role on another model, or the work inline)"
	case opts.MemoryWhy != "":
		return "in the memory role's own call (" + opts.MemoryWhy + ")"
	}
	return "in the memory role's own call"
}

// MemoryMode says who decides memories in this session and why.
func (s *Session) MemoryMode() string { return s.memoryMode }

// memAsk is the open question (engine goroutine only): the turn's work
// waits on answer for its outcome.
type memAsk struct {
	q      engine.MemoryQuestion
	answer chan engine.MemoryAnswer // buffered: sending never blocks
}

// canAskAgent reports whether a session's memory questions go to its
// agent: asked for, the managers beside the next proposal (inline work
// could not wait for a later reply), a model agent that answers them, and
// the memory role on the agent's model.
func canAskAgent(opts Options, agent engine.Agent, synth *memsynth.Synthesizer) bool {
	_, answers := agent.(engine.MemoryProposer)
	return opts.MemoryWithAgent && !opts.Inline && answers && !agent.Scripted() && synth.CanAskAgent()
}

// askAgent opens the turn's question when the turn triggers memory
// synthesis, and returns it for the engine to put to the agent's next
// reply; the turn's work then waits for its outcome.
func (s *Session) askAgent(w *afterWork, t domain.Turn, history []contextmgr.HistoryEntry) *engine.MemoryQuestion {
	if !s.askAgents {
		return nil
	}
	why := s.synth.Why(t)
	if len(why) == 0 {
		return nil
	}
	var recent []memsynth.Step
	for _, h := range history {
		if h.Turn < t.Turn {
			recent = append(recent, memsynth.Step{Turn: h.Turn, Action: h.Action, Reasoning: h.Reasoning, Response: h.Response})
		}
	}
	a := &memAsk{q: engine.MemoryQuestion{Turn: t.Turn, Text: s.synth.Question(t, why, recent)}, answer: make(chan engine.MemoryAnswer, 1)}
	s.ask = a
	w.answer = a.answer
	return &a.q
}

// answered hands the open question's outcome to its turn's work; an
// outcome for no open question (nil, or another turn's) is ignored.
func (s *Session) answered(out *engine.MemoryAnswer) {
	a := s.ask
	if out == nil || a == nil || out.Question.Turn != a.q.Turn {
		return
	}
	s.ask = nil
	a.answer <- *out
}

// releaseAsk answers a question still open (the engine left without an
// outcome for it: it never ran again) as unasked: its work asks the
// memory role.
func (s *Session) releaseAsk() {
	if a := s.ask; a != nil {
		s.answered(&engine.MemoryAnswer{Question: a.q, Err: engine.ErrUnasked})
	}
}

// synthesizeTurn is a turn's memory synthesis in its work: first the items
// the turn found or left, from the game's state (no model call), then the
// agent's answer when its question was put to the agent, else the memory
// role's call (on the lean triggers only, as before).
func (s *Session) synthesizeTurn(w afterWork) (res memsynth.Result, done bool, err error) {
	items, itemErr := s.synth.RecordItems(w.ctx, w.Turn)
	res, done, err = s.synthesizeMemory(w)
	if len(items) > 0 && !res.Stored {
		// The memory pane is told of the location the items changed.
		last := items[len(items)-1]
		res = memsynth.Result{Stored: true, Location: last.Location, Title: last.Item}
	}
	return res, done, errors.Join(itemErr, err)
}

// synthesizeMemory is the model's part of synthesizeTurn.
func (s *Session) synthesizeMemory(w afterWork) (res memsynth.Result, done bool, err error) {
	ctx, t := w.ctx, w.Turn
	if w.answer != nil {
		select {
		case a := <-w.answer:
			switch {
			case a.Err == nil:
				res, err = s.synth.Answer(ctx, t, a.Note)
				return res, true, err
			case errors.Is(a.Err, engine.ErrLineAbandoned):
				s.synth.Unanswered(ctx, t, "the line was rewound before the agent answered")
				return res, true, nil
			}
		case <-ctx.Done():
			return res, false, nil // stopped: the work stays stored
		}
	}
	res, err = s.synth.ProcessTurnAfter(ctx, t, w.Prompt)
	return res, true, err
}
