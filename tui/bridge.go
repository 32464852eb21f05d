package tui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
)

// Engine is the engine as the TUI sees it (*engine.Engine): a stream of
// events out, commands in. Nothing else of the engine is touched.
type Engine interface {
	Events() <-chan engine.Event
	Send(ctx context.Context, c engine.Command) error
}

// eventsMsg carries the events that were waiting, in order (streaming deltas
// come in bursts; taking them together saves a redraw per delta).
type eventsMsg struct {
	evs    []engine.Event
	closed bool // the engine's channel is closed
}

const maxEventBatch = 64

// readEvents is the one reader of the engine's events: it waits for an
// event, takes what else is already waiting, and returns. Update re-arms it
// after every batch, so exactly one read is outstanding at a time.
func readEvents(ch <-chan engine.Event) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return eventsMsg{closed: true}
		}
		evs := []engine.Event{ev}
		for len(evs) < maxEventBatch {
			select {
			case ev, ok := <-ch:
				if !ok {
					return eventsMsg{evs: evs, closed: true}
				}
				evs = append(evs, ev)
			default:
				return eventsMsg{evs: evs}
			}
		}
		return eventsMsg{evs: evs}
	}
}

// outbox keeps the commands for the engine in the order the person gave
// them. Update only queues (no waiting there); the flush command it returns
// sends everything queued so far, one flush at a time, so the engine gets
// the commands in order however the commands' goroutines are scheduled.
type outbox struct {
	mu   sync.Mutex
	q    []engine.Command
	send sync.Mutex
}

// sendFailedMsg reports a command the engine did not take.
type sendFailedMsg struct {
	cmd engine.Command
	err error
}

const sendTimeout = 10 * time.Second

func (o *outbox) push(cmds ...engine.Command) {
	o.mu.Lock()
	o.q = append(o.q, cmds...)
	o.mu.Unlock()
}

// pending is what is queued and not yet sent (tests).
func (o *outbox) pending() []engine.Command {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]engine.Command(nil), o.q...)
}

func (o *outbox) flush(ctx context.Context, eng Engine) tea.Cmd {
	return func() tea.Msg {
		o.send.Lock()
		defer o.send.Unlock()
		for {
			o.mu.Lock()
			if len(o.q) == 0 {
				o.mu.Unlock()
				return nil
			}
			c := o.q[0]
			o.q = o.q[1:]
			o.mu.Unlock()
			sctx, cancel := context.WithTimeout(ctx, sendTimeout)
			err := eng.Send(sctx, c)
			cancel()
			if err != nil {
				return sendFailedMsg{cmd: c, err: err}
			}
		}
	}
}
