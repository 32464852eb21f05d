package env

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/zmachine"
	"github.com/lantern-if/lantern/zmachine/zasm"
)

// movingStory is a version 3 story that, on each line read, plays the next
// of these turns (each starting with a blank line, as after a command):
//  1. tells of an implicit action, moves the player to the Hall, and
//     prints the Hall's heading;
//  2. prints a message and does not move;
//  3. crosses the Porch to the Cellar, prints the Cellar's heading, then
//     points the location at the Hall and back while listing the room;
//  4. peeks into the Hall and comes back: no move.
//
// Each move sets both the player's parent and the location global (0), as
// stories do, so the location global, the player's parent and the player's
// room all read the same.
func movingStory(t *testing.T) *zmachine.Story {
	t.Helper()
	b := zasm.New(3)
	porch := b.Object("Porch", nil)
	hall := b.Object("Hall", nil)
	cellar := b.Object("Cellar", nil)
	me := b.Object("yourself", porch)
	loc := b.Global("location", porch)
	b.Global("score", 0)
	b.Global("moves", 0)
	turn := b.Global("turn", 0)
	b.Word("wait")
	text := b.Table("text", 64)
	parse := b.Table("parse", 2+4*8)
	moveTo := func(r *zasm.Routine, room *zasm.Object) {
		r.Op("insert_obj", me, room)
		r.Op("store", loc, room)
	}
	main := b.Routine("main")
	main.Print("Porch\nA wooden porch.\n")
	main.Label("loop")
	main.Op("storeb", text, 0, 60)
	main.Op("storeb", parse, 0, 8)
	main.Print(">")
	main.Op("read", text, parse)
	main.Op("inc", turn)
	main.NewLine()
	for i := 1; i <= 4; i++ {
		main.Op("je", turn, i).Branch("turn"+string(rune('0'+i)), true)
	}
	main.Print("Nothing happens.\n")
	main.Jump("loop")

	main.Label("turn1")
	main.Print("(first opening the door)\nThe door creaks open.\n")
	moveTo(main, hall)
	main.Print("Hall\nA long hall.\n")
	main.Jump("loop")

	main.Label("turn2")
	main.Print("Time passes.\n")
	main.Jump("loop")

	main.Label("turn3")
	main.Print("You climb down.\n")
	moveTo(main, porch)
	main.Print("You cross the porch.\n")
	moveTo(main, cellar)
	main.Print("Cellar\nA damp cellar.\n")
	moveTo(main, hall)
	moveTo(main, cellar)
	main.Print("You can see a lamp here.\n")
	main.Jump("loop")

	main.Label("turn4")
	moveTo(main, hall)
	main.Print("You peek into the hall.\n")
	moveTo(main, cellar)
	main.Print("You come back.\n")
	main.Jump("loop")
	b.SetMain(main)
	img, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	s, err := zmachine.LoadStory(img)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMovedAt: a step's MovedAt points at the new room's heading, after
// what the story printed before the move, whichever way the binding reads
// the location; a step that does not move, or that leaves and comes back,
// has none; a move through a room counts from its last leg, and the
// location pointed elsewhere for a moment after the heading does not move
// the mark. The JSON of an observation carries it.
func TestMovedAt(t *testing.T) {
	story := movingStory(t)
	const md5 = `md5 = "0123456789abcdef0123456789abcdef"`
	for _, tc := range []struct{ name, toml string }{
		{"global", "name = \"t\"\n" + md5 + "\nplayer = 4\nlocation_global = 0\n"},
		{"player_parent", "name = \"t\"\n" + md5 + "\nplayer = 4\nlocation = \"player_parent\"\n"},
		{"player_room", "name = \"t\"\n" + md5 + "\nplayer = 4\nlocation = \"player_room\"\n"},
		{"generic", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Generic()
			if tc.toml != "" {
				var err error
				if b, err = ParseBinding(tc.name+".toml", []byte(tc.toml)); err != nil {
					t.Fatal(err)
				}
			}
			e, err := NewEnv(story, EnvOptions{Binding: b})
			if err != nil {
				t.Fatal(err)
			}
			o, err := e.Start()
			if err != nil {
				t.Fatal(err)
			}
			if o.MovedAt != -1 || o.Location.Name != "Porch" {
				t.Fatalf("opening: moved at %d in %q, location %v", o.MovedAt, o.Text, o.Location)
			}
			for i, want := range []struct {
				loc  string
				from string // the text from MovedAt on; "" for no move
			}{
				{"Hall", "Hall\nA long hall."},
				{"Hall", ""},
				{"Cellar", "Cellar\nA damp cellar.\nYou can see a lamp here."},
				{"Cellar", ""},
			} {
				o, err := e.Step("wait")
				if err != nil {
					t.Fatal(err)
				}
				if o.Location.Name != want.loc {
					t.Fatalf("turn %d: location %v, want %s", i+1, o.Location, want.loc)
				}
				switch {
				case want.from == "" && o.MovedAt != -1:
					t.Errorf("turn %d: moved at %d in %q, want -1", i+1, o.MovedAt, o.Text)
				case want.from == "":
				case o.MovedAt < 0 || o.MovedAt > len(o.Text):
					t.Errorf("turn %d: moved at %d, outside %q", i+1, o.MovedAt, o.Text)
				case o.Text[o.MovedAt:] != want.from:
					t.Errorf("turn %d: text from the move %q, want %q (whole text %q)", i+1, o.Text[o.MovedAt:], want.from, o.Text)
				}
				if i == 0 {
					data, err := json.Marshal(o)
					if err != nil {
						t.Fatal(err)
					}
					if at := strings.Index(o.Text, "Hall\n"); !strings.Contains(string(data), `"moved_at":`+strconv.Itoa(at)) {
						t.Errorf("JSON lacks \"moved_at\":%d: %s", at, data)
					}
				}
			}
		})
	}
}
