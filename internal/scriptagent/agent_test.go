package scriptagent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/oracle"
)

func TestAgentTurns(t *testing.T) {
	a := New([]string{"north", "take lamp", "south"})
	steps := []struct {
		turn int
		want string // "" for ErrScriptDone
	}{
		{1, "north"},
		{2, "take lamp"},
		{2, "take lamp"}, // proposed again for the same turn
		{3, "south"},
		{4, ""},
		{1, "north"}, // a new episode starts from the top
		{2, "take lamp"},
	}
	for i, s := range steps {
		p, err := a.Propose(context.Background(), nil, nil, s.turn, nil)
		switch {
		case s.want == "" && !errors.Is(err, engine.ErrScriptDone):
			t.Fatalf("step %d (turn %d): err %v, want ErrScriptDone", i, s.turn, err)
		case s.want != "" && (err != nil || p.Action != s.want):
			t.Fatalf("step %d (turn %d): %q %v, want %q", i, s.turn, p.Action, err, s.want)
		}
	}
	if !a.Scripted() {
		t.Error("a script agent is scripted")
	}
}

func TestAgentResumes(t *testing.T) {
	a := New([]string{"north", "take lamp", "south"})
	a.Skip(2) // the resumed episode's turns 1 and 2 were played
	if p, err := a.Propose(context.Background(), nil, nil, 3, nil); err != nil || p.Action != "south" {
		t.Fatalf("after Skip(2): %q %v", p.Action, err)
	}
	if a.Remaining() != 0 {
		t.Errorf("Remaining = %d", a.Remaining())
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	walk := filepath.Join(dir, "walk.txt")
	if err := os.WriteFile(walk, []byte("# comment\n\nnorth\n  take lamp  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Load(walk)
	if err != nil || a.Remaining() != 2 {
		t.Fatalf("Load: %v, %d actions", err, a.Remaining())
	}
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(empty); !errors.Is(err, oracle.ErrEmptyScript) {
		t.Errorf("empty script: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "none.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing script: %v", err)
	}
}
