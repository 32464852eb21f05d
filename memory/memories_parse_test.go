package memory

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/sanitize"
	"github.com/lantern-if/lantern/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// fixtures lists testdata/*.md: the design's examples (seed003_example.md
// is the format's reference example, seed000_supersession_fragment.md the
// file a supersession leaves; seed000_troll_room.md and seed000_multistep.md
// put the troll and multi-step examples' memories into whole files) and
// hand-edited files.
func fixtures(t testing.TB) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	return names
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// golden compares got with testdata/golden/<name>, or rewrites it under
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	sharedtest.Golden(t, filepath.Join("testdata", "golden", name), got, *update)
}

// Acceptance 1: every fixture round-trips byte for byte, and formatting
// loses nothing and is stable.
func TestGoldenRoundTrip(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data := readFile(t, name)
			f := Parse(data)
			if got := f.Bytes(); !bytes.Equal(got, data) {
				t.Fatalf("round trip differs:\n--- got ---\n%q\n--- want ---\n%q", got, data)
			}
			formatted := f.Format()
			golden(t, filepath.Base(name)+".fmt", formatted)
			var check bytes.Buffer
			for _, p := range f.Problems() {
				fmt.Fprintf(&check, "%s:%d: %s\n", filepath.Base(name), p.Line, p.Msg)
			}
			golden(t, filepath.Base(name)+".check", check.Bytes())
			assertNothingLost(t, data)
		})
	}
}

// The seed files that are whole files follow the format: no problems, and
// formatting leaves the reference example exactly as it is.
func TestSeedExamplesAreValid(t *testing.T) {
	for _, name := range []string{"seed003_example.md", "seed000_troll_room.md", "seed000_multistep.md"} {
		f := Parse(readFile(t, filepath.Join("testdata", name)))
		if p := f.Problems(); len(p) != 0 {
			t.Errorf("%s: problems %v", name, p)
		}
	}
	data := readFile(t, filepath.Join("testdata", "seed003_example.md"))
	if got := Parse(data).Format(); !bytes.Equal(got, data) {
		t.Errorf("the reference example is not canonical:\n%s", got)
	}
}

func TestSeed003ExampleContent(t *testing.T) {
	f := Parse(readFile(t, filepath.Join("testdata", "seed003_example.md")))
	if f.Title() != "Location Memories" {
		t.Errorf("title %q", f.Title())
	}
	secs := f.Sections()
	if len(secs) != 2 {
		t.Fatalf("%d sections", len(secs))
	}
	west := secs[0]
	if west.ID != 15 || west.Name != "West of House" || west.Visits != 3 || !slices.Equal(west.Episodes, []int{1, 2, 3}) || west.Line != 3 {
		t.Errorf("west of house: %+v", west)
	}
	want := []Memory{
		{Category: CategorySuccess, Status: StatusActive, Title: "Open and enter window", Episode: 1, Turn: 23, TurnEnd: 24, HasScore: true,
			Text: "Window can be opened with effort and used as alternative entrance to house. Must squeeze through opening.", Line: 8},
		{Category: CategoryFailure, Status: StatusActive, Title: "Take or break window", Episode: 1, Turn: 25, TurnEnd: 26,
			Text: "Window is part of house structure - cannot be taken, moved, or broken. Violence not effective.", Line: 11},
		{Category: CategoryDiscovery, Status: StatusActive, Title: "Mailbox location", Episode: 1, Turn: 20, HasScore: true,
			Text: "Small mailbox located here contains advertising leaflet. Likely tutorial document.", Line: 14},
	}
	if !reflect.DeepEqual(west.Memories, want) {
		t.Errorf("memories:\n got %+v\nwant %+v", west.Memories, want)
	}
	living, ok := f.Section(23)
	if !ok || living.Visits != 5 || len(living.Memories) != 4 {
		t.Fatalf("living room: %+v", living)
	}
	if m := living.Memories[0]; m.Score != 5 || !m.HasScore || m.Title != "Acquire brass lantern" {
		t.Errorf("lantern: %+v", m)
	}
	if m := living.Memories[2]; m.HasScore || m.Category != CategoryFailure {
		t.Errorf("sword: %+v", m)
	}
}

