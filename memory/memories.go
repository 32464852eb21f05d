// Package memory is Lantern's persistence of Memories.md, the agent's location
// memories (markdown sections keyed by location, each memory with a
// category and a status); the run database, lantern.db, is package
// memory/rundb.
//
// Memories.md is a markdown file people read and edit by hand while the agent
// runs, so this package treats it with care:
//
//   - Parse never fails. What it cannot read (a broken section, a broken
//     entry, stray text) is reported as a Problem with its line number and
//     kept verbatim; File.Bytes gives back the input byte for byte, and
//     File.Format normalises without losing any text.
//   - Titles and texts are data, never Markdown structure: a text is
//     folded onto one line and a line's leading block marker is escaped
//     when written, unescaped when read (see Memory).
//   - A mistyped location header is reported where its memories would be
//     (Problem.Header, Store.LocationProblems) and repaired in place by the
//     next change for that location (see memories_header.go).
//   - Store keeps the parsed file in memory, keyed by location ID, and writes
//     every change at once (temporary file, fsync, rename, the previous
//     version kept as Memories.md.backup) under a file lock. Before each write
//     it checks whether the file changed on disk since it was read and, if so,
//     applies the change to the version on disk, so a hand edit is never lost.
package memory

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lantern-if/lantern/sanitize"
)

// DefaultTitle is the title line's text in a new Memories.md.
const DefaultTitle = "Location Memories"

// Category is what kind of lesson a memory is.
type Category string

// The categories a memory can have.
const (
	CategorySuccess   Category = "SUCCESS"   // an action achieved its goal
	CategoryFailure   Category = "FAILURE"   // an action was invalid or did not work
	CategoryDiscovery Category = "DISCOVERY" // something learned about the place or its objects
	CategoryDanger    Category = "DANGER"    // a hazard: death, score loss, a threat
	CategoryNote      Category = "NOTE"      // strategy, context, hints
	// CategoryItem is ground truth, not a lesson: an item came into the
	// inventory at the location (found and taken there) or left it there
	// (dropped, put, given), as the game's object tree says. Lantern
	// writes these itself, without a model call (memsynth's items), so the
	// file tells what was found where apart from what a model decided to
	// remember; a model never answers with it.
	CategoryItem Category = "ITEM"
)

// Categories lists the categories in the order the agent's context weighs
// them, most important last.
func Categories() []Category {
	return []Category{CategoryNote, CategoryItem, CategoryDiscovery, CategorySuccess, CategoryFailure, CategoryDanger}
}

// categoryWant lists the categories for error messages.
const categoryWant = "SUCCESS, FAILURE, DISCOVERY, DANGER, NOTE or ITEM"

// GroundTruth reports whether memories of the category are written from
// the game's state by Lantern rather than decided by a model or a person.
func (c Category) GroundTruth() bool { return c == CategoryItem }

// ParseCategory reads a category name, ignoring case.
func ParseCategory(s string) (Category, bool) { return parseName[Category](s) }

// Valid reports whether c is one of the categories.
func (c Category) Valid() bool {
	return slices.Contains([]Category{CategorySuccess, CategoryFailure, CategoryDiscovery, CategoryDanger, CategoryNote, CategoryItem}, c)
}

// named is one of a fixed set of upper-case names: a category, a
// status, a level.
type named interface {
	~string
	Valid() bool
}

// parseName reads a name of the set, ignoring case and surrounding space.
func parseName[T named](s string) (T, bool) {
	v := T(strings.ToUpper(strings.TrimSpace(s)))
	return v, v.Valid()
}

// Status is how far a memory is trusted: a lesson can be confirmed,
// tentative while its outcome is unclear, or superseded by a later one.
type Status string

// The statuses. ACTIVE is implicit in the file: an entry without
// a status is active.
const (
	StatusActive     Status = "ACTIVE"     // confirmed knowledge
	StatusTentative  Status = "TENTATIVE"  // outcome unclear, awaiting confirmation
	StatusSuperseded Status = "SUPERSEDED" // contradicted later; kept, never shown to the agent
)

// ParseStatus reads a status name, ignoring case.
func ParseStatus(s string) (Status, bool) { return parseName[Status](s) }

// Valid reports whether s is one of the three statuses.
func (s Status) Valid() bool {
	return slices.Contains([]Status{StatusActive, StatusTentative, StatusSuperseded}, s)
}

// Persistence is a memory's level, as ZorkGPT writes it after the
// category, and what it means for the agent's context
// (RenderLocationMemoryIn):
//
//   - CORE: the room's essentials, always shown, first, whatever the
//     budget;
//   - PERMANENT: kept across episodes, the default: a memory without a
//     level written is permanent;
//   - EPHEMERAL: true of one episode only (where an item was left, a
//     door opened): shown in its own episode, not in later ones.
//
// Empty: no level written (the file's older form), read as PERMANENT.
type Persistence string

// The levels.
const (
	PersistenceCore      Persistence = "CORE"
	PersistencePermanent Persistence = "PERMANENT"
	PersistenceEphemeral Persistence = "EPHEMERAL"
)

