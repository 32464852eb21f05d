package engine

import "testing"

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
