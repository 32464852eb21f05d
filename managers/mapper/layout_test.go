package mapper

import (
	"bytes"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name, got string) {
	t.Helper()
	sharedtest.Golden(t, filepath.Join("testdata", name), []byte(got), *update)
}

func TestLayoutPlacesCompassNeighbours(t *testing.T) {
	cases := []struct {
		name  string
		build func(m *Map)
		want  map[int]Cell
	}{
		{"a line east", func(m *Map) {
			m.Visit(1, "A")
			m.ProcessTurn(1, "e", 2, "B")
			m.ProcessTurn(2, "e", 3, "C")
		}, map[int]Cell{1: {0, 0}, 2: {1, 0}, 3: {2, 0}}},
		{"north is up, diagonals on diagonals", func(m *Map) {
			m.Visit(1, "Centre")
			m.ProcessTurn(1, "n", 2, "N")
			m.ProcessTurn(2, "s", 1, "Centre")
			m.ProcessTurn(1, "sw", 3, "SW")
			m.ProcessTurn(3, "ne", 1, "Centre")
			m.ProcessTurn(1, "se", 4, "SE")
		}, map[int]Cell{1: {1, 1}, 2: {1, 0}, 3: {0, 2}, 4: {2, 2}}},
		{"a collision goes further along", func(m *Map) {
			m.Visit(1, "A")
			m.ProcessTurn(1, "e", 2, "B")
			m.ProcessTurn(2, "w", 1, "A")
			m.ProcessTurn(1, "n", 3, "C")
			m.ProcessTurn(3, "se", 4, "D") // the cell of B: one further
		}, map[int]Cell{1: {0, 1}, 2: {1, 1}, 3: {0, 0}, 4: {2, 2}}},
		{"up never goes next door: the grid would call it east", func(m *Map) {
			m.Visit(1, "Hall")
			m.ProcessTurn(1, "up", 2, "Attic")
		}, map[int]Cell{1: {0, 0}, 2: {2, 0}}},
		{"a cell that would say otherwise is skipped", func(m *Map) {
			m.Visit(1, "A")
			m.ProcessTurn(1, "e", 2, "B")
			m.ProcessTurn(2, "n", 3, "C")
			m.ProcessTurn(3, "in", 1, "A") // C would sit north-east of A
		}, map[int]Cell{1: {0, 2}, 2: {1, 2}, 3: {1, 0}}},
		{"a second part sits to the right", func(m *Map) {
			m.Visit(1, "A")
			m.Visit(9, "Z")
		}, map[int]Cell{1: {0, 0}, 9: {1, 0}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := New()
			tc.build(m)
			l := m.Snapshot().Layout(0)
			seen := map[Cell]int{}
			for _, r := range l.Rooms {
				if other, dup := seen[r.At]; dup {
					t.Fatalf("rooms %d and %d share %v", other, r.ID, r.At)
				}
				seen[r.At] = r.ID
				if want, ok := tc.want[r.ID]; ok && r.At != want {
					t.Errorf("room %d at %v, want %v", r.ID, r.At, want)
				}
			}
			if len(l.Rooms) != len(tc.want) {
				t.Errorf("%d rooms placed, want %d", len(l.Rooms), len(tc.want))
			}
		})
	}
}

