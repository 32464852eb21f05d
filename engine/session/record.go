package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/sanitize"
)

// afterTurn records the turn (its row and checkpoint, the agent's note,
// current_state.json), then gives its memory synthesis and planning to the
// back office, which runs them beside the next turns.
func (s *Session) afterTurn(ctx context.Context, rec engine.TurnRecord) (engine.After, error) {
	s.flushPending(ctx)
	s.answered(rec.Answer) // the last turn's question, as this turn's proposal answered it
	s.releaseAsk()
	w := afterWork{Turn: managed(rec), Stuck: rec.Stuck, Map: rec.Map, Prompt: rec.Prompt}
	ask := s.askAgent(&w, w.Turn, rec.History)
	events, err := s.recordTurn(ctx, rec, storedWork(w))
	w.Episode, w.Turn.Line = s.episode, s.branch.String()
	s.bo.give(ctx, w)
	if s.inline {
		s.bo.wait() // the next prompt sees what this turn's managers wrote
	}
	if mapErr := s.saveStoryMap(ctx); mapErr != nil {
		events = append(events, engine.ErrorEvent{Turn: rec.Turn, Err: mapErr})
	}
	return engine.After{Events: events, Ask: ask}, errors.Join(err, s.unwritten(ctx))
}

// recordTurn is the turn's bookkeeping: the run database (with the work
// still to do), the agent's note and current_state.json.
func (s *Session) recordTurn(ctx context.Context, rec engine.TurnRecord, work []byte) ([]engine.Event, error) {
	dbErr := s.recordRow(ctx, rec, work)
	if dbErr != nil {
		dbErr = fmt.Errorf("%w: turn %d of episode %d: %w", engine.ErrNotRecorded, rec.Turn, rec.Episode, dbErr)
	}
	var events []engine.Event
	if rec.After.Location.ID != rec.Before.Location.ID && rec.After.Location.ID != 0 {
		// A visit that could not be written is kept by the store (unwritten
		// pauses the engine below); synthesis still runs.
		if err := s.Memories.RecordVisit(rec.After.Location.ID, rec.After.Location.Name, rec.Episode); err != nil && !errors.Is(err, memory.ErrNotWritten) {
			return nil, errors.Join(dbErr, err)
		}
	}
	if dbErr != nil {
		return events, errors.Join(dbErr, s.exportState(rec))
	}
	if p := rec.Proposal; strings.TrimSpace(p.Remember) != "" {
		if _, _, err := s.DB.Remember(ctx, rundb.Note{Session: s.noteSession(), Turn: rec.Turn, Content: p.Remember,
			Importance: p.RememberImportance, Location: rec.Before.Location.Name, LocationID: rec.Before.Location.ID,
			Score: rec.After.Score, Moves: rec.After.Moves}); err != nil {
			return events, err
		}
	}
	return events, s.exportState(rec)
}

// recordRow writes the turn's row (with its checkpoint) to lantern.db,
// starting the episode's row with its first turn.
func (s *Session) recordRow(ctx context.Context, rec engine.TurnRecord, work []byte) error {
	// The turn was played and reported: a session being stopped (a signal)
	// still records it, or the resume would not match what was shown.
	ctx = context.WithoutCancel(ctx)
	if s.episode == 0 {
		id, err := s.DB.StartEpisodeID(ctx, int64(rec.Episode), rec.Seed)
		if err != nil {
			return err
		}
		s.episode, s.branch = id, engine.Branch{Episode: id, ID: id}
	}
	verdicts, _ := json.Marshal(rec.Verdicts)
	row := rundb.Turn{
		Episode: s.episode, Turn: rec.Turn, Actor: string(rec.Actor), Action: rec.Action, Response: rec.After.Text,
		Reasoning: rec.Reasoning, Verdicts: string(verdicts), LocationID: rec.After.Location.ID, Location: rec.After.Location.Name,
		Score: rec.After.Score, Moves: rec.After.Moves, PromptTokens: rec.LLMMetrics.PromptTokens, EvalTokens: rec.LLMMetrics.EvalTokens,
		LLM: rec.LLMTime, Duration: rec.Duration, Failed: rec.Failed, AfterWork: work,
	}
	if s.checkpoints {
		if rec.Checkpoint == nil {
			return fmt.Errorf("turn %d has no checkpoint", rec.Turn)
		}
		row.Checkpoint = &rundb.Checkpoint{Machine: rec.Checkpoint.Machine, Engine: rec.Checkpoint.Engine}
	}
	var err error
	if s.record != nil {
		err = s.record(ctx, row)
	} else {
		err = s.DB.RecordTurn(ctx, row)
	}
	if err != nil || len(rec.Reviews) == 0 {
		return err
	}
	rs := make([]rundb.Review, 0, len(rec.Reviews))
	for _, r := range rec.Reviews {
		rs = append(rs, rundb.Review{Turn: rec.Turn, Proposal: r.Proposal, Decision: string(r.Decision), Command: r.Command,
			Reason: r.Reason, Remembered: r.Remembered, Auto: r.Auto})
	}
	return s.DB.RecordReviews(ctx, s.episode, rec.Turn, rs)
}

