package env

import (
	"testing"
	"time"

	"github.com/lantern-if/lantern/zmachine"
	"github.com/lantern-if/lantern/zmachine/zasm"
)

// A story that answers a command by saving again and again without reading
// another does not hold the step (and the loop that obeys signals) for
// ever: after a few saves it ends as at the end of input.
func TestSaveLoopEndsTheStep(t *testing.T) {
	b := zasm.New(3)
	porch := b.Object("Porch", nil)
	b.Object("yourself", porch)
	b.Global("location", porch)
	b.Global("score", 0)
	b.Global("moves", 0)
	text := b.Table("text", 64)
	parse := b.Table("parse", 2+4*8)
	main := b.Routine("main")
	main.Print("Porch\nA wooden porch.\n>")
	main.Op("storeb", text, 0, 60)
	main.Op("storeb", parse, 0, 8)
	main.Op("read", text, parse)
	main.Label("again")
	main.Op("save").Branch("saved", true)
	main.Label("saved")
	main.Jump("again")
	b.SetMain(main)
	img, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	story, err := zmachine.LoadStory(img)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEnv(story, EnvOptions{Binding: Generic(), SaveDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		e.Step("wait")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the step still runs after 20 s")
	}
	if !e.m.Halted() {
		t.Fatal("the machine did not stop")
	}
}
