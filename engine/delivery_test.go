package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// floodLife is a Lifecycle whose Edit answers with more events than the
// event channel holds; called is closed when Edit has returned them.
type floodLife struct {
	n      int
	called chan struct{}
}

func (floodLife) EpisodeNumber(context.Context) (int, error)           { return 0, nil }
func (floodLife) StartEpisode(context.Context, EpisodeStarted) error   { return nil }
func (floodLife) EpisodeEnded(context.Context, EpisodeEnded) error     { return nil }
func (floodLife) AfterTurn(context.Context, TurnRecord) (After, error) { return After{}, nil }

func (f floodLife) Edit(_ context.Context, c Command, _, _ int) ([]Event, error) {
	defer close(f.called)
	evs := make([]Event, 0, f.n+1)
	for i := range f.n {
		evs = append(evs, MemoryChanged{Location: i + 1})
	}
	return append(evs, ObjectivesChanged{Active: []string{"x"}}), nil
}

// TestEditEventsDeliveredUnderBackPressure: the events of a person's edit
// are all delivered even when the client has not read for a while (only
// reasoning deltas may be dropped).
func TestEditEventsDeliveredUnderBackPressure(t *testing.T) {
	life := floodLife{n: 600, called: make(chan struct{})} // more than the event channel holds
	e := New(Options{Config: Config{StartPaused: true}, Env: startEnvUnstarted(t), Agent: newGateAgent(), Lifecycle: life})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	for ev := range e.Events() { // the opening, up to the engine waiting
		if _, ok := ev.(Idle); ok {
			break
		}
	}
	if err := e.Send(ctx, ObjectiveEdit{Op: ObjectiveAdd, Text: "x"}); err != nil {
		t.Fatal(err)
	}
	<-life.called // the client lags: nothing read until the edit has answered
	memories, objectives := 0, 0
	for ev := range e.Events() {
		switch ev.(type) {
		case MemoryChanged:
			memories++
		case ObjectivesChanged:
			objectives++
		}
		if _, ok := ev.(Idle); ok { // after the edit was applied
			break
		}
	}
	cancel()
	for range e.Events() {
	}
	<-done
	if memories != life.n || objectives != 1 {
		t.Fatalf("delivered %d of %d MemoryChanged and %d of 1 ObjectivesChanged", memories, life.n, objectives)
	}
}

// stopLife is a Lifecycle with background work whose Take stops the
// engine (stop) before it hands over turn 1's finished work, with n
// events: the stop and the work arrive together, as a signal can.
type stopLife struct {
	floodLife
	n     int
	stop  context.CancelFunc
	ready chan struct{}
	mu    sync.Mutex
	done  []Settled
}

func (l *stopLife) AfterTurn(_ context.Context, rec TurnRecord) (After, error) {
	evs := make([]Event, 0, l.n)
	for i := range l.n {
		evs = append(evs, MemoryChanged{Location: i + 1})
	}
	l.mu.Lock()
	l.done = append(l.done, Settled{Turn: rec.Turn, Events: evs})
	l.mu.Unlock()
	select {
	case l.ready <- struct{}{}:
	default:
	}
	return After{}, nil
}

func (l *stopLife) Ready() <-chan struct{} { return l.ready }

func (l *stopLife) Take() []Settled {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.done
	l.done = nil
	if len(out) > 0 {
		l.stop()
	}
	return out
}

func (l *stopLife) Settle(context.Context, *MemoryAnswer) []Settled { return l.Take() }

// TestRecordedTurnCompletesAcrossAStop: a turn whose background work is
// taken just as the engine is stopped (a signal to a headless run) is
// still closed with its TurnCompleted before Stopped, after every event
// its work caused: the client reports each turn that was recorded.
func TestRecordedTurnCompletesAcrossAStop(t *testing.T) {
	for trial := range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		life := &stopLife{floodLife: floodLife{}, n: 300, stop: cancel, ready: make(chan struct{}, 1)}
		agent := newGateAgent()
		e := New(Options{Config: Config{}, Env: startEnvUnstarted(t), Agent: agent, Lifecycle: life})
		done := make(chan error, 1)
		go func() { done <- e.Run(ctx) }()
		agent.proposals <- Proposal{Action: "open mailbox"}
		completed, memories := false, 0
		for ev := range e.Events() {
			switch ev := ev.(type) {
			case MemoryChanged:
				memories++
			case TurnCompleted:
				completed = completed || ev.Result.Turn == 1
			}
		}
		<-done
		cancel()
		if !completed || memories != life.n {
			t.Fatalf("trial %d: turn 1 completed: %v; %d of its %d events delivered", trial, completed, memories, life.n)
		}
	}
}

