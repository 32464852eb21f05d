package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/mapper"
)

// The turn's model work off the critical path. A turn is recorded (its
// lantern.db row, checkpoint, note and current_state.json) before the
// engine goes on; memory synthesis and the planning managers then run on
// one goroutine of the session's, a turn at a time and in order, beside
// the agent's next proposal. What they write reaches the prompt of the
// first turn after it is written. The work still to do is stored with the
// turn's row and removed when done, so a session killed meanwhile does it
// when it resumes, once.

// maxBehind is how many turns' work may wait before the engine waits for
// it: the managers keep up with the agent a few turns behind, so a run of
// turns that each call memory synthesis (first visits one after another)
// does not hold the agent up while the server has a slot for it.
const maxBehind = 4

// afterWork is one turn's work: what the managers read, kept in lantern.db
// until done. Prompt (the agent's, continued by memory synthesis for the
// server's cache) is not kept: a resumed turn's work asks afresh.
type afterWork struct {
	Episode int64           `json:"episode"` // lantern.db's ID
	Turn    domain.Turn     `json:"turn"`
	Stuck   bool            `json:"stuck"`
	Map     mapper.Snapshot `json:"map"`
	Prompt  []llm.Message   `json:"-"`
	// ctx is the engine's: stopping it stops the work's model calls.
	ctx context.Context
	// answer, when set, brings what became of the turn's memory question
	// (memask.go).
	answer <-chan engine.MemoryAnswer
}

// backOffice runs the turns' work on its own goroutine.
type backOffice struct {
	s     *Session
	jobs  chan afterWork
	ready chan struct{} // signalled when finished work waits

	mu       sync.Mutex
	idle     *sync.Cond // broadcast when a job finishes
	done     []engine.Settled
	queued   int // jobs given and not yet taken back finished
	stop     chan struct{}
	closing  sync.Once
	finished chan struct{}
	// quit ends when the session closes: the work then in flight stops
	// its model calls and stays stored for the resume, so nothing is
	// written after the session has quit.
	quit    context.Context
	endQuit context.CancelFunc
}

func newBackOffice(s *Session) *backOffice {
	quit, end := context.WithCancel(context.Background())
	b := &backOffice{s: s, jobs: make(chan afterWork, maxBehind), ready: make(chan struct{}, 1),
		stop: make(chan struct{}), finished: make(chan struct{}), quit: quit, endQuit: end}
	b.idle = sync.NewCond(&b.mu)
	go b.run()
	return b
}

// give queues a turn's work; it waits while maxBehind turns wait already.
func (b *backOffice) give(ctx context.Context, w afterWork) {
	w.ctx = ctx
	b.mu.Lock()
	b.queued++
	b.mu.Unlock()
	select {
	case b.jobs <- w:
	case <-ctx.Done():
		b.finish(engine.Settled{Turn: w.Turn.Turn, Err: fmt.Errorf("turn %d's memory and planning: %w", w.Turn.Turn, ctx.Err())})
	}
}

func (b *backOffice) run() {
	defer close(b.finished)
	for {
		select {
		case w := <-b.jobs:
			ctx, cancel := context.WithCancel(w.ctx)
			stop := context.AfterFunc(b.quit, cancel)
			w.ctx = ctx
			b.finish(b.s.doAfterWork(w))
			stop()
			cancel()
		case <-b.stop:
			return
		}
	}
}

func (b *backOffice) finish(d engine.Settled) {
	b.mu.Lock()
	b.done = append(b.done, d)
	b.idle.Broadcast()
	b.mu.Unlock()
	select {
	case b.ready <- struct{}{}:
	default:
	}
}

// Ready, Take and Settle are engine.Background.
func (b *backOffice) Ready() <-chan struct{} { return b.ready }

func (b *backOffice) Take() []engine.Settled {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.done
	b.done = nil
	b.queued -= len(out)
	return out
}

func (b *backOffice) Settle(ctx context.Context) []engine.Settled {
	var out []engine.Settled
	for {
		out = append(out, b.Take()...)
		b.mu.Lock()
		left := b.queued
		b.mu.Unlock()
		if left == 0 {
			return out
		}
		select {
		case <-b.ready:
		case <-ctx.Done():
			return out
		}
	}
}

// wait blocks until every job given has finished (it leaves them for
// Take). A job whose context ends finishes at once, so wait does too.
func (b *backOffice) wait() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.queued > len(b.done) {
		b.idle.Wait()
	}
}

// close ends the goroutine: the current job's model calls are cancelled
// (its work stays in lantern.db, as does the work still queued, for the
// next resume), so nothing is written after the session closes.
func (b *backOffice) close() {
	b.closing.Do(func() {
		b.endQuit()
		close(b.stop)
	})
	<-b.finished
}

// doAfterWork is one turn's work: memory synthesis, the planning
// managers, the turn's token counts, then the stored work removed. A
// failing manager is reported and the others go on; only work that could
// not be stored as done is an error that stops play.
func (s *Session) doAfterWork(w afterWork) engine.Settled {
	ctx := w.ctx
	t := w.Turn
	out := engine.Settled{Turn: t.Turn}
	res, ok, err := s.synthesizeTurn(w)
	if !ok {
		return out // stopped while waiting for the agent's answer: the work stays stored
	}
	if err != nil {
		// A failed synthesis loses one memory, not the turn.
		out.Events = append(out.Events, engine.ErrorEvent{Turn: t.Turn, Err: err})
	}
	if res.Stored {
		out.Events = append(out.Events, engine.MemoryChanged{Location: res.Location, Title: res.Title})
	}
	s.planMap.Restore(w.Map)
	out.Events = append(out.Events, s.planTurn(ctx, t, w.Stuck)...)
	// What the managers wrote is part of the turn: a file they could not
	// write pauses play (a *engine.NotWrittenError), kept until written.
	out.Err = s.unwritten(context.WithoutCancel(ctx))
	if ctx.Err() != nil {
		return out // stopped: the work stays stored for the resume
	}
	if s.client != nil {
		// The row was written before the managers' calls: count them too.
		m := s.client.Metrics.Turn(t.Turn)
		if err := s.DB.UpdateTurnTokens(ctx, w.Episode, t.Turn, m.PromptTokens, m.EvalTokens); err != nil {
			out.Events = append(out.Events, engine.ErrorEvent{Turn: t.Turn, Err: err})
		}
	}
	if w.Episode > 0 {
		if err := s.DB.FinishAfterWork(context.WithoutCancel(ctx), w.Episode, t.Turn); err != nil {
			out.Err = errors.Join(out.Err, fmt.Errorf("%w: %w", engine.ErrNotRecorded, err))
		}
	}
	return out
}

// storedWork is a turn's work as lantern.db keeps it.
func storedWork(w afterWork) []byte {
	data, err := json.Marshal(w)
	if err != nil {
		return nil // a turn whose work cannot be kept still plays
	}
	return data
}

// resumeAfterWork queues the work an interrupted session left undone for
// the episode resumed, up to its checkpoint's turn.
func (s *Session) resumeAfterWork(ctx context.Context, episode int64, upTo int) error {
	pending, err := s.DB.PendingAfterWork(ctx, episode)
	if err != nil {
		return err
	}
	for _, p := range pending {
		if p.Turn > upTo {
			continue // a turn the checkpoint does not hold is played again
		}
		var w afterWork
		if err := json.Unmarshal(p.Work, &w); err != nil {
			return fmt.Errorf("after-turn work of turn %d: %w", p.Turn, err)
		}
		w.Episode = p.Episode
		s.resumed = append(s.resumed, w)
	}
	return nil
}
