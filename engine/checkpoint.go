package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/managers/contextmgr"
	"github.com/lantern-if/lantern/managers/mapper"
)

// A checkpoint is taken after every recorded turn (the session stores it
// with the turn, in one transaction of lantern.db): the machine's state and
// the engine's. A session killed at any moment resumes from its last
// recorded turn with the identical machine, its map, its recent history and
// its loop counters. The planning managers start afresh, as at an episode's
// start; the knowledge base and the memories are files of their own.

// checkpointVersion changes when engineState does incompatibly.
const checkpointVersion = 1

// ErrCheckpoint: a checkpoint could not be used.
var ErrCheckpoint = errors.New("unusable checkpoint")

// engineState is the engine's part of a checkpoint. Fields that earlier
// versions wrote and this one does not know (a "feedback" that was always
// empty, the "reasoning" the history already holds) are ignored, so their
// checkpoints still load.
type engineState struct {
	Version      int                       `json:"version"`
	Episode      int                       `json:"episode"`
	Turn         int                       `json:"turn"`
	Text         string                    `json:"text"` // the last turn's response, shown again
	History      []contextmgr.HistoryEntry `json:"history"`
	LastProgress int                       `json:"last_progress"`
	BestScore    int                       `json:"best_score"`
	FailedRow    int                       `json:"failed_row"`
	AgentTurns   int                       `json:"agent_turns"`
	Failed       []string                  `json:"failed_actions"`
	Actions      int                       `json:"actions"`
	Repeats      int                       `json:"repeats"`
	Map          mapper.Snapshot           `json:"map"`
}

// Checkpoint is the state after a turn: enough to continue the episode
// from it (ResumeFrom).
type Checkpoint struct {
	// Machine is the machine's state (Lantern's Quetzal variant).
	Machine []byte
	// Engine is the engine's state (JSON: turn, history, map,
	// failed actions, loop counters).
	Engine []byte
}

// Checkpoint is the state after the last turn played. Only the engine's
// goroutine may call it, or anyone once Run has returned.
func (e *Engine) Checkpoint() (Checkpoint, error) {
	st, err := e.engineState()
	if err != nil {
		return Checkpoint{}, err
	}
	return Checkpoint{Machine: e.env.State(), Engine: st}, nil
}

// engineState is the engine's part of a checkpoint.
func (e *Engine) engineState() ([]byte, error) {
	failed := make([]string, 0, len(e.failed))
	for k := range e.failed {
		failed = append(failed, k)
	}
	sort.Strings(failed)
	// The prompt shows the last 3 reasoning entries; the whole history is
	// in lantern.db's turns. Keeping a few makes the checkpoint's size
	// independent of the turn count.
	st := engineState{Version: checkpointVersion, Episode: e.st.Episode, Turn: e.st.Turn, Text: e.st.Obs.Text,
		History: e.st.History, LastProgress: e.st.lastProgress,
		BestScore: e.st.bestScore, FailedRow: e.st.failedRow, AgentTurns: e.st.agentTurns, Failed: failed,
		Actions: e.actions, Repeats: e.repeats, Map: e.gmap.Snapshot()}
	data, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return data, nil
}

// resumeState is a checkpoint waiting for Run.
type resumeState struct {
	machine []byte
	engine  engineState
	rewound bool // the person went back to this turn (Rewind)
	// undone: the rewind withdrew the memories written after the turn,
	// withdrawn of them.
	undone    bool
	withdrawn int
}

// ResumeFrom makes Run continue a checkpoint's episode instead of starting
// a new one. Call it before Run.
func (e *Engine) ResumeFrom(machine, state []byte) error {
	var st engineState
	if err := json.Unmarshal(state, &st); err != nil {
		return fmt.Errorf("%w: %v", ErrCheckpoint, err)
	}
	if st.Version != checkpointVersion || st.Episode < 1 || st.Turn < 1 || len(machine) == 0 {
		return fmt.Errorf("%w: version %d, episode %d, turn %d", ErrCheckpoint, st.Version, st.Episode, st.Turn)
	}
	e.resume = &resumeState{machine: machine, engine: st}
	return nil
}

// skipper is an agent that can skip the actions already played (a
// script resumed mid-way).
type skipper interface{ Skip(n int) }

// resumeEpisode restores a checkpoint: the machine, then the engine.
func (e *Engine) resumeEpisode(ctx context.Context) error {
	r := e.resume
	e.resume = nil
	st := r.engine
	obs, err := e.env.RestoreState(r.machine, st.Turn)
	if err != nil {
		err = fmt.Errorf("%w: %w", ErrCheckpoint, err)
		e.emit(ctx, ErrorEvent{Err: err, Fatal: true})
		return err
	}
	obs.Text = st.Text
	e.st = gameState{Episode: st.Episode, Turn: st.Turn, Obs: obs, History: st.History,
		lastProgress: st.LastProgress, bestScore: st.BestScore, failedRow: st.FailedRow, agentTurns: st.AgentTurns}
	e.gmap.Restore(st.Map)
	e.failed, e.refused = map[string]bool{}, map[string]refusal{}
	for _, k := range st.Failed {
		e.failed[k] = true
	}
	e.actions, e.repeats = st.Actions, st.Repeats
	e.played = 1
	if s, ok := e.agent.(skipper); ok {
		s.Skip(st.AgentTurns)
	}
	e.announce(ctx, EpisodeStarted{Episode: st.Episode, Observation: obs, Turn: st.Turn, Resumed: true, Rewound: r.rewound,
		Undone: r.undone, Withdrawn: r.withdrawn, History: slices.Clone(st.History)})
	return nil
}

// CheckpointMap is the map a checkpoint's engine state restores (the
// engine's own, with every probed exit), for `lantern map` to draw what an
// unfinished episode knew without replaying it.
func CheckpointMap(state []byte) (mapper.Snapshot, error) {
	var st engineState
	if err := json.Unmarshal(state, &st); err != nil {
		return mapper.Snapshot{}, fmt.Errorf("%w: %v", ErrCheckpoint, err)
	}
	return st.Map, nil
}

// endIfOver ends a resumed episode that was over when its session stopped
// (killed while it ended: at the turn cap, or after its last turn's death
// or victory), so no turn is played past its end; the episode's end
// (synthesis, the record) runs again and is idempotent. It reports whether
// the engine is done.
func (e *Engine) endIfOver(ctx context.Context) (bool, error) {
	if why := e.st.Obs.Ended; why != env.NotEnded {
		if err := e.endEpisode(ctx, why); err != nil {
			return true, err
		}
		return e.quitting, nil
	}
	return e.checkEpisode(ctx)
}