// cancelLife is a Lifecycle whose AfterTurn stops the engine once the
// turn's row is in (as a signal can, between the row and the rest) and
// returns err; with slow set it has background work that outlasts the
// engine's wait for it at the stop.
type cancelLife struct {
	floodLife
	stop  context.CancelFunc
	err   error
	slow  bool
	ready chan struct{}
}

func (l *cancelLife) AfterTurn(context.Context, TurnRecord) (After, error) {
	l.stop()
	return After{}, l.err
}

// slowBackground is the background of a cancelLife whose work never
// finishes while the engine waits.
type slowBackground struct{ *cancelLife }

func (b slowBackground) Ready() <-chan struct{} { return b.ready }
func (b slowBackground) Take() []Settled        { return nil }
func (b slowBackground) Settle(ctx context.Context, _ *MemoryAnswer) []Settled {
	<-ctx.Done()
	return nil
}

// TestRecordedTurnReportedWhateverTheStop: a turn whose row is written is
// closed with its TurnCompleted whatever the context's state when the rest
// of its bookkeeping fails or its background work outlasts the stop; a
// turn whose row is not written is not (no client reports it).
func TestRecordedTurnReportedWhateverTheStop(t *testing.T) {
	cases := []struct {
		name      string
		err       error
		slow      bool
		completed bool
	}{
		{"a file not written after the row", &NotWrittenError{Path: "Memories.md", Err: context.Canceled}, false, true},
		{"background work outlasting the stop", nil, true, true},
		{"the row not written", fmt.Errorf("%w: %w", ErrNotRecorded, context.Canceled), false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			life := &cancelLife{stop: cancel, err: c.err, slow: c.slow, ready: make(chan struct{})}
			var l Lifecycle = life
			if c.slow {
				l = struct {
					*cancelLife
					slowBackground
				}{life, slowBackground{life}}
			}
			agent := newGateAgent()
			e := New(Options{Env: startEnvUnstarted(t), Agent: agent, Lifecycle: l})
			done := make(chan error, 1)
			go func() { done <- e.Run(ctx) }()
			agent.proposals <- Proposal{Action: "open mailbox"}
			completed := false
			for ev := range e.Events() {
				if tc, ok := ev.(TurnCompleted); ok && tc.Result.Turn == 1 {
					completed = true
				}
			}
			<-done
			if completed != c.completed {
				t.Fatalf("turn 1 completed: %v, want %v", completed, c.completed)
			}
		})
	}
}

// outOfOrderLife is a Lifecycle whose background work for turn 1 finishes
// only after turn 2's: both are handed over together, 2 first.
type outOfOrderLife struct {
	floodLife
	ready chan struct{}
	mu    sync.Mutex
	recs  []TurnRecord
}

func (l *outOfOrderLife) AfterTurn(_ context.Context, rec TurnRecord) (After, error) {
	l.mu.Lock()
	l.recs = append(l.recs, rec)
	l.mu.Unlock()
	select {
	case l.ready <- struct{}{}:
	default:
	}
	return After{}, nil
}

func (l *outOfOrderLife) Ready() <-chan struct{} { return l.ready }

func (l *outOfOrderLife) Take() []Settled {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.recs) < 2 {
		return nil
	}
	out := make([]Settled, 0, len(l.recs))
	for i := len(l.recs) - 1; i >= 0; i-- {
		out = append(out, Settled{Turn: l.recs[i].Turn})
	}
	l.recs = nil
	return out
}

func (l *outOfOrderLife) Settle(context.Context, *MemoryAnswer) []Settled { return l.Take() }

// TestTurnsCompleteInOrder: background work that finishes out of order
// (a turn queued as the engine stops is finished at once, the one before
// it still running) still closes the turns in turn order, so a client's
// last TurnCompleted is the last turn played.
func TestTurnsCompleteInOrder(t *testing.T) {
	life := &outOfOrderLife{ready: make(chan struct{}, 1)}
	agent := newGateAgent()
	e := New(Options{Config: Config{MaxTurns: 2}, Env: startEnvUnstarted(t), Agent: agent, Lifecycle: life})
	done := make(chan error, 1)
	go func() { done <- e.Run(context.Background()) }()
	agent.proposals <- Proposal{Action: "open mailbox"}
	agent.proposals <- Proposal{Action: "read leaflet"}
	var order []int
	for ev := range e.Events() {
		if tc, ok := ev.(TurnCompleted); ok {
			order = append(order, tc.Result.Turn)
		}
	}
	<-done
	if !slices.Equal(order, []int{1, 2}) {
		t.Fatalf("turns completed in the order %v, want [1 2]", order)
	}
}
