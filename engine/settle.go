package engine

import (
	"context"
	"time"
)

// The turns whose background work (Background) is still running: each is
// closed with its TurnCompleted, in order, when its work is taken.

// unsettled is a played turn waiting for its background work.
type unsettled struct {
	rec     TurnRecord
	start   time.Time
	span    time.Duration // until the engine could go on (TurnCompleted.Span)
	settled bool          // its work is done; closed once every earlier turn is
}

// background is the lifecycle's background work, or nil.
func (e *Engine) background() Background {
	b, _ := e.life.(Background)
	return b
}

// ready is the channel that signals finished background work (nil, which
// never fires, without any).
func (e *Engine) ready() <-chan struct{} {
	if b := e.background(); b != nil {
		return b.Ready()
	}
	return nil
}

// takeSettled delivers the background work finished so far.
func (e *Engine) takeSettled(ctx context.Context) {
	if b := e.background(); b != nil {
		e.deliver(ctx, b.Take())
	}
}

// settle waits for every turn's background work and delivers it; a
// memory question no played turn's record answered goes with it,
// unasked.
func (e *Engine) settle(ctx context.Context) { e.settleLeaving(ctx, ErrUnasked) }

// settleLeaving is settle with the outcome of a question never put: why
// (ErrUnasked, or ErrLineAbandoned before a rewind).
func (e *Engine) settleLeaving(ctx context.Context, why error) {
	left := e.leftover(why)
	if b := e.background(); b != nil {
		e.deliver(ctx, b.Settle(ctx, left))
	}
}

// deliver sends what each finished turn caused, then closes the turns
// whose work is done, in turn order: work can finish out of order (a turn
// queued as the engine stops is finished at once, while the one before it
// still runs), but a client reads the last TurnCompleted as the last turn
// played. A turn is recorded by the time its work is taken, so its
// TurnCompleted is a terminal event: a stop that came first does not drop
// it (lasting).
func (e *Engine) deliver(ctx context.Context, done []Settled) {
	if len(done) == 0 {
		return
	}
	ctx, cancel := lasting(ctx) // a stop during the delivery does not cut it
	defer cancel()
	for _, d := range done {
		for _, ev := range d.Events {
			e.emit(ctx, ev)
		}
		if d.Err != nil {
			e.emit(ctx, ErrorEvent{Turn: d.Turn, Err: d.Err})
			if Halts(d.Err) {
				e.mode, e.pending = Paused, nil
			}
		}
		for i := range e.waiting {
			if e.waiting[i].rec.Turn == d.Turn {
				e.waiting[i].settled = true
			}
		}
	}
	for len(e.waiting) > 0 && e.waiting[0].settled {
		w := e.waiting[0]
		e.waiting = e.waiting[1:]
		e.emit(ctx, e.completed(w.rec, w.start, w.span))
	}
}

// lasting is a context that ends two seconds after ctx does (or when its
// cancel is called), for the events that must reach a client still reading
// (a recorded turn's TurnCompleted) without blocking one that has stopped.
func lasting(ctx context.Context) (context.Context, context.CancelFunc) {
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(2*time.Second, cancel) })
	return lctx, func() {
		stop()
		cancel()
	}
}

// closeTurns ends a stopping engine's played turns: their background work
// is waited for a moment (work whose model calls the stop cancelled ends at
// once, and stays stored for a resume), then every played turn is closed
// with its TurnCompleted, so a client reports each turn that was recorded.
// The TurnCompleted events go on a context of their own, not the
// settling's: work that outlasts its wait must not cost a recorded turn
// its report.
func (e *Engine) closeTurns(ctx context.Context) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	e.settle(sctx)
	cancel()
	lctx, cancel := lasting(ctx)
	defer cancel()
	for _, w := range e.waiting {
		e.emit(lctx, e.completed(w.rec, w.start, w.span))
	}
	e.waiting = nil
}
