package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory/rundb"
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
	turns, err := s.DB.BranchTurns(ctx, from)
	if err != nil {
		return engine.Checkpoint{}, engine.Branch{}, err
	}
	if len(turns) == 0 || to.Turn < 1 || to.Turn > turns[len(turns)-1].Turn {
		return engine.Checkpoint{}, engine.Branch{}, fmt.Errorf("turn %d is not a played turn of branch #%d (1–%d): %w", to.Turn, from, lastTurn(turns), ErrNothingToRewind)
	}
	id := from
	if to.Turn == lastTurn(turns) {
		err = s.DB.Activate(ctx, from)
	} else {
		id, err = s.DB.Branch(ctx, from, to.Turn, to.Name)
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
	s.log.Info("rewind", "from", from, "turn", to.Turn, "branch", id, "name", s.branch.Label())
	return engine.Checkpoint{Machine: cp.Machine, Engine: cp.Engine}, s.branch, nil
}

func lastTurn(ts []rundb.Turn) int {
	if len(ts) == 0 {
		return 0
	}
	return ts[len(ts)-1].Turn
}

// branchInfo is a branch's row as the engine names it.
func (s *Session) branchInfo(ctx context.Context, id int64) engine.Branch {
	root, err := s.DB.Root(ctx, id)
	if err != nil {
		return engine.Branch{ID: id}
	}
	bs, err := s.DB.Branches(ctx, root)
	if err != nil {
		return engine.Branch{ID: id}
	}
	for _, b := range bs {
		if b.ID == id {
			return engine.Branch{ID: id, Name: b.Name, Parent: b.Parent, ForkTurn: b.ForkTurn}
		}
	}
	return engine.Branch{ID: id}
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
