package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/managers/knowledge"
)

// TestE2EPlanningEightTurns plays 8 headless turns on the demo with the
// tiny model as every role: objectives every 4 turns, the supervisor every
// turn (its window of 3 overflowing into the summary 5 times), the
// knowledge base synthesised at the turn cap. The planning managers must
// never fail (the tiny model's replies are noise, but they must decode),
// and the engine must never pause. An agent reply the model garbles is
// logged and retried, as a person's session would: this test is about the
// planning managers, and the tiny model's noise differs from one CPU to
// another.
func TestE2EPlanningEightTurns(t *testing.T) {
	c := e2eClient(t)
	story, binding := demoStory(t)
	sess, err := Open(Options{Story: story, Name: demo.FileName, Binding: binding, WorkDir: t.TempDir(), Client: c,
		Engine:   engine.Config{MaxTurns: 8, Seed: 1, CriticThreshold: -0.2, MaxFailures: 10},
		Planning: Planning{Objectives: true, ObjectiveInterval: 4, Knowledge: true, Supervisor: true, SupervisorEvery: 1, SupervisorK: 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	start := time.Now()
	evs := runAll(t, sess)
	turns, rounds, ended := 0, 0, 0
	for _, ev := range evs {
		switch v := ev.(type) {
		case engine.TurnResult:
			if v.Turn > 0 {
				turns++
			}
		case engine.SupervisorChanged:
			rounds++
		case engine.EpisodeEnded:
			ended++
		case engine.Idle:
			t.Fatalf("the engine paused after %d turns (repeated model failures)", turns)
		case engine.ErrorEvent:
			msg := v.Err.Error()
			planning := false
			for _, m := range []string{"objective", "knowledge", "supervisor", "synthesis"} {
				planning = planning || strings.Contains(msg, m)
			}
			if planning || v.Fatal {
				t.Errorf("turn %d: %v", v.Turn, v.Err)
			} else {
				t.Logf("turn %d (not a planning manager): %v", v.Turn, v.Err)
			}
		}
	}
	t.Logf("%d turns in %v; model calls %+v", turns, time.Since(start), c.Metrics.All())
	if turns != 8 || ended != 1 {
		t.Fatalf("%d turns and %d episode ends, want 8 and 1", turns, ended)
	}
	if rounds != 8 {
		t.Errorf("%d supervisor rounds, want 8", rounds)
	}
	if st := sess.Objectives.Status(); st.Updates != 2 || st.LastError != "" {
		t.Errorf("objectives status %+v, want 2 updates without error", st)
	}
	if st := sess.Supervisor.Status(); st.Window != 3 || st.Summarized != 5 || st.LastError != "" {
		t.Errorf("supervisor status %+v, want 3 rounds in full and 5 summarised", st)
	}
	if _, err := os.Stat(filepath.Join(sess.Dir, knowledge.FileName)); err != nil {
		t.Errorf("no knowledge base after the episode: %v", err)
	}
}
