// Package rundb is lantern.db, a story's run database in SQLite: episodes,
// every turn, the agent's flagged notes, checkpoints, reviews, rounds and
// bench runs. Its schema is versioned with PRAGMA user_version and upgraded in
// place by an ordered list of migration steps.
package rundb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// RunDB is lantern.db: episodes, every turn, and the agent's notes (seed
// 004), in SQLite. It is safe for concurrent use.
type RunDB struct {
	db    *sql.DB
	path  string
	ident os.FileInfo // the file opened: a file removed or replaced is noticed
	// retry bounds RecordTurn's retries: a busy database is retried until
	// budget has passed, any other failure a few times.
	retry struct {
		budget, first time.Duration
		attempts      int
	}
	story string // the story's md5: notes belong to one story file
	// log receives a line for each note stored (SetLogger); nil: none.
	log atomic.Pointer[slog.Logger]
	// Statements of every turn, prepared once.
	insTurn, insCheckpoint *sql.Stmt
	// top caches TopNotes (asked every turn) until a note changes.
	mu  sync.Mutex
	top struct {
		valid       bool
		limit       int
		session     string
		notes       []Note
		dataVersion int64
	}
	// last holds, per episode, its last recorded turn's raw state: the
	// dictionary of the next turn's delta (states.go).
	smu  sync.Mutex
	last map[int64]lastState
}

// pragmas are set on every open; they are not part of the schema.
const pragmas = `
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
`

const schema = `
CREATE TABLE IF NOT EXISTS episodes (
	id INTEGER PRIMARY KEY,
	story_md5 TEXT NOT NULL,
	seed INTEGER NOT NULL,
	started_at TEXT NOT NULL,
	ended_at TEXT,
	reason TEXT,
	score INTEGER,
	moves INTEGER,
	turns INTEGER
);
CREATE TABLE IF NOT EXISTS turns (
	episode INTEGER NOT NULL,
	turn INTEGER NOT NULL,
	actor TEXT NOT NULL,
	action TEXT NOT NULL,
	response TEXT NOT NULL,
	reasoning TEXT NOT NULL,
	verdicts TEXT NOT NULL,
	location_id INTEGER NOT NULL,
	location TEXT NOT NULL,
	score INTEGER NOT NULL,
	moves INTEGER NOT NULL,
	prompt_tokens INTEGER NOT NULL,
	eval_tokens INTEGER NOT NULL,
	llm_ms REAL NOT NULL,
	turn_ms REAL NOT NULL,
	failed INTEGER NOT NULL,
	created_at TEXT NOT NULL,
	PRIMARY KEY (episode, turn)
);
CREATE TABLE IF NOT EXISTS notes (
	id INTEGER PRIMARY KEY,
	story_md5 TEXT NOT NULL,
	session_id TEXT NOT NULL,
	turn_number INTEGER NOT NULL,
	content TEXT NOT NULL,
	importance INTEGER NOT NULL,
	location TEXT NOT NULL,
	location_id INTEGER NOT NULL,
	score INTEGER,
	moves INTEGER,
	timestamp TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS checkpoint (
	story_md5 TEXT PRIMARY KEY,
	episode INTEGER NOT NULL,
	turn INTEGER NOT NULL,
	machine BLOB NOT NULL,
	engine BLOB NOT NULL,
	saved_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_notes_importance ON notes(story_md5, importance DESC);
CREATE INDEX IF NOT EXISTS idx_notes_location ON notes(story_md5, location_id);
`

