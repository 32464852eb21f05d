package session

import (
	"errors"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/managers/contextmgr"
	"github.com/lantern-if/lantern/managers/memsynth"
)

// Memory synthesis in the agent's call (Options.MemoryWithAgent). When a
// turn triggers memory synthesis, its question waits for the agent's next
// reply instead of taking a model call of its own; the turn's work in the
// back office waits for the answer (memsynth.Synthesizer.Answer stores it).
// A question no agent reply answers — the person plays the next turn, the
// episode ends or is rewound, the engine settles its work (a pause, review,
// a stop), the call fails — is released, and the work asks the memory role
// as before. Every question gets exactly one answer, so its memory is
// written once; a session killed meanwhile keeps the work stored and its
// resume asks the memory role.

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

// errUnasked: the question was released before an agent reply answered it.
var errUnasked = errors.New("memory question not put to the agent")

// memAnswer is the answer a waiting turn's work gets.
type memAnswer struct {
	note memsynth.Note
	err  error // not nil: ask the memory role instead
}

// memAsk is the last turn's question (engine goroutine only). Once taken,
// the engine answers it within the same proposal, before any other hook
// runs, so it is never released unanswered.
type memAsk struct {
	q      engine.MemoryQuestion
	answer chan memAnswer // buffered: sending never blocks
	taken  bool
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
// synthesis; the turn's work then waits for its answer. It releases the
// question before it first.
func (s *Session) askAgent(w *afterWork, t domain.Turn, history []contextmgr.HistoryEntry) {
	s.releaseAsk()
	if !s.askAgents {
		return
	}
	why := s.synth.Why(t)
	if len(why) == 0 {
		return
	}
	var recent []memsynth.Step
	for _, h := range history {
		if h.Turn < t.Turn {
			recent = append(recent, memsynth.Step{Turn: h.Turn, Action: h.Action, Reasoning: h.Reasoning, Response: h.Response})
		}
	}
	a := &memAsk{q: engine.MemoryQuestion{Turn: t.Turn, Text: s.synth.Question(t, why, recent)}, answer: make(chan memAnswer, 1)}
	s.ask = a
	w.answer = a.answer
}

// releaseAsk answers a question no agent took with errUnasked (the work
// then asks the memory role); a question taken has had its answer.
func (s *Session) releaseAsk() {
	if a := s.ask; a != nil {
		s.ask = nil
		if !a.taken {
			a.answer <- memAnswer{err: errUnasked}
		}
	}
}

// Abandon implements engine.Rewinder: a question no agent took is
// dropped, its turn's work recording it unanswered.
func (h hooks) Abandon() {
	if a := h.s.ask; a != nil {
		h.s.ask = nil
		if !a.taken {
			a.answer <- memAnswer{err: engine.ErrLineAbandoned}
		}
	}
}

// MemoryQuestion implements engine.MemoryAsker.
func (h hooks) MemoryQuestion() (engine.MemoryQuestion, bool) {
	a := h.s.ask
	if a == nil || a.taken {
		return engine.MemoryQuestion{}, false
	}
	a.taken = true
	return a.q, true
}

// MemoryAnswer implements engine.MemoryAsker.
func (h hooks) MemoryAnswer(q engine.MemoryQuestion, n memsynth.Note, err error) {
	a := h.s.ask
	if a == nil || a.q.Turn != q.Turn {
		return
	}
	h.s.ask = nil
	a.answer <- memAnswer{note: n, err: err}
}

// synthesizeTurn is a turn's memory synthesis in its work: the agent's answer
// when its question was put to the agent, else the memory role's call.
func (s *Session) synthesizeTurn(w afterWork) (res memsynth.Result, done bool, err error) {
	ctx, t := w.ctx, w.Turn
	if w.answer != nil {
		select {
		case a := <-w.answer:
			switch {
			case a.err == nil:
				res, err = s.synth.Answer(ctx, t, a.note)
				return res, true, err
			case errors.Is(a.err, engine.ErrLineAbandoned):
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
