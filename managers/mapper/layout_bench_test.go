package mapper

import (
	"math/rand/v2"
	"testing"
)

// bigMap is a Zork-sized map and more: n rooms, each linked to the one
// before by a compass direction (its way back too), every seventh by up,
// and a few connections that bend the grid.
func bigMap(n int) Snapshot {
	r := rand.New(rand.NewPCG(1, 2))
	dirs := []string{"north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest"}
	back := map[string]string{"north": "south", "south": "north", "east": "west", "west": "east",
		"northeast": "southwest", "southwest": "northeast", "northwest": "southeast", "southeast": "northwest"}
	m := New()
	m.Visit(1, "Room 1")
	for id := 2; id <= n; id++ {
		from := 1 + r.IntN(id-1)
		d := dirs[r.IntN(len(dirs))]
		if id%7 == 0 {
			d = "up"
		}
		m.ProcessTurn(from, d, id, "Room")
		if b, ok := back[d]; ok {
			m.AddExit(id, b, from, "")
		}
	}
	for i := 0; i < n/10; i++ {
		m.AddExit(1+r.IntN(n), dirs[r.IntN(len(dirs))], 1+r.IntN(n), "")
	}
	return m.Snapshot()
}

func TestBigMapLayoutHasNoCollisions(t *testing.T) {
	l := bigMap(300).Layout(0)
	seen := map[Cell]bool{}
	for _, r := range l.Rooms {
		if seen[r.At] {
			t.Fatalf("two rooms at %v", r.At)
		}
		seen[r.At] = true
	}
	if len(l.Rooms) != 300 {
		t.Errorf("%d rooms placed", len(l.Rooms))
	}
}

func BenchmarkLayoutAndDraw(b *testing.B) {
	for _, n := range []int{50, 300} {
		s := bigMap(n)
		b.Run(map[int]string{50: "50rooms", 300: "300rooms"}[n], func(b *testing.B) {
			for b.Loop() {
				s.Layout(0).Draw(DefaultGlyphs())
			}
		})
	}
}
