package rundb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// The schema's version is SQLite's PRAGMA user_version: the number of
// migration steps applied. A database written before the schema was
// versioned has version 0 and already holds some of step 1's tables; every
// step is therefore written to apply to such a database as well as to an
// empty one. Steps are only ever appended: a released step never changes.

// migration is one step of the schema's history.
type migration struct {
	name string
	sql  string
}

// migrations is the schema's history, oldest first; step i brings the
// database to version i+1.
var migrations = [...]migration{
	{"episodes, turns, notes, checkpoints, rounds, reviews and bench runs", schema + roundSchema + reviewsSchema + benchSchema},
	{"a note edited by the person keeps when", `ALTER TABLE notes ADD COLUMN edited_at TEXT;`},
	{"memory synthesis decisions, the story's map, notes by session", decisionsSchema},
	{"after-turn work not yet done", afterWorkSchema},
	{"work-dir files a turn could not write, kept until written", pendingSchema},
	{"branches of an episode, every turn's state", branchSchema},
}

// SchemaVersion is the schema version this build writes.
const SchemaVersion = len(migrations)

// ErrNewerSchema: the database was written by a newer Lantern, whose schema
// this build does not know; it is left untouched.
var ErrNewerSchema = errors.New("run database written by a newer Lantern")

// SchemaError reports a database whose schema version this build cannot use.
type SchemaError struct {
	Path       string
	Have, Want int
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("%s has schema version %d, this Lantern knows versions up to %d: upgrade Lantern, or move the file aside to start a new one", e.Path, e.Have, e.Want)
}

// Is makes errors.Is(err, ErrNewerSchema) hold.
func (e *SchemaError) Is(target error) bool { return target == ErrNewerSchema }

// migrate brings the database to SchemaVersion, one step per transaction,
// each step and its version number committed together: an interrupted
// upgrade resumes at the step it stopped in. The write lock is taken before
// the version is read, so two processes opening one old database upgrade it
// once.
func migrate(ctx context.Context, db *sql.DB, path string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Close()
	for {
		done, err := migrateStep(ctx, conn, path)
		if err != nil || done {
			return err
		}
	}
}

// migrateStep applies the next step, if any, and reports whether the
// database is current.
func migrateStep(ctx context.Context, conn *sql.Conn, path string) (done bool, err error) {
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return false, fmt.Errorf("migrate: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
		}
	}()
	var have int
	if err := conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&have); err != nil {
		return false, fmt.Errorf("migrate: schema version: %w", err)
	}
	switch {
	case have > SchemaVersion || have < 0:
		return false, &SchemaError{Path: path, Have: have, Want: SchemaVersion}
	case have == SchemaVersion:
		return true, nil
	}
	step := migrations[have]
	if _, err := conn.ExecContext(ctx, step.sql); err != nil {
		return false, fmt.Errorf("migrate to schema version %d (%s): %w", have+1, step.name, err)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, have+1)); err != nil {
		return false, fmt.Errorf("migrate to schema version %d: %w", have+1, err)
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		return false, fmt.Errorf("migrate to schema version %d: %w", have+1, err)
	}
	committed = true
	return have+1 == SchemaVersion, nil
}

// Version reads a database's schema version without changing it.
func (r *RunDB) Version(ctx context.Context) (int, error) {
	var v int
	if err := r.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	return v, nil
}
