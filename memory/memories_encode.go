package memory

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lantern-if/lantern/sanitize"
)

// Bytes encodes the file: the parts that did not change exactly as they
// were read, the others in the canonical form. Bytes of a file just parsed
// is its input, byte for byte.
func (f *File) Bytes() []byte {
	e := encoder{buf: make([]byte, 0, f.rawSize()+256)}
	f.encode(&e)
	return e.buf
}

// Format encodes the file in the canonical form: the title line, sections
// sorted by ID (a section's trailing broken text moves with it), each with
// its visits line, "### Memories" heading and closing "---", one blank line
// between blocks, "\n" line ends. Text that is not part of the format
// (broken sections and entries, stray lines) is kept verbatim where it was;
// nothing is lost.
func (f *File) Format() []byte {
	g := f.clone()
	g.canonicalize()
	e := encoder{buf: make([]byte, 0, f.rawSize()+256), canon: true}
	g.encode(&e)
	return e.buf
}

func (f *File) rawSize() int {
	n := 0
	for _, p := range f.lead {
		n += len(p.raw)
	}
	for _, s := range f.secs {
		for _, p := range s.parts {
			n += len(p.raw)
		}
	}
	return n
}

func (f *File) encode(e *encoder) {
	e.line = 1
	for _, p := range f.lead {
		e.part(f, p, nil)
	}
	for _, s := range f.secs {
		for _, p := range s.parts {
			e.part(f, p, s)
		}
	}
}

// encoder writes parts, keeping one blank line between blocks wherever a
// canonical part meets another part; raw parts next to raw parts keep their
// own spacing.
type encoder struct {
	buf       []byte
	line      int  // number of the line being written
	canon     bool // render every part canonically
	prevCanon bool // the last part written was rendered
}

// needsBlank reports whether a block of kind k is preceded by a blank line
// in the canonical form.
func needsBlank(k partKind) bool { return k != kVisits && k != kTitle && k != kSpace }

func (e *encoder) write(s string) {
	e.buf = append(e.buf, s...)
	e.line += strings.Count(s, "\n")
}

// newline ends the last line if it is open (a file without a final newline).
func (e *encoder) newline() {
	if len(e.buf) > 0 && e.buf[len(e.buf)-1] != '\n' {
		e.write("\n")
	}
}

// blank makes the output end with a blank line, unless it is empty.
func (e *encoder) blank() {
	if len(e.buf) == 0 {
		return
	}
	e.newline()
	prev := e.buf[:len(e.buf)-1]
	last := prev[bytes.LastIndexByte(prev, '\n')+1:]
	if len(bytes.TrimSpace(last)) != 0 {
		e.write("\n")
	}
}

func (e *encoder) part(f *File, p *part, s *section) {
	if !e.canon && !p.dirty && p.raw != "" {
		if e.prevCanon && needsBlank(p.kind) {
			e.blank()
		}
		p.line = e.line
		e.write(p.raw)
		e.prevCanon = false
		return
	}
	lines := f.render(p, s)
	if len(lines) == 0 {
		return
	}
	e.newline()
	if needsBlank(p.kind) {
		e.blank()
	}
	p.line = e.line
	for _, l := range lines {
		e.write(l)
		e.write("\n")
	}
	e.prevCanon = true
}

// render gives a part's canonical lines.
func (f *File) render(p *part, s *section) []string {
	switch p.kind {
	case kTitle:
		return []string{"# " + f.Title()}
	case kJunk, kBrokenSection, kBrokenEntry:
		return p.body
	case kHeader:
		return []string{headerLine(s.id, s.name)}
	case kVisits:
		return []string{visitsLine(s.visits, s.episodes)}
	case kHeading:
		return []string{"### Memories"}
	case kRule:
		return []string{"---"}
	case kEntry:
		return entryLines(p.mem)
	}
	return nil
}

func headerLine(id int, name string) string {
	return "## Location " + strconv.Itoa(id) + ": " + name
}

func visitsLine(visits int, episodes []int) string {
	eps := "none"
	if len(episodes) > 0 {
		ss := make([]string, len(episodes))
		for i, e := range episodes {
			ss[i] = strconv.Itoa(e)
		}
		eps = strings.Join(ss, ", ")
	}
	return "**Visits:** " + strconv.Itoa(visits) + " | **Episodes:** " + eps
}

// label is "CATEGORY", with " - LEVEL" when set and " - STATUS" unless
// ACTIVE (implicit).
func label(m Memory) string {
	l := string(m.Category)
	if m.Persistence != "" {
		l += " - " + string(m.Persistence)
	}
	if m.Status == "" || m.Status == StatusActive {
		return l
	}
	return l + " - " + string(m.Status)
}

