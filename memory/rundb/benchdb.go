package rundb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Bench runs (`lantern bench`) are kept in lantern.db beside the episodes
// they played: one row per run with its settings, the range of episode rows
// it made, and its whole report as JSON (per-episode metrics and the series
// the charts are drawn from).

const benchSchema = `
CREATE TABLE IF NOT EXISTS bench_runs (
	id INTEGER PRIMARY KEY,
	story_md5 TEXT NOT NULL,
	label TEXT NOT NULL,
	agent TEXT NOT NULL,
	model TEXT NOT NULL,
	episodes INTEGER NOT NULL,
	first_episode INTEGER NOT NULL,
	last_episode INTEGER NOT NULL,
	score REAL NOT NULL,
	complete INTEGER NOT NULL,
	started_at TEXT NOT NULL,
	ended_at TEXT NOT NULL,
	report TEXT NOT NULL
);
`

// BenchRun is one stored benchmark run.
type BenchRun struct {
	ID           int64
	Label        string
	Agent        string // "llm" or "script:FILE"
	Model        string // the agent role's model, or "" for a script
	Episodes     int    // episodes played
	FirstEpisode int64  // the run's rows in the episodes table (0 when none)
	LastEpisode  int64
	Score        float64 // mean final score
	Complete     bool    // every requested episode was played
	Started      time.Time
	Ended        time.Time
	Report       []byte // JSON
}

// ErrNoBenchRun: no stored run has that ID.
var ErrNoBenchRun = errors.New("no such bench run")

// LastEpisodeID is the highest episode row so far (0 when there is none).
func (r *RunDB) LastEpisodeID(ctx context.Context) (int64, error) {
	var id int64
	if err := r.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM episodes`).Scan(&id); err != nil {
		return 0, fmt.Errorf("last episode: %w", err)
	}
	return id, nil
}

// SaveBenchRun stores a run and returns its ID.
func (r *RunDB) SaveBenchRun(ctx context.Context, b BenchRun) (int64, error) {
	res, err := r.db.ExecContext(ctx, `INSERT INTO bench_runs
		(story_md5, label, agent, model, episodes, first_episode, last_episode, score, complete, started_at, ended_at, report)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.story, b.Label, b.Agent, b.Model, b.Episodes, b.FirstEpisode, b.LastEpisode, b.Score, b.Complete,
		b.Started.UTC().Format(time.RFC3339Nano), b.Ended.UTC().Format(time.RFC3339Nano), string(b.Report))
	if err != nil {
		return 0, fmt.Errorf("save bench run: %w", err)
	}
	return res.LastInsertId()
}

const benchColumns = `id, label, agent, model, episodes, first_episode, last_episode, score, complete, started_at, ended_at`

func scanBench(sc interface{ Scan(...any) error }, withReport bool) (BenchRun, error) {
	var b BenchRun
	var started, ended, report string
	dest := []any{&b.ID, &b.Label, &b.Agent, &b.Model, &b.Episodes, &b.FirstEpisode, &b.LastEpisode, &b.Score, &b.Complete, &started, &ended}
	if withReport {
		dest = append(dest, &report)
	}
	if err := sc.Scan(dest...); err != nil {
		return b, err
	}
	b.Started, _ = time.Parse(time.RFC3339Nano, started)
	b.Ended, _ = time.Parse(time.RFC3339Nano, ended)
	if withReport {
		b.Report = []byte(report)
	}
	return b, nil
}

// BenchRun reads one stored run of this story, report included.
func (r *RunDB) BenchRun(ctx context.Context, id int64) (BenchRun, error) {
	row := r.db.QueryRowContext(ctx, `SELECT `+benchColumns+`, report FROM bench_runs WHERE id = ? AND story_md5 = ?`, id, r.story)
	b, err := scanBench(row, true)
	if errors.Is(err, sql.ErrNoRows) {
		return BenchRun{}, fmt.Errorf("bench run %d: %w", id, ErrNoBenchRun)
	}
	if err != nil {
		return BenchRun{}, fmt.Errorf("bench run %d: %w", id, err)
	}
	return b, nil
}

// BenchRuns lists this story's stored runs, oldest first, without their
// reports.
func (r *RunDB) BenchRuns(ctx context.Context) ([]BenchRun, error) {
	return queryAll(ctx, r.db, "list bench runs", func(row rowScanner) (BenchRun, error) { return scanBench(row, false) },
		`SELECT `+benchColumns+` FROM bench_runs WHERE story_md5 = ? ORDER BY id`, r.story)
}