func TestSeed000SupersessionContent(t *testing.T) {
	f := Parse(readFile(t, filepath.Join("testdata", "seed000_troll_room.md")))
	sec, ok := f.Section(152)
	if !ok || len(sec.Memories) != 2 {
		t.Fatalf("troll room: %+v", sec)
	}
	danger, old := sec.Memories[0], sec.Memories[1]
	if danger.Category != CategoryDanger || danger.Status != StatusActive || danger.Episode != 1 || danger.Turn != 13 || !danger.HasScore {
		t.Errorf("danger: %+v", danger)
	}
	wantOld := Memory{
		Category: CategoryNote, Status: StatusSuperseded, Title: "Troll accepts lunch gift", Episode: 1, Turn: 12, HasScore: true,
		Superseded: Supersession{Turn: 13, By: "Troll attacks after accepting gift"},
		Text:       "Troll accepts lunch offering graciously. Reaction to gift unclear.",
		Line:       11,
	}
	if old != wantOld {
		t.Errorf("superseded:\n got %+v\nwant %+v", old, wantOld)
	}
	// The fragment alone has no section: its entries are kept as stray text.
	frag := readFile(t, filepath.Join("testdata", "seed000_supersession_fragment.md"))
	ff := Parse(frag)
	if len(ff.Sections()) != 0 || len(ff.Problems()) == 0 {
		t.Errorf("fragment: sections %v problems %v", ff.Sections(), ff.Problems())
	}
	if !bytes.Equal(ff.Bytes(), frag) {
		t.Error("fragment does not round-trip")
	}
}

// Broken parts are reported at their lines and kept: the exact problems of
// testdata/broken.md.
func TestBrokenFileProblems(t *testing.T) {
	f := Parse(readFile(t, filepath.Join("testdata", "broken.md")))
	want := []struct {
		line int
		msg  string
	}{
		{1, "does not start with the title line"},
		{11, `unknown category "WARNING"`},
		{14, `malformed metadata "Episode one, T50"`},
		{17, `"Rug hides something" has a Superseded line but is not marked SUPERSEDED`},
		{22, "text after the closing \"---\" of location 23"},
		{24, "location 15 comes after location 23"},
		{25, "malformed visits line"},
		{24, `location 15 has no "**Visits:**`},
		{24, `location 15 has no "### Memories" heading`},
		{29, `location 15 is not closed by a "---" line`},
		{31, `malformed location header "## Locaton 99: Typo Hall"`},
		{37, "duplicate section for location 23 (first at line 3)"},
	}
	got := f.Problems()
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(got), len(want), problemList(got))
	}
	for _, w := range want {
		found := false
		for _, p := range got {
			if p.Line == w.line && strings.Contains(p.Msg, w.msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("missing problem %d: %s in\n%s", w.line, w.msg, problemList(got))
		}
	}
	// the broken entries are not memories, the readable ones are
	sec, _ := f.Section(23)
	var titles []string
	for _, m := range sec.Memories {
		titles = append(titles, m.Title)
	}
	if want := []string{"Acquire brass lantern", "Rug hides something", "Grue"}; !slices.Equal(titles, want) {
		t.Errorf("titles %q, want %q", titles, want)
	}
}

func problemList(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String())
		b.WriteString("\n")
	}
	return b.String()
}