// meta is "Ep1, T23-24, +0", leaving out what is not recorded.
func meta(m Memory) string {
	var b strings.Builder
	sep := func() {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
	}
	if m.Episode > 0 {
		b.WriteString("Ep")
		b.WriteString(strconv.Itoa(m.Episode))
	}
	if m.Turn > 0 {
		sep()
		b.WriteString("T")
		b.WriteString(strconv.Itoa(m.Turn))
		if m.TurnEnd > 0 && m.TurnEnd != m.Turn {
			b.WriteString("-")
			b.WriteString(strconv.Itoa(m.TurnEnd))
		}
	}
	if m.HasScore {
		sep()
		b.WriteString(fmt.Sprintf("%+d", m.Score))
	}
	return b.String()
}

func entryHeader(m Memory) string {
	h := "**[" + label(m) + "] " + m.Title + "**"
	if md := meta(m); md != "" {
		h += " *(" + md + ")*"
	}
	return h
}

func supersessionLine(s Supersession) string {
	var b strings.Builder
	if s.Reason != "" {
		b.WriteString("[Invalidated")
		if s.Turn > 0 {
			b.WriteString(" at T")
			b.WriteString(strconv.Itoa(s.Turn))
		}
		b.WriteString(`: "` + s.Reason + `"]`)
		return b.String()
	}
	b.WriteString("[Superseded")
	if s.Turn > 0 {
		b.WriteString(" at T")
		b.WriteString(strconv.Itoa(s.Turn))
	}
	b.WriteString(" by ")
	switch {
	case s.Human && s.By == "":
		b.WriteString("human")
	case s.Human:
		b.WriteString(`human: "` + s.By + `"`)
	default:
		b.WriteString(`"` + s.By + `"`)
	}
	b.WriteString("]")
	return b.String()
}

func entryLines(m Memory) []string {
	lines := []string{entryHeader(m)}
	if !m.Superseded.IsZero() {
		lines = append(lines, supersessionLine(m.Superseded))
	}
	if m.Text != "" {
		// Text is data: a line that would start a Markdown block (or read
		// as Lantern's own structure) has its marker escaped.
		for l := range strings.SplitSeq(m.Text, "\n") {
			lines = append(lines, sanitize.EscapeBlock(l))
		}
	}
	return lines
}

// clone copies the file deeply enough that changing the copy's parts and
// sections leaves f alone (raw text and bodies are shared: never changed in
// place).
func (f *File) clone() *File {
	n := len(f.lead)
	for _, s := range f.secs {
		n += len(s.parts)
	}
	slab := make([]part, 0, n)
	cp := func(ps []*part) []*part {
		out := make([]*part, len(ps))
		for i, p := range ps {
			slab = append(slab, *p)
			out[i] = &slab[len(slab)-1]
		}
		return out
	}
	g := &File{title: f.title, problems: f.problems, lead: cp(f.lead)}
	g.secs = make([]*section, len(f.secs))
	secs := make([]section, len(f.secs))
	for i, s := range f.secs {
		secs[i] = *s
		secs[i].episodes = slices.Clone(s.episodes)
		secs[i].parts = cp(s.parts)
		g.secs[i] = &secs[i]
	}
	return g
}

// canonicalize adds what the canonical form has and the file lacks (title,
// visits lines, headings, rules), puts visits lines right under their
// headers and sorts the sections by ID.
func (f *File) canonicalize() {
	hasTitle := false
	at := 0
	for i, p := range f.lead {
		if p.kind == kTitle {
			hasTitle = true
		}
		if p.kind == kSpace && at == i {
			at = i + 1
		}
	}
	if !hasTitle {
		f.lead = slices.Insert(f.lead, at, &part{kind: kTitle, dirty: true})
	}
	for _, s := range f.secs {
		if i := s.find(kVisits); i > 1 {
			v := s.parts[i]
			s.parts = slices.Delete(s.parts, i, i+1)
			s.parts = slices.Insert(s.parts, 1, v)
		}
		s.ensureVisits()
		s.ensureHeading()
		if s.find(kRule) < 0 {
			at := len(s.parts)
			for i, p := range s.parts {
				if p.kind == kBrokenSection {
					at = i
					break
				}
			}
			s.parts = slices.Insert(s.parts, at, &part{kind: kRule, dirty: true})
		}
	}
	slices.SortStableFunc(f.secs, func(a, b *section) int { return cmp.Compare(a.id, b.id) })
}
