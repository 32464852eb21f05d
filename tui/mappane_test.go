package tui

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/zmachine"
)

// engineMap keeps a map as the engine does and makes its MapChanged events.
type engineMap struct {
	m    *mapper.Map
	here int
}

func newEngineMap() *engineMap { return &engineMap{m: mapper.New()} }

// opened: an episode opens in a room.
func (e *engineMap) opened(id int, name string) engine.MapChanged {
	e.m.Reset()
	e.m.Visit(id, name)
	e.here = id
	return e.event()
}

// moved: a turn played action and ended in a room.
func (e *engineMap) moved(action string, id int, name string) engine.MapChanged {
	e.m.ProcessTurn(e.here, action, id, name)
	e.here = id
	return e.event()
}

func (e *engineMap) event() engine.MapChanged {
	st := e.m.Status()
	return engine.MapChanged{Rooms: st.Rooms, Connections: st.Connections, Map: e.m.Snapshot()}
}

func TestMapPaneDrawsTheEnginesMap(t *testing.T) {
	h := newHarness(t, 200, 60, "dark")
	em := newEngineMap()
	h.events(opening(), em.opened(3, "Muddy Lane"),
		turn(1, engine.ActorAgent, "north", "Orchard", 4, "Orchard"), em.moved("north", 4, "Orchard"),
		turn(2, engine.ActorAgent, "south", "Muddy Lane", 3, "Muddy Lane"), em.moved("south", 3, "Muddy Lane"),
		turn(3, engine.ActorAgent, "west", "You can't go that way.", 3, "Muddy Lane"), em.moved("west", 3, "Muddy Lane"))
	// The current room in a double box, the orchard above it, linked both ways.
	h.mustSee("▣ L3 Muddy Lane", "2 rooms · 2 links", "│Orchard ", "║Muddy Lane ", "failed here: west")
	rows := strings.Split(h.screen(), "\n")
	orchard, lane := -1, -1
	for i, r := range rows {
		if strings.Contains(r, "│Orchard") {
			orchard = i
		}
		if strings.Contains(r, "║Muddy Lane") {
			lane = i
		}
	}
	if orchard < 0 || lane != orchard+5 {
		t.Errorf("the orchard (row %d) is not drawn north of the lane (row %d)", orchard, lane)
	}
	// The pane draws only what the engine sends: a turn alone moves the mark.
	h.events(turn(4, engine.ActorAgent, "north", "Orchard", 4, "Orchard"))
	h.mustSee("▣ L4 Orchard", "║Orchard ", "│Muddy Lane ")
	h.key("M", "M")
	h.mustSee("Mermaid · 2 rooms", `L3["Muddy Lane"]`, "L3 -->|north| L4")
	h.key("M")
	h.mustSee("▣ L4 Orchard")
}

func TestMapZoomFillsTheScreenAndComesBack(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	em := newEngineMap()
	h.events(opening(), em.opened(3, "Muddy Lane"))
	h.key("f")
	if !h.m.panes.mapZoom || h.m.focus != pMap {
		t.Fatalf("f: zoom %v, focus %v", h.m.panes.mapZoom, h.m.focus)
	}
	h.mustSee("╭─ Map", "f back")
	if s := h.m.Render(); strings.Contains(s, "Transcript") {
		t.Error("the zoomed map shares the screen with the transcript")
	}
	if w, _ := h.m.inner(pMap); h.m.panes.mapp.w <= w {
		t.Errorf("zoomed map %d wide, no wider than the pane's %d", h.m.panes.mapp.w, w)
	}
	h.key("f")
	h.mustSee("Transcript", "f full screen")
	h.key("f", "tab")
	if h.m.panes.mapZoom {
		t.Error("moving to another pane kept the map zoomed")
	}
}

// demoWalk plays the demo's walkthrough and returns the engine's events
// for the map: the opening, then the last turn and the map at the end.
func demoWalk(t *testing.T, upTo int) []engine.Event {
	t.Helper()
	data, err := os.ReadFile("../game_files/demo/walkthrough.txt")
	if err != nil {
		t.Fatal(err)
	}
	cmds := strings.Split(strings.TrimSpace(string(data)), "\n")
	return demoPlay(t, cmds[:min(upTo, len(cmds))])
}

// demoPlay plays cmds on the demo and returns the engine's events, the
// last turn followed by its map.
func demoPlay(t *testing.T, cmds []string) []engine.Event {
	t.Helper()
	story, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		t.Fatal(err)
	}
	game, err := env.NewEnv(story, env.EnvOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	obs, err := game.Start()
	if err != nil {
		t.Fatal(err)
	}
	em := newEngineMap()
	evs := []engine.Event{engine.EpisodeStarted{Episode: 1, Observation: obs}, em.opened(obs.Location.ID, obs.Location.Name)}
	var last engine.TurnResult
	for i, cmd := range cmds {
		if obs, err = game.Step(cmd); err != nil {
			t.Fatal(err)
		}
		last = engine.TurnResult{Turn: i + 1, Actor: engine.ActorAgent, Action: cmd, Observation: obs}
		em.moved(cmd, obs.Location.ID, obs.Location.Name)
	}
	return append(evs, last, em.event())
}

