package memory

import (
	"fmt"
	"slices"
)

// The changes a Store makes to a File. Each marks the parts it touches
// dirty, so Bytes rewrites those and keeps the rest as read.

// sectionOf returns the first section for a location, or nil.
func (f *File) sectionOf(id int) *section {
	for _, s := range f.secs {
		if s.id == id {
			return s
		}
	}
	return nil
}

// ensureSection returns the location's section, adding it (in ID order,
// before the first section with a greater ID) when there is none. A
// malformed header meant for the location (brokenFor) is repaired instead,
// so its section is the location's: never a second section beside a
// hidden one. A repair reads the file again: parts and sections taken from
// f before the call are not f's any more.
func (f *File) ensureSection(id int, name string) *section {
	if s := f.sectionOf(id); s != nil {
		return s
	}
	if p := f.brokenFor(id, name); p != nil {
		f.repairHeader(p, id, name)
		if s := f.sectionOf(id); s != nil {
			return s
		}
	}
	f.ensureTitle()
	s := &section{id: id, name: cleanName(name, id)}
	s.parts = []*part{
		{kind: kHeader, dirty: true},
		{kind: kVisits, dirty: true},
		{kind: kHeading, dirty: true},
		{kind: kRule, dirty: true},
	}
	at := len(f.secs)
	for i, o := range f.secs {
		if o.id > id {
			at = i
			break
		}
	}
	f.secs = slices.Insert(f.secs, at, s)
	return s
}

// ensureTitle gives a file that has nothing but blank lines before its
// sections a title line. A lead with text in it is left as the person wrote
// it (Format adds the title there).
func (f *File) ensureTitle() {
	for _, p := range f.lead {
		if p.kind != kSpace {
			return
		}
	}
	f.lead = append(f.lead, &part{kind: kTitle, dirty: true})
}

// ensureVisits returns the section's visits part, adding one under the
// header when it has none.
func (s *section) ensureVisits() *part {
	if i := s.find(kVisits); i >= 0 {
		return s.parts[i]
	}
	p := &part{kind: kVisits, dirty: true}
	s.parts = slices.Insert(s.parts, 1, p)
	return p
}

// ensureHeading adds a "### Memories" heading before the first entry (or
// the rule) when the section has none.
func (s *section) ensureHeading() {
	if s.find(kHeading) >= 0 {
		return
	}
	at := len(s.parts)
	for i, p := range s.parts {
		if p.kind == kEntry || p.kind == kBrokenEntry || p.kind == kRule || p.kind == kBrokenSection {
			at = i
			break
		}
	}
	s.parts = slices.Insert(s.parts, at, &part{kind: kHeading, dirty: true})
}

// insertPoint is where a new entry goes: after the last entry, before the
// closing rule (or before broken text that follows the section).
func (s *section) insertPoint() int {
	for i, p := range s.parts {
		if p.kind == kRule || p.kind == kBrokenSection {
			return i
		}
	}
	return len(s.parts)
}

// entryIndex is the part index of the section's n-th entry (broken entries
// count), or the insert point when there are fewer.
func (s *section) entryIndex(n int) int {
	k := 0
	for i, p := range s.parts {
		if p.kind == kEntry || p.kind == kBrokenEntry {
			if k == n {
				return i
			}
			k++
		}
	}
	return s.insertPoint()
}

// entryOrdinal is the inverse of entryIndex for the part at index i.
func (s *section) entryOrdinal(i int) int {
	k := 0
	for _, p := range s.parts[:i] {
		if p.kind == kEntry || p.kind == kBrokenEntry {
			k++
		}
	}
	return k
}

// insertEntry adds m before the part at index at (-1: at the insert point)
// and returns the new part.
func (s *section) insertEntry(m Memory, at int) *part {
	h := s.find(kHeading)
	s.ensureHeading()
	if at >= 0 && h < 0 && s.find(kHeading) <= at {
		at++ // the heading went in before it
	}
	if at < 0 {
		at = s.insertPoint()
	}
	p := &part{kind: kEntry, dirty: true, mem: m}
	s.parts = slices.Insert(s.parts, at, p)
	return p
}

// entryAt is one memory's place in the file.
type entryAt struct {
	s *section
	i int
}

func (e entryAt) part() *part { return e.s.parts[e.i] }

// find resolves a Ref (see Ref for the rules).
func (f *File) find(r Ref) (entryAt, error) {
	key := normKey(r.Title)
	text := normKey(r.Text)
	var first, visible *entryAt
	for _, s := range f.secs {
		if s.id != r.Location {
			continue
		}
		for i, p := range s.parts {
			if p.kind != kEntry || normKey(p.mem.Title) != key {
				continue
			}
			if r.Text != "" && normKey(p.mem.Text) != text {
				continue
			}
			at := &entryAt{s, i}
			if first == nil {
				first = at
			}
			if visible == nil && p.mem.Visible() {
				visible = at
			}
		}
	}
	switch {
	case visible != nil:
		return *visible, nil
	case first != nil:
		return *first, nil
	}
	return entryAt{}, fmt.Errorf("location %d, %q: %w", r.Location, r.Title, ErrNotFound)
}

// duplicate finds a visible memory at the location with the same
// normalised title as m: one title says one lesson, whatever its wording.
func (f *File) duplicate(id int, m Memory) (entryAt, bool) {
	key := normKey(m.Title)
	for _, s := range f.secs {
		if s.id != id {
			continue
		}
		for i, p := range s.parts {
			if p.kind == kEntry && p.mem.Visible() && normKey(p.mem.Title) == key {
				return entryAt{s, i}, true
			}
		}
	}
	return entryAt{}, false
}

// setMemory replaces an entry's memory, keeping its raw text when nothing
// changed.
func (e entryAt) setMemory(m Memory) {
	p := e.part()
	m.Line = 0
	old := p.mem
	old.Line = 0
	if memoryEqual(old, m) {
		return
	}
	p.mem = m
	p.dirty = true
}

func memoryEqual(a, b Memory) bool { return a == b }

// setVisits changes a section's visits line.
func (s *section) setVisits(visits int, episodes []int) {
	p := s.ensureVisits()
	if visits == s.visits && slices.Equal(episodes, s.episodes) {
		return
	}
	s.visits, s.episodes = visits, episodes
	p.dirty = true
}
