package rundb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/lantern-if/lantern/domain"
)

// An episode is a tree of branches. A branch is an episodes row with a
// parent: rewinding episode E to turn T and playing on makes a row B with
// parent E and fork_turn T, whose own turns are numbered T+1, T+2, ...; B's
// transcript is E's up to T (through E's own parent, and so on) followed by
// B's own turns. Nothing of E changes. The checkpoint row names the branch
// being played, so a resumed session continues it.

const branchSchema = `
ALTER TABLE episodes ADD COLUMN parent INTEGER;
ALTER TABLE episodes ADD COLUMN fork_turn INTEGER;
ALTER TABLE episodes ADD COLUMN branch TEXT;
CREATE TABLE IF NOT EXISTS turn_states (
	episode INTEGER NOT NULL,
	turn    INTEGER NOT NULL,
	key     INTEGER NOT NULL,
	state   BLOB NOT NULL,
	PRIMARY KEY (episode, turn)
);
CREATE INDEX IF NOT EXISTS idx_episodes_parent ON episodes(parent);
`

// ErrNoState: the state after a turn was not kept (a database written
// before every turn's state was, or a turn recorded without a checkpoint).
var ErrNoState = errors.New("no state kept for that turn")

// ErrNoTurn: a branch was asked for at a turn its episode has not played.
var ErrNoTurn = errors.New("no such turn")

// ErrNoEpisode: the episode is not in the database.
var ErrNoEpisode = errors.New("no such episode")

// maxDepth bounds a walk up the parents: a corrupt cycle ends in an error.
const maxDepth = 1 << 16

// querier is a database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// lastState is the raw state of an episode's last recorded turn, the
// dictionary of its next turn's delta.
type lastState struct {
	turn, key int
	raw       []byte
}

// maxLastStates bounds the episodes whose last state RunDB keeps.
const maxLastStates = 8

// recordState stores a turn's state in tx; after is called once tx has
// committed.
func (r *RunDB) recordState(ctx context.Context, tx *sql.Tx, ep int64, turn int, cp *Checkpoint) (after func(), err error) {
	raw := make([]byte, 0, len(cp.Machine)+len(cp.Engine))
	raw = append(append(raw, cp.Machine...), cp.Engine...)
	r.smu.Lock()
	prev, ok := r.last[ep]
	r.smu.Unlock()
	var base []byte
	key := turn
	if ok && prev.turn == turn-1 && turn-prev.key < keyEvery {
		base, key = prev.raw, prev.key
	}
	blob, err := encodeState(raw, len(cp.Machine), base)
	if err != nil {
		return nil, err
	}
	if err := r.rekeyNext(ctx, tx, ep, turn); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO turn_states (episode, turn, key, state) VALUES (?, ?, ?, ?)`,
		ep, turn, key, blob); err != nil {
		return nil, err
	}
	return func() {
		r.smu.Lock()
		defer r.smu.Unlock()
		if _, ok := r.last[ep]; !ok && len(r.last) >= maxLastStates {
			for k := range r.last {
				delete(r.last, k)
				break
			}
		}
		r.last[ep] = lastState{turn: turn, key: key, raw: raw}
	}, nil
}

// rekeyNext: a turn recorded again changes the dictionary of the next
// turn's delta, if there is one; that next state becomes a keyframe first,
// so no later state is lost.
func (r *RunDB) rekeyNext(ctx context.Context, tx *sql.Tx, ep int64, turn int) error {
	var blob []byte
	err := tx.QueryRowContext(ctx, `SELECT state FROM turn_states WHERE episode = ? AND turn = ?`, ep, turn+1).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && isKeyframe(blob)) {
		return nil
	}
	if err != nil {
		return err
	}
	raw, ml, err := r.chain(ctx, tx, ep, turn+1)
	if errors.Is(err, ErrState) || errors.Is(err, ErrNoState) {
		return nil // unreadable already: recording this turn cannot lose it
	}
	if err != nil {
		return err
	}
	if blob, err = encodeState(raw, ml, nil); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE turn_states SET key = ?, state = ? WHERE episode = ? AND turn = ?`, turn+1, blob, ep, turn+1)
	return err
}

