package memory

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lantern-if/lantern/sanitize"
)

// A "## " heading that is not a location header ("## Locaton three: Muddy
// Lane", typed in an editor) starts a broken section: everything up to the
// next "## " line is kept as it is, and the memories there are hidden from
// the agent and from every view. Nothing is lost, but nothing may stay
// silent either:
//
//   - Parse reports it as a Problem with Header set: its line, the
//     reason, the location it seems meant for and the header to write
//     instead (Fix), and how many memories it hides.
//   - Store.LocationProblems gives a location's problems, such a header
//     included when it names the location by number or by name, for the
//     memory pane and the browser to show where the memories would be.
//   - A change for that location (a memory added, a visit counted) never
//     makes a second, well-formed section beside the hidden one: the
//     store repairs the header in place ("## Location 3: Muddy Lane", the
//     name as the person wrote it) and the change goes under it, with the
//     memories that were hidden there. Store.TakeRepaired reports each
//     repair, for a notice. The header is repaired only when it names the
//     location: its number after a word like "Location", or, when it gives
//     no number, the location's name.
//   - File.RepairHeaders repairs every header whose location can be told
//     (`lantern memories fmt`, FmtRepaired).

// brokenHeader is what can be read of a malformed location header.
type brokenHeader struct {
	id     int    // the number it gives; 0 when none
	named  bool   // the number follows a word like "Location" (or the header has the "N: Name" shape)
	name   string // the name it gives; "" when none
	reason string // what is wrong, for the problem's message
}

// target is the location the header is meant for, when it can be told.
func (h brokenHeader) target() int {
	if h.named {
		return h.id
	}
	return 0
}

// readBrokenHeader reads what it can of a "## " line parseHeader refused.
func readBrokenHeader(line string) brokenHeader {
	rest := strings.TrimSpace(strings.TrimPrefix(line, "##"))
	label, name, colon := strings.Cut(rest, ":")
	label, name = strings.TrimSpace(label), strings.TrimSpace(name)
	words := strings.Fields(label)
	h := brokenHeader{name: name}
	at := -1
	for i, w := range words {
		if n, ok := readNumber(w); ok {
			h.id, at = n, i
			break
		}
	}
	switch {
	case at > 0:
		h.named = locationWord(words[at-1])
	case at == 0:
		// "## 3: Muddy Lane", or a word glued to the number ("Location3")
		h.named = colon && allDigits(words[0]) || locationWord(strings.TrimRight(words[0], "0123456789"))
	}
	if !colon {
		// "## Location 3 Muddy Lane", "## Location 3 - Muddy Lane";
		// without a number the whole heading is the name ("## Muddy Lane")
		h.name = label
		if at >= 0 {
			h.name = strings.TrimLeft(strings.Join(words[at+1:], " "), "-–—.) ")
		}
	}
	h.reason = headerReason(words, at, colon, name)
	return h
}

// headerReason says why parseHeader refused a header, in the order it
// reads one: "Location", the number in digits, ":", the name.
func headerReason(words []string, at int, colon bool, name string) string {
	switch {
	case len(words) == 0 && colon:
		return `no "Location N" before the ":"`
	case len(words) == 0 || at < 0 && !colon:
		return `no "Location N:" before the name`
	case words[0] != "Location" && strings.EqualFold(words[0], "location"):
		return fmt.Sprintf("%q must be written \"Location\"", words[0])
	case at == 0 && strings.HasPrefix(words[0], "Location"):
		return `no space between "Location" and the number`
	case words[0] != "Location":
		return fmt.Sprintf("%q is not \"Location\"", words[0])
	case at < 0 && len(words) > 1:
		return fmt.Sprintf("%q is not a location number", strings.Join(words[1:], " "))
	case at < 0:
		return "no location number"
	case !allDigits(words[at]):
		return fmt.Sprintf("the location number %q is not written in digits", words[at])
	case !colon:
		return `no ":" between the location number and the name`
	case name == "":
		return `no name after the ":"`
	case at != 1 || len(words) != 2:
		return `want just "Location N" before the ":"`
	}
	return `want "## Location N: Name"`
}

