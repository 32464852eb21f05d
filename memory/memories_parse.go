package memory

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/lantern-if/lantern/sanitize"
)

// File is a parsed Memories.md. It keeps the text it was read from, part by
// part, so that Bytes reproduces the input exactly and a change rewrites only
// the parts it touches. Read it with Sections and Section; a Store changes it.
type File struct {
	title    string
	lead     []*part // everything before the first location section
	secs     []*section
	problems []Problem
	repaired []Problem // malformed headers repaired by the changes made to this copy (repairHeader)
}

// partKind is what a run of lines is.
type partKind uint8

const (
	kSpace         partKind = iota // blank lines at the top of the file
	kTitle                         // "# Location Memories"
	kJunk                          // text that belongs to no structure, kept verbatim
	kBrokenSection                 // a "## " heading that is not a location header, with all that follows up to the next "## "
	kHeader                        // "## Location N: Name"
	kVisits                        // "**Visits:** n | **Episodes:** ..."
	kHeading                       // "### Memories"
	kEntry                         // a memory: header, supersession line, text
	kBrokenEntry                   // a "**[" line that is not a valid memory header, with its text
	kRule                          // "---"
)

// part is a run of lines: a structural line or block and the blank lines
// after it. raw is the text as read; once the part changes (dirty) or when it
// is new, it is rendered from its fields instead.
type part struct {
	kind  partKind
	raw   string
	dirty bool
	line  int      // first line, as of the last parse or encoding
	body  []string // kJunk, kBroken*: the lines, without line ends or trailing blank lines
	mem   Memory   // kEntry
}

func (p *part) verbatim() bool {
	return p.kind == kJunk || p.kind == kBrokenSection || p.kind == kBrokenEntry || p.kind == kSpace
}

// section is one "## Location" section and its parts, header first.
type section struct {
	id       int
	name     string
	visits   int
	episodes []int
	parts    []*part
}

func (s *section) header() *part { return s.parts[0] }

func (s *section) find(k partKind) int {
	for i, p := range s.parts {
		if p.kind == k {
			return i
		}
	}
	return -1
}

// supersededRe reads a supersession record (rare, so a regexp is fine).
var supersededRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\[Superseded(?: at T(\d+))? by (?:(human)(?:: "(.*)")?|"(.*)")\]\s*$`)
})

// parseHeader reads "## Location N: Name".
func parseHeader(c string) (id int, name string, ok bool) {
	rest := strings.TrimSpace(c[2:])
	rest, found := strings.CutPrefix(rest, "Location ")
	if !found {
		return 0, "", false
	}
	num, name, found := strings.Cut(strings.TrimLeft(rest, " \t"), ":")
	if !found {
		return 0, "", false
	}
	num = strings.TrimSpace(num)
	if num == "" || strings.TrimLeft(num, "0123456789") != "" {
		return 0, "", false
	}
	id, err := strconv.Atoi(num)
	if err != nil {
		return 0, "", false
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return 0, "", false
	}
	return id, name, true
}

// parseVisits reads "**Visits:** 3 | **Episodes:** 1, 2, 3".
func parseVisits(c string) (visits int, episodes []int, ok bool) {
	v, eps, ok := scanVisits(c)
	if !ok {
		return 0, nil, false
	}
	visits, err := strconv.Atoi(v)
	if err != nil {
		return 0, nil, false
	}
	switch strings.ToLower(eps) {
	case "", "-", "none":
		return visits, nil, true
	}
	for f := range strings.SplitSeq(eps, ",") {
		f = strings.TrimSpace(f)
		if !allDigits(f) {
			return 0, nil, false
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return 0, nil, false
		}
		episodes = append(episodes, n)
	}
	return visits, episodes, true
}

const entryWant = `want "**[CATEGORY] Title** *(EpN, Tn, +s)*"`

// parseEntryHeader reads a memory's header line. The error says what is
// wrong with it.
func parseEntryHeader(c string) (Memory, error) {
	var m Memory
	cat, q1, q2, title, md, _, ok := scanEntry(c)
	if !ok {
		return m, fmt.Errorf("malformed memory header (%s)", entryWant)
	}
	if m.Category, ok = ParseCategory(cat); !ok {
		return m, fmt.Errorf("unknown category %q (want %s)", cat, categoryWant)
	}
	m.Status = StatusActive
	status := q1
	if q2 != "" {
		// CATEGORY - LEVEL - STATUS
		if m.Persistence, ok = ParsePersistence(q1); !ok {
			return m, fmt.Errorf("unknown level %q (want CORE, PERMANENT or EPHEMERAL before the status)", q1)
		}
		status = q2
	} else if p, isLevel := ParsePersistence(q1); isLevel {
		m.Persistence, status = p, ""
	}
	if status != "" {
		if m.Status, ok = ParseStatus(status); !ok {
			return m, fmt.Errorf("unknown status %q (want TENTATIVE or SUPERSEDED; ACTIVE is implicit; or a level: CORE, PERMANENT, EPHEMERAL)", status)
		}
	}
	m.Title = strings.TrimSpace(title)
	if m.Title == "" {
		return m, fmt.Errorf("memory header without a title (%s)", entryWant)
	}
	if err := parseMeta(md, &m); err != nil {
		return m, err
	}
	return m, nil
}

// parseMeta reads "Ep1, T23-24, +0": each field optional, any order, at
// most once.
func parseMeta(s string, m *Memory) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var ep, tn, sc bool
	bad := func() error {
		return fmt.Errorf("malformed metadata %q (want \"EpN, Tn[-m][, +/-s]\")", strings.TrimSpace(s))
	}
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if d, ok := scanEpisode(f); ok && !ep {
			n, err := strconv.Atoi(d)
			if err != nil {
				return bad()
			}
			m.Episode, ep = n, true
		} else if from, to, ok := scanTurns(f); ok && !tn {
			n, err := strconv.Atoi(from)
			if err != nil {
				return bad()
			}
			m.Turn, tn = n, true
			if to != "" {
				e, err := strconv.Atoi(to)
				if err != nil {
					return bad()
				}
				if e != n {
					m.TurnEnd = e
				}
			}
		} else if isScore(f) && !sc {
			n, err := strconv.Atoi(f)
			if err != nil {
				return bad()
			}
			m.Score, m.HasScore, sc = n, true, true
		} else {
			return bad()
		}
	}
	if m.TurnEnd != 0 && m.Turn == 0 {
		m.TurnEnd = 0
	}
	return nil
}

// invalidatedRe reads a cancellation without a replacement:
// `[Invalidated at T55: "reason"]`.
var invalidatedRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\[Invalidated(?: at T(\d+))?: "(.*)"\]\s*$`)
})

