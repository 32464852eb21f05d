package zmachine_test

import (
	"testing"

	"github.com/lantern-if/lantern/zmachine"
	"github.com/lantern-if/lantern/zmachine/zasm"
)

// globalChange is one report of Hooks.GlobalChanged, with the output's
// length when it came.
type globalChange struct {
	old, new uint16
	at       int
}

// watchStory writes the watched global (global 1) in every way a store
// can: store, a result store, inc, dec and pull, each once with a new value
// and once with the value it holds; global 2 changes beside it. It then
// reads a line and writes global 1 once more.
func watchStory(t *testing.T) *zmachine.Story {
	t.Helper()
	b := zasm.New(5)
	room := b.Object("Room", nil)
	hall := b.Object("Hall", nil)
	me := b.Object("yourself", hall)
	b.Global("other", 0)
	loc := b.Global("location", room)
	other := b.Global("counter", 0)
	text := b.Table("text", 64)
	parse := b.Table("parse", 2+4*8)
	main := b.Routine("main")
	main.Print("Before.\n")
	main.Op("store", loc, room) // same value: no report
	main.Op("store", other, 7)  // another global: no report
	main.Op("get_parent", me).Store(loc)
	main.Print("Hall\n")
	main.Op("inc", loc)
	main.Op("dec", loc)
	main.Op("push", room)
	main.Op("pull", loc)
	main.Op("storeb", text, 0, 60)
	main.Op("storeb", parse, 0, 8)
	main.Op("aread", text, parse).Store(zasm.SP)
	main.Print("After.\n")
	main.Op("store", loc, hall)
	main.Op("quit")
	b.SetMain(main)
	return loadBuilt(t, b)
}

// TestGlobalChangedHook: the hook reports each store that changes the
// watched global, with the length of the output printed before it, and
// nothing else; a probe and a machine without the hook report nothing.
func TestGlobalChangedHook(t *testing.T) {
	s := watchStory(t)
	var got []globalChange
	var m *zmachine.Machine
	hook := func(old, new uint16) { got = append(got, globalChange{old, new, m.OutputLen()}) }
	m, err := zmachine.New(s, zmachine.Options{Hooks: zmachine.Hooks{GlobalChanged: hook, WatchGlobal: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := m.Run(); err != nil || st != zmachine.WaitLine {
		t.Fatalf("run: %v %v", st, err)
	}
	before := len("Before.\n")
	heading := before + len("Hall\n")
	want := []globalChange{{1, 2, before}, {2, 3, heading}, {3, 2, heading}, {2, 1, heading}}
	if !equalChanges(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
	if out := m.TakeOutput(); out != "Before.\nHall\n" {
		t.Errorf("output %q", out)
	}

	// A probe detaches the hook and restores it afterwards.
	got = nil
	err = m.Probe(func() error {
		if err := m.SendLine("look"); err != nil {
			return err
		}
		_, err := m.Run()
		return err
	})
	if err != nil || len(got) != 0 {
		t.Errorf("probe: err %v, changes %v, want none", err, got)
	}
	if err := m.SendLine("look"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Run(); err != nil {
		t.Fatal(err)
	}
	// The line read ends with a newline in the output, as on a terminal.
	if want := []globalChange{{1, 2, len("\nAfter.\n")}}; !equalChanges(got, want) {
		t.Errorf("after the probe: changes %v, want %v", got, want)
	}
	if out := m.TakeOutput(); out != "\nAfter.\n" {
		t.Errorf("output %q", out)
	}

	// Off: the same run reports nothing, and watching a global out of range
	// watches none.
	for _, h := range []zmachine.Hooks{{}, {GlobalChanged: hook, WatchGlobal: 240}, {GlobalChanged: hook, WatchGlobal: -1}} {
		got = nil
		m, err = zmachine.New(s, zmachine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m.SetHooks(h)
		if _, err := m.Run(); err != nil {
			t.Fatal(err)
		}
		if len(got) != 0 {
			t.Errorf("watching global %d: changes %v, want none", h.WatchGlobal, got)
		}
	}
}

func equalChanges(a, b []globalChange) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
