package memory

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// handSave writes what a person's editor saves: f's text, now.
func handSave(t *testing.T, path string, f *File) {
	t.Helper()
	if err := os.WriteFile(path, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func note(title string) Memory {
	return Memory{Category: CategoryNote, Status: StatusActive, Title: title, Text: "seen here", Episode: 1, Turn: 1}
}

// without is the store's version less the memories with the titles (at
// location 3), as a person deletes them in an editor.
func without(t *testing.T, s *Store, titles ...string) *File {
	t.Helper()
	f := s.file.clone()
	for _, title := range titles {
		at, err := f.find(Ref{Location: 3, Title: title})
		if err != nil {
			t.Fatal(err)
		}
		at.s.parts = slices.Delete(at.s.parts, at.i, at.i+1)
	}
	return f
}

// TestHandDeletionAfterTheTUIsSaveStays: a person adds two memories (the
// TUI's saves), then deletes them in an editor at once, well within the
// guard's window: the store takes the deletion, a later save by the store
// does not write them back, and nothing is reported as kept.
func TestHandDeletionAfterTheTUIsSaveStays(t *testing.T) {
	s, path := tempStore(t, "", WithSettle(50*time.Millisecond))
	for _, title := range []string{"Mine one", "Mine two"} {
		if err := s.AddBy(3, "Muddy Lane", note(title), ByHuman); err != nil {
			t.Fatal(err)
		}
	}
	handSave(t, path, without(t, s, "Mine one", "Mine two"))
	if _, err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	if n := len(s.List(3)); n != 0 {
		t.Errorf("%d memories after the hand deletion, want 0", n)
	}
	if err := s.Add(4, "Orchard", note("The agent's")); err != nil {
		t.Fatal(err)
	}
	if got := fileString(t, path); strings.Contains(got, "Mine one") || strings.Contains(got, "Mine two") {
		t.Errorf("the next save wrote the deleted memories back:\n%s", got)
	}
	if k := s.TakeKept(); len(k) != 0 {
		t.Errorf("kept %v", k)
	}
}

// TestAgentMemoryAnEditorCouldNotSeeIsKeptOnce: a save by hand from an
// editor that read the file before the agent's memory was written is
// given the memory back, with a notice; deleted again, it stays deleted.
func TestAgentMemoryAnEditorCouldNotSeeIsKeptOnce(t *testing.T) {
	s, path := tempStore(t, "", WithSettle(50*time.Millisecond))
	if err := s.AddBy(3, "Muddy Lane", note("Before"), ByHuman); err != nil {
		t.Fatal(err)
	}
	stale := s.file.clone() // what the editor read
	if err := s.Add(3, "Muddy Lane", note("The agent's")); err != nil {
		t.Fatal(err)
	}
	handSave(t, path, stale)
	if _, err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	if n := len(s.List(3)); n != 2 {
		t.Fatalf("%d memories after the stale save, want the agent's kept (2)", n)
	}
	kept := s.TakeKept()
	if len(kept) != 1 || kept[0].Title != "The agent's" || kept[0].Location != 3 || !strings.Contains(kept[0].String(), `kept "The agent's" at L3`) {
		t.Fatalf("kept %v", kept)
	}
	if k := s.TakeKept(); len(k) != 0 {
		t.Errorf("TakeKept twice: %v", k)
	}
	handSave(t, path, without(t, s, "The agent's"))
	if _, err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	if n := len(s.List(3)); n != 1 {
		t.Errorf("%d memories after deleting the kept one, want 1", n)
	}
	if k := s.TakeKept(); len(k) != 0 {
		t.Errorf("kept again: %v", k)
	}
}

// TestEditorThatSawALaterMemorySawTheEarlier: a save by hand that holds
// the agent's later memory read a version with the earlier one, so the
// earlier one's deletion is the person's and stays.
func TestEditorThatSawALaterMemorySawTheEarlier(t *testing.T) {
	s, path := tempStore(t, "", WithSettle(50*time.Millisecond))
	for _, title := range []string{"Earlier", "Later"} {
		if err := s.Add(3, "Muddy Lane", note(title)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond) // two distinct write times
	}
	handSave(t, path, without(t, s, "Earlier"))
	if _, err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	if ms := s.List(3); len(ms) != 1 || ms[0].Title != "Later" {
		t.Errorf("memories %v, want only Later", ms)
	}
	if k := s.TakeKept(); len(k) != 0 {
		t.Errorf("kept %v", k)
	}
}

// TestHandBrokenEntryIsAProblemWithItsLine: an entry a person's edit made
// malformed leaves the store's list of memories, and Store.Problems gives
// it with its line, location and text, so a client can show it.
func TestHandBrokenEntryIsAProblemWithItsLine(t *testing.T) {
	s, path := tempStore(t, "", WithSettle(50*time.Millisecond))
	for _, title := range []string{"Kept", "Broken"} {
		if err := s.AddBy(3, "Muddy Lane", note(title), ByHuman); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(fileString(t, path), "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "**[NOTE] Broken**") {
			lines[i], at = strings.Replace(l, "**[NOTE] Broken**", "**[NOTE Broken", 1), i
		}
	}
	if at < 0 {
		t.Fatalf("no Broken entry in:\n%s", strings.Join(lines, "\n"))
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	if ms := s.List(3); len(ms) != 1 || ms[0].Title != "Kept" {
		t.Errorf("memories %v, want only Kept", ms)
	}
	var found bool
	for _, p := range s.Problems() {
		if p.Line == at+1 && p.Location == 3 && strings.HasPrefix(p.Text, "**[NOTE Broken") && strings.Contains(p.Msg, "malformed memory header") {
			found = true
		}
	}
	if !found {
		t.Errorf("problems %+v lack line %d", s.Problems(), at+1)
	}
}