// parseSupersession reads a `[Superseded at T13 by "Title"]` line or an
// `[Invalidated at T55: "reason"]` one.
func parseSupersession(c string) (Supersession, bool) {
	if strings.HasPrefix(c, "[Invalidated") {
		g := invalidatedRe().FindStringSubmatch(c)
		if g == nil {
			return Supersession{}, false
		}
		s := Supersession{Reason: g[2]}
		if g[1] != "" {
			n, err := strconv.Atoi(g[1])
			if err != nil {
				return Supersession{}, false
			}
			s.Turn = n
		}
		if s.Reason == "" {
			return Supersession{}, false
		}
		return s, true
	}
	if !strings.HasPrefix(c, "[Superseded ") {
		return Supersession{}, false
	}
	g := supersededRe().FindStringSubmatch(c)
	if g == nil {
		return Supersession{}, false
	}
	var s Supersession
	if g[1] != "" {
		n, err := strconv.Atoi(g[1])
		if err != nil {
			return Supersession{}, false
		}
		s.Turn = n
	}
	if g[2] != "" {
		s.Human, s.By = true, g[3]
	} else {
		s.By = g[4]
	}
	return s, true
}

// parser holds the state of one Parse.
type parser struct {
	src   string
	lines []int // start offset of each line
	f     *File
	sec   *section
	cur   *part
	from  int // first line of cur
	probs []Problem

	titled, sawText bool // lead: the title was seen; some non-blank text was seen
	broken          bool // inside a broken section: everything up to the next "## " is kept as is
	header          int  // index in probs of the broken section's problem, -1 when none is open

	// per section
	hasVisits, hasHeading, inEntries, closed bool
	lastLine                                 int // last non-blank line of the section proper
}

// Parse reads a Memories.md. It never fails: problems are reported by
// File.Problems and the text concerned is kept.
func Parse(data []byte) *File {
	p := &parser{src: string(data), f: &File{}, header: -1}
	p.split()
	for i := range p.lines {
		p.line(i)
	}
	p.closePart(len(p.lines))
	p.endSection()
	p.checkOrder()
	p.f.problems = sortProblems(p.probs)
	return p.f
}

func (p *parser) split() {
	s := p.src
	if s == "" {
		return
	}
	p.lines = make([]int, 0, strings.Count(s, "\n")+1)
	for off := 0; off < len(s); {
		p.lines = append(p.lines, off)
		j := strings.IndexByte(s[off:], '\n')
		if j < 0 {
			break
		}
		off += j + 1
	}
}