// ParsePersistence reads a level name, ignoring case.
func ParsePersistence(s string) (Persistence, bool) { return parseName[Persistence](s) }

// Valid reports whether p is one of the three levels.
func (p Persistence) Valid() bool {
	return slices.Contains([]Persistence{PersistenceCore, PersistencePermanent, PersistenceEphemeral}, p)
}

// Actor says who superseded a memory: the memory model or a person.
type Actor int

const (
	ByModel Actor = iota // the memory synthesis (an LLM reply's supersedes_memory_titles)
	ByHuman              // a person, through the TUI or an editor
)

// Supersession records why a memory is superseded: the
// `[Superseded at T<turn> by "<title>"]` line under its header. A person's
// supersession reads `[Superseded at T<turn> by human: "<title>"]`, or
// `[Superseded at T<turn> by human]` when no memory replaces it; a memory
// cancelled without a replacement (proven false) reads
// `[Invalidated at T<turn>: "<reason>"]`. Without a known turn the
// ` at T<turn>` part is left out.
type Supersession struct {
	Turn   int    // turn at which it was superseded; 0 when not known
	By     string // title of the memory that replaces it; may be empty when Human
	Human  bool   // superseded by a person rather than by the model
	Reason string // an invalidation's reason: cancelled, nothing replaces it
}

// IsZero reports whether there is no supersession record.
func (s Supersession) IsZero() bool { return s == Supersession{} }

// Memory is one entry of a location section:
//
//	**[CATEGORY] Title** *(EpN, Tn[-m][, +/-s])*
//	Text, one line (a person may write more by hand).
//
// with a level and a status when they are set:
// `**[CATEGORY - LEVEL - STATUS] Title**` (ACTIVE is implicit).
//
// Episode and Turn are 0 when not recorded (entries written by hand may lack
// the metadata); Turn-TurnEnd is a span only when the memory is of a
// procedure over those turns. Score is written only when HasScore: as the
// design writes them, a synthesised memory carries its score change, "+0"
// when none, unless it is a failure that cost nothing; ground-truth ITEM
// entries carry none.
//
// Title and Text are data, never Markdown structure: the store folds a
// text it is given onto one line, and Memories.md holds each text line
// with the marker that would start a Markdown block escaped by a backslash
// (`# x` as `\# x`, `---` as `\---`, `**[` as `\**[`, `1. x` as
// `1\. x`; sanitize.EscapeBlock), which Parse takes off again: Text is
// the text as given, in the file and back.
type Memory struct {
	Category    Category
	Persistence Persistence // "" when the file gives no level
	Status      Status
	Title       string
	Episode     int
	Turn        int
	TurnEnd     int // last turn of a span (T23-24); 0 for a single turn
	Score       int
	HasScore    bool
	Superseded  Supersession
	Text        string
	Line        int // line of the entry's header in the file; 0 when not from a file
}

// LastTurn is the turn the memory was completed: the end of its span.
func (m Memory) LastTurn() int {
	if m.TurnEnd > m.Turn {
		return m.TurnEnd
	}
	return m.Turn
}

// Visible reports whether the agent sees the memory (superseded ones are
// kept in the file but hidden from it).
func (m Memory) Visible() bool { return m.Status != StatusSuperseded }

// Level is the memory's level, PERMANENT when none is written.
func (m Memory) Level() Persistence {
	if m.Persistence == "" {
		return PersistencePermanent
	}
	return m.Persistence
}

// ShownIn reports whether the agent sees the memory in an episode: a
// visible memory, unless it is EPHEMERAL and of another episode. Episode
// 0 (not known, or a view outside play) and a memory without an episode
// (written by hand) show every level.
func (m Memory) ShownIn(episode int) bool {
	if !m.Visible() {
		return false
	}
	return m.Persistence != PersistenceEphemeral || episode <= 0 || m.Episode <= 0 || m.Episode == episode
}

// staleFor reports whether m, an EPHEMERAL memory of an earlier episode,
// no longer holds when next (of a later episode) is written: next takes
// its place instead of being refused as its duplicate.
func (m Memory) staleFor(next Memory) bool {
	return m.Persistence == PersistenceEphemeral && m.Episode > 0 && next.Episode > m.Episode
}

// Section is one location's part of the file, as the store sees it.
type Section struct {
	ID       int
	Name     string
	Visits   int
	Episodes []int
	Memories []Memory // in file order, superseded ones included
	Line     int      // line of the "## Location" header; 0 when not from a file
}

// Ref names one memory: its location and its title, compared after
// normalising case, spaces and final punctuation. When several memories
// there share the title, a non-empty Text picks the one with that text;
// otherwise the first that is not superseded is chosen, else the first.
type Ref struct {
	Location int
	Title    string
	Text     string
}

