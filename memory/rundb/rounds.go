package rundb

import (
	"context"
	"fmt"
	"time"
)

// The supervisor's rounds, complete (never truncated: a person
// reviewing the supervisor reads what it was told), in
// lantern.db next to the episodes they judged.

const roundSchema = `
CREATE TABLE IF NOT EXISTS supervisor_rounds (
	id INTEGER PRIMARY KEY,
	story_md5 TEXT NOT NULL,
	episode_id INTEGER NOT NULL,
	episode INTEGER NOT NULL,
	round INTEGER NOT NULL,
	first_turn INTEGER NOT NULL,
	last_turn INTEGER NOT NULL,
	trust REAL NOT NULL,
	work REAL NOT NULL,
	comfort REAL NOT NULL,
	feedback TEXT NOT NULL,
	error TEXT NOT NULL,
	data TEXT NOT NULL,
	created_at TEXT NOT NULL
);
`

// Round is one supervisor round: the columns a query needs, and the whole
// round as the supervisor keeps it (Data, JSON).
type Round struct {
	EpisodeID            int64 // the episodes table's row (0: before the first turn was recorded)
	Episode              int
	Number               int
	FirstTurn, LastTurn  int
	Trust, Work, Comfort float64
	Feedback, Error      string
	Data                 string
	Time                 time.Time
}

// RecordRound stores a round.
func (r *RunDB) RecordRound(ctx context.Context, rd Round) error {
	_, err := r.db.ExecContext(ctx, `INSERT INTO supervisor_rounds (story_md5, episode_id, episode, round, first_turn, last_turn, trust, work, comfort,
		feedback, error, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.story, rd.EpisodeID, rd.Episode, rd.Number, rd.FirstTurn,
		rd.LastTurn, rd.Trust, rd.Work, rd.Comfort, rd.Feedback, rd.Error, rd.Data, rd.Time.UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("record round %d: %w", rd.Number, err)
	}
	return nil
}

// Rounds lists the story's rounds, oldest first.
func (r *RunDB) Rounds(ctx context.Context) ([]Round, error) {
	return queryAll(ctx, r.db, "list rounds", func(row rowScanner) (Round, error) {
		var rd Round
		var at string
		err := row.Scan(&rd.EpisodeID, &rd.Episode, &rd.Number, &rd.FirstTurn, &rd.LastTurn, &rd.Trust, &rd.Work, &rd.Comfort,
			&rd.Feedback, &rd.Error, &rd.Data, &at)
		rd.Time, _ = time.Parse(time.RFC3339Nano, at)
		return rd, err
	}, `SELECT episode_id, episode, round, first_turn, last_turn, trust, work, comfort, feedback, error, data, created_at
		FROM supervisor_rounds WHERE story_md5 = ? ORDER BY id`, r.story)
}
