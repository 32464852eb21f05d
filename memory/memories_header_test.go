package memory

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadBrokenHeader(t *testing.T) {
	tests := []struct {
		line   string
		target int
		name   string
		reason string
	}{
		{"## Locaton three: Muddy Lane", 3, "Muddy Lane", `"Locaton" is not "Location"`},
		{"## Location three: Muddy Lane", 3, "Muddy Lane", `the location number "three" is not written in digits`},
		{"## Location twenty-one: Attic", 21, "Attic", "not written in digits"},
		{"## location 3: Muddy Lane", 3, "Muddy Lane", `"location" must be written "Location"`},
		{"## Location3: Muddy Lane", 3, "Muddy Lane", `no space between "Location" and the number`},
		{"## Location 3 Muddy Lane", 3, "Muddy Lane", `no ":" between the location number and the name`},
		{"## Location 3 - Muddy Lane", 3, "Muddy Lane", `no ":"`},
		{"## Location 3:", 3, "", `no name after the ":"`},
		{"## 3: Muddy Lane", 3, "Muddy Lane", `"3" is not "Location"`},
		{"## Location x: Room", 0, "Room", `"x" is not a location number`},
		{"## Muddy Lane", 0, "Muddy Lane", `no "Location N:" before the name`},
		{"## Notes for 3 rooms", 0, "rooms", `"Notes" is not "Location"`},
		{"## Ep1 notes: the lamp", 0, "the lamp", `"Ep1" is not "Location"`},
		{"## L3: Muddy Lane", 3, "Muddy Lane", `"L3" is not "Location"`},
		{"##", 0, "", `no "Location N:" before the name`},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			h := readBrokenHeader(tc.line)
			if h.target() != tc.target || h.name != tc.name || !strings.Contains(h.reason, tc.reason) {
				t.Errorf("target %d, name %q, reason %q; want %d, %q, %q", h.target(), h.name, h.reason, tc.target, tc.name, tc.reason)
			}
		})
	}
}

// mistyped is a Memories.md whose location 3 header was mistyped in an
// editor (issue 40): its two memories are hidden.
func mistyped(header string) string {
	return "# Location Memories\n\n" +
		"## Location 2: Orchard\n**Visits:** 1 | **Episodes:** 1\n\n### Memories\n\n**[NOTE] Apples** *(Ep1, T1)*\nRipe.\n\n---\n\n" +
		header + "\n**Visits:** 2 | **Episodes:** 1\n\n### Memories\n\n" +
		"**[DANGER] Deep mud** *(Ep1, T3)*\nDo not go south.\n\n**[DISCOVERY] Boot** *(Ep1, T4)*\nA boot lies here.\n\n---\n\n" +
		"## Location 4: Cottage\n**Visits:** 1 | **Episodes:** 1\n\n### Memories\n\n---\n"
}

// sections3 counts the section headers of location 3.
func sections3(data string) int {
	n := 0
	for l := range strings.SplitSeq(data, "\n") {
		if strings.HasPrefix(l, "## Location 3: ") {
			n++
		}
	}
	return n
}

