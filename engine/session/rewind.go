package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/managers/memsynth"
	"github.com/lantern-if/lantern/memory"
)

// ErrNothingToRewind: no turn of the episode has been recorded yet.
var ErrNothingToRewind = errors.New("no recorded turn to go back to")

// rewind is the session's half of engine.Rewind (the engine's goroutine,
// after the background work settled): the state after the turn, from
// lantern.db, and the branch play goes on on. Going back to a branch's
// last turn switches to that branch; any other turn starts a branch of
// its own, its parent kept whole.
func (s *Session) rewind(ctx context.Context, to engine.Rewind) (engine.Checkpoint, engine.Branch, error) {
	if !s.checkpoints {
		return engine.Checkpoint{}, engine.Branch{}, engine.ErrNoRewind
	}
	from := to.Branch
	if from == 0 {
		from = s.episode
	}
	if from == 0 {
		return engine.Checkpoint{}, engine.Branch{}, ErrNothingToRewind
	}
	left, err := s.DB.Line(ctx, from)
	if err != nil {
		return engine.Checkpoint{}, engine.Branch{}, err
	}
	if to.Turn < 1 || to.Turn > left.Turns {
		return engine.Checkpoint{}, engine.Branch{}, fmt.Errorf("turn %d is not a played turn of %s (1–%d): %w", to.Turn, left.Line(), left.Turns, ErrNothingToRewind)
	}
	id := from
	switch {
	case to.Turn < left.Turns:
		id, err = s.DB.Branch(ctx, from, to.Turn, to.Name)
	case left.Ended && left.Reason != string(env.EndTurnCap):
		return engine.Checkpoint{}, engine.Branch{}, fmt.Errorf("%s ended (%s) at turn %d: pick an earlier turn to play on from: %w",
			left.Line(), left.Reason, to.Turn, ErrNothingToRewind)
	default:
		// The line's last turn: play goes on on it, a line its turn cap
		// ended included.
		if left.Ended {
			err = s.DB.Reopen(ctx, from)
		}
		if err == nil {
			err = s.DB.Activate(ctx, from)
		}
	}
	if err != nil {
		return engine.Checkpoint{}, engine.Branch{}, err
	}
	cp, err := s.DB.StateAt(ctx, id, to.Turn)
	if err != nil {
		return engine.Checkpoint{}, engine.Branch{}, err
	}
	s.episode = id
	s.branch = s.branchInfo(ctx, id)
	s.log.Info("rewind", "from", left.Line().At(to.Turn), "line", s.branch.String(), "id", id)
	return engine.Checkpoint{Machine: cp.Machine, Engine: cp.Engine}, s.branch, nil
}

// branchInfo is a branch's row as the engine names it.
func (s *Session) branchInfo(ctx context.Context, id int64) engine.Branch {
	b, err := s.DB.Line(ctx, id)
	if err != nil {
		return engine.Branch{ID: id}
	}
	return b.Line()
}

// ResumeAt makes the engine continue from the state after turn of branch
// episode (a lantern.db episode or branch ID) instead of starting a new
// episode: on a new branch named name, or on that branch itself when turn
// is its last. Call it before Engine.Run; the engine starts paused or
// running as configured.
func (s *Session) ResumeAt(ctx context.Context, episode int64, turn int, name string) (engine.Branch, error) {
	cp, b, err := s.rewind(ctx, engine.Rewind{Branch: episode, Turn: turn, Name: name})
	if err != nil {
		return b, err
	}
	if err := s.Engine.ResumeFrom(cp.Machine, cp.Engine); err != nil {
		return b, err
	}
	return b, nil
}

// undoMemories withdraws the memories memory synthesis stored in episode
// (the engine's number) after turn: each becomes SUPERSEDED with the
// reason, so Memories.md keeps it and the person can set it ACTIVE again.
// The person's own memories are left alone.
func (s *Session) undoMemories(ctx context.Context, episode, turn int) ([]engine.Event, error) {
	ds, err := s.DB.Decisions(ctx, episode)
	if err != nil {
		return nil, err
	}
	reason := fmt.Sprintf("rewound to turn %d: written on the branch left behind", turn)
	var evs []engine.Event
	var errs []error
	for _, d := range ds {
		stored := d.Outcome == "stored" || strings.HasPrefix(d.Outcome, "superseded")
		if d.Turn <= turn || !stored || d.Title == "" || !s.activeMemory(d.LocationID, d.Title) {
			continue
		}
		err := s.Memories.Invalidate(memory.Ref{Location: d.LocationID, Title: d.Title}, reason, turn)
		switch {
		case errors.Is(err, memory.ErrNotFound):
			// edited or removed since: the person's now
		case err != nil:
			errs = append(errs, err)
		default:
			evs = append(evs, engine.MemoryChanged{Location: d.LocationID, Title: d.Title})
		}
	}
	items, err := s.undoItems(episode, turn, reason)
	evs, errs = append(evs, items...), append(errs, err)
	s.log.Info("rewind: memories withdrawn", "line", s.branch.String(), "after", turn, "count", len(evs))
	return evs, errors.Join(errs...)
}

// undoItems does the same for the ITEM entries the game's state wrote in
// episode after turn (they are no model's decision, so lantern.db holds
// no record of them): what the branch left behind found, left or rewrote
// is withdrawn, and what it took back is put back where it was left.
func (s *Session) undoItems(episode, turn int, reason string) ([]engine.Event, error) {
	var evs []engine.Event
	var errs []error
	for _, sec := range s.Memories.Sections() {
		for _, m := range sec.Memories {
			if m.Category != memory.CategoryItem || m.Episode != episode {
				continue
			}
			ref := memory.Ref{Location: sec.ID, Title: m.Title, Text: m.Text}
			var err error
			switch {
			case m.Visible() && m.Turn > turn:
				err = s.Memories.Invalidate(ref, reason, turn)
			case !m.Visible() && m.Turn <= turn && m.Superseded.Turn > turn && memsynth.TakenBack(m):
				err = s.Memories.SetStatus(ref, memory.StatusActive)
			default:
				continue
			}
			if err != nil && !errors.Is(err, memory.ErrNotFound) {
				errs = append(errs, err)
			} else if err == nil {
				evs = append(evs, engine.MemoryChanged{Location: sec.ID, Title: m.Title})
			}
		}
	}
	return evs, errors.Join(errs...)
}

// activeMemory: the location holds a memory of that title not superseded
// yet (a superseded one keeps the record of what replaced it).
func (s *Session) activeMemory(loc int, title string) bool {
	for _, m := range s.Memories.List(loc) {
		if strings.EqualFold(strings.TrimSpace(m.Title), strings.TrimSpace(title)) {
			return m.Status != memory.StatusSuperseded
		}
	}
	return false
}
