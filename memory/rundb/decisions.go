package rundb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Memory synthesis's decisions, every one of them (what was stored and
// every "don't remember" with the model's reasoning), and the story's map
// as it stands across sessions.

const decisionsSchema = `
CREATE TABLE IF NOT EXISTS memory_decisions (
	id INTEGER PRIMARY KEY,
	story_md5 TEXT NOT NULL,
	episode INTEGER NOT NULL,
	turn INTEGER NOT NULL,
	location_id INTEGER NOT NULL,
	triggers TEXT NOT NULL,
	remember INTEGER NOT NULL,
	category TEXT NOT NULL,
	title TEXT NOT NULL,
	text TEXT NOT NULL,
	status TEXT NOT NULL,
	supersedes TEXT NOT NULL,
	reasoning TEXT NOT NULL,
	outcome TEXT NOT NULL,
	created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_memory_decisions_turn ON memory_decisions(story_md5, episode, turn);
CREATE TABLE IF NOT EXISTS story_map (
	story_md5 TEXT PRIMARY KEY,
	data TEXT NOT NULL,
	saved_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_notes_session ON notes(story_md5, session_id, importance DESC);
`

// Decision is one answer of the memory model after a triggered turn, and
// what became of it.
type Decision struct {
	Episode    int
	Turn       int
	LocationID int
	Triggers   []string // why synthesis ran ("score +10", "first visit", ...)
	Remember   bool     // the model's should_remember
	Category   string
	Title      string
	Text       string
	Status     string
	Supersedes []string
	Reasoning  string
	// Outcome is what was done: "stored", "superseded N", "duplicate",
	// "not remembered", or the error that stopped it.
	Outcome string
	Time    time.Time
}

// RecordDecision stores one memory synthesis decision.
func (r *RunDB) RecordDecision(ctx context.Context, d Decision) error {
	_, err := r.db.ExecContext(ctx, `INSERT INTO memory_decisions
		(story_md5, episode, turn, location_id, triggers, remember, category, title, text, status, supersedes, reasoning, outcome, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.story, d.Episode, d.Turn, d.LocationID, strings.Join(d.Triggers, "; "), d.Remember, d.Category, d.Title, d.Text,
		d.Status, strings.Join(d.Supersedes, "\n"), d.Reasoning, d.Outcome, now())
	if err != nil {
		return fmt.Errorf("record memory decision at turn %d: %w", d.Turn, err)
	}
	return nil
}

// Decisions lists the story's memory synthesis decisions of an episode
// (0: every episode), oldest first.
func (r *RunDB) Decisions(ctx context.Context, episode int) ([]Decision, error) {
	return queryAll(ctx, r.db, "list memory decisions", func(row rowScanner) (Decision, error) {
		var d Decision
		var triggers, supersedes, ts string
		if err := row.Scan(&d.Episode, &d.Turn, &d.LocationID, &triggers, &d.Remember, &d.Category, &d.Title, &d.Text, &d.Status,
			&supersedes, &d.Reasoning, &d.Outcome, &ts); err != nil {
			return d, err
		}
		if triggers != "" {
			d.Triggers = strings.Split(triggers, "; ")
		}
		if supersedes != "" {
			d.Supersedes = strings.Split(supersedes, "\n")
		}
		d.Time, _ = time.Parse(time.RFC3339Nano, ts)
		return d, nil
	}, `SELECT episode, turn, location_id, triggers, remember, category, title, text, status, supersedes,
		reasoning, outcome, created_at FROM memory_decisions WHERE story_md5 = ? AND (? = 0 OR episode = ?) ORDER BY id`, r.story, episode, episode)
}

// SaveMap stores the story's map (opaque here: the map manager's JSON),
// replacing the one stored before.
func (r *RunDB) SaveMap(ctx context.Context, data []byte) error {
	if _, err := r.db.ExecContext(ctx, `INSERT OR REPLACE INTO story_map (story_md5, data, saved_at) VALUES (?, ?, ?)`,
		r.story, string(data), now()); err != nil {
		return fmt.Errorf("save the map: %w", err)
	}
	return nil
}

// LoadMap reads the story's stored map; ok is false when none was stored.
func (r *RunDB) LoadMap(ctx context.Context) (data []byte, ok bool, err error) {
	var s string
	err = r.db.QueryRowContext(ctx, `SELECT data FROM story_map WHERE story_md5 = ?`, r.story).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("load the map: %w", err)
	}
	return []byte(s), true, nil
}
