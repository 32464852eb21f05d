package rundb

import (
	"context"
	"fmt"
	"math"
)

// The person's reviews (review mode): one row per decision on a proposal,
// so the acceptance rate and the reasons given survive the run.

const reviewsSchema = `
CREATE TABLE IF NOT EXISTS reviews (
	episode_id INTEGER NOT NULL REFERENCES episodes(id),
	turn       INTEGER NOT NULL,
	seq        INTEGER NOT NULL,
	proposal   TEXT NOT NULL,
	decision   TEXT NOT NULL,
	command    TEXT NOT NULL DEFAULT '',
	reason     TEXT NOT NULL DEFAULT '',
	remembered INTEGER NOT NULL DEFAULT 0,
	auto       INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (episode_id, turn, seq)
);
`

// Review is one decision of the person's on an agent's proposal.
type Review struct {
	Turn       int
	Proposal   string
	Decision   string // accept, edit, reject
	Command    string // edit: what was played instead
	Reason     string // reject: why
	Remembered bool   // reject: also written to Memories.md
	Auto       bool   // accepted by the auto-accept timer
}

// Text is the decision in one line, as every view of a stored episode
// shows it: the decision and the proposal, then the command played instead
// or the reason, and whether the timer decided or Memories.md kept it.
func (r Review) Text() string {
	s := fmt.Sprintf("%s %q", r.Decision, r.Proposal)
	switch {
	case r.Command != "":
		s += fmt.Sprintf(" → %q", r.Command)
	case r.Reason != "":
		s += ": " + r.Reason
	}
	if r.Auto {
		s += " (auto)"
	}
	if r.Remembered {
		s += " (remembered)"
	}
	return s
}

// ReviewStats sums an episode's reviews.
type ReviewStats struct {
	Decisions, Accepted, Edited, Rejected int
	Reasons                               []string // the rejections' reasons, in order
}

// AcceptanceRate is the share of decisions that accepted the proposal.
func (s ReviewStats) AcceptanceRate() float64 {
	if s.Decisions == 0 {
		return 0
	}
	return float64(s.Accepted) / float64(s.Decisions)
}

// RecordReviews stores a turn's reviews in an episode (episode is the
// episodes table's ID).
func (db *RunDB) RecordReviews(ctx context.Context, episode int64, turn int, rs []Review) error {
	if len(rs) == 0 {
		return nil
	}
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record reviews: %w", err)
	}
	defer tx.Rollback()
	for i, r := range rs {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO reviews (episode_id, turn, seq, proposal, decision, command, reason, remembered, auto)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, episode, turn, i, r.Proposal, r.Decision, r.Command, r.Reason, r.Remembered, r.Auto); err != nil {
			return fmt.Errorf("record review of turn %d: %w", turn, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record reviews: %w", err)
	}
	return nil
}

// Reviews lists an episode's reviews in order.
func (db *RunDB) Reviews(ctx context.Context, episode int64) ([]Review, error) {
	return db.reviewsIn(ctx, episode, 0, math.MaxInt32)
}

// BranchReviews lists the reviews of a branch's whole line in order, as
// BranchTurns lists its turns: its parents' up to the fork, then its own.
func (db *RunDB) BranchReviews(ctx context.Context, episode int64) ([]Review, error) {
	out, err := alongLine(ctx, db.db, episode, func(ep int64, after, upTo int) ([]Review, error) {
		return db.reviewsIn(ctx, ep, after, upTo)
	})
	if err != nil {
		return nil, fmt.Errorf("branch reviews: %w", err)
	}
	return out, nil
}

// reviewsIn lists an episode's reviews of turns after..upTo.
func (db *RunDB) reviewsIn(ctx context.Context, episode int64, after, upTo int) ([]Review, error) {
	return queryAll(ctx, db.db, fmt.Sprintf("reviews of episode %d", episode), func(row rowScanner) (Review, error) {
		var r Review
		err := row.Scan(&r.Turn, &r.Proposal, &r.Decision, &r.Command, &r.Reason, &r.Remembered, &r.Auto)
		return r, err
	}, `SELECT turn, proposal, decision, command, reason, remembered, auto FROM reviews
		WHERE episode_id = ? AND turn > ? AND turn <= ? ORDER BY turn, seq`, episode, after, upTo)
}

// SumReviews counts decisions by kind and collects the reasons.
func SumReviews(rs []Review) ReviewStats {
	var s ReviewStats
	for _, r := range rs {
		s.Decisions++
		switch r.Decision {
		case "accept":
			s.Accepted++
		case "edit":
			s.Edited++
		case "reject":
			s.Rejected++
			if r.Reason != "" {
				s.Reasons = append(s.Reasons, r.Reason)
			}
		}
	}
	return s
}
