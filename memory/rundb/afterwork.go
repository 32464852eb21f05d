package rundb

import (
	"context"
	"fmt"
)

// After-turn work (memory synthesis, the planning managers) runs beside
// the next turns. What a turn still has to do is stored with the turn's
// row, in its transaction, and removed when done: a session killed while
// that work was in flight finds it here when it resumes, and does it once.

const afterWorkSchema = `
CREATE TABLE IF NOT EXISTS after_work (
	episode INTEGER NOT NULL,
	turn    INTEGER NOT NULL,
	work    BLOB NOT NULL,
	PRIMARY KEY (episode, turn)
);`

// AfterWork is one turn's work still to do.
type AfterWork struct {
	Episode int64
	Turn    int
	Work    []byte
}

// FinishAfterWork removes a turn's stored work: it is done.
func (r *RunDB) FinishAfterWork(ctx context.Context, episode int64, turn int) error {
	if _, err := r.db.ExecContext(ctx, `DELETE FROM after_work WHERE episode = ? AND turn = ?`, episode, turn); err != nil {
		return fmt.Errorf("finish turn %d's after-turn work: %w", turn, err)
	}
	return nil
}

// PendingAfterWork lists an episode's work still to do, oldest turn first.
func (r *RunDB) PendingAfterWork(ctx context.Context, episode int64) ([]AfterWork, error) {
	return queryAll(ctx, r.db, fmt.Sprintf("after-turn work of episode %d", episode), func(row rowScanner) (AfterWork, error) {
		var w AfterWork
		err := row.Scan(&w.Episode, &w.Turn, &w.Work)
		return w, err
	}, `SELECT episode, turn, work FROM after_work WHERE episode = ? ORDER BY turn`, episode)
}