// managed is the turn as every manager reads it, built once.
func managed(rec engine.TurnRecord) domain.Turn {
	b, a := rec.Before, rec.After
	return domain.Turn{Episode: rec.Episode, Turn: rec.Turn, Actor: string(rec.Actor), Action: rec.Action, Reasoning: rec.Reasoning,
		Response: a.Text, FromID: b.Location.ID, FromName: b.Location.Name, ToID: a.Location.ID, ToName: a.Location.Name,
		ScoreBefore: b.Score, ScoreAfter: a.Score, InvBefore: names(b.Inventory), InvAfter: names(a.Inventory),
		Died: a.Died, NewRoom: rec.NewRoom, Failed: rec.Failed}
}

func names(items []env.Item) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Name)
	}
	return out
}

// State is current_state.json: what an outside viewer needs each turn.
type State struct {
	Story     env.StoryIdentity `json:"story"`
	Episode   int               `json:"episode"`
	Turn      int               `json:"turn"`
	Score     int               `json:"score"`
	Moves     int               `json:"moves"`
	Location  env.Location      `json:"location"`
	Inventory []env.Item        `json:"inventory"`
	Recent    []RecentAction    `json:"recent"`
	Map       string            `json:"mermaid_map"`
	// Objectives are the active objectives; [] when there are none.
	Objectives []string `json:"objectives"`
}

// RecentAction is a line of the recent log in current_state.json.
type RecentAction struct {
	Turn   int    `json:"turn"`
	Actor  string `json:"actor"`
	Action string `json:"action"`
}

func (s *Session) exportState(rec engine.TurnRecord) error {
	st := State{Story: s.id, Episode: rec.Episode, Turn: rec.Turn, Score: rec.After.Score, Moves: rec.After.Moves,
		Location: rec.After.Location, Inventory: rec.After.Inventory, Map: s.Map.Mermaid(), Objectives: []string{}}
	if active, _ := s.Objectives.Objectives(); len(active) > 0 {
		st.Objectives = active
	}
	if st.Inventory == nil {
		st.Inventory = []env.Item{}
	}
	for _, h := range rec.History {
		st.Recent = append(st.Recent, RecentAction{Turn: h.Turn, Actor: h.Actor, Action: h.Action})
	}
	data, err := peopleJSON(st)
	if err != nil {
		return err
	}
	path := filepath.Join(s.Dir, "current_state.json")
	if err := s.files.Replace(path, data, 0o644); err != nil {
		return &engine.NotWrittenError{Path: path, Err: err}
	}
	return nil
}

// peopleJSON is v as indented JSON for a file people read (cat, less):
// encoding/json escapes C0 controls (ESC as \u001b) but writes C1 ones
// (U+0080–U+009F: CSI U+009B, OSC U+009D) raw, so they are escaped too
// (sanitize.EscapeJSON); the data read back is the same.
func peopleJSON(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return sanitize.EscapeJSON(data), nil
}
