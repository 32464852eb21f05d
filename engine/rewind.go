package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/lantern-if/lantern/domain"
)

// An episode is a tree of branches. The person may go back to any turn
// played (Rewind): the engine settles the turns still being worked on,
// asks its Lifecycle (a Rewinder: the session, which keeps every turn's
// state in lantern.db) for the state after that turn on a branch of its
// own, restores it as it restores a checkpoint, and waits, paused. The
// branch left behind is kept whole; play goes on on the new one. Rewinding
// to a branch's last turn switches to that branch instead of starting
// another. Memories are knowledge across episodes and are not rewound.

// Rewind goes back to the state after Turn of a branch (0: the branch
// being played) and plays on from there, paused, on a new branch named
// Name ("" leaves it unnamed). A proposal in flight is abandoned. With
// UndoMemories the memories the agent wrote in this episode after Turn are
// withdrawn (kept in Memories.md as superseded, with the reason, so the
// person can bring one back).
type Rewind struct {
	Branch       int64
	Turn         int
	Name         string
	UndoMemories bool
}

func (Rewind) isCommand() {}

// Branch is the line of play being played (domain.Line: the episode, the
// branch's ID in the run database, 0 before the episode's first turn is
// recorded, its name and where it forked).
type Branch = domain.Line

// Rewinder is a Lifecycle that keeps the state after every turn and can
// go back to one.
type Rewinder interface {
	// Rewind prepares play from the state after to.Turn of branch
	// to.Branch (0: the current one) of episode (the engine's number): it
	// records the branch play goes on on and returns that state with the
	// branch, and the events its memory undo caused.
	Rewind(ctx context.Context, to Rewind, episode int) (Checkpoint, Branch, []Event, error)
	// Branch is the branch being played.
	Branch() Branch
}

// RewindError is a rewind that failed: play stays where it was. Clients
// tell a rewind's failure from other errors with errors.As.
type RewindError struct {
	Turn int // the turn the person asked to go back to
	Err  error
}

func (e *RewindError) Error() string { return fmt.Sprintf("rewind to turn %d: %v", e.Turn, e.Err) }

// Unwrap makes errors.Is find the cause.
func (e *RewindError) Unwrap() error { return e.Err }

// ErrNoRewind: this engine's Lifecycle keeps no turn states (a run
// without a session, or without checkpoints).
var ErrNoRewind = errors.New("rewinding needs the state of every turn, which this run does not keep")

// rewindTo goes back as the person asked (at a turn boundary): the
// background work settles first, with no time limit (Settling tells the
// clients), and a memory question the line left behind still waits on is
// dropped, so nothing of that line is written after the switch, nor after
// the memory undo. A failure is reported and play stays where it was.
func (e *Engine) rewindTo(ctx context.Context, to Rewind) {
	e.pending, e.ending = nil, false
	e.mode = Paused
	rw, ok := e.life.(Rewinder)
	if !ok {
		e.emit(ctx, ErrorEvent{Turn: e.st.Turn, Err: ErrNoRewind})
		return
	}
	if len(e.waiting) > 0 {
		e.emit(ctx, Settling{Turns: len(e.waiting)})
	}
	e.settleLeaving(ctx, ErrLineAbandoned)
	e.closeTurns(ctx) // the turns whose work a stop cut short
	cp, _, evs, err := rw.Rewind(ctx, to, e.st.Episode)
	for _, ev := range evs {
		e.emit(ctx, ev)
	}
	if err == nil {
		err = e.ResumeFrom(cp.Machine, cp.Engine)
	}
	if err != nil {
		e.resume = nil
		e.emit(ctx, ErrorEvent{Turn: e.st.Turn, Err: &RewindError{Turn: to.Turn, Err: err}})
		return
	}
	e.resume.rewound, e.resume.undone = true, to.UndoMemories
	for _, ev := range evs {
		if _, ok := ev.(MemoryChanged); ok {
			e.resume.withdrawn++
		}
	}
	if e.client != nil {
		e.client.Metrics.ResetTurns() // the turns after the one gone back to are played again
	}
	if err := e.resumeEpisode(ctx); err != nil {
		e.emit(ctx, ErrorEvent{Turn: e.st.Turn, Err: &RewindError{Turn: to.Turn, Err: err}})
	}
}

// branch is the branch being played, as the Lifecycle knows it.
func (e *Engine) branch() Branch {
	if rw, ok := e.life.(Rewinder); ok {
		return rw.Branch()
	}
	return Branch{}
}

// line is the line being played with its episode always named: the
// Lifecycle's branch, else the engine's episode's main line.
func (e *Engine) line() Branch {
	b := e.branch()
	if b.Episode == 0 && b.Parent == 0 {
		b.Episode = int64(e.st.Episode)
	}
	return b
}
