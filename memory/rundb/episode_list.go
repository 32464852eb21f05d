package rundb

import (
	"context"
	"fmt"
	"time"
)

// EpisodeSummary is one episode as a list of past episodes shows it: when
// it started, how it ended ("" while unfinished) and its last recorded
// score, moves and turn number (a branch's turns include those it shares
// with its parent).
type EpisodeSummary struct {
	ID      int64
	Started time.Time
	Reason  string
	Score   int
	Moves   int
	Turns   int
	// A branch's parent episode (0: a root), the turn it forked after,
	// and its name ("" unnamed).
	Parent   int64
	ForkTurn int
	Branch   string
}

// EpisodeSummaries lists the story's episodes, newest first. An episode
// still being played has no reason yet; its score, moves and turns are
// those of its last recorded turn.
func (r *RunDB) EpisodeSummaries(ctx context.Context) ([]EpisodeSummary, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT id, started_at, COALESCE(reason, ''),
		COALESCE(score, (SELECT score FROM turns WHERE turns.episode = episodes.id ORDER BY turn DESC LIMIT 1), 0),
		COALESCE(moves, (SELECT moves FROM turns WHERE turns.episode = episodes.id ORDER BY turn DESC LIMIT 1), 0),
		COALESCE(turns, (SELECT MAX(turn) FROM turns WHERE turns.episode = episodes.id), fork_turn, 0),
		COALESCE(parent, 0), COALESCE(fork_turn, 0), COALESCE(branch, '')
		FROM episodes WHERE story_md5 = ? ORDER BY id DESC`, r.story)
	if err != nil {
		return nil, fmt.Errorf("list episodes: %w", err)
	}
	defer rows.Close()
	var out []EpisodeSummary
	for rows.Next() {
		var e EpisodeSummary
		var started string
		if err := rows.Scan(&e.ID, &started, &e.Reason, &e.Score, &e.Moves, &e.Turns, &e.Parent, &e.ForkTurn, &e.Branch); err != nil {
			return nil, fmt.Errorf("list episodes: %w", err)
		}
		if t, err := time.Parse(time.RFC3339Nano, started); err == nil {
			e.Started = t
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list episodes: %w", err)
	}
	return out, nil
}
