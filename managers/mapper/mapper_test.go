package mapper

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func zorkish() *Map {
	m := New()
	m.Visit(64, "West of House")
	m.ProcessTurn(64, "N", 137, "North of House")
	m.ProcessTurn(137, "east", 85, "Behind House")
	m.ProcessTurn(85, "enter window", 27, "Kitchen")
	m.ProcessTurn(27, "w", 75, "Living Room")
	m.ProcessTurn(75, "go east", 27, "Kitchen")
	m.ProcessTurn(27, "up", 27, "Kitchen") // failed
	return m
}

func TestProcessTurnAndRoutes(t *testing.T) {
	m := zorkish()
	if st := m.Status(); st.Rooms != 5 || st.Connections != 5 || st.Current != 27 {
		t.Errorf("status %+v", st)
	}
	if got := m.Exits(85)["enter window"]; got != 27 {
		t.Errorf("enter window leads to %d", got)
	}
	if m.FailedExits(27)["up"] != 1 {
		t.Errorf("failed exits %v", m.FailedExits(27))
	}
	route := m.Route(64, 75)
	var acts []string
	for _, s := range route {
		acts = append(acts, s.Action)
	}
	if strings.Join(acts, ",") != "north,east,enter window,west" {
		t.Errorf("route %v", route)
	}
	if m.Route(75, 64) != nil {
		t.Errorf("no known way back should give nil")
	}
	if adj := m.Adjacent(27); len(adj) != 2 || adj[0] != 75 || adj[1] != 85 {
		t.Errorf("adjacent (both directions) %v", adj)
	}
}

func TestMermaidAndSummary(t *testing.T) {
	m := zorkish()
	mm := m.Mermaid()
	for _, want := range []string{"graph TD", `L27["Kitchen"]`, "L85 -->|enter window| L27", "L64 -->|north| L137"} {
		if !strings.Contains(mm, want) {
			t.Errorf("mermaid lacks %q:\n%s", want, mm)
		}
	}
	s := m.RoutingSummary(27)
	for _, want := range []string{"## Current Location: 27 (Kitchen)", "west → Location 75 (Living Room)", "east → Location 27 (Kitchen) [back to current]"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if n := m.Neighbourhood(27); !strings.Contains(n, "west → L75 Living Room") || !strings.Contains(n, "failed here: up") {
		t.Errorf("neighbourhood %q", n)
	}
}

func TestNormalizeAction(t *testing.T) {
	tests := map[string]string{"N": "north", "go  West": "west", "Enter Window": "enter window", "OUT": "out", "take lamp": "take lamp"}
	for in, want := range tests {
		if got := NormalizeAction(in); got != want {
			t.Errorf("NormalizeAction(%q) = %q, want %q", in, got, want)
		}
	}
}

// A snapshot restores the same map (through JSON, as a checkpoint stores
// it), and the copy is independent of the original.
func TestSnapshotRoundTrip(t *testing.T) {
	m := New()
	m.Visit(3, "Lane")
	m.ProcessTurn(3, "north", 4, "Orchard")
	m.ProcessTurn(4, "west", 4, "Orchard")
	data, err := json.Marshal(m.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	r := New()
	r.Restore(s)
	if r.Mermaid() != m.Mermaid() || r.RoutingSummary(4) != m.RoutingSummary(4) || !reflect.DeepEqual(r.FailedExits(4), m.FailedExits(4)) {
		t.Fatalf("restored map differs:\n%s\nwant\n%s", r.Mermaid(), m.Mermaid())
	}
	r.ProcessTurn(4, "east", 5, "Shed")
	if m.Known(5) {
		t.Fatal("the restored map shares state with the original")
	}
}