func TestLayoutLinksAndOthers(t *testing.T) {
	l := zorkish().Snapshot().Layout(0)
	if l.Current != 27 {
		t.Errorf("current %d", l.Current)
	}
	k, _ := l.Room(27)
	if !k.Current {
		t.Error("the kitchen is not marked current")
	}
	// Every connection is drawn as a link between neighbours in its
	// direction, or listed with the room's other exits; never both.
	s := zorkish().Snapshot()
	drawn := map[[2]int]bool{}
	for _, ln := range l.Links {
		a, _ := l.Room(ln.From)
		b, _ := l.Room(ln.To)
		off, ok := CompassOffset(ln.Action)
		if !ok || b.At != (Cell{a.At.X + off.X, a.At.Y + off.Y}) {
			t.Errorf("link %+v joins %v and %v", ln, a.At, b.At)
		}
		drawn[[2]int{ln.From, ln.To}] = true
		if ln.Both {
			drawn[[2]int{ln.To, ln.From}] = true
		}
	}
	for from, c := range s.Conns {
		r, _ := l.Room(from)
		for a, to := range c {
			listed := false
			for _, e := range r.Others {
				listed = listed || e == (Exit{a, to})
			}
			if listed == drawn[[2]int{from, to}] {
				t.Errorf("%d %s → %d: drawn %v, listed %v", from, a, to, drawn[[2]int{from, to}], listed)
			}
		}
	}
	if !drawn[[2]int{27, 75}] || !drawn[[2]int{75, 27}] {
		t.Errorf("Kitchen ↔ Living Room not drawn both ways: %+v", l.Links)
	}
	b, _ := l.Room(85)
	if len(b.Others) != 1 || b.Others[0] != (Exit{"enter window", 27}) {
		t.Errorf("Behind House's other exits %+v", b.Others)
	}
}

func TestLayoutIsStable(t *testing.T) {
	s := zorkish().Snapshot()
	a, b := s.Text(), s.Text()
	if a != b {
		t.Error("two layouts of one map differ")
	}
}

func TestRenderFormats(t *testing.T) {
	s := zorkish().Snapshot()
	for _, f := range Formats() {
		t.Run(f, func(t *testing.T) {
			var b bytes.Buffer
			if err := s.Render(&b, f); err != nil {
				t.Fatal(err)
			}
			golden(t, "zorkish."+f, b.String())
		})
	}
	if err := s.Render(&bytes.Buffer{}, "svg"); !errors.Is(err, ErrFormat) {
		t.Errorf("svg: %v, want ErrFormat", err)
	}
	var b bytes.Buffer
	if err := New().Snapshot().Render(&b, "text"); err != nil || b.String() != "The map is empty.\n" {
		t.Errorf("empty map: %q %v", b.String(), err)
	}
}

func TestFromTurnsRebuildsTheMap(t *testing.T) {
	s := FromTurns([]Move{
		{To: 64, ToName: "West of House", Reset: true},
		{From: 64, Action: "N", To: 137, ToName: "North of House"},
		{From: 137, Action: "east", To: 85, ToName: "Behind House"},
		{To: 64, ToName: "West of House", Reset: true},
		{From: 64, Action: "s", To: 200, ToName: "South of House"},
	})
	if len(s.Names) != 4 || s.Conns[64]["north"] != 137 || s.Conns[64]["south"] != 200 || s.Current != 200 {
		t.Errorf("rebuilt %+v", s)
	}
}

func TestMergeAddsWhatTheOtherKnows(t *testing.T) {
	a := New()
	a.Visit(1, "Hall")
	a.ProcessTurn(1, "north", 2, "Yard")
	b := New()
	b.Visit(2, "Yard")
	b.AddExit(2, "east", 3, "Shed")
	b.AddExit(1, "north", 9, "Elsewhere") // a's own connection stays
	m := a.Snapshot().Merge(b.Snapshot())
	if len(m.Names) != 4 || m.Conns[2]["east"] != 3 || m.Conns[1]["north"] != 2 || m.Current != 2 || m.Names[3] != "Shed" {
		t.Errorf("merged %+v", m)
	}
	if len(a.Snapshot().Names) != 2 {
		t.Error("merge changed its receiver")
	}
}

// Two diagonal links through one corner are both drawn: a cross.
func TestDrawCrossingDiagonals(t *testing.T) {
	m := New()
	m.Visit(1, "A")
	m.ProcessTurn(1, "e", 2, "B")
	m.ProcessTurn(2, "w", 1, "A")
	m.ProcessTurn(1, "se", 4, "D")
	m.ProcessTurn(4, "nw", 1, "A")
	m.ProcessTurn(2, "sw", 3, "C")
	m.ProcessTurn(3, "ne", 2, "B")
	lines := m.Snapshot().Layout(0).Draw(DefaultGlyphs()).Lines()
	if got := lines[BoxHeight]; !strings.Contains(got, "╳╳") {
		t.Errorf("the corner line %q does not cross", got)
	}
}
