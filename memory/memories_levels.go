package memory

import (
	"fmt"
	"io"
	"strings"
)

// What the levels (Persistence) mean beyond the file: the episode the
// store shows memories for, and `memories show` by level.

// SetEpisode tells the store the episode being played (0: none, every
// level shown): LocationMemory leaves out the EPHEMERAL memories of other
// episodes. RecordVisit sets it too, the session recording a visit where
// each episode starts.
func (s *Store) SetEpisode(episode int) {
	if episode <= 0 {
		return
	}
	s.mu.Lock()
	s.episode = episode
	s.mu.Unlock()
}

// Episode is the episode the store shows memories for (0: none).
func (s *Store) Episode() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.episode
}

// ParseLevel reads a level as a person writes it on the command line
// (core, permanent, ephemeral, in any case); anything else is ErrInvalid.
func ParseLevel(s string) (Persistence, error) {
	p, ok := ParsePersistence(s)
	if !ok {
		return "", fmt.Errorf("level %q (want core, permanent or ephemeral): %w", strings.TrimSpace(s), ErrInvalid)
	}
	return p, nil
}

// ShowFilter chooses what `memories show` prints: one location (0: every
// one) and one level ("": every one; PERMANENT takes in the memories
// without a level, permanent by default).
type ShowFilter struct {
	Location int
	Level    Persistence
}

// ShowFiltered is Show with a filter: with a level, each section is
// printed with only its memories of that level (its header, visits line,
// heading and rule around them), and a section with none is left out; a
// location the file does not have is ErrNotFound, a level that is not one
// ErrInvalid.
func ShowFiltered(w io.Writer, path string, sf ShowFilter) error {
	if sf.Level != "" {
		p, err := ParseLevel(string(sf.Level))
		if err != nil {
			return fmt.Errorf("show %s: %w", path, err)
		}
		sf.Level = p
	}
	f, err := Load(path)
	if err != nil {
		return fmt.Errorf("show %s: %w", path, err)
	}
	g := f.clone()
	g.canonicalize()
	var secs []*section
	found := false
	for _, s := range g.secs {
		if sf.Location != 0 && s.id != sf.Location {
			continue
		}
		found = true
		if sf.Level != "" && !s.keepLevel(sf.Level) {
			continue
		}
		secs = append(secs, s)
	}
	if sf.Location != 0 && !found {
		return fmt.Errorf("show %s: location %d: %w", path, sf.Location, ErrNotFound)
	}
	e := encoder{canon: true, line: 1}
	for _, s := range secs {
		for _, p := range s.parts {
			e.part(g, p, s)
		}
	}
	if sf.Location != 0 {
		sec, _ := f.Section(sf.Location)
		e.blank()
		e.write("Agent's context:\n\n")
		e.write(RenderLocationMemory(sec, DefaultBudget()))
		e.write("\n")
	}
	if len(secs) == 0 {
		if sf.Level != "" {
			e.write("No " + string(sf.Level) + " memories.\n")
		} else {
			e.write("No location memories.\n")
		}
	}
	if _, err := w.Write(e.buf); err != nil {
		return fmt.Errorf("show %s: %w", path, err)
	}
	return nil
}

// keepLevel cuts a section (of a clone) down to its memories of one
// level, the structure around them kept; it reports whether any is left.
func (s *section) keepLevel(level Persistence) bool {
	kept := s.parts[:0:0]
	n := 0
	for _, p := range s.parts {
		switch p.kind {
		case kEntry:
			if p.mem.Level() != level {
				continue
			}
			n++
		case kBrokenEntry, kBrokenSection, kJunk:
			continue // no level to tell
		}
		kept = append(kept, p)
	}
	s.parts = kept
	return n > 0
}
