package memsynth

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/memory"
)

// Which items were found where, from the game's own state: the inventory
// is the player's children in the object tree, before and after each
// turn. What came into it was found where the action was taken; what went
// out of it was left there (dropped, put, given). Each is an ITEM entry of
// Memories.md at that location, one per item and location, written
// without a model call and kept apart from what a model decided to
// remember (memory.CategoryItem):
//
//	**[ITEM] brass lantern** *(Ep1, T13)*
//	Found here: it came into the inventory with "Get lamp".
//
//	**[ITEM - EPHEMERAL] brass lantern** *(Ep1, T40)*
//	Left here: it went out of the inventory with "Drop lamp".
//
// A find is PERMANENT: the item is there when every episode begins. What
// is left somewhere is EPHEMERAL: true of this episode only; taken back in
// the same episode, the entry is withdrawn (superseded, with the reason),
// and the next episode that leaves the item there again brings it back.
// An item put back where it was found leaves the find as it is. A death
// scatters the inventory where the game decides: nothing is recorded as
// left where the player died.

// Texts of the ITEM entries, for the person and the agent.
const (
	foundText   = "Found here: it came into the inventory with %q."
	leftText    = "Left here: it went out of the inventory with %q."
	takenBack   = "taken back: %s"
	itemsLogMsg = "item recorded"
)

// ItemChange is one change RecordItems wrote.
type ItemChange struct {
	Location int
	Item     string
	// Event: "found", "left" or "taken back".
	Event string
}

// RecordItems writes the turn's inventory changes as ITEM entries at the
// location where its action was taken. It calls no model; each change is
// logged. Recording a turn twice (a resumed session's work) changes
// nothing the first time did not.
func (s *Synthesizer) RecordItems(ctx context.Context, t domain.Turn) ([]ItemChange, error) {
	if t.FromID <= 0 {
		return nil, nil
	}
	gained, lost := invDiff(t.InvBefore, t.InvAfter)
	if t.Died {
		lost = nil
	}
	var out []ItemChange
	var errs []error
	note := func(item, event string, err error) {
		switch {
		case err == nil && event != "":
			out = append(out, ItemChange{Location: t.FromID, Item: item, Event: event})
			s.log.Info(itemsLogMsg, "line", t.Line, "turn", t.Turn, "location", t.FromID, "item", item, "event", event, "action", t.Action)
		case errors.Is(err, memory.ErrDuplicate):
			// a memory of the model's or a person's bears the item's name
		case err != nil:
			errs = append(errs, fmt.Errorf("item %q at L%d, turn %d: %w", item, t.FromID, t.Turn, err))
		}
	}
	for _, item := range gained {
		event, err := s.found(t, item)
		note(item, event, err)
	}
	for _, item := range lost {
		event, err := s.left(t, item)
		note(item, event, err)
	}
	return out, errors.Join(errs...)
}

// itemEntry finds a location's ITEM entry for an item: the visible one,
// else one this package withdrew (taken back), else none.
func (s *Synthesizer) itemEntry(loc int, item string) (memory.Memory, bool) {
	key := itemKey(item)
	var back *memory.Memory
	for _, m := range s.store.List(loc) {
		if m.Category != memory.CategoryItem || itemKey(m.Title) != key {
			continue
		}
		if m.Visible() {
			return m, true
		}
		if back == nil && TakenBack(m) {
			back = &m
		}
	}
	if back != nil {
		return *back, true
	}
	return memory.Memory{}, false
}

func itemKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// TakenBack reports whether an ITEM entry was withdrawn because the item
// was taken back from where it had been left (its supersession's reason).
func TakenBack(m memory.Memory) bool {
	return m.Category == memory.CategoryItem && strings.HasPrefix(m.Superseded.Reason, "taken back")
}

// found records that an item came into the inventory here.
func (s *Synthesizer) found(t domain.Turn, item string) (string, error) {
	loc := t.FromID
	m, ok := s.itemEntry(loc, item)
	switch {
	case !ok:
		e := memory.Memory{Category: memory.CategoryItem, Status: memory.StatusActive, Title: item, Episode: t.Episode, Turn: t.Turn,
			Text: fmt.Sprintf(foundText, t.Action)}
		return "found", s.store.Add(loc, t.FromName, e)
	case m.Persistence != memory.PersistenceEphemeral:
		return "", nil // found here before: the find stands
	case m.Visible() && m.Episode == t.Episode:
		// Left here this episode and taken back: no longer here.
		ref := memory.Ref{Location: loc, Title: m.Title, Text: m.Text}
		return "taken back", s.store.Invalidate(ref, fmt.Sprintf(takenBack, t.Action), t.Turn)
	case m.Episode == t.Episode:
		return "", nil // taken back already
	}
	// Left here in an earlier episode, yet here now: it is found here.
	return "found", s.rewrite(loc, m, func(e *memory.Memory) {
		e.Persistence, e.Text = "", fmt.Sprintf(foundText, t.Action)
	}, t)
}

// left records that an item went out of the inventory here.
func (s *Synthesizer) left(t domain.Turn, item string) (string, error) {
	loc := t.FromID
	m, ok := s.itemEntry(loc, item)
	switch {
	case !ok:
		e := memory.Memory{Category: memory.CategoryItem, Persistence: memory.PersistenceEphemeral, Status: memory.StatusActive,
			Title: item, Episode: t.Episode, Turn: t.Turn, Text: fmt.Sprintf(leftText, t.Action)}
		return "left", s.store.Add(loc, t.FromName, e)
	case m.Persistence != memory.PersistenceEphemeral:
		return "", nil // back where it was found
	case m.Visible() && m.Episode == t.Episode && m.Turn == t.Turn:
		return "", nil // recorded already
	}
	return "left", s.rewrite(loc, m, func(e *memory.Memory) {
		e.Text = fmt.Sprintf(leftText, t.Action)
	}, t)
}

// rewrite makes an ITEM entry this turn's: active, of its episode and
// turn, changed by fn.
func (s *Synthesizer) rewrite(loc int, m memory.Memory, fn func(*memory.Memory), t domain.Turn) error {
	ref := memory.Ref{Location: loc, Title: m.Title, Text: m.Text}
	return s.store.Edit(ref, func(e *memory.Memory) {
		e.Status, e.Superseded = memory.StatusActive, memory.Supersession{}
		e.Episode, e.Turn, e.TurnEnd = t.Episode, t.Turn, 0
		fn(e)
	})
}
