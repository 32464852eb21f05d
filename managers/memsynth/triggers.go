package memsynth

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lantern-if/lantern/domain"
)

// The trigger names, as the configuration spells them
// (managers.memory_triggers).
const (
	TriggerScore        = "score"         // the score changed
	TriggerDeath        = "death"         // the player died
	TriggerFirstVisit   = "first_visit"   // a room never visited before in this story
	TriggerLongResponse = "long_response" // a response over LongResponse characters to an action taken in place
	TriggerMovement     = "movement"      // the player moved to another room
	TriggerInventory    = "inventory"     // an item was acquired or dropped
)

// TriggerNames lists every trigger, in the order reasons are given.
func TriggerNames() []string {
	return []string{TriggerScore, TriggerDeath, TriggerFirstVisit, TriggerLongResponse, TriggerMovement, TriggerInventory}
}

// TriggerSet says which ground-truth events of a turn call the memory
// model. The lean set (the default) leaves movement and inventory changes
// out: a move to a known room adds nothing the map does not hold, and
// the inventory is in every prompt; it keeps synthesis to the 30-40% of
// turns the memory design expects. The seed set is the design's full list.
type TriggerSet struct {
	Score, Death, FirstVisit, LongResponse, Movement, Inventory bool
}

// LeanTriggers is the default: score, death, first visit, long response.
func LeanTriggers() TriggerSet {
	return TriggerSet{Score: true, Death: true, FirstVisit: true, LongResponse: true}
}

// SeedTriggers is every trigger the memory design lists: the lean ones
// and movement and inventory changes.
func SeedTriggers() TriggerSet {
	ts := LeanTriggers()
	ts.Movement, ts.Inventory = true, true
	return ts
}

// ParseTriggers reads trigger names (TriggerNames).
func ParseTriggers(names []string) (TriggerSet, error) {
	var ts TriggerSet
	for _, n := range names {
		switch strings.ToLower(strings.TrimSpace(n)) {
		case TriggerScore:
			ts.Score = true
		case TriggerDeath:
			ts.Death = true
		case TriggerFirstVisit:
			ts.FirstVisit = true
		case TriggerLongResponse:
			ts.LongResponse = true
		case TriggerMovement:
			ts.Movement = true
		case TriggerInventory:
			ts.Inventory = true
		default:
			return TriggerSet{}, fmt.Errorf("memory trigger %q (want one of %s)", n, strings.Join(TriggerNames(), ", "))
		}
	}
	return ts, nil
}

// Names lists the set's triggers.
func (ts TriggerSet) Names() []string {
	on := []bool{ts.Score, ts.Death, ts.FirstVisit, ts.LongResponse, ts.Movement, ts.Inventory}
	var out []string
	for i, n := range TriggerNames() {
		if on[i] {
			out = append(out, n)
		}
	}
	return out
}

// Why lists why a turn deserves a memory under the set; none means it
// does not. A first visit is a room never visited before in the story (the
// session's map persists across sessions, so a restart does not make
// known rooms new).
func (ts TriggerSet) Why(t domain.Turn) []string {
	var why []string
	if ts.Score && t.ScoreAfter != t.ScoreBefore {
		why = append(why, fmt.Sprintf("score %+d", t.ScoreAfter-t.ScoreBefore))
	}
	if ts.Death && t.Died {
		why = append(why, "death")
	}
	if ts.FirstVisit && t.NewRoom && describes(t) {
		why = append(why, "first visit")
	}
	if ts.LongResponse && t.ToID == t.FromID && len(t.Response) > LongResponse {
		why = append(why, "long response")
	}
	if ts.Movement && t.ToID != t.FromID && t.ToID != 0 {
		why = append(why, fmt.Sprintf("movement to L%d", t.ToID))
	}
	if ts.Inventory {
		if gained, lost := invDiff(t.InvBefore, t.InvAfter); len(gained)+len(lost) > 0 {
			var parts []string
			for _, g := range gained {
				parts = append(parts, "+"+g)
			}
			for _, l := range lost {
				parts = append(parts, "-"+l)
			}
			why = append(why, "inventory "+strings.Join(parts, " "))
		}
	}
	return why
}

// BareVisit is how little a first visit's response may say beyond the
// room's name and still be a bare one: a room that shows nothing but its
// name teaches nothing the map does not hold, so its first visit asks no
// memory question (the answer could only be "nothing new").
const BareVisit = 40

// describes reports whether a first visit's response says more than the
// room's name.
func describes(t domain.Turn) bool {
	rest := strings.TrimSpace(strings.Replace(t.Response, t.ToName, "", 1))
	return len([]rune(rest)) >= BareVisit
}

// invDiff is what the inventory gained and lost, counting duplicates.
func invDiff(before, after []string) (gained, lost []string) {
	left := slices.Clone(before)
	for _, a := range after {
		if i := slices.Index(left, a); i >= 0 {
			left = slices.Delete(left, i, i+1)
			continue
		}
		gained = append(gained, a)
	}
	return gained, left
}
