package session

import (
	"context"
	"errors"
	"time"

	"github.com/lantern-if/lantern/engine"
)

// Every client (the TUI, `lantern run`, the benchmark) starts and stops the
// session's engine the same way: Start before reading Engine.Events, Stop
// when done with it, whether the engine stopped on its own or not.

// StartOptions are how a client wants the engine to begin.
type StartOptions struct {
	// Review starts in review mode: each proposal waits for the person;
	// AutoAccept accepts one left undecided that long (0: wait).
	Review     bool
	AutoAccept time.Duration
}

// running is an engine started by Start.
type running struct {
	cancel  context.CancelFunc
	stopped chan error
}

// Start runs the engine on a goroutine of its own until it stops (Quit,
// the episodes run out) or ctx ends. Call it once, after Resume if the
// session resumes.
func (s *Session) Start(ctx context.Context, o StartOptions) error {
	if s.run != nil {
		return errors.New("session: the engine was already started")
	}
	rctx, cancel := context.WithCancel(ctx)
	if o.Review {
		if err := s.Engine.Send(rctx, engine.SetReview{On: true, AutoAccept: o.AutoAccept}); err != nil {
			cancel()
			return err
		}
	}
	r := &running{cancel: cancel, stopped: make(chan error, 1)}
	s.run = r
	go func() { r.stopped <- s.Engine.Run(rctx) }()
	return nil
}

// Stop ends the engine: it is asked to quit at its next turn boundary
// (flushing its files), given grace to do so, then cancelled. Events
// nobody reads any more are drained meanwhile. It returns the engine's
// error (nil after a quit or a cancellation); without Start it does
// nothing.
func (s *Session) Stop(grace time.Duration) error {
	r := s.run
	if r == nil {
		return nil
	}
	defer r.cancel()
	go func() {
		for range s.Engine.Events() {
		}
	}()
	qctx, qcancel := context.WithTimeout(context.Background(), min(grace, time.Second))
	_ = s.Engine.Send(qctx, engine.Quit{})
	qcancel()
	var err error
	select {
	case err = <-r.stopped:
	case <-time.After(grace):
		r.cancel()
		err = <-r.stopped
	}
	r.stopped <- err // a second Stop returns the same
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
