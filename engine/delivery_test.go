package engine

import (
	"context"
	"testing"
)

// floodLife is a Lifecycle whose Edit answers with more events than the
// event channel holds; called is closed when Edit has returned them.
type floodLife struct {
	n      int
	called chan struct{}
}

func (floodLife) EpisodeNumber(context.Context) (int, error)             { return 0, nil }
func (floodLife) StartEpisode(context.Context, EpisodeStarted) error     { return nil }
func (floodLife) EpisodeEnded(context.Context, EpisodeEnded) error       { return nil }
func (floodLife) AfterTurn(context.Context, TurnRecord) ([]Event, error) { return nil, nil }

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