// OpenRunDB opens (creating if needed) the database at path for a story.
func OpenRunDB(path, storyMD5 string) (*RunDB, error) {
	name, err := dsn(path)
	if err != nil {
		return nil, fmt.Errorf("open run database %q: %w", path, err)
	}
	db, err := sql.Open("sqlite", name)
	if err != nil {
		return nil, fmt.Errorf("open run database %q: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	// A newer schema is refused before anything is written, journal mode
	// included.
	var have int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&have); err != nil {
		db.Close()
		return nil, fmt.Errorf("open run database %q: %w", path, err)
	}
	if have > SchemaVersion {
		db.Close()
		return nil, fmt.Errorf("open run database: %w", &SchemaError{Path: path, Have: have, Want: SchemaVersion})
	}
	if err := checkOwn(context.Background(), db, path); err != nil {
		db.Close()
		return nil, err
	}
	if _, err := db.Exec(pragmas); err != nil {
		db.Close()
		return nil, fmt.Errorf("open run database %q: %w", path, err)
	}
	if err := migrate(context.Background(), db, path); err != nil {
		db.Close()
		return nil, fmt.Errorf("open run database %q: %w", path, err)
	}
	r := &RunDB{db: db, story: storyMD5, path: path, last: map[int64]lastState{}}
	r.retry.budget, r.retry.first, r.retry.attempts = 30*time.Second, 100*time.Millisecond, 4
	if r.ident, err = os.Stat(path); err != nil {
		db.Close()
		return nil, fmt.Errorf("open run database %q: %w", path, err)
	}
	if r.insTurn, err = db.Prepare(`INSERT OR REPLACE INTO turns
		(episode, turn, actor, action, response, reasoning, verdicts, location_id, location, score, moves, prompt_tokens, eval_tokens, llm_ms, turn_ms, failed, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`); err == nil {
		r.insCheckpoint, err = db.Prepare(`INSERT OR REPLACE INTO checkpoint (story_md5, episode, turn, machine, engine, saved_at) VALUES (?, ?, ?, ?, ?, ?)`)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open run database %q: %w", path, err)
	}
	return r, nil
}

// Close closes the database.
func (r *RunDB) Close() error {
	r.insTurn.Close()
	r.insCheckpoint.Close()
	return r.db.Close()
}

// StartEpisode records a new episode and returns its ID. The story's
// unfinished lines of play stay unfinished (Unfinished lists them): only
// the person ends a line.
func (r *RunDB) StartEpisode(ctx context.Context, seed int) (int64, error) {
	return r.StartEpisodeID(ctx, 0, seed)
}

// NextEpisode is the number the next episode will get: the episodes are
// numbered by the database, the same on screen, in knowledgebase.md and in
// the replay list, across launches.
func (r *RunDB) NextEpisode(ctx context.Context) (int64, error) {
	var n int64
	if err := r.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM episodes`).Scan(&n); err != nil {
		return 0, fmt.Errorf("next episode: %w", err)
	}
	return n, nil
}

// StartEpisodeID is StartEpisode with the episode's number chosen by the
// caller (from NextEpisode); id 0 lets the database choose.
func (r *RunDB) StartEpisodeID(ctx context.Context, id int64, seed int) (int64, error) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("start episode: %w", err)
	}
	defer tx.Rollback()
	// The checkpoint row names the line played last: the new one from now.
	if _, err := tx.ExecContext(ctx, `DELETE FROM checkpoint WHERE story_md5 = ?`, r.story); err != nil {
		return 0, fmt.Errorf("start episode: %w", err)
	}
	var want any
	if id > 0 {
		want = id
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO episodes (id, story_md5, seed, started_at) VALUES (?, ?, ?, ?)`, want, r.story, seed, now())
	if err != nil {
		return 0, fmt.Errorf("start episode: %w", err)
	}
	id, err = res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("start episode: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("start episode: %w", err)
	}
	return id, nil
}