// locationWord reports whether w reads as "Location", typos included
// ("Locaton", "location", "Loc.").
func locationWord(w string) bool {
	w = strings.ToLower(strings.TrimRight(w, ".#"))
	return w == "loc" || w == "l" || w == "room" || sanitize.EditDistance(w, "location") <= 2
}

// readNumber reads a location number: digits (after a glued word, as in
// "Location3"), or a number in English words up to ninety-nine.
func readNumber(w string) (int, bool) {
	w = strings.TrimRight(w, ".#,;")
	if i := strings.IndexAny(w, "0123456789"); i >= 0 && allDigits(w[i:]) && len(w)-i <= 9 {
		n, err := strconv.Atoi(w[i:])
		return n, err == nil && n > 0
	}
	w = strings.ToLower(w)
	tens, units, hyphen := strings.Cut(w, "-")
	if !hyphen {
		if n := numberWord(w); n > 0 {
			return n, true
		}
		return 0, false
	}
	t, u := numberWord(tens), numberWord(units)
	if t < 20 || t%10 != 0 || u < 1 || u > 9 {
		return 0, false
	}
	return t + u, true
}

// numberWord is the value of one English number word (one … nineteen,
// twenty … ninety); 0 for any other word.
func numberWord(w string) int {
	for i, s := range strings.Fields("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen") {
		if w == s {
			return i + 1
		}
	}
	for i, s := range strings.Fields("twenty thirty forty fifty sixty seventy eighty ninety") {
		if w == s {
			return 20 + 10*i
		}
	}
	return 0
}

// headerProblem completes a malformed header's problem once its section's
// lines are known (body: the header line first).
func headerProblem(pr *Problem, body []string) {
	h := readBrokenHeader(body[0])
	pr.Header, pr.Name = true, h.name
	for _, l := range body[1:] {
		if strings.HasPrefix(l, "**[") {
			pr.Hidden++
		}
	}
	if id := h.target(); id > 0 {
		pr.Location = id
		if h.name != "" {
			pr.Fix = headerLine(id, cleanName(h.name, id))
		}
	}
	pr.Msg = headerMessage(*pr, h.reason)
}

// headerMessage is a malformed header's problem: the line, what is wrong,
// what it hides, what to write.
func headerMessage(pr Problem, reason string) string {
	hidden := "anything under it is kept as it is up to the next \"## \" line"
	switch {
	case pr.Hidden == 1:
		hidden = "the memory under it is hidden from the agent until it is fixed"
	case pr.Hidden > 1:
		hidden = fmt.Sprintf("the %d memories under it are hidden from the agent until it is fixed", pr.Hidden)
	}
	fix := ""
	switch {
	case pr.Fix != "":
		fix = fmt.Sprintf("; write it as %q", pr.Fix)
	case pr.Name != "":
		fix = fmt.Sprintf("; write it as %q with the location's number", "## Location N: "+pr.Name)
	case pr.Location > 0 && pr.Header:
		fix = fmt.Sprintf("; write it as %q with the location's name", fmt.Sprintf("## Location %d: Name", pr.Location))
	}
	return fmt.Sprintf("malformed location header %q (%s; want \"## Location N: Name\"): %s%s", pr.Text, reason, hidden, fix)
}

// meantFor reports whether a malformed header is location id's, called
// name: by its number after a word like "Location", else, when it gives
// no number, by its name.
func (h brokenHeader) meantFor(id int, name string) bool {
	if t := h.target(); t > 0 {
		return t == id
	}
	return h.id == 0 && h.name != "" && normKey(h.name) == normKey(name)
}

// brokenFor finds the broken section meant for location id, called name.
func (f *File) brokenFor(id int, name string) *part {
	for _, p := range f.brokenSections() {
		if readBrokenHeader(p.body[0]).meantFor(id, name) {
			return p
		}
	}
	return nil
}

// brokenSections lists the broken sections in file order.
func (f *File) brokenSections() []*part {
	var out []*part
	add := func(ps []*part) {
		for _, p := range ps {
			if p.kind == kBrokenSection && len(p.body) > 0 {
				out = append(out, p)
			}
		}
	}
	add(f.lead)
	for _, s := range f.secs {
		add(s.parts)
	}
	return out
}