// writeTemp writes a Memories.md to a temporary folder.
func writeTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "Memories.md")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMistypedHeaderShownAndRepaired: the mistyped header is a problem at
// the location it hides (line, reason, fix, memories hidden); a memory
// added there, or a visit counted, repairs the header in place and goes
// under it: one section for the room, with the memories it hid.
func TestMistypedHeaderShownAndRepaired(t *testing.T) {
	lantern := Memory{Category: CategoryNote, Status: StatusActive, Title: "Lantern", Text: "Bring one."}
	changes := []struct {
		name   string
		change func(*Store) error
		want   int // memories at location 3 afterwards
	}{
		{"a memory added", func(s *Store) error { return s.Add(3, "Muddy Lane", lantern) }, 3},
		{"a person's memory", func(s *Store) error { return s.AddBy(3, "Muddy Lane", lantern, ByHuman) }, 3},
		{"a visit", func(s *Store) error { return s.RecordVisit(3, "Muddy Lane", 2) }, 2},
		{"a supersession", func(s *Store) error {
			_, err := s.Supersede(3, "Muddy Lane", Memory{Category: CategoryDanger, Status: StatusActive, Title: "Dry mud", Turn: 9}, []string{"Deep mud"}, ByModel)
			return err
		}, 3},
	}
	headers := []struct {
		line, fixed string
	}{
		{"## Locaton three: Muddy Lane", "## Location 3: Muddy Lane"},
		{"## Location 3 Muddy Lane", "## Location 3: Muddy Lane"},
		{"## location 3: Muddy Lane", "## Location 3: Muddy Lane"},
		{"## Location 3:", "## Location 3: Muddy Lane"},
		{"## Muddy Lane", "## Location 3: Muddy Lane"},
		{"## Locaton 3: Muddy Lain", "## Location 3: Muddy Lain"},
	}
	for _, hd := range headers {
		for _, ch := range changes {
			t.Run(hd.line+"/"+ch.name, func(t *testing.T) {
				s, path := tempStore(t, mistyped(hd.line))
				if _, ok := s.Section(3); ok {
					t.Fatal("the mistyped section reads as location 3")
				}
				probs := s.LocationProblems(3, "Muddy Lane")
				if len(probs) != 1 || !probs[0].Header || probs[0].Line != 13 || probs[0].Text != hd.line || probs[0].Hidden != 2 ||
					probs[0].Location != 3 || !strings.Contains(probs[0].Msg, "hidden from the agent") {
					t.Fatalf("location 3's problems %+v", probs)
				}
				if probs[0].Fix != hd.fixed && probs[0].Fix != "" && hd.line != "## Location 3:" {
					t.Errorf("fix %q, want %q", probs[0].Fix, hd.fixed)
				}
				if err := ch.change(s); err != nil {
					t.Fatal(err)
				}
				data := fileString(t, path)
				if n := sections3(data); n != 1 || !strings.Contains(data, hd.fixed+"\n") || strings.Contains(data, hd.line+"\n") {
					t.Fatalf("%d sections for location 3:\n%s", n, data)
				}
				sec, ok := s.Section(3)
				if !ok || len(sec.Memories) != ch.want {
					t.Fatalf("location 3: %+v", sec)
				}
				if again, _ := Parse([]byte(data)).Section(3); len(again.Memories) != ch.want {
					t.Errorf("the file holds %d memories at location 3", len(again.Memories))
				}
				rep := s.TakeRepaired()
				if len(rep) != 1 || rep[0].Line != 13 || rep[0].Text != hd.line || rep[0].Fix != hd.fixed {
					t.Errorf("repaired %+v", rep)
				}
				if rep := s.TakeRepaired(); len(rep) != 0 {
					t.Errorf("repairs reported twice: %+v", rep)
				}
				for _, p := range s.Problems() {
					if p.Header {
						t.Errorf("still a header problem: %s", p)
					}
				}
			})
		}
	}
}

// A heading meant for another location, or for none, is left alone: the
// room gets its own section and the heading stays reported where it is.
func TestOtherHeadingsNotTakenForTheRoom(t *testing.T) {
	for _, line := range []string{"## Locaton 5: Muddy Lane", "## Notes on the house", "## Location 7"} {
		t.Run(line, func(t *testing.T) {
			s, path := tempStore(t, mistyped(line))
			if got := s.LocationProblems(3, "Muddy Lane"); len(got) != 0 {
				t.Errorf("location 3 shows %+v", got)
			}
			if err := s.Add(3, "Muddy Lane", Memory{Category: CategoryNote, Status: StatusActive, Title: "Lantern"}); err != nil {
				t.Fatal(err)
			}
			data := fileString(t, path)
			if !strings.Contains(data, line+"\n") || sections3(data) != 1 {
				t.Errorf("file:\n%s", data)
			}
			if rep := s.TakeRepaired(); len(rep) != 0 {
				t.Errorf("repaired %+v", rep)
			}
			found := false
			for _, p := range s.Problems() {
				found = found || p.Header && p.Text == line
			}
			if !found {
				t.Errorf("the heading is no longer reported: %v", s.Problems())
			}
		})
	}
}