// Small inputs, one deviation each: the problem reported, or none.
func TestParseProblems(t *testing.T) {
	const head = "# Location Memories\n\n## Location 1: Room\n**Visits:** 1 | **Episodes:** 1\n\n### Memories\n\n"
	cases := []struct {
		name, in string
		line     int    // 0: no problem
		msg      string // substring
	}{
		{"empty file", "", 0, ""},
		{"title only", "# Location Memories\n", 0, ""},
		{"valid", head + "**[NOTE] A** *(Ep1, T2)*\nText.\n\n---\n", 0, ""},
		{"no metadata", head + "**[NOTE] A**\nText.\n\n---\n", 0, ""},
		{"explicit active, lower case", head + "**[note - active] A** *(ep1, t2-3, -4)*\nText.\n\n---\n", 0, ""},
		{"no title line", "## Location 1: Room\n**Visits:** 1 | **Episodes:** 1\n\n### Memories\n\n---\n", 1, "missing title line"},
		{"unknown status", head + "**[NOTE - MAYBE] A** *(Ep1)*\nText.\n\n---\n", 8, `unknown status "MAYBE"`},
		{"no title", head + "**[NOTE]** *(Ep1)*\n\n---\n", 8, "without a title"},
		{"bad header", head + "**[NOTE A** *(Ep1)*\n\n---\n", 8, "malformed memory header"},
		{"twice the episode", head + "**[NOTE] A** *(Ep1, Ep2)*\n\n---\n", 8, "malformed metadata"},
		{"stray text before heading", "# Location Memories\n\n## Location 1: Room\n**Visits:** 1 | **Episodes:** 1\nhello\n\n### Memories\n\n---\n", 5, "not part of a memory"},
		{"missing rule", head + "**[NOTE] A** *(Ep1)*\nText.\n", 9, "not closed"},
		{"bad id", "# Location Memories\n\n## Location x: Room\n", 3, "malformed location header"},
		{"missing name", "# Location Memories\n\n## Location 4:\n", 3, "malformed location header"},
		{"unsorted", "# Location Memories\n\n## Location 2: B\n**Visits:** 1 | **Episodes:** 1\n\n### Memories\n\n---\n\n## Location 1: A\n**Visits:** 1 | **Episodes:** 1\n\n### Memories\n\n---\n", 10, "sorted by ID"},
		{"text before sections", "# Location Memories\nhello\n", 2, "before the first location section"},
		{"episodes none", "# Location Memories\n\n## Location 1: A\n**Visits:** 0 | **Episodes:** none\n\n### Memories\n\n---\n", 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := Parse([]byte(c.in))
			ps := f.Problems()
			if c.line == 0 {
				if len(ps) != 0 {
					t.Errorf("unexpected problems:\n%s", problemList(ps))
				}
			} else if len(ps) != 1 || ps[0].Line != c.line || !strings.Contains(ps[0].Msg, c.msg) {
				t.Errorf("problems:\n%swant one at line %d: %s", problemList(ps), c.line, c.msg)
			}
			if !bytes.Equal(f.Bytes(), []byte(c.in)) {
				t.Errorf("round trip differs")
			}
			assertNothingLost(t, []byte(c.in))
		})
	}
}

func TestParseFields(t *testing.T) {
	const in = "# Location Memories\n\n## Location 9: Dam\n**Visits:** 4 | **Episodes:** 2, 3\n\n### Memories\n\n" +
		"**[SUCCESS - TENTATIVE] Turn bolt** *(Ep3, T40-44, -2)*\nUse the wrench.\nTwice.\n\n" +
		"**[NOTE - SUPERSEDED] Old idea** *(Ep2)*\n[Superseded at T41 by human: \"Turn bolt\"]\nNo.\n\n" +
		"**[NOTE - SUPERSEDED] Older idea**\n[Superseded by human]\n\n---\n"
	sec, ok := Parse([]byte(in)).Section(9)
	if !ok {
		t.Fatal("no section")
	}
	want := []Memory{
		{Category: CategorySuccess, Status: StatusTentative, Title: "Turn bolt", Episode: 3, Turn: 40, TurnEnd: 44, Score: -2, HasScore: true, Text: "Use the wrench.\nTwice.", Line: 8},
		{Category: CategoryNote, Status: StatusSuperseded, Title: "Old idea", Episode: 2, Superseded: Supersession{Turn: 41, By: "Turn bolt", Human: true}, Text: "No.", Line: 12},
		{Category: CategoryNote, Status: StatusSuperseded, Title: "Older idea", Superseded: Supersession{Human: true}, Line: 16},
	}
	if !reflect.DeepEqual(sec.Memories, want) {
		t.Errorf("memories:\n got %+v\nwant %+v", sec.Memories, want)
	}
	if got := string(Parse([]byte(in)).Format()); got != in {
		t.Errorf("canonical input changed by Format:\n%s", got)
	}
}

