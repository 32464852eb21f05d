package session

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
)

// unreachableClient is a model client whose host refuses connections.
func unreachableClient(t testing.TB) *llm.Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	client, err := llm.New(llm.Options{Host: addr})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// offlineTurns plays commands typed by hand in a session whose model server
// was found down, every planning manager on, and returns for each command
// the time from sending it to its TurnResult and to the next Idle (the loop
// ready for the next command), taken from the events' arrival.
func offlineTurns(t testing.TB, cmds []string) (result, idle []time.Duration, errs []error) {
	t.Helper()
	client := unreachableClient(t)
	if _, err := client.Version(context.Background()); !errors.Is(err, llm.ErrUnreachable) {
		t.Fatalf("check of a closed port: %v, want ErrUnreachable", err)
	}
	if !client.Down() {
		t.Fatal("a failed check must mark the server down")
	}
	story, binding := demoStory(t)
	sess, err := Open(Options{Story: story, Name: "demo.z3", Binding: binding, WorkDir: t.TempDir(), Client: client,
		Autosave: true, Planning: DefaultPlanning(), Engine: engine.Config{Seed: 1, StartPaused: true, Episodes: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go sess.Engine.Run(ctx)
	evs := sess.Engine.Events()
	waitIdle := func() {
		for ev := range evs {
			switch v := ev.(type) {
			case engine.Idle:
				return
			case engine.ErrorEvent:
				errs = append(errs, v.Err)
			}
		}
		t.Fatal("the engine stopped")
	}
	waitIdle()
	for _, c := range cmds {
		sent := time.Now()
		if err := sess.Engine.Send(ctx, engine.Override{Text: c}); err != nil {
			t.Fatal(err)
		}
		var got bool
		for ev := range evs {
			if tr, ok := ev.(engine.TurnResult); ok && tr.Action == c && tr.Actor == engine.ActorHuman {
				result = append(result, time.Since(sent))
				got = true
				break
			}
			if e, ok := ev.(engine.ErrorEvent); ok {
				errs = append(errs, e.Err)
			}
		}
		if !got {
			t.Fatalf("no result for %q", c)
		}
		waitIdle()
		idle = append(idle, time.Since(sent))
	}
	_ = sess.Engine.Send(ctx, engine.Quit{})
	for range evs {
	}
	return result, idle, errs
}

var handCommands = []string{"look", "inventory", "north", "south", "east", "west", "look", "examine lane", "score", "wait"}

// TestOfflineCommandsAnswerAtOnce: with the model server known to be down,
// commands typed by hand are played without a single model call, so each
// result (and the loop's readiness for the next command) comes within
// 100 ms of sending it; the skipped model roles fail with ErrUnreachable.
func TestOfflineCommandsAnswerAtOnce(t *testing.T) {
	result, idle, errs := offlineTurns(t, handCommands)
	for i, c := range handCommands {
		t.Logf("%-12s result %6.1f ms, ready %6.1f ms", c, ms(result[i]), ms(idle[i]))
		if idle[i] > 100*time.Millisecond {
			t.Errorf("%q: ready after %v, want within 100 ms", c, idle[i])
		}
	}
	for _, err := range errs {
		if !errors.Is(err, llm.ErrUnreachable) {
			t.Errorf("error %v: want only the skipped model calls (ErrUnreachable)", err)
		}
	}
}

// BenchmarkOfflineCommand measures a hand-typed command's whole turn with
// the model server known to be down.
func BenchmarkOfflineCommand(b *testing.B) {
	var total time.Duration
	n := 0
	for b.Loop() {
		_, idle, _ := offlineTurns(b, handCommands)
		for _, d := range idle {
			total += d
			n++
		}
	}
	b.ReportMetric(ms(total)/float64(max(n, 1)), "ms/command")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