// EndEpisode records how an episode ended.
func (r *RunDB) EndEpisode(ctx context.Context, id int64, reason string, score, moves, turns int) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("end episode %d: %w", id, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE episodes SET ended_at = ?, reason = ?, score = ?, moves = ?, turns = ? WHERE id = ?`, now(), reason, score, moves, turns, id); err != nil {
		return fmt.Errorf("end episode %d: %w", id, err)
	}
	r.smu.Lock()
	delete(r.last, id)
	r.smu.Unlock()
	// An ended episode cannot be resumed.
	if _, err := tx.ExecContext(ctx, `DELETE FROM checkpoint WHERE episode = ?`, id); err != nil {
		return fmt.Errorf("end episode %d: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("end episode %d: %w", id, err)
	}
	return nil
}

// Episode is one row of the episodes table; Reason is empty while it has
// not ended. A branch has a Parent (0: a root episode), the turn it forked
// after, and a name ("" unnamed).
type Episode struct {
	ID           int64
	Seed         int
	Reason       string
	Score, Moves int
	Turns        int
	Parent       int64
	ForkTurn     int
	Branch       string
}

// Episodes lists the story's episodes, oldest first.
func (r *RunDB) Episodes(ctx context.Context) ([]Episode, error) {
	return queryAll(ctx, r.db, "list episodes", func(row rowScanner) (Episode, error) {
		var e Episode
		err := row.Scan(&e.ID, &e.Seed, &e.Reason, &e.Score, &e.Moves, &e.Turns, &e.Parent, &e.ForkTurn, &e.Branch)
		return e, err
	}, `SELECT id, seed, COALESCE(reason, ''), COALESCE(score, 0), COALESCE(moves, 0), COALESCE(turns, 0),
		COALESCE(parent, 0), COALESCE(fork_turn, 0), COALESCE(branch, '')
		FROM episodes WHERE story_md5 = ? ORDER BY id`, r.story)
}

// Turn is one row of the turns table.
type Turn struct {
	Episode      int64
	Turn         int
	Actor        string
	Action       string
	Response     string
	Reasoning    string
	Verdicts     string // JSON
	LocationID   int
	Location     string
	Score        int
	Moves        int
	PromptTokens int
	EvalTokens   int
	LLM          time.Duration
	Duration     time.Duration
	Failed       bool
	// Checkpoint, when set, is stored with the turn in one transaction: a
	// resumed session starts from exactly the last recorded turn.
	Checkpoint *Checkpoint
	// AfterWork, when set, is the turn's work still to do (opaque here),
	// stored in the same transaction until FinishAfterWork.
	AfterWork []byte
}

// Checkpoint is what resuming an episode needs: the machine's state (a
// save file) and the engine's (opaque here), after a recorded turn.
type Checkpoint struct {
	Episode int64 // the episodes table's ID
	Turn    int
	Machine []byte
	Engine  []byte
	Saved   time.Time
}

// RecordTurn stores a turn; recording the same turn again replaces it (a
// resumed session never duplicates a turn). With t.Checkpoint the
// checkpoint is replaced in the same transaction, and the state is kept as
// the turn's in turn_states (StateAt).
func (r *RunDB) RecordTurn(ctx context.Context, t Turn) error {
	start := time.Now()
	wait := r.retry.first
	for attempt := 1; ; attempt++ {
		if err := r.present(); err != nil {
			return fmt.Errorf("record turn %d: %w", t.Turn, err)
		}
		err := r.recordTurn(ctx, t)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		busy := isBusy(err)
		if (busy && time.Since(start)+wait > r.retry.budget) || (!busy && attempt >= r.retry.attempts) {
			return fmt.Errorf("%w (after %d attempts in %v)", err, attempt, time.Since(start).Round(time.Millisecond))
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return err
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// SetRecordRetry bounds RecordTurn's retries: a busy (locked) database is
// retried with backoff from first until budget has passed, any other
// failure up to attempts times.
func (r *RunDB) SetRecordRetry(budget, first time.Duration, attempts int) {
	r.retry.budget, r.retry.first, r.retry.attempts = budget, first, max(attempts, 1)
}

// ErrDatabaseGone: lantern.db was removed or replaced while it was open;
// what is written would go to a file nobody can read.
var ErrDatabaseGone = errors.New("the run database was removed or replaced while in use")

// present checks that the file opened is still the one at the path.
func (r *RunDB) present() error {
	fi, err := os.Stat(r.path)
	if err != nil || !os.SameFile(fi, r.ident) {
		return fmt.Errorf("%s: %w", r.path, ErrDatabaseGone)
	}
	return nil
}

// isBusy: another connection holds the database's lock (SQLITE_BUSY,
// SQLITE_LOCKED and their extended codes).
func isBusy(err error) bool {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		c := coded.Code() & 0xff
		return c == 5 || c == 6
	}
	return false
}

func (r *RunDB) recordTurn(ctx context.Context, t Turn) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record turn %d: %w", t.Turn, err)
	}
	defer tx.Rollback()
	_, err = tx.StmtContext(ctx, r.insTurn).ExecContext(ctx,
		t.Episode, t.Turn, t.Actor, t.Action, t.Response, t.Reasoning, t.Verdicts, t.LocationID, t.Location, t.Score, t.Moves,
		t.PromptTokens, t.EvalTokens, ms(t.LLM), ms(t.Duration), t.Failed, now())
	if err != nil {
		return fmt.Errorf("record turn %d: %w", t.Turn, err)
	}
	var kept func()
	if cp := t.Checkpoint; cp != nil {
		if _, err := tx.StmtContext(ctx, r.insCheckpoint).ExecContext(ctx,
			r.story, t.Episode, t.Turn, cp.Machine, cp.Engine, now()); err != nil {
			return fmt.Errorf("record turn %d: checkpoint: %w", t.Turn, err)
		}
		if kept, err = r.recordState(ctx, tx, t.Episode, t.Turn, cp); err != nil {
			return fmt.Errorf("record turn %d: state: %w", t.Turn, err)
		}
	}
	if t.AfterWork != nil {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO after_work (episode, turn, work) VALUES (?, ?, ?)`,
			t.Episode, t.Turn, t.AfterWork); err != nil {
			return fmt.Errorf("record turn %d: after-turn work: %w", t.Turn, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record turn %d: %w", t.Turn, err)
	}
	if kept != nil {
		kept()
	}
	return nil
}