// text is line i without its line end ("\n", "\r\n", and any other "\r"
// before it).
func (p *parser) text(i int) string {
	end := len(p.src)
	if i+1 < len(p.lines) {
		end = p.lines[i+1]
	}
	t := p.src[p.lines[i]:end]
	t = strings.TrimSuffix(t, "\n")
	return strings.TrimRight(t, "\r")
}

func (p *parser) problem(i int, format string, args ...any) {
	loc := 0
	if p.sec != nil {
		loc = p.sec.id
	}
	text := ""
	if i >= 0 && i < len(p.lines) {
		text = p.text(i)
	}
	p.probs = append(p.probs, Problem{Line: i + 1, Msg: fmt.Sprintf(format, args...), Location: loc, Text: text})
}

// open starts a new part at line i in the current section (or the lead).
func (p *parser) open(k partKind, i int) *part {
	p.closePart(i)
	p.cur = &part{kind: k, line: i + 1}
	p.from = i
	if p.sec != nil {
		p.sec.parts = append(p.sec.parts, p.cur)
	} else {
		p.f.lead = append(p.f.lead, p.cur)
	}
	return p.cur
}

// closePart ends the current part before line end.
func (p *parser) closePart(end int) {
	c := p.cur
	if c == nil {
		return
	}
	p.cur = nil
	stop := len(p.src)
	if end < len(p.lines) {
		stop = p.lines[end]
	}
	c.raw = p.src[p.lines[p.from]:stop]
	if c.kind != kJunk && c.kind != kBrokenSection && c.kind != kBrokenEntry && c.kind != kEntry {
		return
	}
	body := make([]string, 0, end-p.from)
	for i := p.from; i < end; i++ {
		body = append(body, p.text(i))
	}
	for len(body) > 0 && isBlank(body[len(body)-1]) {
		body = body[:len(body)-1]
	}
	if c.kind == kEntry {
		p.finishEntry(c, body)
	} else {
		c.body = body
	}
	if c.kind == kBrokenSection && p.header >= 0 {
		headerProblem(&p.probs[p.header], body)
		p.header = -1
	}
}

// finishEntry reads an entry's lines after its header: the optional
// supersession record, then the text.
func (p *parser) finishEntry(c *part, body []string) {
	rest := body[1:]
	for len(rest) > 0 && isBlank(rest[0]) {
		rest = rest[1:]
	}
	if len(rest) > 0 {
		if s, ok := parseSupersession(rest[0]); ok {
			c.mem.Superseded = s
			rest = rest[1:]
			for len(rest) > 0 && isBlank(rest[0]) {
				rest = rest[1:]
			}
			if c.mem.Status != StatusSuperseded {
				line := "Superseded"
				if s.Reason != "" {
					line = "Invalidated"
				}
				p.problem(c.line-1, "memory %q has a %s line but is not marked SUPERSEDED", c.mem.Title, line)
			}
		}
	}
	// The encoder escaped what would start a block; the text is read
	// without the escape.
	text := make([]string, len(rest))
	for i, l := range rest {
		text[i] = sanitize.UnescapeBlock(l)
	}
	c.mem.Text = strings.Join(text, "\n")
}

func (p *parser) line(i int) {
	c := p.text(i)
	if isSectionLine(c) {
		if id, name, ok := parseHeader(c); ok {
			p.closePart(i)
			p.endSection()
			p.sec = &section{id: id, name: name}
			p.f.secs = append(p.f.secs, p.sec)
			p.open(kHeader, i)
			p.broken, p.hasVisits, p.hasHeading, p.inEntries, p.closed = false, false, false, false, false
			p.lastLine = i
			if !p.titled && !p.sawText && len(p.f.secs) == 1 {
				p.problem(i, "missing title line %q before the first location", "# "+DefaultTitle)
			}
			return
		}
		p.open(kBrokenSection, i)
		p.broken = true
		p.problem(i, "malformed location header %q", c) // completed when the part closes (headerProblem)
		p.header = len(p.probs) - 1
		return
	}
	if p.broken {
		return
	}
	if isBlank(c) {
		if p.cur == nil {
			p.open(kSpace, i)
		}
		return
	}
	if p.sec == nil {
		p.leadLine(i, c)
		return
	}
	p.sectionLine(i, c)
}

func (p *parser) leadLine(i int, c string) {
	switch {
	case !p.sawText && strings.HasPrefix(c, "# "):
		p.open(kTitle, i)
		p.f.title = strings.TrimSpace(c[2:])
		p.titled = true
	case p.cur != nil && p.cur.kind == kJunk:
		// more of the same stray text
	default:
		p.open(kJunk, i)
		if !p.sawText {
			p.problem(i, "the file does not start with the title line %q", "# "+DefaultTitle)
		} else {
			p.problem(i, "text before the first location section is not part of the format")
		}
	}
	p.sawText = true
}

