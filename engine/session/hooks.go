package session

import (
	"context"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/managers/contextmgr"
)

// hooks is the session as the engine sees it: the extras of the agent's
// prompt and the turn lifecycle. Every method runs on the engine's
// goroutine.
type hooks struct{ s *Session }

var (
	_ engine.PromptExtras = hooks{}
	_ engine.Lifecycle    = hooks{}
	_ engine.Background   = hooks{}
)

func (h hooks) LocationMemory(loc int) string { return h.s.Memories.LocationMemory(loc) }
func (h hooks) Notes() []string               { return h.s.notes() }
func (h hooks) Objectives() []string          { return h.s.Objectives.Prompt() }
func (h hooks) Knowledge() string             { return h.s.Knowledge.ForAgent() }

func (h hooks) Feedback() string {
	if h.s.Supervisor == nil {
		return ""
	}
	return h.s.Supervisor.Feedback()
}

func (h hooks) EpisodeNumber(ctx context.Context) (int, error) { return h.s.nextEpisode(ctx) }

func (h hooks) StartEpisode(ctx context.Context, ep engine.EpisodeStarted) error {
	err := h.s.startEpisode(ctx, ep)
	h.s.updateView(ep.History)
	return err
}

func (h hooks) AfterTurn(ctx context.Context, rec engine.TurnRecord) (engine.After, error) {
	after, err := h.s.afterTurn(ctx, rec)
	h.s.updateView(rec.History)
	return after, err
}

func (h hooks) Ready() <-chan struct{} { return h.s.bo.Ready() }
func (h hooks) Take() []engine.Settled { return h.s.bo.Take() }

// Settle waits for the turns' work: the outcome of the open memory
// question (left: unasked, or dropped by a rewind) goes to its turn's work
// first. The engine settles before an episode ends, before a rewind, when
// it pauses and when it stops, so no question outlives those.
func (h hooks) Settle(ctx context.Context, left *engine.MemoryAnswer) []engine.Settled {
	h.s.answered(left)
	h.s.releaseAsk()
	return h.s.bo.Settle(ctx)
}

func (h hooks) Rewind(ctx context.Context, to engine.Rewind, episode int) (engine.Checkpoint, engine.Branch, []engine.Event, error) {
	cp, b, err := h.s.rewind(ctx, to)
	if err != nil || !to.UndoMemories {
		return cp, b, nil, err
	}
	evs, err := h.s.undoMemories(ctx, episode, to.Turn)
	return cp, b, evs, err
}

func (h hooks) Branch() engine.Branch { return h.s.branch }

func (h hooks) EpisodeEnded(ctx context.Context, ep engine.EpisodeEnded) error {
	return h.s.episodeEnded(ctx, ep)
}

func (h hooks) Edit(ctx context.Context, c engine.Command, episode, turn int) ([]engine.Event, error) {
	return h.s.edit(ctx, c, episode, turn)
}

// researchView is what the research tools see of the engine: a snapshot
// handed over after each turn, never the engine's own state.
type researchView struct {
	history            []contextmgr.HistoryEntry // the recent turns, oldest first
	rooms, connections int                       // the map's size
	episode            int64                     // lantern.db's row of the running episode (0: none yet)
	notes              string                    // the session the agent's notes are kept under
}

// updateView hands the research tools a new snapshot (engine goroutine).
func (s *Session) updateView(history []contextmgr.HistoryEntry) {
	m := s.Map.Status()
	s.view.Store(&researchView{history: history, rooms: m.Rooms, connections: m.Connections, episode: s.episode, notes: s.noteSession()})
}
