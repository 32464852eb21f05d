package rundb

import (
	"context"
	"errors"
	"fmt"

	"github.com/lantern-if/lantern/domain"
)

// ErrNoLine: no line of play is written that way (domain.ParseLine).
var ErrNoLine = errors.New("no such line of play")

// nameFree checks that no branch of from's episode is named name (as
// domain.BranchKey compares names).
func nameFree(ctx context.Context, q querier, from int64, name string) error {
	root, err := rootIn(ctx, q, from)
	if err != nil {
		return err
	}
	rows, err := q.QueryContext(ctx, `WITH RECURSIVE tree(id) AS (SELECT ? UNION SELECT e.id FROM episodes e JOIN tree ON e.parent = tree.id)
		SELECT id, branch FROM episodes WHERE id IN tree AND branch IS NOT NULL`, root)
	if err != nil {
		return err
	}
	defer rows.Close()
	key := domain.BranchKey(name)
	for rows.Next() {
		var id int64
		var other string
		if err := rows.Scan(&id, &other); err != nil {
			return err
		}
		if domain.BranchKey(other) == key {
			return fmt.Errorf("%w: episode %d already has a branch named %q (%s, #%d)", domain.ErrBranchName, root, other,
				domain.Line{Episode: root, ID: id, Name: other, Parent: 1}, id)
		}
	}
	return rows.Err()
}

// Line is the line of play of branch id.
func (r *RunDB) Line(ctx context.Context, id int64) (BranchInfo, error) {
	bs, err := r.Branches(ctx, id)
	if err != nil {
		return BranchInfo{}, err
	}
	for _, b := range bs {
		if b.ID == id {
			return b, nil
		}
	}
	return BranchInfo{}, fmt.Errorf("line #%d: %w", id, ErrNoLine)
}

// ResolveLine finds the branch a written line names (domain.ParseLine): an
// episode's main line, a branch of it by name (compared as
// domain.BranchKey does) or by #ID. A bare number that is a branch, not an
// episode, is ErrNoLine with the line's own name, so the person learns it.
func (r *RunDB) ResolveLine(ctx context.Context, ref domain.LineRef) (BranchInfo, error) {
	if ref.ID != 0 {
		b, err := r.Line(ctx, ref.ID)
		if errors.Is(err, ErrNoEpisode) {
			err = fmt.Errorf("#%d: %w (lantern episodes lists them)", ref.ID, ErrNoLine)
		}
		if err == nil && ref.Episode != 0 && b.Episode != ref.Episode {
			err = fmt.Errorf("#%d is %s, not a branch of episode %d: %w", ref.ID, b.Line(), ref.Episode, ErrNoLine)
		}
		return b, err
	}
	b, err := r.Line(ctx, ref.Episode)
	if errors.Is(err, ErrNoEpisode) {
		return b, fmt.Errorf("episode %d: %w (lantern episodes lists them)", ref.Episode, ErrNoLine)
	}
	if err != nil {
		return b, err
	}
	if b.Parent != 0 {
		return b, fmt.Errorf("%d is not an episode but the branch %s (#%d) of episode %d: write %s or #%d: %w",
			ref.Episode, b.Line(), b.ID, b.Episode, b.Line(), b.ID, ErrNoLine)
	}
	if ref.Name == "" {
		return b, nil
	}
	bs, err := r.Branches(ctx, b.ID)
	if err != nil {
		return BranchInfo{}, err
	}
	key := domain.BranchKey(ref.Name)
	for _, x := range bs {
		if x.Name != "" && domain.BranchKey(x.Name) == key {
			return x, nil
		}
	}
	return BranchInfo{}, fmt.Errorf("episode %d has no branch named %q: %w", ref.Episode, ref.Name, ErrNoLine)
}

// Unfinished are the story's lines of play that have not ended and have a
// turn to continue from, the one played last first.
func (r *RunDB) Unfinished(ctx context.Context) ([]BranchInfo, error) {
	ids, err := queryAll(ctx, r.db, "unfinished lines", scanOne[int64], `SELECT e.id FROM episodes e
		WHERE e.story_md5 = ? AND e.ended_at IS NULL
		AND (COALESCE(e.fork_turn, 0) > 0 OR EXISTS (SELECT 1 FROM turns t WHERE t.episode = e.id))
		ORDER BY COALESCE((SELECT MAX(t.rowid) FROM turns t WHERE t.episode = e.id), 0) DESC, e.id DESC`, r.story)
	if err != nil {
		return nil, err
	}
	out := make([]BranchInfo, 0, len(ids))
	for _, id := range ids {
		b, err := r.Line(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("unfinished lines: %w", err)
		}
		out = append(out, b)
	}
	return out, nil
}

// Reopen makes a line its turn cap ended playable again from its last
// turn: the ending is cleared, so it is unfinished, and play goes on on it.
func (r *RunDB) Reopen(ctx context.Context, id int64) error {
	res, err := r.db.ExecContext(ctx, `UPDATE episodes SET ended_at = NULL, reason = NULL, score = NULL, moves = NULL, turns = NULL WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("reopen #%d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("reopen #%d: %w", id, ErrNoEpisode)
	}
	return nil
}