func (p *parser) sectionLine(i int, c string) {
	id := p.sec.id
	if p.closed {
		if p.cur.kind != kJunk {
			p.open(kJunk, i)
			p.problem(i, "text after the closing \"---\" of location %d", id)
		}
		return
	}
	p.lastLine = i
	switch {
	case isRule(c):
		p.open(kRule, i)
		p.closed = true
	case strings.HasPrefix(c, "**["):
		m, err := parseEntryHeader(c)
		if err != nil {
			p.open(kBrokenEntry, i)
			p.problem(i, "%s; the entry is kept as it is", err)
		} else {
			p.open(kEntry, i).mem = m
		}
		p.inEntries = true
	case p.cur.kind == kEntry || p.cur.kind == kBrokenEntry:
		// a line of the entry's text
	case strings.HasPrefix(c, "**Visits:**") && !p.hasVisits && !p.hasHeading && !p.inEntries:
		v, eps, ok := parseVisits(c)
		if !ok {
			p.open(kJunk, i)
			p.problem(i, "malformed visits line (want \"**Visits:** N | **Episodes:** 1, 2\")")
			return
		}
		p.open(kVisits, i)
		p.sec.visits, p.sec.episodes = v, eps
		p.hasVisits = true
	case strings.TrimRight(c, " \t") == "### Memories" && !p.hasHeading && !p.inEntries:
		p.open(kHeading, i)
		p.hasHeading = true
	default:
		if p.cur.kind != kJunk {
			p.open(kJunk, i)
			p.problem(i, "text in location %d that is not part of a memory", id)
		}
	}
}

// endSection reports what the section that just ended lacks.
func (p *parser) endSection() {
	s := p.sec
	if s == nil {
		return
	}
	at := s.header().line - 1
	if !p.hasVisits {
		p.problem(at, "location %d has no \"**Visits:** N | **Episodes:** ...\" line", s.id)
	}
	if !p.hasHeading {
		p.problem(at, "location %d has no \"### Memories\" heading", s.id)
	}
	if !p.closed {
		p.problem(p.lastLine, "location %d is not closed by a \"---\" line", s.id)
	}
}

// checkOrder reports duplicate and unsorted sections.
func (p *parser) checkOrder() {
	first := make(map[int]int, len(p.f.secs))
	for i, s := range p.f.secs {
		ln := s.header().line
		if l, dup := first[s.id]; dup {
			p.problem(ln-1, "duplicate section for location %d (first at line %d)", s.id, l)
		} else {
			first[s.id] = ln
		}
		if i > 0 && p.f.secs[i-1].id > s.id {
			p.problem(ln-1, "location %d comes after location %d; sections are sorted by ID", s.id, p.f.secs[i-1].id)
		}
	}
}

func sortProblems(ps []Problem) []Problem {
	// insertion sort: problems are nearly sorted already
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Line < ps[j-1].Line; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	return ps
}

// Problems lists what does not follow the format, by line, as parsed.
func (f *File) Problems() []Problem { return append([]Problem(nil), f.problems...) }

// Title is the text of the title line ("Location Memories").
func (f *File) Title() string {
	if f.title == "" {
		return DefaultTitle
	}
	return f.title
}

// Sections lists the location sections in file order.
func (f *File) Sections() []Section {
	out := make([]Section, len(f.secs))
	for i, s := range f.secs {
		out[i] = s.view()
	}
	return out
}

// Section returns a location's section. When the file has several sections
// for the location (a hand edit), their memories are gathered under the
// first one's header.
func (f *File) Section(id int) (Section, bool) {
	var out Section
	found := false
	for _, s := range f.secs {
		if s.id != id {
			continue
		}
		if !found {
			out, found = s.view(), true
			continue
		}
		out.Memories = append(out.Memories, s.memories()...)
	}
	return out, found
}

func (s *section) view() Section {
	return Section{
		ID:       s.id,
		Name:     s.name,
		Visits:   s.visits,
		Episodes: append([]int(nil), s.episodes...),
		Memories: s.memories(),
		Line:     s.header().line,
	}
}

func (s *section) memories() []Memory {
	n := 0
	for _, p := range s.parts {
		if p.kind == kEntry {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]Memory, 0, n)
	for _, p := range s.parts {
		if p.kind == kEntry {
			m := p.mem
			m.Line = p.line
			out = append(out, m)
		}
	}
	return out
}