// assertNothingLost checks Format against its input: the result parses to
// the same content, formatting it again changes nothing, and every non-blank
// input line is in the output, unless the parser read it as structure (a
// header, a visits line, an entry's header...), whose content the first
// check covers.
func assertNothingLost(t testing.TB, data []byte) {
	t.Helper()
	f := Parse(data)
	out := f.Format()
	g := Parse(out)
	if a, b := dumpFile(f), dumpFile(g); a != b {
		t.Fatalf("content changed by Format:\n--- before ---\n%s\n--- after ---\n%s\n--- formatted ---\n%s", a, b, out)
	}
	if again := g.Format(); !bytes.Equal(again, out) {
		t.Fatalf("Format is not stable:\n--- once ---\n%q\n--- twice ---\n%q", out, again)
	}
	have := map[string]bool{}
	for l := range strings.SplitSeq(string(out), "\n") {
		have[l] = true
	}
	consumed := structuralLines(f)
	for l := range strings.SplitSeq(string(data), "\n") {
		l = strings.TrimRight(l, "\r")
		// a memory's text line that would start a block is written escaped
		escaped := sanitize.EscapeBlock(sanitize.UnescapeBlock(l))
		if isBlank(l) || have[l] || have[escaped] || consumed[l] {
			continue
		}
		t.Fatalf("line %q lost by Format:\n%s", l, out)
	}
}

// structuralLines are the input lines the parser read as structure.
func structuralLines(f *File) map[string]bool {
	out := map[string]bool{}
	add := func(p *part) {
		switch p.kind {
		case kTitle, kHeader, kVisits, kHeading, kRule:
			out[strings.TrimRight(firstLine(p.raw), "\r")] = true
		case kEntry:
			lines := strings.Split(p.raw, "\n")
			out[strings.TrimRight(lines[0], "\r")] = true
			for _, l := range lines[1:] {
				l = strings.TrimRight(l, "\r")
				if isBlank(l) {
					continue
				}
				if _, ok := parseSupersession(l); ok {
					out[l] = true
				}
				break
			}
		}
	}
	for _, p := range f.lead {
		add(p)
	}
	for _, s := range f.secs {
		for _, p := range s.parts {
			add(p)
		}
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// dumpFile writes a file's content, independent of layout: the title, the
// stray text before the sections, and the sections in ID order (stable),
// each with its fields and its entries and kept text in order.
func dumpFile(f *File) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title %q\n", f.Title())
	dumpParts(&b, f.lead)
	secs := slices.Clone(f.secs)
	slices.SortStableFunc(secs, func(x, y *section) int { return cmp.Compare(x.id, y.id) })
	for _, s := range secs {
		fmt.Fprintf(&b, "section %d %q visits %d episodes %v\n", s.id, s.name, s.visits, s.episodes)
		dumpParts(&b, s.parts)
	}
	return b.String()
}

// dumpParts writes a container's entries and kept text. Kept text is
// compared by its non-blank lines, and runs of stray text as one: where one stray block ends and the next begins can depend on what
// precedes them (a malformed visits line starts a block of its own, a line
// after a valid one does not), and Format may move a visits line.
func dumpParts(b *strings.Builder, ps []*part) {
	var junk []string
	flush := func() {
		if junk != nil {
			fmt.Fprintf(b, "  kept %q\n", junk)
			junk = nil
		}
	}
	nonBlank := func(lines []string) []string {
		var out []string
		for _, l := range lines {
			if !isBlank(l) {
				out = append(out, l)
			}
		}
		return out
	}
	for _, p := range ps {
		if p.kind == kJunk {
			junk = append(junk, nonBlank(p.body)...)
			continue
		}
		switch p.kind {
		case kBrokenSection, kBrokenEntry:
			flush()
			fmt.Fprintf(b, "  kept %d %q\n", p.kind, nonBlank(p.body))
		case kEntry:
			flush()
			m := p.mem
			m.Line = 0
			fmt.Fprintf(b, "  entry %+v\n", m)
		}
	}
	flush()
}
