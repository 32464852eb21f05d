package oracle

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lantern-if/lantern/managers/memsynth"
)

// The oracle remembers from the game's ground truth, as a careful model
// would: a question's turn (memsynth.ParseAsked: the score, a death, what
// was taken, the room reached) decides whether and what to keep, with a
// reason of its own. So the Memory pane fills without a GPU, the reasoning
// pane shows a memory being written, and a rewind's undo has something to
// withdraw.

// remembered is the oracle's decision on a memory question: a death, a
// score change, what was found, a way to a new room, in that order of
// weight; anything else teaches nothing the walkthrough does not cover.
func remembered(a memsynth.Asked) memsynth.Note {
	at, act := a.FromName, a.Action
	if at == "" {
		at = "this place"
	}
	note := func(cat, title, text, why string) memsynth.Note {
		return memsynth.Note{Why: why, ShouldRemember: true, Category: cat, MemoryTitle: title, MemoryText: text, Status: "ACTIVE",
			SupersedesMemoryTitles: []string{}}
	}
	gained := a.Gained()
	switch d := a.ScoreAfter - a.ScoreBefore; {
	case a.Has("death"):
		return note("DANGER", "Deadly: "+act, fmt.Sprintf("%q at %s killed the player.", act, at),
			"The player died: the next attempt must avoid this.")
	case d > 0:
		return note("SUCCESS", fmt.Sprintf("Points: %s", act), fmt.Sprintf("%q at %s scored %d (%d → %d).", act, at, d, a.ScoreBefore, a.ScoreAfter),
			fmt.Sprintf("The score rose by %d: a step of the solution worth keeping.", d))
	case d < 0:
		return note("FAILURE", fmt.Sprintf("Lost points: %s", act), fmt.Sprintf("%q at %s cost %d points (%d → %d).", act, at, -d, a.ScoreBefore, a.ScoreAfter),
			fmt.Sprintf("The score fell by %d: not to be done again.", -d))
	case len(gained) > 0:
		return note("DISCOVERY", "Found here: "+strings.Join(gained, ", "), fmt.Sprintf("%q at %s gets the %s.", act, at, strings.Join(gained, " and the ")),
			"Something was taken here that the solution needs later.")
	case a.Has("first visit") && a.ToID != 0 && a.ToID != a.FromID:
		return note("DISCOVERY", "Way to "+a.ToName, fmt.Sprintf("%q from %s leads to %s.", act, at, a.ToName),
			fmt.Sprintf("A room reached for the first time: the way to %s is worth knowing.", a.ToName))
	}
	return memsynth.Note{Why: "Nothing new: the walkthrough already covers this turn.", Category: "NOTE", Status: "ACTIVE", SupersedesMemoryTitles: []string{}}
}

// askedIn reads the memory question in a request's user messages (the
// last one asked); a request whose question cannot be read gets a
// decision to keep nothing.
func askedIn(user string) memsynth.Note {
	a, ok := memsynth.ParseAsked(user)
	if !ok {
		return memsynth.Note{Why: "The question could not be read: nothing to keep.", Category: "NOTE", Status: "ACTIVE", SupersedesMemoryTitles: []string{}}
	}
	return remembered(a)
}

// noteValue fills a memory schema (the agent's memory field, or the
// memory role's whole reply, whose reasoning is the note's why) with n.
func noteValue(s *schema, n memsynth.Note) (object, error) {
	texts := map[string]string{"why": n.Why, "reasoning": n.Why, "memory_title": n.MemoryTitle, "memory_text": n.MemoryText}
	v := voice{
		text: func(prop string) string { return texts[prop] },
		list: func(prop string) []string {
			if prop == "supersedes_memory_titles" {
				return n.SupersedesMemoryTitles
			}
			return nil
		},
	}
	g, err := generate(s, "memory", v, 1)
	if err != nil {
		return nil, err
	}
	obj, ok := g.(object)
	if !ok {
		return nil, fmt.Errorf("memory: the format is not an object schema")
	}
	obj.set("should_remember", n.ShouldRemember)
	for prop, val := range map[string]string{"category": n.Category, "status": n.Status} {
		if p := s.Properties[prop]; p != nil && (len(p.Enum) == 0 || slices.Contains(p.Enum, any(val))) {
			obj.set(prop, val)
		}
	}
	return obj, nil
}
