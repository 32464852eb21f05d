package objectives

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/lantern-if/lantern/memory"
)

// Quality measures the model's objectives against the design's targets:
// more than 80% name a location by its ID ("L79", "Location 79"), more
// than 60% cite the knowledge base or the memories their discovery was
// given (Sources.Cites: "per the knowledge base" when there was one, "from
// the memory at L79" when L79's memories were shown, a memory's own
// title), not merely words like "strategy" or "procedure".
type Quality struct {
	Objectives    int `json:"objectives"`     // the model's new objectives
	CiteLocation  int `json:"cite_location"`  // of which name a location ID
	CiteKnowledge int `json:"cite_knowledge"` // of which cite knowledge or memories
}

// The design's targets.
const (
	TargetCiteLocation  = 0.8
	TargetCiteKnowledge = 0.6
)

// Rates are the shares of objectives citing a location ID and knowledge
// or memories (0 without objectives).
func (q Quality) Rates() (location, knowledge float64) {
	if q.Objectives == 0 {
		return 0, 0
	}
	return float64(q.CiteLocation) / float64(q.Objectives), float64(q.CiteKnowledge) / float64(q.Objectives)
}

// Sub is q minus an earlier reading.
func (q Quality) Sub(before Quality) Quality {
	return Quality{Objectives: q.Objectives - before.Objectives, CiteLocation: q.CiteLocation - before.CiteLocation,
		CiteKnowledge: q.CiteKnowledge - before.CiteKnowledge}
}

var (
	locationIDRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:L(\d+)|location\s*#?\s*(\d+)|id:?\s*(\d+))\b`)
	})
	knowledgeRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:knowledge(?:\s*base)?|knowledgebase)\b`)
	})
	memoryRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:memor(?:y|ies)|remembered)\b`)
	})
)

// CitesLocation reports whether an objective names a location by its ID.
func CitesLocation(text string) bool { return locationIDRe().MatchString(text) }

// locationIDs are the location IDs an objective names.
func locationIDs(text string) []int {
	var out []int
	for _, m := range locationIDRe().FindAllStringSubmatch(text, -1) {
		for _, g := range m[1:] {
			if n, err := strconv.Atoi(g); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// Sources are what a discovery gave the model to cite: whether the
// knowledge base held anything, and the memories shown, by location.
type Sources struct {
	Knowledge bool
	Memories  map[int]bool // locations whose memories were shown
	titles    []string     // the shown memories' titles, normalised (two words or more)
}

// sourcesOf records a discovery's sources.
func sourcesOf(knowledge bool, shown map[int][]memory.Memory) Sources {
	src := Sources{Knowledge: knowledge, Memories: map[int]bool{}}
	for loc, mems := range shown {
		if len(mems) == 0 {
			continue
		}
		src.Memories[loc] = true
		for _, m := range mems {
			if t := normWords(m.Title); strings.Contains(t, " ") {
				src.titles = append(src.titles, t)
			}
		}
	}
	return src
}

// Cites reports whether an objective really cites the knowledge or the
// memories it was given: it names the knowledge base and one was given;
// or it names a memory, memories were given, and of the locations it
// names (if any) one is a location whose memories were shown; or it quotes
// the title of a memory shown.
func (src Sources) Cites(text string) bool {
	if src.Knowledge && knowledgeRe().MatchString(text) {
		return true
	}
	if len(src.Memories) > 0 && memoryRe().MatchString(text) {
		ids := locationIDs(text)
		if len(ids) == 0 {
			return true
		}
		for _, id := range ids {
			if src.Memories[id] {
				return true
			}
		}
	}
	words := " " + normWords(text) + " "
	for _, t := range src.titles {
		if strings.Contains(words, " "+t+" ") {
			return true
		}
	}
	return false
}

// normWords is text in lower case, its words only, one space apart.
func normWords(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r > 127)
	}), " ")
}

// score counts one new model objective against the sources of the
// discovery that set it.
func (q *Quality) score(text string, src Sources) {
	q.Objectives++
	if CitesLocation(text) {
		q.CiteLocation++
	}
	if src.Cites(text) {
		q.CiteKnowledge++
	}
}

// Quality reports the quality of every objective the model has set since
// the manager was made (across episodes; a caller wanting one episode's
// subtracts the reading at its start).
func (m *Manager) Quality() Quality {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.quality
}
