package memory

import (
	"bytes"
	"strings"
	"testing"
)

// Acceptance 5: whatever the input, Parse does not panic, Bytes gives the
// input back, Format loses nothing (assertNothingLost: every non-blank line
// kept, or read as structure whose content survives) and is stable, and a
// change the store makes to the file keeps every line of it and reads back
// as the store meant it.
func FuzzParseMemories(f *testing.F) {
	for _, name := range fixtures(f) {
		f.Add(readFile(f, name))
	}
	for _, s := range []string{
		"",
		"\n\n",
		"#",
		"# ",
		"##",
		"## Location 1: A",
		"## Location 1: A\n**[NOTE] x**",
		"## Location 99999999999999999999: A\n",
		"**[NOTE] a** *(Ep1)* b** *(Ep2)*\n",
		"# T\n## Location 2: B\n---\n## Location 1: A\n---\nafter\n## x\n",
		"# T\r\n\r\n## Location 1: A\r\n**Visits:** 1 | **Episodes:** 1\r\n\r\n### Memories\r\n\r\n**[NOTE] x** *(Ep1, T1)*\r\n\r\n---",
		"## Location 1: A\n**[NOTE - SUPERSEDED] x**\n\n[Superseded at T3 by \"y\"]\n---\n",
		"## Location 1: A\n**Visits:** x\n**Visits:** 2 | **Episodes:** 1,2\n### Memories\n### Memories\n",
		"\xff\xfe## Location 1: \x00\n**[NOTE] \xc3** *(Ep1)*\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file := Parse(data)
		if got := file.Bytes(); !bytes.Equal(got, data) {
			t.Fatalf("round trip differs:\n got %q\nwant %q", got, data)
		}
		last := 0
		for _, p := range file.Problems() {
			if p.Line < last || p.Line < 1 || p.Line > strings.Count(string(data), "\n")+1 {
				t.Fatalf("problem line out of order or range: %v", file.Problems())
			}
			last = p.Line
		}
		assertNothingLost(t, data)
		assertChangeKeepsFile(t, data)
	})
}

// assertChangeKeepsFile adds a memory and a visit to a parsed file as the
// store does and checks that every line of the input is still in the result
// (but for structure, such as the visits line it changes), that the result
// reads back as the changed file, and that the new memory is there.
func assertChangeKeepsFile(t *testing.T, data []byte) {
	t.Helper()
	f := Parse(data)
	id := 1
	if len(f.secs) > 0 {
		id = f.secs[len(f.secs)/2].id
		if id <= 0 {
			id = 1
		}
	}
	m, err := normalize(Memory{Category: CategoryNote, Status: StatusTentative, Title: "Fuzz", Episode: 1, Turn: 2, Text: "## not a header\n---\nend"})
	if err != nil {
		t.Fatal(err)
	}
	f.ensureSection(id, "Fuzzed").insertEntry(m, -1)
	f.ensureSection(id+1, "Next").setVisits(1, []int{1})
	out := f.Bytes()
	g := Parse(out)
	if a, b := dumpFile(f), dumpFile(g); a != b {
		t.Fatalf("changed file reads back differently:\n--- meant ---\n%s\n--- read ---\n%s\n--- bytes ---\n%q", a, b, out)
	}
	have := map[string]bool{}
	for l := range strings.SplitSeq(string(out), "\n") {
		have[strings.TrimRight(l, "\r")] = true
	}
	structure := structuralLines(Parse(data)) // the visits line changes
	// a malformed header meant for a location the change wrote is
	// repaired, and what it hid becomes structure (a visits line) too
	for _, r := range f.repaired {
		structure[r.Text] = true
	}
	if len(f.repaired) > 0 {
		for l := range structuralLines(f) {
			structure[l] = true
		}
	}
	for l := range strings.SplitSeq(string(data), "\n") {
		if l = strings.TrimRight(l, "\r"); !isBlank(l) && !have[l] && !structure[l] {
			t.Fatalf("line %q lost by a change:\n%q", l, out)
		}
	}
	found := false
	for _, got := range g.Sections() {
		for _, mm := range got.Memories {
			if got.ID == id && mm.Title == "Fuzz" && mm.Text == m.Text {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("added memory missing:\n%s", out)
	}
}
