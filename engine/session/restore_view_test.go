package session

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lantern-if/lantern/engine"
)

// TestPersonObjectivesAndMapSurviveASession: the person's active
// objectives come back in a new session of the same story (a resumed
// episode's map is TestResumeStartsLikeAnEpisode's).
func TestPersonObjectivesSurviveASession(t *testing.T) {
	story, binding := demoStory(t)
	dir := t.TempDir()
	open := func(paused bool) *Session {
		sess, err := Open(Options{Story: story, Name: "demo.z3", Binding: binding, WorkDir: dir, Agent: recording("north", "south"),
			Autosave: true, Planning: DefaultPlanning(), Engine: engine.Config{Seed: 1, MaxTurns: 2, StartPaused: paused}})
		if err != nil {
			t.Fatal(err)
		}
		return sess
	}
	// The person's edits reach the session as commands, as any client
	// sends them; the session keeps them without being asked.
	sess := open(true)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- sess.Engine.Run(ctx) }()
	h := &harness{t: t, e: sess.Engine, ctx: ctx}
	h.until(engine.Idle{})
	for _, op := range []engine.ObjectiveEdit{{Op: engine.ObjectiveAdd, Text: "Find the lamp"}, {Op: engine.ObjectiveAdd, Text: "Open the cottage"},
		{Op: engine.ObjectiveAdd, Text: "Drop me"}, {Op: engine.ObjectiveDrop, Text: "Drop me"}} {
		h.send(op)
		h.until(engine.ObjectivesChanged{})
	}
	h.send(engine.Quit{})
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	cancel()
	sess.Close()

	again := open(false)
	defer again.Close()
	if err := again.RestoreObjectives(); err != nil {
		t.Fatal(err)
	}
	active, _ := again.Objectives.Objectives()
	if !slices.Equal(active, []string{"Find the lamp", "Open the cottage"}) {
		t.Fatalf("restored objectives %q", active)
	}
	if err := again.RestoreObjectives(); err != nil {
		t.Fatal(err)
	}
	if active2, _ := again.Objectives.Objectives(); len(active2) != 2 {
		t.Fatalf("restoring twice gave %q", active2)
	}

	if err := os.WriteFile(filepath.Join(again.Dir, objectivesFile), []byte("{broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := again.RestoreObjectives(); err == nil {
		t.Fatal("a broken objectives.json must be an error")
	}
}
