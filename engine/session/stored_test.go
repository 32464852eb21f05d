package session

import (
	"context"
	"errors"
	"testing"
)

// TestOpenStoredReadsWhatPlayLeft: a story never played in the work dir
// has nothing to read (ErrNothingStored, nothing created); once a session
// has played there, its lantern.db opens.
func TestOpenStoredReadsWhatPlayLeft(t *testing.T) {
	story, binding := demoStory(t)
	dir := t.TempDir()
	if _, err := OpenStored(dir, "demo.z3", story); !errors.Is(err, ErrNothingStored) {
		t.Fatalf("an unplayed story: %v, want ErrNothingStored", err)
	}
	sess, err := Open(Options{Story: story, Name: "demo.z3", Binding: binding, WorkDir: dir, Agent: recording()})
	if err != nil {
		t.Fatal(err)
	}
	sess.Close()
	db, err := OpenStored(dir, "demo.z3", story)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Episodes(context.Background()); err != nil {
		t.Fatal(err)
	}
}
