package env

import (
	"strings"
	"testing"

	"github.com/lantern-if/lantern/zmachine"
	"github.com/lantern-if/lantern/zmachine/zasm"
)

// listeningStory is a version 3 story that answers every line it reads
// with "The story heard you."; its dictionary holds words.
func listeningStory(t *testing.T, words ...string) *zmachine.Story {
	t.Helper()
	b := zasm.New(3)
	room := b.Object("Gun Deck", nil)
	b.Object("yourself", room)
	b.Global("location", room)
	b.Global("score", 0)
	b.Global("moves", 0)
	for _, w := range append([]string{"pistol", "it"}, words...) {
		b.Word(w)
	}
	text, parse := b.Table("text", 64), b.Table("parse", 2+4*8)
	main := b.Routine("main")
	b.SetMain(main)
	main.Print("Gun Deck\n")
	main.Label("loop")
	main.Op("storeb", text, 0, 60)
	main.Op("storeb", parse, 0, 8)
	main.Print("\n>")
	main.Op("read", text, parse)
	main.Print("The story heard you.\n")
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

// "load" restores a slot unless the story knows the word, in which case
// the story gets the command (Plundered Hearts' walkthrough ends with
// GET PISTOL, LOAD IT, SHOOT CRULLEY); the story's own meta verbs are
// always Lantern's.
func TestLoadGoesToAStoryThatKnowsIt(t *testing.T) {
	tests := []struct {
		name     string
		words    []string
		cmd      string
		wantMeta bool
	}{
		{name: "load unknown to the story", cmd: "load it", wantMeta: true},
		{name: "load alone, unknown", cmd: "load", wantMeta: true},
		{name: "load known to the story", words: []string{"load"}, cmd: "load it"},
		{name: "load known, with a slot number", words: []string{"load"}, cmd: "LOAD 1"},
		{name: "restore is always Lantern's", words: []string{"load", "restore"}, cmd: "restore", wantMeta: true},
		{name: "save is always Lantern's", words: []string{"save"}, cmd: "save", wantMeta: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := NewEnv(listeningStory(t, tc.words...), EnvOptions{Binding: Generic(), SaveDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Start(); err != nil {
				t.Fatal(err)
			}
			o, err := e.Step(tc.cmd)
			if err != nil {
				t.Fatal(err)
			}
			heard := strings.Contains(o.Text, "The story heard you.")
			if o.Meta != tc.wantMeta || heard == tc.wantMeta {
				t.Errorf("%q: meta %v, story heard it %v (%q); want meta %v", tc.cmd, o.Meta, heard, o.Text, tc.wantMeta)
			}
		})
	}
}

// finaleStory stands in for Plundered Hearts' last turns (GET PISTOL, LOAD
// IT, SHOOT CRULLEY): the score byte Jericho reads (address 677) holds 23
// until the story reads "shoot" with the pistol loaded by "load", which
// sets it to 25 and prints the finale as Plundered Hearts prints it (its
// FINISH routine: the score, then the banner when the score is above 24);
// unloaded, the pistol clicks.
func finaleStory(t *testing.T) *zmachine.Story {
	t.Helper()
	b := zasm.New(3)
	room := b.Object("Gun Deck", nil)
	b.Object("yourself", room)
	b.Global("location", room)
	b.Global("score", 0)
	b.Global("moves", 0)
	b.Table("memory", 800) // dynamic memory past address 677
	shoot, load := b.Word("shoot"), b.Word("load")
	loaded := b.Global("loaded", 0)
	b.Word("crulley")
	b.Word("wait")
	text, parse := b.Table("text", 64), b.Table("parse", 2+4*8)
	word := b.Global("word", 0)
	main := b.Routine("main")
	b.SetMain(main)
	main.Op("storeb", 677, 0, 23)
	main.Print("Gun Deck\n")
	main.Label("loop")
	main.Op("storeb", text, 0, 60)
	main.Op("storeb", parse, 0, 8)
	main.Print("\n>")
	main.Op("read", text, parse)
	main.Op("loadw", parse, 1).Store(word)
	main.Op("je", word, load).Branch("load", true)
	main.Op("je", word, shoot).Branch("shoot", true)
	main.Print("Time passes...\n")
	main.Jump("loop")
	main.Label("load")
	main.Op("store", loaded, 1)
	main.Print("The pistol is loaded.\n")
	main.Jump("loop")
	main.Label("shoot")
	main.Op("jz", loaded).Branch("click", true)
	main.Op("storeb", 677, 0, 25)
	main.Print("The pistol fires.\n\n   Your score is 25 of a possible 25, in 400 turns.\n   Thus you have finished the story of ")
	main.Print("PLUNDERED HEARTS")
	main.Print(",\nearning the title, \"Heroine of the Seas.\"\n")
	main.Jump("loop")
	main.Label("click")
	main.Print("Click.\n")
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

// TestPlunderedFinaleFromFacts: the Plundered Hearts binding carries
// Jericho's facts (frotz/src/games/plundered.c: the score is the byte at
// 677, the moves the word at 678, victory the banner "Thus you have
// finished the story of PLUNDERED HEARTS") and, read from them, the
// walkthrough's last turns report the score of 25 and a victory: LOAD IT
// reaches the story, which knows the word, instead of restoring a slot.
func TestPlunderedFinaleFromFacts(t *testing.T) {
	b := suiteBindings(t).For("6ae4fd54b7e55675ec7e54ec4dd26462")
	if b.Name != "plundered" || b.ScoreAddr != 677 || b.ScoreSize != 1 || b.MovesAddr != 678 || b.MovesSize == 1 ||
		b.Player != 192 || b.MaxScore != 25 || b.WorldObjects != 223 {
		t.Fatalf("binding %q: score %d/%d moves %d/%d player %d max %d objects %d, want Jericho's facts",
			b.Name, b.ScoreAddr, b.ScoreSize, b.MovesAddr, b.MovesSize, b.Player, b.MaxScore, b.WorldObjects)
	}
	if len(b.VictoryTexts) != 1 || b.VictoryTexts[0] != "Thus you have finished the story of PLUNDERED HEARTS" {
		t.Fatalf("victory texts %q", b.VictoryTexts)
	}
	e, err := NewEnv(finaleStory(t), EnvOptions{Binding: b})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Start(); err != nil {
		t.Fatal(err)
	}
	o, err := e.Step("wait")
	if err != nil {
		t.Fatal(err)
	}
	if o.Score != 23 || o.Won || o.Ended != "" {
		t.Errorf("before the shot: score %d won %v ended %q, want 23, not won", o.Score, o.Won, o.Ended)
	}
	if o, err = e.Step("load it"); err != nil {
		t.Fatal(err)
	}
	if o.Meta || !strings.Contains(o.Text, "loaded") {
		t.Errorf("LOAD IT: meta %v, text %q; want the story's reply", o.Meta, o.Text)
	}
	if o, err = e.Step("shoot crulley"); err != nil {
		t.Fatal(err)
	}
	if o.Score != 25 || !o.Won || o.Ended != EndVictory || o.Facts.Score != Bound || o.Facts.Victory != Bound {
		t.Errorf("final turn: score %d won %v ended %q facts %+v, want 25, a bound victory", o.Score, o.Won, o.Ended, o.Facts)
	}
}
