package memory

import (
	"errors"
	"path/filepath"
	"testing"
)

// Duplicates are found by title, as the design compares them: the same
// lesson reworded is not stored twice; a memory superseding its own title
// replaces it.
func TestDuplicatesByTitle(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "Memories.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first := Memory{Category: CategoryFailure, Status: StatusActive, Title: "Take the window", Text: "The window cannot be taken.", Episode: 1, Turn: 5}
	if err := s.Add(15, "West of House", first); err != nil {
		t.Fatal(err)
	}
	reworded := first
	reworded.Title, reworded.Text = "take the window.", "Windows are part of the house; taking fails."
	if err := s.Add(15, "West of House", reworded); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("a reworded memory of the same title: %v, want ErrDuplicate", err)
	}
	// Another location may hold the same title.
	if err := s.Add(16, "North of House", reworded); err != nil {
		t.Fatalf("the same title elsewhere: %v", err)
	}
	better := first
	better.Text, better.Turn = "The window is fixed, but it opens.", 9
	if n, err := s.Supersede(15, "West of House", better, []string{"Take the window"}, ByModel); err != nil || n != 1 {
		t.Fatalf("supersede its own title: %d, %v", n, err)
	}
	list := s.List(15)
	if len(list) != 2 || list[0].Text != better.Text || list[1].Status != StatusSuperseded {
		t.Fatalf("after superseding: %+v", list)
	}
}