// LastCheckpoint returns the story's checkpoint: the last recorded turn of
// an episode that has not ended. ok is false when there is none.
func (r *RunDB) LastCheckpoint(ctx context.Context) (cp Checkpoint, ok bool, err error) {
	var saved string
	err = r.db.QueryRowContext(ctx, `SELECT c.episode, c.turn, c.machine, c.engine, c.saved_at FROM checkpoint c
		JOIN episodes e ON e.id = c.episode WHERE c.story_md5 = ? AND e.ended_at IS NULL`, r.story).
		Scan(&cp.Episode, &cp.Turn, &cp.Machine, &cp.Engine, &saved)
	if errors.Is(err, sql.ErrNoRows) {
		return Checkpoint{}, false, nil
	}
	if err != nil {
		return Checkpoint{}, false, fmt.Errorf("read checkpoint: %w", err)
	}
	cp.Saved, _ = time.Parse(time.RFC3339Nano, saved)
	return cp, true, nil
}

// Turns lists an episode's turns in order.
func (r *RunDB) Turns(ctx context.Context, episode int64) ([]Turn, error) {
	return r.turnsWhere(ctx, `WHERE episode = ? ORDER BY turn`, episode)
}

func (r *RunDB) turnsWhere(ctx context.Context, where string, args ...any) ([]Turn, error) {
	return queryAll(ctx, r.db, "list turns", func(row rowScanner) (Turn, error) {
		var t Turn
		var llmMS, turnMS float64
		err := row.Scan(&t.Episode, &t.Turn, &t.Actor, &t.Action, &t.Response, &t.Reasoning, &t.Verdicts, &t.LocationID, &t.Location,
			&t.Score, &t.Moves, &t.PromptTokens, &t.EvalTokens, &llmMS, &turnMS, &t.Failed)
		t.LLM, t.Duration = time.Duration(llmMS*1e6), time.Duration(turnMS*1e6)
		return t, err
	}, `SELECT episode, turn, actor, action, response, reasoning, verdicts, location_id, location, score, moves,
		prompt_tokens, eval_tokens, llm_ms, turn_ms, failed FROM turns `+where, args...)
}

// Note is one of the agent's flagged notes: an observation it wants a
// person to see (a bug in the game, a puzzle it cannot solve).
type Note struct {
	ID         int64
	Session    string
	Turn       int
	Content    string
	Importance int
	Location   string
	LocationID int
	Score      int
	Moves      int
	Time       time.Time
	Edited     time.Time // when the person last edited it; zero: never
}

// ErrEmptyNote: a note needs some text.
var ErrEmptyNote = errors.New("empty note")

