package session

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/knowledge"
	"github.com/lantern-if/lantern/managers/objectives"
	"github.com/lantern-if/lantern/managers/supervisor"
	"github.com/lantern-if/lantern/memory/rundb"
)

// openPlanning makes the planning managers in dependency order:
// knowledge, then objectives (knowledge, memories, map), then the
// supervisor (map, objectives). Models are only given to the managers the
// options turn on.
func (s *Session) openPlanning(client *llm.Client, story string) error {
	p := s.plan
	model := func(on bool) *llm.Client {
		if on {
			return client
		}
		return nil
	}
	s.Knowledge = knowledge.New(model(p.Knowledge), knowledge.Config{Path: filepath.Join(s.Dir, knowledge.FileName), Story: story,
		UpdateInterval: p.KnowledgeInterval, BudgetTokens: p.KnowledgeBudget, Files: s.files.FS})
	s.Objectives = objectives.New(objectives.Deps{Client: model(p.Objectives), Knowledge: s.Knowledge, Memories: s.Memories, Map: s.planMap},
		objectives.Config{UpdateInterval: p.ObjectiveInterval, RefineInterval: p.RefineInterval, Plain: p.PlainObjectives})
	if !p.Supervisor {
		return nil
	}
	rounds := &roundLog{db: s.DB, episodeID: func() int64 { return s.episode }}
	s.rounds = rounds
	s.Supervisor = supervisor.New(supervisor.Deps{Client: client, Map: s.planMap, Recorder: rounds, Hints: s.Objectives.PersonObjectives,
		Completed: func() int {
			_, done := s.Objectives.Counts()
			return done
		}}, supervisor.Config{Every: p.SupervisorEvery, K: p.SupervisorK})
	return nil
}

// planTurn runs the planning managers after a turn. A manager that fails
// is reported and the others go on; the turn is never lost.
func (s *Session) planTurn(ctx context.Context, mt domain.Turn, stuck bool) []engine.Event {
	var events []engine.Event
	fail := func(err error) { events = append(events, engine.ErrorEvent{Turn: mt.Turn, Err: err}) }
	if s.plan.Knowledge {
		if _, err := s.Knowledge.ProcessTurn(ctx, mt); err != nil {
			fail(err)
		}
	}
	changed, err := s.Objectives.ProcessTurn(ctx, mt)
	if err != nil {
		fail(err)
	}
	if stuck && s.plan.Objectives && s.Objectives.Status().LastUpdate != mt.Turn {
		// Stuck: the plan is not working; rethink it now rather than at
		// the next interval.
		ch, err := s.Objectives.ProcessPeriodic(ctx)
		if err != nil {
			fail(err)
		}
		changed = changed || ch
	}
	if changed || s.objDirty {
		events = append(events, s.objectivesChanged())
		s.objDirty = false
	}
	if s.Supervisor == nil {
		return events
	}
	r, ran, err := s.Supervisor.ProcessTurn(ctx, mt)
	if ran {
		st := s.Supervisor.Status()
		ev := engine.SupervisorChanged{Turn: mt.Turn, Round: st.Rounds, Trust: st.State.Trust, Work: st.State.Work, Comfort: st.State.Comfort,
			PrevTrust: st.Previous.Trust, PrevWork: st.Previous.Work, PrevComfort: st.Previous.Comfort, Mood: st.Mood, Feedback: st.Feedback}
		for _, f := range r.Findings {
			if f.Contradicted {
				ev.Contradicted = append(ev.Contradicted, f.Claim)
			}
		}
		events = append(events, ev)
	}
	if err != nil {
		fail(err)
	}
	return events
}

// roundLog records the supervisor's rounds, complete, in lantern.db
// (supervisor.Recorder over rundb.RunDB).
type roundLog struct {
	db        *rundb.RunDB
	episodeID func() int64 // the episodes table's row of the running episode
}

// RecordRound implements supervisor.Recorder: the whole round as JSON.
func (l *roundLog) RecordRound(ctx context.Context, r supervisor.Round) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("record round %d: %w", r.Number, err)
	}
	return l.db.RecordRound(ctx, rundb.Round{EpisodeID: l.episodeID(), Episode: r.Episode, Number: r.Number, FirstTurn: r.FirstTurn,
		LastTurn: r.LastTurn, Trust: r.State.Trust, Work: r.State.Work, Comfort: r.State.Comfort, Feedback: r.Feedback, Error: r.Error,
		Data: string(data), Time: r.Time})
}

// Rounds returns the recorded rounds as the supervisor kept them, oldest
// first.
func (l *roundLog) Rounds(ctx context.Context) ([]supervisor.Round, error) {
	rows, err := l.db.Rounds(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]supervisor.Round, 0, len(rows))
	for _, row := range rows {
		var r supervisor.Round
		if err := json.Unmarshal([]byte(row.Data), &r); err != nil {
			return nil, fmt.Errorf("round %d: %w", row.Number, err)
		}
		out = append(out, r)
	}
	return out, nil
}