// The demo walkthrough's rooms, drawn zoomed and in the pane, at several
// sizes (golden views).
func TestGoldenDemoMap(t *testing.T) {
	evs := demoWalk(t, 28) // in the lighthouse, half way
	snap := evs[len(evs)-1].(engine.MapChanged).Map
	if len(snap.Names) < 8 {
		t.Fatalf("the walkthrough's map has %d rooms", len(snap.Names))
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		for _, zoom := range []bool{false, true} {
			name := fmt.Sprintf("demo_map_%dx%d", size[0], size[1])
			if zoom {
				name += "_zoomed"
			}
			t.Run(name, func(t *testing.T) {
				h := newHarness(t, size[0], size[1], "dark")
				h.events(evs...)
				h.key("M")
				if zoom {
					h.key("f")
				}
				golden(t, name, h.m.Render())
				// Every room is drawn whole or counted as not shown.
				screen, whole := h.screen(), 0
				for _, room := range snap.Names {
					cut := []rune(room)
					if len(cut) > mapper.BoxWidth-2 {
						cut = append(cut[:mapper.BoxWidth-3], '…')
					}
					padded := string(cut) + strings.Repeat(" ", mapper.BoxWidth-2-len(cut))
					if regexp.MustCompile(`[│║]` + regexp.QuoteMeta(padded) + `[│║]`).MatchString(screen) {
						whole++
					}
				}
				hidden := 0
				if m := regexp.MustCompile(`(\d+) rooms? not shown`).FindStringSubmatch(screen); m != nil {
					hidden, _ = strconv.Atoi(m[1])
				}
				if whole+hidden != len(snap.Names) {
					t.Errorf("%d rooms drawn whole and %d counted as not shown, of %d", whole, hidden, len(snap.Names))
				}
				for id, room := range snap.Names {
					if zoom && size[0] == 200 && !strings.Contains(h.m.Render(), room) {
						t.Errorf("room L%d %q not drawn at full screen", id, room)
					}
				}
			})
		}
	}
}

// A map taller than the pane is cut around the current room; ↑/↓ move the
// view, and a move to another room centres it again.
func TestMapScrollsAroundTheCurrentRoom(t *testing.T) {
	evs := demoWalk(t, 28)
	h := newHarness(t, 80, 16, "dark")
	h.events(evs...)
	h.key("M")
	h.mustSee("║Study")
	h.mustNotSee("│Muddy Lane")
	// Drawn after every key, as the terminal is: each key moves the view.
	for i := 0; i < 40 && !strings.Contains(h.screen(), "│Muddy Lane"); i++ {
		before := h.screen()
		h.key("down")
		if h.screen() == before {
			t.Fatalf("down %d did not move the view:\n%s", i+1, before)
		}
	}
	h.mustSee("│Muddy Lane")
	h.mustNotSee("║Study")
	last := evs[len(evs)-2].(engine.TurnResult)
	h.events(engine.TurnResult{Turn: last.Turn + 1, Actor: engine.ActorHuman, Action: "look", Observation: last.Observation})
	h.mustNotSee("║Study") // the same room: the view stays
	h.events(engine.TurnResult{Turn: last.Turn + 2, Actor: engine.ActorHuman, Action: "south",
		Observation: env.Observation{Location: env.Location{ID: 9, Name: "Hallway"}}})
	h.mustSee("║Hallway")
}

// ← and → pan a narrow pane's view sideways to rooms it leaves out, and
// back; a move to another room centres it again.
func TestMapPansToRoomsAtTheSides(t *testing.T) {
	evs := demoWalk(t, 28)
	h := newHarness(t, 80, 24, "dark")
	h.events(evs...)
	h.key("M", "f")
	h.mustSee("║Study", "│Kitchen")
	h.mustNotSee("│Cellar")
	for i := 0; i < 4 && !strings.Contains(h.screen(), "│Cellar"); i++ {
		h.key("right")
	}
	h.mustSee("│Cellar")
	h.mustNotSee("║Study")
	for i := 0; i < 4; i++ {
		h.key("left")
	}
	h.mustSee("║Study")
	last := evs[len(evs)-2].(engine.TurnResult)
	h.m.panes.mapp.panBy(3)
	h.events(engine.TurnResult{Turn: last.Turn + 1, Actor: engine.ActorHuman, Action: "south",
		Observation: env.Observation{Location: env.Location{ID: 9, Name: "Hallway"}}})
	h.mustSee("║Hallway")
}

// A turn that reaches the pane before the map holding its new room (the
// engine sends the map after the turn) does not leave the view off centre:
// drawn between the two, or only after both, the pane shows the same view.
func TestMapCentresWhenTheTurnArrivesBeforeItsMap(t *testing.T) {
	// The tmux test's moves: the last enters the parlour, which the
	// drawing has left of the kitchen, so a view centred on it pans.
	evs := demoPlay(t, []string{"north", "up", "down", "east", "open window", "enter window", "west"})
	turn7, mapped := evs[len(evs)-2], evs[len(evs)-1]
	both := newHarness(t, 160, 50, "dark")
	both.events(evs[:len(evs)-2]...)
	both.key("M")
	both.events(turn7, mapped)
	want := both.screen()
	apart := newHarness(t, 160, 50, "dark")
	apart.events(evs[:len(evs)-2]...)
	apart.key("M")
	apart.events(turn7)
	_ = apart.screen() // drawn with the room not on the map yet
	apart.events(mapped)
	if got := apart.screen(); got != want {
		t.Fatalf("the view depends on a draw between the turn and its map:\n%s\nwant:\n%s", got, want)
	}
	apart.mustSee("║Parlour", "6 rooms · 6 links", "│Orchard")
}