// A memory the agent just added stays where it is when a person's save
// mistypes its header: the store does not put it back as a twin section;
// the next change repairs the header.
func TestHandMistypedHeaderAfterAnAdd(t *testing.T) {
	s, path := tempStore(t, mistyped("## Location 3: Muddy Lane"))
	if err := s.Add(3, "Muddy Lane", Memory{Category: CategoryNote, Status: StatusActive, Title: "Lantern", Text: "Bring one."}); err != nil {
		t.Fatal(err)
	}
	data := strings.Replace(fileString(t, path), "## Location 3: Muddy Lane", "## Locaton three: Muddy Lane", 1)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	if kept := s.TakeKept(); len(kept) != 0 {
		t.Errorf("put back %+v", kept)
	}
	if got := fileString(t, path); got != data {
		t.Fatalf("the refresh rewrote the file:\n%s", got)
	}
	if err := s.Add(3, "Muddy Lane", Memory{Category: CategoryNote, Status: StatusActive, Title: "Rope", Text: "Useful."}); err != nil {
		t.Fatal(err)
	}
	sec, _ := s.Section(3)
	if n := sections3(fileString(t, path)); n != 1 || len(sec.Memories) != 4 {
		t.Errorf("%d sections, memories %+v", n, sec.Memories)
	}
}

// A memory whose title the hidden section already holds is a duplicate:
// nothing is written, the header included.
func TestDuplicateUnderAMistypedHeader(t *testing.T) {
	s, path := tempStore(t, mistyped("## Locaton three: Muddy Lane"))
	before := fileString(t, path)
	err := s.Add(3, "Muddy Lane", Memory{Category: CategoryDanger, Status: StatusActive, Title: "Deep mud"})
	if !errors.Is(err, ErrDuplicate) {
		t.Fatalf("error %v, want ErrDuplicate", err)
	}
	if got := fileString(t, path); got != before {
		t.Errorf("file changed:\n%s", got)
	}
}

// `lantern memories fmt` can repair the headers whose location and name
// it can tell; one that names no location is left for the person.
func TestFmtRepaired(t *testing.T) {
	in := mistyped("## Locaton three: Muddy Lane") + "\n## Somewhere\n**Visits:** 1 | **Episodes:** 1\n\n### Memories\n\n---\n"
	path := writeTemp(t, in)
	var out bytes.Buffer
	fixed, err := FmtRepaired(&out, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(fixed) != 1 || fixed[0].Line != 13 || fixed[0].Fix != "## Location 3: Muddy Lane" {
		t.Errorf("repaired %+v", fixed)
	}
	f := Parse(out.Bytes())
	if sec, ok := f.Section(3); !ok || len(sec.Memories) != 2 || sec.Name != "Muddy Lane" {
		t.Errorf("location 3 after fmt: %+v", sec)
	}
	if !strings.Contains(out.String(), "## Somewhere\n") {
		t.Errorf("the unnamed heading was touched:\n%s", out.String())
	}
	var plain bytes.Buffer
	if err := Fmt(&plain, path); err != nil || !strings.Contains(plain.String(), "## Locaton three: Muddy Lane\n") {
		t.Errorf("plain fmt repaired the header (%v):\n%s", err, plain.String())
	}
}

// A header that names the room but gives no number is found by the
// room's name, with the fix for that room.
func TestLocationProblemsByName(t *testing.T) {
	s, _ := tempStore(t, mistyped("## Muddy Lane"))
	got := s.LocationProblems(3, "muddy lane")
	if len(got) != 1 || got[0].Location != 3 || got[0].Fix != "## Location 3: Muddy Lane" || !strings.Contains(got[0].Msg, `write it as "## Location 3: Muddy Lane"`) {
		t.Errorf("problems %+v", got)
	}
	if other := s.LocationProblems(5, "Cellar"); len(other) != 0 {
		t.Errorf("location 5 shows %+v", other)
	}
}
