package memory

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const zorkgptLevels = "testdata/zorkgpt-levels.md"

// A Memories.md as ZorkGPT writes it now — levels (CORE, PERMANENT,
// EPHEMERAL) before the status, a memory invalidated without a
// replacement — passes the check and round-trips through fmt.
func TestZorkGPTLevelsCheckAndRoundTrip(t *testing.T) {
	var out bytes.Buffer
	if code := Check(&out, zorkgptLevels); code != 0 {
		t.Fatalf("memories check = %d:\n%s", code, out.String())
	}
	data, err := os.ReadFile(zorkgptLevels)
	if err != nil {
		t.Fatal(err)
	}
	var fmtd bytes.Buffer
	if err := Fmt(&fmtd, zorkgptLevels); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fmtd.Bytes(), data) {
		t.Fatalf("memories fmt changed the file:\n%s", fmtd.String())
	}
	f := Parse(data)
	sec, ok := f.Section(79)
	if !ok || len(sec.Memories) != 5 {
		t.Fatalf("section 79: %+v", sec)
	}
	want := []struct {
		p  Persistence
		st Status
	}{{PersistenceCore, StatusActive}, {PersistencePermanent, StatusActive}, {PersistenceEphemeral, StatusTentative},
		{PersistencePermanent, StatusSuperseded}, {"", StatusSuperseded}}
	for i, w := range want {
		if m := sec.Memories[i]; m.Persistence != w.p || m.Status != w.st {
			t.Errorf("memory %d %q: level %q status %q, want %q %q", i, m.Title, m.Persistence, m.Status, w.p, w.st)
		}
	}
	if inv := sec.Memories[3].Superseded; inv.Reason != "Proven false: nothing happened on the next try" || inv.Turn != 55 || inv.By != "" {
		t.Errorf("the invalidation read as %+v", inv)
	}
	// Rendered from its fields, each entry is what the file holds.
	for _, m := range sec.Memories {
		got := strings.Join(entryLines(m), "\n")
		if !strings.Contains(string(data), got) {
			t.Errorf("entry %q renders as\n%s", m.Title, got)
		}
	}
}

// Cancelling a memory without a replacement writes ZorkGPT's invalidation
// record, and a level survives the store's writes.
func TestInvalidateWithoutReplacement(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Memories.md")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := Memory{Category: CategoryDanger, Persistence: PersistencePermanent, Status: StatusActive, Title: "Window is trapped",
		Text: "Climbing through the window hurts.", Episode: 1, Turn: 50, Score: -5, HasScore: true}
	if err := s.Add(79, "Behind House", m); err != nil {
		t.Fatal(err)
	}
	if err := s.Invalidate(Ref{Location: 79, Title: "window is trapped"}, "Proven false", 55); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := "**[DANGER - PERMANENT - SUPERSEDED] Window is trapped** *(Ep1, T50, -5)*\n[Invalidated at T55: \"Proven false\"]\nClimbing through the window hurts.\n"
	if !strings.Contains(string(data), want) {
		t.Fatalf("the file holds\n%s\nwant\n%s", data, want)
	}
	if list := s.List(79); len(list) != 1 || list[0].Visible() {
		t.Errorf("an invalidated memory is still shown: %+v", list)
	}
	var out bytes.Buffer
	if code := Check(&out, path); code != 0 {
		t.Errorf("check after invalidating: %s", out.String())
	}
}
