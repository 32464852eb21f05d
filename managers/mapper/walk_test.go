package mapper_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/sharedtest"
	"github.com/lantern-if/lantern/zmachine"
)

// walkedMap plays a walkthrough through the environment and feeds each
// move to a map, as the engine does.
func walkedMap(t *testing.T, raw []byte, seed int, walk []string) *mapper.Map {
	t.Helper()
	story, err := zmachine.LoadStory(raw)
	if err != nil {
		t.Fatal(err)
	}
	en, err := env.NewEnv(story, env.EnvOptions{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	obs, err := en.Start()
	if err != nil {
		t.Fatal(err)
	}
	m := mapper.New()
	m.Visit(obs.Location.ID, obs.Location.Name)
	for _, cmd := range walk {
		before := obs.Location.ID
		next, err := en.Step(cmd)
		if err != nil {
			break // the story ended
		}
		obs = next
		m.ProcessTurn(before, cmd, obs.Location.ID, obs.Location.Name)
	}
	return m
}

func lines(data []byte) []string {
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

func demoMap(t *testing.T) *mapper.Map {
	data, err := os.ReadFile("../../game_files/demo/walkthrough.txt")
	if err != nil {
		t.Fatal(err)
	}
	return walkedMap(t, demo.Story(), 0, lines(data))
}

func zorkMap(t *testing.T) *mapper.Map {
	story, err := os.ReadFile(sharedtest.File(t, "stories/zork1.z3"))
	if err != nil {
		t.Fatal(err)
	}
	walk, err := os.ReadFile(sharedtest.File(t, "walkthroughs/zork1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return walkedMap(t, story, 12, lines(walk))
}

// TestWalkedMapsAreTrue lays out the maps of the demo's and Zork I's
// walkthroughs and checks that the drawing says nothing the links do not:
// every line joins two rooms next to each other in its link's direction;
// two linked rooms sit next to each other only where a compass link
// between them goes that way (so a room reached by up, down, in, out or
// another action never sits next to the room it leads from unless a
// compass link puts it there); every exit not drawn as a line is in its
// room's box label or counted there.
func TestWalkedMapsAreTrue(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    func(*testing.T) *mapper.Map
	}{{"demo", demoMap}, {"zork1", zorkMap}} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.m(t).Snapshot()
			l := s.Layout(0)
			if len(l.Rooms) != len(s.Names) {
				t.Fatalf("%d rooms placed, the map has %d", len(l.Rooms), len(s.Names))
			}
			at := map[mapper.Cell]int{}
			for _, r := range l.Rooms {
				if o, dup := at[r.At]; dup {
					t.Fatalf("L%d and L%d share a cell", o, r.ID)
				}
				at[r.At] = r.ID
			}
			for _, k := range l.Links {
				a, _ := l.Room(k.From)
				b, _ := l.Room(k.To)
				off, ok := mapper.CompassOffset(k.Action)
				if !ok || s.Conns[k.From][k.Action] != k.To || b.At != (mapper.Cell{X: a.At.X + off.X, Y: a.At.Y + off.Y}) {
					t.Errorf("line L%d %s L%d joins %v and %v", k.From, k.Action, k.To, a.At, b.At)
				}
			}
			pairs, nonCompass := 0, 0
			for from, c := range s.Conns {
				for act, to := range c {
					a, _ := l.Room(from)
					b, _ := l.Room(to)
					d := mapper.Cell{X: b.At.X - a.At.X, Y: b.At.Y - a.At.Y}
					if from == to || max(abs(d.X), abs(d.Y)) != 1 {
						if _, ok := mapper.CompassOffset(act); !ok {
							nonCompass++
						}
						continue
					}
					pairs++
					if !compassLinkGoes(s, from, to, d) {
						t.Errorf("L%d %s sits %v of L%d %s, linked only by %q", to, b.Name, d, from, a.Name, act)
					}
				}
			}
			for _, r := range l.Rooms {
				label := mapper.RoomLabel(r)
				for _, e := range r.Others {
					if !strings.Contains(label, fmt.Sprintf("%s:L%d", mapper.ShortAction(e.Action), e.To)) && !strings.Contains(label, "+") {
						t.Errorf("L%d's label %q lacks %s → L%d", r.ID, label, e.Action, e.To)
					}
				}
			}
			t.Logf("%d rooms, %d lines, %d linked neighbour pairs checked, %d non-compass links placed apart",
				len(l.Rooms), len(l.Links), pairs, nonCompass)
		})
	}
}

// compassLinkGoes: a compass link between a and b (either way) agrees
// with b sitting d from a.
func compassLinkGoes(s mapper.Snapshot, a, b int, d mapper.Cell) bool {
	for act, to := range s.Conns[a] {
		if off, ok := mapper.CompassOffset(act); ok && to == b && off == d {
			return true
		}
	}
	for act, to := range s.Conns[b] {
		if off, ok := mapper.CompassOffset(act); ok && to == a && off == (mapper.Cell{X: -d.X, Y: -d.Y}) {
			return true
		}
	}
	return false
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