// repairHeader rewrites a broken section's header line as location id's
// and reads the file again, so the section and the memories under it are
// the location's. The name the person wrote is kept (else name). It
// records the repair (File.repaired).
func (f *File) repairHeader(p *part, id int, name string) {
	h := readBrokenHeader(p.body[0])
	if h.name != "" {
		name = h.name
	}
	fixed := headerLine(id, cleanName(name, id))
	data := f.Bytes() // places p at its line
	start := 0
	for n := 1; n < p.line; n++ {
		start += bytes.IndexByte(data[start:], '\n') + 1
	}
	end := start + len(p.body[0])
	out := make([]byte, 0, len(data)+len(fixed))
	out = append(append(append(out, data[:start]...), fixed...), data[end:]...)
	repaired := append(f.repaired, Problem{Line: p.line, Text: p.body[0], Header: true, Name: h.name, Location: id, Fix: fixed,
		Msg: fmt.Sprintf("malformed location header %q repaired as %q", p.body[0], fixed)})
	*f = *Parse(out)
	f.repaired = repaired
}

// RepairHeaders repairs every malformed location header whose location and
// name can be told from it (a number after a word like "Location", a name;
// a location that already has a well-formed section is left alone) and
// returns what it repaired, each with the line it had.
func (f *File) RepairHeaders() []Problem {
	done := map[string]bool{}
	for {
		var next *part
		var id int
		for _, p := range f.brokenSections() {
			h := readBrokenHeader(p.body[0])
			if t := h.target(); t > 0 && h.name != "" && f.sectionOf(t) == nil && !done[p.body[0]] {
				next, id = p, t
				break
			}
		}
		if next == nil {
			out := f.repaired
			f.repaired = nil
			return out
		}
		done[next.body[0]] = true
		f.repairHeader(next, id, "")
	}
}

// hiddenHolds reports whether a broken section meant for location a.loc
// holds a memory titled as a's: the memory is in the file, only hidden.
func (f *File) hiddenHolds(a added) bool {
	p := f.brokenFor(a.loc, a.name)
	if p == nil {
		return false
	}
	for _, l := range p.body[1:] {
		if m, err := parseEntryHeader(l); err == nil && normKey(m.Title) == normKey(a.mem.Title) {
			return true
		}
	}
	return false
}

// LocationProblems lists the problems of the file on disk to show where a
// location's memories are (the memory pane, the browser): those found in
// its section, and every malformed location header meant for it, by its
// number or, when the header gives none, by the location's name (that one
// with Location and Fix filled in for this location). A location whose
// section is hidden by such a header has no Section: these say why.
func (s *Store) LocationProblems(loc int, name string) []Problem {
	var out []Problem
	for _, p := range s.Problems() {
		switch {
		case p.Header && p.Fix == "" && p.Name != "" && normKey(p.Name) == normKey(name) && readBrokenHeader(p.Text).id == 0:
			p.Location, p.Fix = loc, headerLine(loc, cleanName(p.Name, loc))
			p.Msg = headerMessage(p, readBrokenHeader(p.Text).reason)
			out = append(out, p)
		case p.Location == loc:
			out = append(out, p)
		}
	}
	return out
}

// TakeRepaired returns the malformed location headers the store repaired
// since the last call (a change for a location whose section one of them
// hid), each with the line it had and the header written (Fix), for a
// notice; the list is then cleared.
func (s *Store) TakeRepaired() []Problem { return takeAll(s, &s.repaired) }

// takeRepairsLocked moves the repairs the cache's changes made to the
// list TakeRepaired returns.
func (s *Store) takeRepairsLocked() {
	if len(s.file.repaired) > 0 {
		s.repaired = append(s.repaired, s.file.repaired...)
		s.file.repaired = nil
	}
}

// FmtRepaired is Fmt with the malformed location headers repaired whose
// location can be told (File.RepairHeaders), for `lantern memories fmt`
// to offer; it returns what it repaired.
func FmtRepaired(w io.Writer, path string) ([]Problem, error) {
	f, err := Load(path)
	if err != nil {
		return nil, fmt.Errorf("fmt %s: %w", path, err)
	}
	fixed := f.RepairHeaders()
	if _, err := w.Write(f.Format()); err != nil {
		return nil, fmt.Errorf("fmt %s: %w", path, err)
	}
	return fixed, nil
}
