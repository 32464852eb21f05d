package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/managers/knowledge"
)

// startEpisode resets the managers in dependency order for a new episode;
// what they learned across episodes (Memories.md, knowledgebase.md, the
// map, the supervisor's gauges and memory, the person's objectives) stays.
func (s *Session) startEpisode(ctx context.Context, ep engine.EpisodeStarted) error {
	defer func() {
		for _, w := range s.resumed {
			s.bo.give(ctx, w) // the interrupted session's work, before any new turn's
		}
		s.resumed = nil
	}()
	s.synth.Reset()
	// The story begins somewhere: that is a visit too (the starting room
	// would otherwise read "Visits: 0 | Episodes: none").
	if start := ep.Observation.Location; start.ID > 0 {
		if err := s.Memories.RecordVisit(start.ID, start.Name, ep.Episode); err != nil {
			return err
		}
	}
	s.Knowledge.Reset()
	before, _ := s.Objectives.Counts()
	s.Objectives.Reset()
	loc := ep.Observation.Location
	s.Objectives.SetLocation(loc.ID, loc.Name)
	if after, _ := s.Objectives.Counts(); after != before {
		s.objDirty = true
	}
	if s.Supervisor != nil {
		s.Supervisor.Reset()
	}
	return nil
}

func (s *Session) episodeEnded(ctx context.Context, ep engine.EpisodeEnded) error {
	var roundErr error
	if s.Supervisor != nil {
		// The turns since the last round are judged too: every episode is
		// coached, its end included.
		if _, ran, err := s.Supervisor.Finish(ctx); ran && err != nil {
			roundErr = fmt.Errorf("the supervisor's last round of episode %d: %w", ep.Episode, err)
		}
	}
	synthErr := errors.Join(roundErr, s.synthesize(ctx, ep))
	if s.episode == 0 {
		return synthErr
	}
	err := s.DB.EndEpisode(ctx, s.episode, string(ep.Reason), ep.Score, ep.Moves, ep.Turns)
	s.episode, s.branch = 0, engine.Branch{}
	return errors.Join(synthErr, err)
}

// synthesize is the episode synthesis: the knowledge manager's last update
// and the episode's note in knowledgebase.md, read by the agent from the
// next episode's first prompt. The episode itself is recorded in lantern.db
// by episodeEnded.
func (s *Session) synthesize(ctx context.Context, ep engine.EpisodeEnded) error {
	if !s.plan.Knowledge {
		return nil
	}
	_, err := s.Knowledge.SynthesizeEpisode(ctx, knowledge.Episode{Number: ep.Episode, Reason: string(ep.Reason), Score: ep.Score,
		MaxScore: s.maxScore, Moves: ep.Moves, Turns: ep.Turns})
	if errors.Is(err, knowledge.ErrNotWritten) {
		return s.unwritten(ctx)
	}
	return err
}
