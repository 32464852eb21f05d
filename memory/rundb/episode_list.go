package rundb

import (
	"context"
	"fmt"
	"time"

	"github.com/lantern-if/lantern/domain"
)

// EpisodeSummary is one episode as a list of past episodes shows it: when
// it started, how it ended ("" while unfinished) and its last recorded
// score, moves and turn number (a branch's turns include those it shares
// with its parent).
type EpisodeSummary struct {
	// Episode is the episode the person started (its root); a root's is
	// its own ID.
	Episode int64
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

// Line is the summary's line of play.
func (e EpisodeSummary) Line() domain.Line {
	return domain.Line{Episode: e.Episode, ID: e.ID, Name: e.Branch, Parent: e.Parent, ForkTurn: e.ForkTurn}
}

// EpisodeSummaries lists the story's episodes, newest first. An episode
// still being played has no reason yet; its score, moves and turns are
// those of its last recorded turn.
func (r *RunDB) EpisodeSummaries(ctx context.Context) ([]EpisodeSummary, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT id, started_at, COALESCE(reason, ''),
		COALESCE(score, (SELECT score FROM turns WHERE turns.episode = episodes.id ORDER BY turn DESC LIMIT 1), 0),
		COALESCE(moves, (SELECT moves FROM turns WHERE turns.episode = episodes.id ORDER BY turn DESC LIMIT 1), 0),
		COALESCE(turns, (SELECT MAX(turn) FROM turns WHERE turns.episode = episodes.id), fork_turn, 0),
		COALESCE(parent, 0), COALESCE(fork_turn, 0), COALESCE(branch, ''),
		EXISTS (SELECT 1 FROM turns WHERE turns.episode = episodes.id)
		FROM episodes WHERE story_md5 = ? ORDER BY id DESC`, r.story)
	if err != nil {
		return nil, fmt.Errorf("list episodes: %w", err)
	}
	defer rows.Close()
	var out []EpisodeSummary
	parents := map[int64]int64{}
	var fresh []int // branches without a turn of their own
	for rows.Next() {
		var e EpisodeSummary
		var started string
		var own bool
		if err := rows.Scan(&e.ID, &started, &e.Reason, &e.Score, &e.Moves, &e.Turns, &e.Parent, &e.ForkTurn, &e.Branch, &own); err != nil {
			return nil, fmt.Errorf("list episodes: %w", err)
		}
		parents[e.ID] = e.Parent
		if !own && e.Parent != 0 && e.Reason == "" {
			fresh = append(fresh, len(out))
		}
		if t, err := time.Parse(time.RFC3339Nano, started); err == nil {
			e.Started = t
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list episodes: %w", err)
	}
	rows.Close()
	for i := range out {
		out[i].Episode = out[i].ID
		for n := 0; parents[out[i].Episode] != 0 && n < maxDepth; n++ {
			out[i].Episode = parents[out[i].Episode]
		}
	}
	for _, i := range fresh { // the score and moves it forked at
		if sc, mv, err := r.standingAt(ctx, r.db, out[i].Parent, out[i].ForkTurn); err == nil {
			out[i].Score, out[i].Moves = sc, mv
		}
	}
	return out, nil
}