// chain decodes the state stored for (ep, turn) in turn_states from its
// keyframe on.
func (r *RunDB) chain(ctx context.Context, q querier, ep int64, turn int) (raw []byte, machineLen int, err error) {
	rows, err := q.QueryContext(ctx, `SELECT turn, state FROM turn_states WHERE episode = ?1
		AND turn BETWEEN (SELECT key FROM turn_states WHERE episode = ?1 AND turn = ?2) AND ?2 ORDER BY turn`, ep, turn)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var d stateDecoder
	n, want := 0, 0
	for rows.Next() {
		var t int
		var blob []byte
		if err := rows.Scan(&t, &blob); err != nil {
			return nil, 0, err
		}
		if n > 0 && t != want {
			return nil, 0, fmt.Errorf("episode %d turn %d: %w: turn %d's state is missing", ep, turn, ErrState, want)
		}
		var prev []byte
		if !isKeyframe(blob) {
			prev = raw
			if n == 0 {
				prev = nil // the chain does not start at a keyframe
			}
		}
		if raw, machineLen, err = d.decode(blob, prev); err != nil {
			return nil, 0, fmt.Errorf("episode %d turn %d: %w", ep, t, err)
		}
		n, want = n+1, t+1
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if n == 0 || want != turn+1 {
		return nil, 0, fmt.Errorf("episode %d turn %d: %w", ep, turn, ErrNoState)
	}
	return raw, machineLen, nil
}

// fork reads an episode's parent and fork turn (0, 0 for a root).
func fork(ctx context.Context, q querier, ep int64) (parent int64, forkTurn int, err error) {
	var p, f sql.NullInt64
	err = q.QueryRowContext(ctx, `SELECT parent, fork_turn FROM episodes WHERE id = ?`, ep).Scan(&p, &f)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, fmt.Errorf("episode %d: %w", ep, ErrNoEpisode)
	}
	if err != nil {
		return 0, 0, err
	}
	return p.Int64, int(f.Int64), nil
}

// owner is the episode whose own turn is a branch's turn: the branch
// itself, or the ancestor it inherited the turn from.
func owner(ctx context.Context, q querier, ep int64, turn int) (int64, error) {
	for range maxDepth {
		parent, forkTurn, err := fork(ctx, q, ep)
		if err != nil {
			return 0, err
		}
		if parent == 0 || turn > forkTurn {
			return ep, nil
		}
		ep = parent
	}
	return 0, fmt.Errorf("episode %d: %w: its parents form a cycle", ep, ErrNoEpisode)
}

// stateIn is the state after turn on branch ep, read through q.
func (r *RunDB) stateIn(ctx context.Context, q querier, ep int64, turn int) (Checkpoint, error) {
	if turn < 1 {
		return Checkpoint{}, fmt.Errorf("state of episode %d at turn %d: %w", ep, turn, ErrNoTurn)
	}
	own, err := owner(ctx, q, ep, turn)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("state of episode %d at turn %d: %w", ep, turn, err)
	}
	cp := Checkpoint{Episode: ep, Turn: turn}
	raw, ml, err := r.chain(ctx, q, own, turn)
	if errors.Is(err, ErrNoState) {
		// A database from before every turn's state was kept holds the
		// last turn's in the checkpoint row.
		var saved string
		err2 := q.QueryRowContext(ctx, `SELECT machine, engine, saved_at FROM checkpoint WHERE story_md5 = ? AND episode = ? AND turn = ?`,
			r.story, own, turn).Scan(&cp.Machine, &cp.Engine, &saved)
		if err2 == nil {
			cp.Saved, _ = time.Parse(time.RFC3339Nano, saved)
			return cp, nil
		}
	}
	if err != nil {
		return Checkpoint{}, fmt.Errorf("state of episode %d at turn %d: %w", ep, turn, err)
	}
	cp.Machine, cp.Engine = raw[:ml:ml], raw[ml:]
	return cp, nil
}

// StateAt is the state after turn on branch episode, following the
// branch's parents for the turns it inherited. Checkpoint.Episode is the
// episode asked. A turn whose state was not kept is ErrNoState.
func (r *RunDB) StateAt(ctx context.Context, episode int64, turn int) (Checkpoint, error) {
	return r.stateIn(ctx, r.db, episode, turn)
}