// Remember stores a note. A near-duplicate of a note of the same session
// (the same text, or one containing the other at 80% of its length or
// more) is not stored again; it raises the existing note's importance instead. It
// returns the note's ID and whether it was new.
func (r *RunDB) Remember(ctx context.Context, n Note) (int64, bool, error) {
	content := strings.TrimSpace(n.Content)
	if content == "" {
		return 0, false, ErrEmptyNote
	}
	n.Importance = min(max(n.Importance, 1), 1000)
	defer r.notesChanged()
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, false, fmt.Errorf("remember: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id, content, importance FROM notes WHERE story_md5 = ? AND session_id = ?`, r.story, n.Session)
	if err != nil {
		return 0, false, fmt.Errorf("remember: %w", err)
	}
	var dupID int64
	dupImportance := 0
	for rows.Next() {
		var id int64
		var c string
		var imp int
		if err := rows.Scan(&id, &c, &imp); err != nil {
			rows.Close()
			return 0, false, fmt.Errorf("remember: %w", err)
		}
		if similar(content, c) {
			dupID, dupImportance = id, imp
			break
		}
	}
	rows.Close()
	if dupID != 0 {
		if n.Importance > dupImportance {
			if _, err := tx.ExecContext(ctx, `UPDATE notes SET importance = ? WHERE id = ?`, n.Importance, dupID); err != nil {
				return 0, false, fmt.Errorf("remember: %w", err)
			}
		}
		return dupID, false, tx.Commit()
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO notes (story_md5, session_id, turn_number, content, importance, location, location_id, score, moves, timestamp)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.story, n.Session, n.Turn, content, n.Importance, n.Location, n.LocationID, n.Score, n.Moves, now())
	if err != nil {
		return 0, false, fmt.Errorf("remember: %w", err)
	}
	id, _ := res.LastInsertId()
	if err := tx.Commit(); err != nil {
		return 0, false, fmt.Errorf("remember: %w", err)
	}
	if l := r.log.Load(); l != nil {
		l.Info(fmt.Sprintf("MEMORY STORED [importance: %d/1000]: %s", n.Importance, content), "session", n.Session, "turn", n.Turn,
			"location", n.LocationID)
	}
	return id, true, nil
}

// SetLogger makes every note Remember stores logged as the memory-tool
// design logs it: `MEMORY STORED [importance: N/1000]: content` (a
// near-duplicate, not stored, logs nothing). nil logs nothing.
func (r *RunDB) SetLogger(l *slog.Logger) { r.log.Store(l) }

// similar is the near-duplicate test for notes: the same text once case
// and surrounding space are ignored, or one containing the other at more
// than 80% of its length.
func similar(a, b string) bool {
	a, b = strings.ToLower(strings.TrimSpace(a)), strings.ToLower(strings.TrimSpace(b))
	if a == b {
		return true
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	return len(a) > 0 && strings.Contains(a, b) && float64(len(b))/float64(len(a)) > 0.8
}

// TopNotes returns the most important notes of the story, from every
// session (at most limit).
func (r *RunDB) TopNotes(ctx context.Context, limit int) ([]Note, error) {
	return r.TopNotesIn(ctx, "", limit)
}

// TopNotesIn returns the most important notes made in one session (at
// most limit); session "" means every session of the story.
func (r *RunDB) TopNotesIn(ctx context.Context, session string, limit int) ([]Note, error) {
	// A note edited by another process (lantern notes edit while a
	// session runs) changes the database's data_version.
	var dv int64
	if err := r.db.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&dv); err != nil {
		return nil, fmt.Errorf("top notes: %w", err)
	}
	r.mu.Lock()
	if r.top.valid && r.top.limit == limit && r.top.session == session && r.top.dataVersion == dv {
		out := append([]Note(nil), r.top.notes...)
		r.mu.Unlock()
		return out, nil
	}
	r.mu.Unlock()
	notes, err := r.notes(ctx, `WHERE story_md5 = ? AND (? = '' OR session_id = ?) ORDER BY importance DESC, id LIMIT ?`, r.story, session, session, limit)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.top.valid, r.top.limit, r.top.session, r.top.notes, r.top.dataVersion = true, limit, session, append([]Note(nil), notes...), dv
	r.mu.Unlock()
	return notes, nil
}

// AllNotes returns every note of the story, from every session, oldest
// first: the history the research tools search.
func (r *RunDB) AllNotes(ctx context.Context) ([]Note, error) {
	return r.notes(ctx, `WHERE story_md5 = ? ORDER BY id`, r.story)
}

// notesChanged drops the TopNotes cache.
func (r *RunDB) notesChanged() {
	r.mu.Lock()
	r.top.valid = false
	r.mu.Unlock()
}

// NotesAt returns the notes made at a location.
func (r *RunDB) NotesAt(ctx context.Context, locationID int) ([]Note, error) {
	return r.notes(ctx, `WHERE story_md5 = ? AND location_id = ? ORDER BY importance DESC, id`, r.story, locationID)
}

// NoteStats counts the notes and sums their importance.
func (r *RunDB) NoteStats(ctx context.Context) (count, totalImportance int, err error) {
	err = r.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(importance), 0) FROM notes WHERE story_md5 = ?`, r.story).Scan(&count, &totalImportance)
	return count, totalImportance, err
}

func (r *RunDB) notes(ctx context.Context, where string, args ...any) ([]Note, error) {
	return queryAll(ctx, r.db, "list notes", func(row rowScanner) (Note, error) {
		var n Note
		var ts, edited string
		err := row.Scan(&n.ID, &n.Session, &n.Turn, &n.Content, &n.Importance, &n.Location, &n.LocationID, &n.Score, &n.Moves, &ts, &edited)
		n.Time, _ = time.Parse(time.RFC3339Nano, ts)
		if edited != "" {
			n.Edited, _ = time.Parse(time.RFC3339Nano, edited)
		}
		return n, err
	}, `SELECT id, session_id, turn_number, content, importance, location, location_id, COALESCE(score, 0), COALESCE(moves, 0), timestamp, COALESCE(edited_at, '') FROM notes `+where, args...)
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// UpdateTurnTokens sets a recorded turn's model token counts, once every
// manager that ran after the turn has made its calls: the turn's row is
// written before they run, and its counts must cover every role.
func (r *RunDB) UpdateTurnTokens(ctx context.Context, episode int64, turn, prompt, eval int) error {
	if _, err := r.db.ExecContext(ctx, `UPDATE turns SET prompt_tokens = ?, eval_tokens = ? WHERE episode = ? AND turn = ?`,
		prompt, eval, episode, turn); err != nil {
		return fmt.Errorf("update turn %d tokens: %w", turn, err)
	}
	return nil
}
