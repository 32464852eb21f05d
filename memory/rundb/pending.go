package rundb

import (
	"context"
	"fmt"
)

// pendingSchema keeps what a turn could not write to a work-dir file (a
// full disk, an immutable Memories.md): the whole version that should be
// there, by file name, until it is written.
const pendingSchema = `
CREATE TABLE IF NOT EXISTS pending_files (
	name TEXT PRIMARY KEY,
	data BLOB NOT NULL,
	saved_at TEXT NOT NULL
);
`

// Pending is one kept version of a work-dir file.
type Pending struct {
	Name string // the file's name in the work dir (Memories.md)
	Data []byte
}

// KeepPending stores the version of the named file that could not be
// written, replacing an earlier one.
func (r *RunDB) KeepPending(ctx context.Context, name string, data []byte) error {
	if _, err := r.db.ExecContext(context.WithoutCancel(ctx), `INSERT OR REPLACE INTO pending_files (name, data, saved_at) VALUES (?, ?, ?)`,
		name, data, now()); err != nil {
		return fmt.Errorf("keep unwritten %s: %w", name, err)
	}
	return nil
}

// PendingFiles are the kept versions, by name.
func (r *RunDB) PendingFiles(ctx context.Context) ([]Pending, error) {
	return queryAll(ctx, r.db, "unwritten files", func(row rowScanner) (Pending, error) {
		var p Pending
		err := row.Scan(&p.Name, &p.Data)
		return p, err
	}, `SELECT name, data FROM pending_files ORDER BY name`)
}

// DropPending forgets the kept version of a file once it is written.
func (r *RunDB) DropPending(ctx context.Context, name string) error {
	if _, err := r.db.ExecContext(context.WithoutCancel(ctx), `DELETE FROM pending_files WHERE name = ?`, name); err != nil {
		return fmt.Errorf("forget unwritten %s: %w", name, err)
	}
	return nil
}
