package env

import (
	"errors"
	"testing"

	"github.com/lantern-if/lantern/zmachine"
	"github.com/lantern-if/lantern/zmachine/zasm"
)

// cabStory is a version 5 story in the manner of Sherlock: its rooms are
// kept in a nameless ROOMS object, as ZIL keeps them; rooms whose short
// names are lower case ("entry hall", "the Embankment") are headed
// with each word capitalised, and on the second line read the player
// climbs into a cab in the street, which on the third drives to the
// Embankment with the player inside.
func cabStory(t *testing.T) *zmachine.Story {
	t.Helper()
	b := zasm.New(5)
	rooms := b.Object("", nil)
	street := b.Object("221-B Baker Street", rooms)
	hall := b.Object("entry hall", rooms)
	embankment := b.Object("the Embankment", rooms)
	cab := b.Object("hansom cab", street)
	me := b.Object("yourself", hall)
	turn := b.Global("turn", 0)
	text, parse := b.Table("text", 64), b.Table("parse", 2+4*8)
	main := b.Routine("main")
	b.SetMain(main)
	main.Print("Entry Hall\n")
	main.Label("loop")
	main.Op("storeb", text, 0, 60)
	main.Op("storeb", parse, 0, 8)
	main.Print("\n>")
	main.Op("read", text, parse).Store(zasm.SP)
	main.Op("inc", turn)
	main.Op("je", turn, 1).Branch("out", true)
	main.Op("je", turn, 2).Branch("in", true)
	main.Op("je", turn, 3).Branch("drive", true)
	main.Print("Time passes.\n")
	main.Jump("loop")
	main.Label("out")
	main.Op("insert_obj", me, street)
	main.Print("221-B Baker Street\n")
	main.Jump("loop")
	main.Label("in")
	main.Op("insert_obj", me, cab)
	main.Print("You climb into the cab.\n")
	main.Jump("loop")
	main.Label("drive")
	main.Op("insert_obj", cab, embankment)
	main.Print("The cab speeds through the streets.\n\nThe Embankment\n")
	main.Jump("loop")
	img, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	story, err := zmachine.LoadStory(img)
	if err != nil {
		t.Fatal(err)
	}
	return story
}

// TestSherlockLocationNames: with Sherlock's binding (the room around the
// player, named in title case) every location change of the cab story is
// named by the text, and climbing into the cab is no change of place;
// read as Jericho reads it (the player's parent, the object table's name),
// the hall and the Embankment are misnamed and the cab is a place.
func TestSherlockLocationNames(t *testing.T) {
	sherlock := suiteBindings(t).For("35240654d83f9e7073973d338f9657b8")
	if sherlock.Name != "sherlock" || sherlock.Location != "player_room" || !sherlock.RoomsContainer || sherlock.LocationName != "title_case" {
		t.Fatalf("binding %q: location %q (rooms container %v) named %q, want the room below ROOMS in title case",
			sherlock.Name, sherlock.Location, sherlock.RoomsContainer, sherlock.LocationName)
	}
	const player = 6 // "yourself" in cabStory
	tests := []struct {
		name     string
		location string
		rooms    bool
		naming   string
		want     []string // the location's name after the opening and each step
		unnamed  int      // location changes the text does not name
	}{
		{name: "sherlock", location: "player_room", rooms: true, naming: "title_case",
			want: []string{"Entry Hall", "221-B Baker Street", "221-B Baker Street", "The Embankment"}},
		{name: "the outermost holder is the rooms' container", location: "player_room",
			want: []string{"", "", "", ""}},
		{name: "jericho's reading", location: "player_parent",
			want: []string{"entry hall", "221-B Baker Street", "hansom cab", "hansom cab"}, unnamed: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := *sherlock
			b.Location, b.RoomsContainer, b.LocationName, b.Player, b.MovesAddr, b.ScoreAddr = tc.location, tc.rooms, tc.naming, player, 0, 0
			b.Intro = nil
			e, err := NewEnv(cabStory(t), EnvOptions{Binding: &b})
			if err != nil {
				t.Fatal(err)
			}
			o, err := e.Start()
			if err != nil {
				t.Fatal(err)
			}
			got, prev, unnamed := []string{o.Location.Name}, o.Location.ID, 0
			for _, c := range []string{"out", "enter cab", "drive to the embankment"} {
				if o, err = e.Step(c); err != nil && !errors.Is(err, ErrEnded) {
					t.Fatal(err)
				}
				got = append(got, o.Location.Name)
				if o.Location.ID != prev && locationHeading(o, e.Machine().UpperWindow()) == headingAbsent {
					unnamed++
				}
				prev = o.Location.ID
			}
			if unnamed != tc.unnamed {
				t.Errorf("%d location changes not named by the text, want %d", unnamed, tc.unnamed)
			}
			for i := range tc.want {
				if i >= len(got) || got[i] != tc.want[i] {
					t.Fatalf("location names %q, want %q", got, tc.want)
				}
			}
		})
	}
}

func TestTitleCase(t *testing.T) {
	for in, want := range map[string]string{
		"vestibule": "Vestibule", "the Embankment": "The Embankment", "Holmes's study": "Holmes's Study",
		"221-B Baker Street": "221-B Baker Street", "": "", "entry  hall": "Entry  Hall",
	} {
		if got := titleCase(in); got != want {
			t.Errorf("titleCase(%q) = %q, want %q", in, got, want)
		}
	}
}
