package session

import (
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
	open := func() *Session {
		sess, err := Open(Options{Story: story, Name: "demo.z3", Binding: binding, WorkDir: dir, Agent: recording("north", "south"),
			Autosave: true, Planning: DefaultPlanning(), Engine: engine.Config{Seed: 1, MaxTurns: 2}})
		if err != nil {
			t.Fatal(err)
		}
		return sess
	}
	sess := open()
	for _, op := range [][2]string{{"add", "Find the lamp"}, {"add", "Open the cottage"}, {"add", "Drop me"}, {"drop", "Drop me"}} {
		if _, err := sess.Objectives.Edit(op[0], op[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := sess.SaveObjectives(); err != nil {
		t.Fatal(err)
	}
	sess.Close()

	again := open()
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
