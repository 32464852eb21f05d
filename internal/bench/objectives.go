package bench

import (
	"fmt"
	"io"
)

// ObjectiveQuality is how an episode's objectives (the model's, not the
// person's) measure against the design's targets: more than 80% name a
// location by its ID, more than 60% cite knowledge or memories. A
// citation is a real one (managers/objectives Sources.Cites): the
// knowledge base named when the discovery was given one, a memory named
// when memories were shown (of a location the objective names, if it
// names any), or a shown memory's title quoted; the words "strategy",
// "lessons" or "procedure" alone are none.
type ObjectiveQuality struct {
	Objectives    int `json:"objectives"`
	CiteLocation  int `json:"cite_location"`
	CiteKnowledge int `json:"cite_knowledge"`
}

// The design's targets for objectives.
const (
	TargetCiteLocation  = 0.8
	TargetCiteKnowledge = 0.6
)

func (q ObjectiveQuality) add(o ObjectiveQuality) ObjectiveQuality {
	return ObjectiveQuality{q.Objectives + o.Objectives, q.CiteLocation + o.CiteLocation, q.CiteKnowledge + o.CiteKnowledge}
}

// Rates are the shares citing a location ID and knowledge or memories.
func (q ObjectiveQuality) Rates() (location, knowledge float64) {
	return ratio(q.CiteLocation, q.Objectives), ratio(q.CiteKnowledge, q.Objectives)
}

// ObjectiveRows are the report's rows of objective quality: one per
// episode that set objectives, then the run; nil when no episode did.
func ObjectiveRows(r *Report) [][]string {
	var total ObjectiveQuality
	rows := [][]string{{"objectives", "set", "cite a location ID", "cite knowledge or memories"}}
	row := func(name string, q ObjectiveQuality) []string {
		loc, know := q.Rates()
		return []string{name, fmt.Sprint(q.Objectives), target(loc, TargetCiteLocation), target(know, TargetCiteKnowledge)}
	}
	for _, e := range r.Episodes {
		if e.Objectives == nil || e.Objectives.Objectives == 0 {
			continue
		}
		rows = append(rows, row(fmt.Sprintf("episode %d", e.Episode), *e.Objectives))
		total = total.add(*e.Objectives)
	}
	if total.Objectives == 0 {
		return nil
	}
	return append(rows, row("all", total))
}

// target is a share with whether it meets its target ("85.0% ✓ > 80%").
func target(x, goal float64) string {
	mark := "✗"
	if x > goal {
		mark = "✓"
	}
	return fmt.Sprintf("%s %s > %.0f%%", pct(x), mark, 100*goal)
}

// printObjectiveQuality writes the objective quality table, if any.
func printObjectiveQuality(w io.Writer, r *Report) {
	rows := ObjectiveRows(r)
	if rows == nil {
		return
	}
	fmt.Fprintln(w, "\nObjective quality (the design's targets)")
	Table(w, rows)
}
