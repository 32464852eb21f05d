package memory

import "slices"

// What the store holds, read from its cache (no file access): the
// memories by location, the sections, the prompt text, problems, stats.

// List returns a location's memories in file order, superseded ones
// included (Memory.Visible tells them apart).
func (s *Store) List(loc int) []Memory {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sec, _ := s.file.Section(loc)
	return sec.Memories
}

// Section returns a location's section (see File.Section).
func (s *Store) Section(loc int) (Section, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.file.Section(loc)
}

// Sections lists every location section in file order.
func (s *Store) Sections() []Section {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.file.Sections()
}

// LocationMemory is the text the agent's context shows for a location in
// the store's episode (see RenderLocationMemoryIn and SetEpisode), within
// the store's budget.
func (s *Store) LocationMemory(loc int) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sec, ok := s.file.Section(loc)
	if !ok {
		return FirstVisit
	}
	return RenderLocationMemoryIn(sec, s.budget, s.episode)
}

// Problems lists what in the file on disk does not follow the format.
func (s *Store) Problems() []Problem {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.probsOK {
		s.problems, s.probsOK = Parse(decodeText(s.disk)).Problems(), true
	}
	return slices.Clone(s.problems)
}

// Stats counts what the store holds.
type Stats struct {
	Locations   int              // location sections
	Visited     int              // locations visited at least once
	Covered     int              // visited locations with at least one visible memory (DESIGN §8 coverage)
	Memories    int              // memories, superseded ones included
	Visible     int              // memories the agent sees
	ByCategory  map[Category]int // memories per category
	ByStatus    map[Status]int   // memories per status
	Visits      int              // visits over all locations
	Problems    int              // problems in the file on disk
	Reloads     int              // changes on disk the store took since it was opened
	UndoPending int              // deletions Undo can put back
}

// Stats counts what the store holds.
func (s *Store) Stats() Stats {
	probs := len(s.Problems())
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := Stats{
		ByCategory:  map[Category]int{},
		ByStatus:    map[Status]int{},
		Problems:    probs,
		Reloads:     s.reloads,
		UndoPending: len(s.undo),
	}
	seen := map[int]bool{}
	for _, sec := range s.file.secs {
		if !seen[sec.id] {
			seen[sec.id] = true
			st.Locations++
		}
	}
	for id := range seen {
		sec, _ := s.file.Section(id)
		st.Visits += sec.Visits
		visible := 0
		for _, m := range sec.Memories {
			st.Memories++
			st.ByCategory[m.Category]++
			st.ByStatus[m.Status]++
			if m.Visible() {
				visible++
			}
		}
		st.Visible += visible
		if sec.Visits > 0 {
			st.Visited++
			if visible > 0 {
				st.Covered++
			}
		}
	}
	return st
}