// Problem is something in Memories.md that does not follow the format. The
// text concerned is kept as it is.
type Problem struct {
	Line int // 1-based
	Msg  string
	// Location is the section being read when the problem was found (0:
	// before the first one); Text is the line as it is, for a client to
	// show the entry it concerns.
	Location int
	Text     string
	// Header: the line is a "## " heading that is not a location header
	// ("## Locaton three: Muddy Lane"). The memories under it (Hidden of
	// them) are hidden from the agent and from every view until it is
	// fixed. Name is the location name it gives ("" when none); when the
	// location it is meant for can be told (its number, in digits or in
	// words, after a word like "Location"), Location is that location, not
	// the section it follows, and Fix, when it gives a name too, is the
	// header to write instead ("## Location 3: Muddy Lane"); otherwise Fix
	// is "".
	// Store.LocationProblems finds such a header by the location's name
	// too. Msg says what is wrong and what to write.
	Header bool
	Name   string
	Fix    string
	Hidden int
}

// String is "line N: message".
func (p Problem) String() string { return fmt.Sprintf("line %d: %s", p.Line, p.Msg) }

// Errors of the store, tested with errors.Is; they come wrapped with the
// operation and the location concerned.
var (
	// ErrNotFound: no memory (or location) matches.
	ErrNotFound = errors.New("memory not found")
	// ErrDuplicate: the location already has a visible memory with the
	// same normalised title; nothing was added.
	ErrDuplicate = errors.New("duplicate memory")
	// ErrInvalid: the memory or the location cannot be written (no title, an
	// unknown category, a missing status, ...).
	ErrInvalid = errors.New("invalid memory")
	// ErrNothingToUndo: there is no deletion to undo.
	ErrNothingToUndo = errors.New("nothing to undo")
	// ErrLocked: another process held the file lock for too long.
	ErrLocked = errors.New("memories file locked by another process")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("memory store closed")
)

// normKey is the comparison form of a title or a text: lower case, runs of
// white space collapsed, final punctuation dropped.
func normKey(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimRight(s, ".!;:, ")
}

// cleanLine makes s a single line: white space runs (newlines included)
// become single spaces.
func cleanLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cleanTitle is cleanLine without the markdown bold markers that would end
// the header's bold span early.
func cleanTitle(s string) string {
	for strings.Contains(s, "**") {
		s = strings.ReplaceAll(s, "**", "*")
	}
	return cleanLine(s)
}

// cleanText normalises a memory's text: a memory is one paragraph, so its
// line breaks (and the white space around them) are folded into single
// spaces and its ends trimmed. That the folded line cannot become
// structure in Memories.md (a heading, a rule, a forged entry, a
// supersession record) is the encoder's part: it escapes a leading block
// marker (sanitize.EscapeBlock), and the parser takes the escape off.
func cleanText(s string) string { return sanitize.FoldLines(s) }

// normalize checks a memory given to the store and puts it in the form the
// file holds. The status is required: a memory is never silently made
// ACTIVE: a tentative lesson taken as confirmed would mislead the agent
// until a person noticed it.
func normalize(m Memory) (Memory, error) {
	cat, ok := ParseCategory(string(m.Category))
	if !ok {
		return m, fmt.Errorf("category %q (want %s): %w", m.Category, categoryWant, ErrInvalid)
	}
	m.Category = cat
	if m.Status == "" {
		return m, fmt.Errorf("no status (want ACTIVE, TENTATIVE or SUPERSEDED): %w", ErrInvalid)
	}
	st, ok := ParseStatus(string(m.Status))
	if !ok {
		return m, fmt.Errorf("status %q (want ACTIVE, TENTATIVE or SUPERSEDED): %w", m.Status, ErrInvalid)
	}
	m.Status = st
	if m.Persistence != "" {
		p, ok := ParsePersistence(string(m.Persistence))
		if !ok {
			return m, fmt.Errorf("level %q (want CORE, PERMANENT or EPHEMERAL): %w", m.Persistence, ErrInvalid)
		}
		m.Persistence = p
	}
	m.Title = cleanTitle(m.Title)
	if m.Title == "" {
		return m, fmt.Errorf("empty title: %w", ErrInvalid)
	}
	if m.Episode < 0 || m.Turn < 0 || m.TurnEnd < 0 {
		return m, fmt.Errorf("negative episode or turn: %w", ErrInvalid)
	}
	if m.TurnEnd != 0 && m.Turn == 0 {
		return m, fmt.Errorf("turn span ends at T%d but has no start: %w", m.TurnEnd, ErrInvalid)
	}
	if m.TurnEnd == m.Turn {
		m.TurnEnd = 0
	}
	m.Text = cleanText(m.Text)
	if m.Status != StatusSuperseded {
		m.Superseded = Supersession{}
	} else {
		m.Superseded.By = cleanLine(m.Superseded.By)
		m.Superseded.Reason = cleanLine(m.Superseded.Reason)
		if m.Superseded.Turn < 0 {
			return m, fmt.Errorf("negative supersession turn: %w", ErrInvalid)
		}
	}
	m.Line = 0
	return m, nil
}

// cleanName is a location name as a header holds it.
func cleanName(name string, id int) string {
	if n := cleanLine(name); n != "" {
		return n
	}
	return fmt.Sprintf("Location %d", id)
}