// lastTurn is the last turn of branch ep: its own last recorded turn, or
// its fork turn while it has none.
func lastTurn(ctx context.Context, q querier, ep int64) (int, error) {
	_, forkTurn, err := fork(ctx, q, ep)
	if err != nil {
		return 0, err
	}
	var last sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT MAX(turn) FROM turns WHERE episode = ?`, ep).Scan(&last); err != nil {
		return 0, err
	}
	return max(int(last.Int64), forkTurn), nil
}

// Branch starts a branch of episode from after its turn: a new episodes
// row (parent from, fork_turn turn, named name, unnamed when ""; a name
// another branch of the episode has, compared as domain.BranchKey does,
// is domain.ErrBranchName) and, in
// the same transaction, the checkpoint row pointing at the new branch with
// the state after turn, so a session killed right after resumes the new
// branch at turn. It returns the new episode's ID.
func (r *RunDB) Branch(ctx context.Context, from int64, turn int, name string) (int64, error) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("branch episode %d at turn %d: %w", from, turn, err)
	}
	defer tx.Rollback()
	var story string
	var seed int
	err = tx.QueryRowContext(ctx, `SELECT story_md5, seed FROM episodes WHERE id = ?`, from).Scan(&story, &seed)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNoEpisode
	}
	if err != nil {
		return 0, fmt.Errorf("branch episode %d at turn %d: %w", from, turn, err)
	}
	last, err := lastTurn(ctx, tx, from)
	if err != nil {
		return 0, fmt.Errorf("branch episode %d at turn %d: %w", from, turn, err)
	}
	if turn < 1 || turn > last {
		return 0, fmt.Errorf("branch episode %d at turn %d: %w (it has turns 1 to %d)", from, turn, ErrNoTurn, last)
	}
	cp, err := r.stateIn(ctx, tx, from, turn)
	if err != nil {
		return 0, fmt.Errorf("branch: %w", err)
	}
	var branch any
	if name, err = domain.CleanBranchName(name); err != nil {
		return 0, fmt.Errorf("branch episode %d at turn %d: %w", from, turn, err)
	}
	if name != "" {
		if err := nameFree(ctx, tx, from, name); err != nil {
			return 0, fmt.Errorf("branch episode %d at turn %d: %w", from, turn, err)
		}
		branch = name
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO episodes (story_md5, seed, started_at, parent, fork_turn, branch) VALUES (?, ?, ?, ?, ?, ?)`,
		story, seed, now(), from, turn, branch)
	if err != nil {
		return 0, fmt.Errorf("branch episode %d at turn %d: %w", from, turn, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("branch episode %d at turn %d: %w", from, turn, err)
	}
	if _, err := tx.StmtContext(ctx, r.insCheckpoint).ExecContext(ctx, r.story, id, turn, cp.Machine, cp.Engine, now()); err != nil {
		return 0, fmt.Errorf("branch episode %d at turn %d: checkpoint: %w", from, turn, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("branch episode %d at turn %d: %w", from, turn, err)
	}
	return id, nil
}

// Activate points the checkpoint row at branch episode's last turn (its
// own last turn, or its fork turn while it has none): the branch a resumed
// session continues. An ended branch is not resumed (LastCheckpoint).
func (r *RunDB) Activate(ctx context.Context, episode int64) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("activate episode %d: %w", episode, err)
	}
	defer tx.Rollback()
	last, err := lastTurn(ctx, tx, episode)
	if err != nil {
		return fmt.Errorf("activate episode %d: %w", episode, err)
	}
	cp, err := r.stateIn(ctx, tx, episode, last)
	if err != nil {
		return fmt.Errorf("activate: %w", err)
	}
	if _, err := tx.StmtContext(ctx, r.insCheckpoint).ExecContext(ctx, r.story, episode, last, cp.Machine, cp.Engine, now()); err != nil {
		return fmt.Errorf("activate episode %d: %w", episode, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("activate episode %d: %w", episode, err)
	}
	return nil
}

// BranchTurns is branch episode's whole transcript in order: the turns it
// inherited (its parent's up to the fork, recursively), then its own. Each
// Turn's Episode is the row's own episode, so inherited turns are told
// apart.
func (r *RunDB) BranchTurns(ctx context.Context, episode int64) ([]Turn, error) {
	out, err := alongLine(ctx, r.db, episode, func(ep int64, after, upTo int) ([]Turn, error) {
		return r.turnsWhere(ctx, `WHERE episode = ? AND turn > ? AND turn <= ? ORDER BY turn`, ep, after, upTo)
	})
	if err != nil {
		return nil, fmt.Errorf("branch turns: %w", err)
	}
	return out, nil
}

// alongLine walks up branch episode's parents and gathers what each row
// holds of the line (own: its rows' items of turns after..upTo), the
// root's first: a branch's whole line, in order.
func alongLine[T any](ctx context.Context, q querier, episode int64, own func(ep int64, after, upTo int) ([]T, error)) ([]T, error) {
	var out []T
	limit, ep := math.MaxInt32, episode
	for range maxDepth {
		parent, forkTurn, err := fork(ctx, q, ep)
		if err != nil {
			return nil, err
		}
		items, err := own(ep, forkTurn, limit)
		if err != nil {
			return nil, err
		}
		out = append(items, out...)
		if parent == 0 {
			return out, nil
		}
		limit, ep = min(limit, forkTurn), parent
	}
	return nil, fmt.Errorf("episode %d: %w: its parents form a cycle", episode, ErrNoEpisode)
}

// Root is the root episode of episode's tree (episode itself for a root).
func (r *RunDB) Root(ctx context.Context, episode int64) (int64, error) {
	return rootIn(ctx, r.db, episode)
}

