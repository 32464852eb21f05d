package engine

import (
	"reflect"
	"testing"
)

// mapEvents reads events up to Idle and returns the MapChanged ones.
func (h *harness) mapEvents() []MapChanged {
	h.t.Helper()
	var out []MapChanged
	for ev := range h.e.Events() {
		switch v := ev.(type) {
		case MapChanged:
			out = append(out, v)
		case Idle:
			return out
		}
	}
	h.t.Fatal("events ended before Idle")
	return nil
}

func TestMapChangedCarriesACopyOfTheMap(t *testing.T) {
	g := newGateAgent()
	h := startEngine(t, g, Config{StartPaused: true})
	first := h.mapEvents()
	if len(first) != 1 || len(first[0].Map.Names) != 1 || first[0].Map.Current == 0 || first[0].Rooms != 1 {
		t.Fatalf("the opening's map events: %+v", first)
	}
	start := first[0].Map.Current

	g.proposals <- Proposal{Action: "north"}
	h.send(Step{})
	<-g.started
	moved := h.mapEvents()
	if len(moved) != 1 {
		t.Fatalf("after north: %+v", moved)
	}
	s := moved[0].Map
	if len(s.Names) != 2 || s.Conns[start]["north"] != s.Current || s.Current == start || moved[0].Connections != 1 {
		t.Errorf("after north: %+v", s)
	}
	if len(first[0].Map.Names) != 1 || len(first[0].Map.Conns) != 0 {
		t.Errorf("the first snapshot changed with the map: %+v", first[0].Map)
	}
	h.send(Quit{})
}

// TestResumeStartsLikeAnEpisode: a resumed checkpoint is announced as any
// start is: EpisodeStarted (Resumed, at the checkpoint's turn) and then the
// checkpoint's map, before the engine waits.
func TestResumeStartsLikeAnEpisode(t *testing.T) {
	g := newGateAgent()
	h := startEngine(t, g, Config{StartPaused: true, Checkpoints: true})
	h.mapEvents()
	for _, a := range []string{"north", "east"} {
		g.proposals <- Proposal{Action: a}
		h.send(Step{})
		<-g.started
		h.mapEvents()
	}
	h.send(Quit{})
	for range h.e.Events() {
	}
	cp, err := h.e.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}

	again := startEngineWith(t, g, Config{StartPaused: true}, func(e *Engine) {
		if err := e.ResumeFrom(cp.Machine, cp.Engine); err != nil {
			t.Fatal(err)
		}
	})
	var names []string
	var started EpisodeStarted
	var snap MapChanged
	for ev := range again.e.Events() {
		if _, ok := ev.(ReasoningDelta); ok {
			continue
		}
		names = append(names, reflect.TypeOf(ev).Name())
		switch v := ev.(type) {
		case EpisodeStarted:
			started = v
		case MapChanged:
			snap = v
		}
		if _, ok := ev.(Idle); ok {
			break
		}
	}
	expect(t, names, "EpisodeStarted", "MapChanged", "Idle")
	if !started.Resumed || started.Turn != 2 || started.Episode != 1 || len(started.History) != 2 {
		t.Errorf("resumed episode %+v", started)
	}
	if snap.Rooms != 3 || len(snap.Map.Names) != 3 || snap.Map.Current != started.Observation.Location.ID {
		t.Errorf("the resumed map: %d rooms, current %d, at %d", snap.Rooms, snap.Map.Current, started.Observation.Location.ID)
	}
}
