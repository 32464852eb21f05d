package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/memory/rundb"
)

// TestQuitMidTurnFlushesFiles: a person quits while the agent is thinking
// about turn 3. The engine stops without playing it, and every file holds
// exactly turns 1 and 2: lantern.db (with its checkpoint), current_state.json
// and a Memories.md that checks.
func TestQuitMidTurnFlushesFiles(t *testing.T) {
	story, binding := demoStory(t)
	g := newGateAgent()
	sess, err := Open(Options{Story: story, Name: "demo.z3", Binding: binding, WorkDir: t.TempDir(), Agent: g, Autosave: true,
		Engine: engine.Config{Seed: 1, StartPaused: true}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	done := make(chan error, 1)
	go func() { done <- sess.Engine.Run(ctx) }()
	h := &harness{t: t, e: sess.Engine, ctx: ctx}
	h.until(engine.Idle{})
	for _, a := range []string{"north", "take all"} {
		g.proposals <- engine.Proposal{Action: a, Reasoning: "go"}
		h.send(engine.Step{})
		h.until(engine.Idle{})
	}
	h.send(engine.Step{})
	<-g.started // turn 3 is being thought about
	h.send(engine.Quit{})
	got := h.until(engine.Stopped{})
	for _, ev := range got {
		if strings.HasPrefix(ev, "TurnResult") {
			t.Fatalf("a turn was played after the quit: %v", got)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := rundb.OpenRunDB(filepath.Join(sess.Dir, "lantern.db"), story.Info().MD5)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	eps, err := db.Episodes(ctx)
	if err != nil || len(eps) != 1 {
		t.Fatalf("episodes %+v (%v)", eps, err)
	}
	turns, err := db.Turns(ctx, eps[0].ID)
	if err != nil || len(turns) != 2 || turns[1].Action != "take all" {
		t.Fatalf("turns %+v (%v)", turns, err)
	}
	cp, ok, err := db.LastCheckpoint(ctx)
	if err != nil || !ok || cp.Turn != 2 {
		t.Fatalf("checkpoint at turn %d (ok %v, %v), want 2", cp.Turn, ok, err)
	}
	var state State
	data, err := os.ReadFile(filepath.Join(sess.Dir, "current_state.json"))
	if err != nil || json.Unmarshal(data, &state) != nil || state.Turn != 2 || state.Location.ID != turns[1].LocationID {
		t.Fatalf("current_state.json: %s (%v)", data, err)
	}
	var out strings.Builder
	if code := memory.Check(&out, filepath.Join(sess.Dir, "Memories.md")); code != 0 {
		t.Fatalf("Memories.md:\n%s", out.String())
	}
	// The checkpoint is the machine after turn 2: restored, it continues
	// exactly as a machine that played the same two turns.
	play := func(prepare func(*env.Env) error) string {
		env, err := env.NewEnv(story, env.EnvOptions{Seed: 1, Binding: binding})
		if err != nil {
			t.Fatal(err)
		}
		if err := prepare(env); err != nil {
			t.Fatal(err)
		}
		obs, err := env.Step("inventory")
		if err != nil {
			t.Fatal(err)
		}
		return obs.Text + obs.WorldHash
	}
	fromCheckpoint := play(func(e *env.Env) error { _, err := e.RestoreState(cp.Machine, cp.Turn); return err })
	played := play(func(e *env.Env) error {
		if _, err := e.Start(); err != nil {
			return err
		}
		for _, a := range []string{"north", "take all"} {
			if _, err := e.Step(a); err != nil {
				return err
			}
		}
		return nil
	})
	if fromCheckpoint != played {
		t.Fatalf("the checkpoint continues differently:\n%s\n---\n%s", fromCheckpoint, played)
	}
	if _, err := os.Stat(filepath.Join(sess.Dir, "saves", env.AutosaveName)); !os.IsNotExist(err) {
		t.Errorf("a session writes its checkpoints to lantern.db, not %s (%v)", env.AutosaveName, err)
	}
}