func rootIn(ctx context.Context, q querier, episode int64) (int64, error) {
	ep := episode
	for range maxDepth {
		parent, _, err := fork(ctx, q, ep)
		if err != nil {
			return 0, fmt.Errorf("root of episode %d: %w", episode, err)
		}
		if parent == 0 {
			return ep, nil
		}
		ep = parent
	}
	return 0, fmt.Errorf("root of episode %d: %w: its parents form a cycle", episode, ErrNoEpisode)
}

// BranchInfo is one branch of an episode's tree, from the line's own state:
// its last turn, score and moves are those after the last turn of its whole
// line (the turn it forked at while it has none of its own).
type BranchInfo struct {
	Episode    int64 // the root: the episode the person started
	ID, Parent int64 // Parent 0: the root
	ForkTurn   int
	Name       string // "" unnamed
	Turns      int    // the last turn's number (inherited turns count)
	Score      int    // the score after the last turn
	Moves      int    // the moves after the last turn
	Ended      bool
	Reason     string // how it ended ("" while it has not)
	Active     bool   // the checkpoint row points at it
	Started    time.Time
}

// Branches is the tree of root's episode (root may be any of its
// branches): the root first, then each branch followed by its own
// branches, siblings in the order they were made.
func (r *RunDB) Branches(ctx context.Context, root int64) ([]BranchInfo, error) {
	root, err := r.Root(ctx, root)
	if err != nil {
		return nil, err
	}
	rows, err := r.db.QueryContext(ctx, `WITH RECURSIVE tree(id) AS (SELECT ?2 UNION SELECT e.id FROM episodes e JOIN tree ON e.parent = tree.id)
		SELECT e.id, COALESCE(e.parent, 0), COALESCE(e.fork_turn, 0), COALESCE(e.branch, ''),
		e.started_at, e.ended_at IS NOT NULL, COALESCE(e.reason, ''),
		(SELECT MAX(turn) FROM turns WHERE turns.episode = e.id),
		COALESCE((SELECT score FROM turns WHERE turns.episode = e.id ORDER BY turn DESC LIMIT 1), e.score),
		COALESCE((SELECT moves FROM turns WHERE turns.episode = e.id ORDER BY turn DESC LIMIT 1), e.moves),
		EXISTS (SELECT 1 FROM checkpoint c WHERE c.story_md5 = ?1 AND c.episode = e.id)
		FROM episodes e WHERE e.id IN tree ORDER BY e.id`, r.story, root)
	if err != nil {
		return nil, fmt.Errorf("branches of episode %d: %w", root, err)
	}
	defer rows.Close()
	byID := map[int64]*BranchInfo{}
	children := map[int64][]int64{}
	scored := map[int64]bool{}
	for rows.Next() {
		var b BranchInfo
		var started string
		var last, score, moves sql.NullInt64
		if err := rows.Scan(&b.ID, &b.Parent, &b.ForkTurn, &b.Name, &started, &b.Ended, &b.Reason, &last, &score, &moves, &b.Active); err != nil {
			return nil, fmt.Errorf("branches of episode %d: %w", root, err)
		}
		b.Episode = root
		b.Started, _ = time.Parse(time.RFC3339Nano, started)
		b.Turns, b.Score, b.Moves = max(int(last.Int64), b.ForkTurn), int(score.Int64), int(moves.Int64)
		scored[b.ID] = last.Valid || score.Valid
		byID[b.ID] = &b
		children[b.Parent] = append(children[b.Parent], b.ID)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("branches of episode %d: %w", root, err)
	}
	var out []BranchInfo
	var walk func(id int64, depth int)
	walk = func(id int64, depth int) {
		b, ok := byID[id]
		if !ok || depth > maxDepth {
			return
		}
		delete(byID, id) // a corrupt cycle is walked once
		if !scored[id] && b.Parent != 0 {
			// A branch without turns of its own has the score and moves
			// it forked at.
			if sc, mv, err := r.standingAt(ctx, r.db, b.Parent, b.ForkTurn); err == nil {
				b.Score, b.Moves = sc, mv
			}
		}
		out = append(out, *b)
		kids := children[id]
		slices.Sort(kids)
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	walk(root, 0)
	return out, nil
}

// standingAt is the score and moves after turn on branch ep.
func (r *RunDB) standingAt(ctx context.Context, q querier, ep int64, turn int) (score, moves int, err error) {
	own, err := owner(ctx, q, ep, turn)
	if err != nil {
		return 0, 0, err
	}
	err = q.QueryRowContext(ctx, `SELECT score, moves FROM turns WHERE episode = ? AND turn = ?`, own, turn).Scan(&score, &moves)
	return score, moves, err
}

// Line is the branch's line of play.
func (b BranchInfo) Line() domain.Line {
	return domain.Line{Episode: b.Episode, ID: b.ID, Name: b.Name, Parent: b.Parent, ForkTurn: b.ForkTurn}
}
