package cli

import (
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/managers/objectives"
)

// objectiveQuality is the quality of the objectives the model set since
// the reading before (nil when it set none).
func objectiveQuality(sess *session.Session, before objectives.Quality) *bench.ObjectiveQuality {
	q := sess.Objectives.Quality().Sub(before)
	if q.Objectives == 0 {
		return nil
	}
	return &bench.ObjectiveQuality{Objectives: q.Objectives, CiteLocation: q.CiteLocation, CiteKnowledge: q.CiteKnowledge}
}
