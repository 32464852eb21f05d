package session

import (
	"context"
	"fmt"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory"
)

// objectivesChanged is the event that reports the objectives as they are.
func (s *Session) objectivesChanged() engine.ObjectivesChanged {
	active, done := s.Objectives.Objectives()
	return engine.ObjectivesChanged{Active: active, Completed: done}
}

// edit applies a person's memory edit to Memories.md, or an objective edit
// to the objectives.
func (s *Session) edit(_ context.Context, c engine.Command, episode, turnNo int) ([]engine.Event, error) {
	if oe, ok := c.(engine.ObjectiveEdit); ok {
		changed, err := s.Objectives.Edit(oe.Op, oe.Text)
		if err != nil || !changed {
			return nil, err
		}
		// The person's objectives outlive the process whichever client
		// made the edit.
		return []engine.Event{s.objectivesChanged()}, s.saveObjectives()
	}
	me, ok := c.(engine.MemoryEdit)
	if !ok {
		return nil, nil
	}
	ref := memory.Ref{Location: me.Location, Title: me.Title}
	name := s.Map.Name(me.Location)
	var err error
	switch me.Op {
	case engine.MemoryAdd, engine.MemorySupersede:
		cat := me.Category
		if !cat.Valid() {
			return nil, fmt.Errorf("memory edit: category %q", me.Category)
		}
		st := memory.StatusActive
		if me.Status != "" {
			if st = me.Status; !st.Valid() || st == memory.StatusSuperseded {
				return nil, fmt.Errorf("memory edit: a new memory is ACTIVE or TENTATIVE, not %q", me.Status)
			}
		}
		m := memory.Memory{Category: cat, Status: st, Title: me.NewTitle, Text: me.Text, Episode: episode, Turn: turnNo}
		if me.Op == engine.MemoryAdd {
			err = s.Memories.AddBy(me.Location, name, m, memory.ByHuman)
		} else {
			_, err = s.Memories.Supersede(me.Location, name, m, []string{me.Title}, memory.ByHuman)
		}
	case engine.MemoryEditText:
		err = s.Memories.Edit(ref, func(m *memory.Memory) {
			if me.NewTitle != "" {
				m.Title = me.NewTitle
			}
			if me.Text != "" {
				m.Text = me.Text
			}
			if me.Category.Valid() {
				m.Category = me.Category
			}
		})
	case engine.MemorySetStatus:
		if !me.Status.Valid() {
			return nil, fmt.Errorf("memory edit: status %q", me.Status)
		}
		err = s.Memories.SetStatus(ref, me.Status)
	case engine.MemoryDelete:
		err = s.Memories.Delete(ref)
	case engine.MemoryUndo:
		var m memory.Memory
		m, err = s.Memories.Undo()
		me.Title = m.Title
	case engine.MemoryRestoreHand:
		var n int
		n, err = s.Memories.RestoreGeneration()
		if err != nil {
			return nil, fmt.Errorf("bring back the memories deleted by hand: %w", err)
		}
		me.Title = fmt.Sprintf("%d deleted by hand", n)
	default:
		return nil, fmt.Errorf("memory edit: unknown operation %q", me.Op)
	}
	if err != nil {
		return nil, fmt.Errorf("memory edit (%s %q at L%d): %w", me.Op, me.Title, me.Location, err)
	}
	return []engine.Event{engine.MemoryChanged{Location: me.Location, Title: me.Title}}, nil
}
