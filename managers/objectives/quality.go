package objectives

import (
	"regexp"
	"sync"
)

// Quality measures the model's objectives against the design's targets:
// more than 80% name a location by its ID ("L79", "Location 79"), more
// than 60% build on the knowledge base or the memories ("per knowledge",
// "from the memory at L79").
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
	locationIDRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(?:L\d+|location\s*#?\s*\d+|id:?\s*\d+)\b`) })
	citeKnowledge = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:knowledge(?:\s*base)?|knowledgebase|memor(?:y|ies)|remembered|lessons?|strategy|procedure)\b`)
	})
)

// CitesLocation reports whether an objective names a location by its ID.
func CitesLocation(text string) bool { return locationIDRe().MatchString(text) }

// CitesKnowledge reports whether an objective builds on the knowledge
// base or the memories.
func CitesKnowledge(text string) bool { return citeKnowledge().MatchString(text) }

// score counts one new model objective.
func (q *Quality) score(text string) {
	q.Objectives++
	if CitesLocation(text) {
		q.CiteLocation++
	}
	if CitesKnowledge(text) {
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
