package session

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/managers/memsynth"
	"github.com/lantern-if/lantern/memory/rundb"
)

// What the session adds around memory synthesis and the map: the triggers
// chosen by the configuration, every synthesis decision in lantern.db and
// the log, the story's map kept in lantern.db between sessions (so a
// restarted session knows the rooms it has seen: no first-visit synthesis
// for them, and objectives' adjacency, routing and the Mermaid map start
// from it), and the agent's notes scoped to the running session.

// wireMemory configures memory synthesis from the options.
func (s *Session) wireMemory(opts Options) error {
	ts := memsynth.LeanTriggers()
	if opts.MemoryTriggers != nil {
		var err error
		if ts, err = memsynth.ParseTriggers(opts.MemoryTriggers); err != nil {
			return fmt.Errorf("open session: %w", err)
		}
	}
	s.synth.SetTriggers(ts)
	s.synth.SetRecorder(decisionLog{s.DB})
	s.SetLogger(opts.Logger)
	return nil
}

// SetLogger sends the session's own log lines (memory synthesis's
// decisions, the items recorded, each note stored) to l; nil discards
// them. Call it before Engine.Run.
func (s *Session) SetLogger(l *slog.Logger) {
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	s.log = l
	s.synth.SetLogger(l)
	s.DB.SetLogger(l) // MEMORY STORED [importance: N/1000] for each note
}

// decisionLog records memory synthesis's decisions in lantern.db.
type decisionLog struct{ db *rundb.RunDB }

// RecordDecision implements memsynth.Recorder.
func (l decisionLog) RecordDecision(ctx context.Context, d memsynth.Decision) error {
	r := d.Reply
	return l.db.RecordDecision(ctx, rundb.Decision{Episode: d.Episode, Turn: d.Turn, LocationID: d.Location, Triggers: d.Triggers,
		Remember: r.ShouldRemember, Category: r.Category, Title: r.MemoryTitle, Text: r.MemoryText, Status: r.Status,
		Supersedes: r.SupersedesMemoryTitles, Reasoning: r.Reasoning, Outcome: d.Outcome})
}

// loadStoryMap starts the map from the one stored for the story, if any
// (a resumed episode then restores its checkpoint's map over it).
func (s *Session) loadStoryMap(ctx context.Context) error {
	data, ok, err := s.DB.LoadMap(ctx)
	if err != nil || !ok {
		return err
	}
	var snap mapper.Snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		// A map that cannot be read is rebuilt by playing; it is not worth
		// refusing the session for.
		s.log.Warn("stored map unreadable; starting a new one", "err", err)
		return nil
	}
	snap.Current = 0
	s.Map.Restore(snap)
	s.savedMap = string(data)
	return nil
}

// saveStoryMap stores the map when it changed since it was last stored.
func (s *Session) saveStoryMap(ctx context.Context) error {
	snap := s.Map.Snapshot()
	snap.Current = 0
	data, err := json.Marshal(snap)
	if err != nil {
		return fmt.Errorf("save the map: %w", err)
	}
	if string(data) == s.savedMap {
		return nil
	}
	if err := s.DB.SaveMap(context.WithoutCancel(ctx), data); err != nil {
		return err
	}
	s.savedMap = string(data)
	return nil
}

// noteSession is the session the agent's notes are kept under: the
// running episode. The prompt and get_top_memories show its notes;
// query_memories searches the story's whole history.
func (s *Session) noteSession() string { return fmt.Sprint(s.episode) }
