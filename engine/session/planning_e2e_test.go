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

// TestE2EPlanningFiftyTurns plays 50 headless turns on the demo with the
// tiny model as every role: objectives every 10 turns, the supervisor every
// turn, the knowledge base synthesised at the turn cap. The planning
// managers must never fail (the tiny model's replies are noise, but they
// must decode), and the engine must never pause.
func TestE2EPlanningFiftyTurns(t *testing.T) {
	c := e2eClient(t)
	story, binding := demoStory(t)
	sess, err := Open(Options{Story: story, Name: demo.FileName, Binding: binding, WorkDir: t.TempDir(), Client: c,
		Engine:   engine.Config{MaxTurns: 50, Seed: 1, CriticThreshold: -0.2},
		Planning: Planning{Objectives: true, ObjectiveInterval: 10, Knowledge: true, Supervisor: true, SupervisorEvery: 1, SupervisorK: 3}})
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
	if turns != 50 || ended != 1 {
		t.Fatalf("%d turns and %d episode ends, want 50 and 1", turns, ended)
	}
	if rounds != 50 {
		t.Errorf("%d supervisor rounds, want 50", rounds)
	}
	if st := sess.Objectives.Status(); st.Updates != 5 || st.LastError != "" {
		t.Errorf("objectives status %+v, want 5 updates without error", st)
	}
	if st := sess.Supervisor.Status(); st.Window != 3 || st.Summarized != 47 || st.LastError != "" {
		t.Errorf("supervisor status %+v, want 3 rounds in full and 47 summarised", st)
	}
	if _, err := os.Stat(filepath.Join(sess.Dir, knowledge.FileName)); err != nil {
		t.Errorf("no knowledge base after the episode: %v", err)
	}
}
