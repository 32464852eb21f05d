package rundb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// stateOf is the state the tests record for a turn of a branch: the same
// turn of different branches differs.
func stateOf(ep int64, turn int) Checkpoint {
	m, e := fakeState(turn, 4000+40*turn)
	m[0] = byte(ep)
	return Checkpoint{Machine: m, Engine: e}
}

func record(t *testing.T, db *RunDB, ep int64, from, to int) {
	t.Helper()
	for i := from; i <= to; i++ {
		cp := stateOf(ep, i)
		if err := db.RecordTurn(context.Background(), Turn{Episode: ep, Turn: i, Actor: "agent", Action: fmt.Sprintf("e%d t%d", ep, i),
			Verdicts: "[]", Score: i, Checkpoint: &cp}); err != nil {
			t.Fatal(err)
		}
	}
}

// wantState checks StateAt(ep, turn) against the state recorded for
// (owner, turn).
func wantState(t *testing.T, db *RunDB, ep int64, turn int, owner int64) {
	t.Helper()
	got, err := db.StateAt(context.Background(), ep, turn)
	if err != nil {
		t.Fatalf("StateAt(%d, %d): %v", ep, turn, err)
	}
	want := stateOf(owner, turn)
	if got.Episode != ep || got.Turn != turn || !bytes.Equal(got.Machine, want.Machine) || !bytes.Equal(got.Engine, want.Engine) {
		t.Fatalf("StateAt(%d, %d) = episode %d turn %d, %d+%d bytes; want the state of episode %d's turn", ep, turn, got.Episode, got.Turn,
			len(got.Machine), len(got.Engine), owner)
	}
}

func openTestDB(t *testing.T) (*RunDB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lantern.db")
	db, err := OpenRunDB(path, "abc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

func TestEveryTurnsStateIsKept(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t)
	ep, err := db.StartEpisode(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	record(t, db, ep, 1, 100)
	for turn := 1; turn <= 100; turn++ {
		wantState(t, db, ep, turn, ep)
	}
	// Keyframes: the first turn, then every keyEvery turns.
	rows, err := db.db.QueryContext(ctx, `SELECT turn, key, state FROM turn_states WHERE episode = ? ORDER BY turn`, ep)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var keys []int
	for rows.Next() {
		var turn, key int
		var blob []byte
		rows.Scan(&turn, &key, &blob)
		if isKeyframe(blob) != (key == turn) || turn-key >= keyEvery {
			t.Errorf("turn %d: key %d, keyframe %v", turn, key, isKeyframe(blob))
		}
		if key == turn {
			keys = append(keys, turn)
		}
	}
	if want := []int{1, 1 + keyEvery, 1 + 2*keyEvery, 1 + 3*keyEvery}; !slices.Equal(keys, want) {
		t.Errorf("keyframes at %v, want %v", keys, want)
	}
	if _, err := db.StateAt(ctx, ep, 101); !errors.Is(err, ErrNoState) {
		t.Errorf("a turn not played: %v, want ErrNoState", err)
	}
	if _, err := db.StateAt(ctx, ep+1, 1); !errors.Is(err, ErrNoEpisode) {
		t.Errorf("an episode not played: %v, want ErrNoEpisode", err)
	}
	// A turn recorded without a checkpoint has no state.
	if err := db.RecordTurn(ctx, Turn{Episode: ep, Turn: 101, Actor: "agent", Action: "x", Verdicts: "[]"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.StateAt(ctx, ep, 101); !errors.Is(err, ErrNoState) {
		t.Errorf("a turn without a checkpoint: %v, want ErrNoState", err)
	}
}

func TestBranchesShareTheirParentsTurns(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t)
	e, _ := db.StartEpisode(ctx, 7)
	record(t, db, e, 1, 50)
	before, _ := db.Turns(ctx, e)

	b, err := db.Branch(ctx, e, 20, "east")
	if err != nil {
		t.Fatal(err)
	}
	// The checkpoint names the new branch at its fork, before it plays.
	cp, ok, err := db.LastCheckpoint(ctx)
	if err != nil || !ok || cp.Episode != b || cp.Turn != 20 || !bytes.Equal(cp.Engine, stateOf(e, 20).Engine) {
		t.Fatalf("checkpoint after Branch = episode %d turn %d ok %v, %v; want %d, 20", cp.Episode, cp.Turn, ok, err, b)
	}
	record(t, db, b, 21, 30)
	c, err := db.Branch(ctx, b, 25, "")
	if err != nil {
		t.Fatal(err)
	}
	record(t, db, c, 26, 27)
	d, err := db.Branch(ctx, b, 15, "early") // at a turn b inherited
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		ep    int64
		turn  int
		owner int64
	}{{b, 1, e}, {b, 20, e}, {b, 21, b}, {b, 30, b}, {c, 10, e}, {c, 25, b}, {c, 27, c}, {d, 15, e}, {e, 21, e}, {e, 50, e}} {
		wantState(t, db, tc.ep, tc.turn, tc.owner)
	}
	if _, err := db.StateAt(ctx, d, 16); !errors.Is(err, ErrNoState) {
		t.Errorf("a branch's turn after its fork, not played: %v", err)
	}

	// Transcripts: the inherited turns keep their own episode.
	owners := func(ts []Turn) string {
		var s string
		for i, tr := range ts {
			if i == 0 || tr.Episode != ts[i-1].Episode {
				s += fmt.Sprintf(" %d:", tr.Episode)
			}
			if tr.Turn != i+1 {
				return fmt.Sprintf("turn %d at %d", tr.Turn, i)
			}
			s += fmt.Sprintf("%d,", tr.Turn)
		}
		return s
	}
	for _, tc := range []struct {
		ep            int64
		first, second int
	}{{e, 50, 0}, {b, 20, 10}, {d, 15, 0}} {
		ts, err := db.BranchTurns(ctx, tc.ep)
		if err != nil || len(ts) != tc.first+tc.second || ts[0].Episode != e || ts[len(ts)-1].Episode != tc.ep && tc.second > 0 {
			t.Errorf("BranchTurns(%d): %d turns, %v:%s", tc.ep, len(ts), err, owners(ts))
		}
		if got := owners(ts); len(ts) > 0 && got[:2] != fmt.Sprintf(" %d", e)[:2] {
			t.Errorf("BranchTurns(%d) = %s", tc.ep, got)
		}
	}
	ts, _ := db.BranchTurns(ctx, c)
	want := fmt.Sprintf(" %d:", e)
	for i := 1; i <= 20; i++ {
		want += fmt.Sprintf("%d,", i)
	}
	want += fmt.Sprintf(" %d:21,22,23,24,25, %d:26,27,", b, c)
	if got := owners(ts); got != want {
		t.Errorf("BranchTurns(c) =%s\nwant%s", got, want)
	}
	// The old branch is unchanged.
	if after, _ := db.Turns(ctx, e); !reflect.DeepEqual(before, after) {
		t.Error("branching changed the parent's turns")
	}

	// The tree, depth first, siblings by creation.
	tree, err := db.Branches(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, bi := range tree {
		got = append(got, fmt.Sprintf("%d<%d@%d %q turns %d score %d active %v", bi.ID, bi.Parent, bi.ForkTurn, bi.Name, bi.Turns, bi.Score, bi.Active))
	}
	wantTree := []string{
		fmt.Sprintf("%d<0@0 \"\" turns 50 score 50 active false", e),
		fmt.Sprintf("%d<%d@20 \"east\" turns 30 score 30 active false", b, e),
		fmt.Sprintf("%d<%d@25 \"\" turns 27 score 27 active false", c, b),
		fmt.Sprintf("%d<%d@15 \"early\" turns 15 score 15 active true", d, b),
	}
	if !slices.Equal(got, wantTree) {
		t.Errorf("Branches =\n%q\nwant\n%q", got, wantTree)
	}
	for _, ep := range []int64{e, b, c, d} {
		if r, err := db.Root(ctx, ep); err != nil || r != e {
			t.Errorf("Root(%d) = %d, %v", ep, r, err)
		}
	}

	// Switching branches.
	if err := db.Activate(ctx, c); err != nil {
		t.Fatal(err)
	}
	if cp, ok, _ := db.LastCheckpoint(ctx); !ok || cp.Episode != c || cp.Turn != 27 || !bytes.Equal(cp.Machine, stateOf(c, 27).Machine) {
		t.Errorf("after Activate(c): episode %d turn %d", cp.Episode, cp.Turn)
	}
	if err := db.Activate(ctx, d); err != nil {
		t.Fatal(err)
	}
	if cp, ok, _ := db.LastCheckpoint(ctx); !ok || cp.Episode != d || cp.Turn != 15 || !bytes.Equal(cp.Machine, stateOf(e, 15).Machine) {
		t.Errorf("after Activate(d): episode %d turn %d", cp.Episode, cp.Turn)
	}

	// Listings show the tree.
	eps, err := db.Episodes(ctx)
	if err != nil || len(eps) != 4 || eps[1].Parent != e || eps[1].ForkTurn != 20 || eps[1].Branch != "east" || eps[0].Parent != 0 {
		t.Errorf("Episodes = %+v, %v", eps, err)
	}
	sums, err := db.EpisodeSummaries(ctx)
	if err != nil || len(sums) != 4 || sums[0].ID != d || sums[0].Parent != b || sums[0].ForkTurn != 15 || sums[0].Branch != "early" ||
		sums[0].Turns != 15 || sums[2].ID != b || sums[2].Turns != 30 {
		t.Errorf("EpisodeSummaries = %+v, %v", sums, err)
	}

	for _, tc := range []struct {
		from int64
		turn int
		want error
	}{{e, 0, ErrNoTurn}, {e, 51, ErrNoTurn}, {b, 31, ErrNoTurn}, {d, 16, ErrNoTurn}, {99, 1, ErrNoEpisode}} {
		if _, err := db.Branch(ctx, tc.from, tc.turn, ""); !errors.Is(err, tc.want) {
			t.Errorf("Branch(%d, %d) = %v, want %v", tc.from, tc.turn, err, tc.want)
		}
	}
	if cp, _, _ := db.LastCheckpoint(ctx); cp.Episode != d {
		t.Errorf("a refused branch moved the checkpoint to %d", cp.Episode)
	}
	// Another episode is a tree of its own.
	f, _ := db.StartEpisode(ctx, 8)
	record(t, db, f, 1, 2)
	// Starting it closed nothing: the first tree's lines stay unfinished,
	// the new one is played last.
	if tree, err := db.Branches(ctx, e); err != nil || len(tree) != 4 || tree[3].Active || tree[3].Ended || tree[3].Reason != "" {
		t.Errorf("the first tree after another episode started: %+v, %v", tree, err)
	}
	if open, err := db.Unfinished(ctx); err != nil || len(open) < 2 || open[0].ID != f || !slices.ContainsFunc(open, func(b BranchInfo) bool { return b.ID == d }) {
		t.Errorf("Unfinished = %+v, %v; want #%d first and #%d among them", open, err, f, d)
	}
	if tree, err := db.Branches(ctx, f); err != nil || len(tree) != 1 || tree[0].ID != f || !tree[0].Active {
		t.Errorf("the second tree: %+v, %v", tree, err)
	}
}

// TestRecordingATurnAgainKeepsLaterStates: a turn recorded again (a
// resumed session) with another state leaves every later turn's state
// readable.
func TestRecordingATurnAgainKeepsLaterStates(t *testing.T) {
	ctx := context.Background()
	db, path := openTestDB(t)
	ep, _ := db.StartEpisode(ctx, 1)
	record(t, db, ep, 1, 12)
	other := stateOf(ep+5, 10)
	if err := db.RecordTurn(ctx, Turn{Episode: ep, Turn: 10, Actor: "agent", Action: "x", Verdicts: "[]", Checkpoint: &other}); err != nil {
		t.Fatal(err)
	}
	if got, err := db.StateAt(ctx, ep, 10); err != nil || !bytes.Equal(got.Machine, other.Machine) {
		t.Fatalf("the turn recorded again: %v", err)
	}
	for _, turn := range []int{9, 11, 12} {
		wantState(t, db, ep, turn, ep)
	}
	// After a restart the next turn is a keyframe; all stay readable.
	db.Close()
	db2, err := OpenRunDB(path, "abc")
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	record(t, db2, ep, 13, 15)
	for _, turn := range []int{1, 12, 13, 15} {
		wantState(t, db2, ep, turn, ep)
	}
	var key int
	db2.db.QueryRow(`SELECT key FROM turn_states WHERE episode = ? AND turn = 13`, ep).Scan(&key)
	if key != 13 {
		t.Errorf("the first turn after a restart has key %d, want 13", key)
	}
}

func TestCorruptOrMissingStates(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t)
	ep, _ := db.StartEpisode(ctx, 1)
	record(t, db, ep, 1, 8)
	db.db.Exec(`UPDATE turn_states SET state = X'4400' WHERE episode = ? AND turn = 4`, ep)
	db.db.Exec(`DELETE FROM turn_states WHERE episode = ? AND turn = 6`, ep)
	for _, tc := range []struct {
		turn int
		want error
	}{{3, nil}, {4, ErrState}, {5, ErrState}, {6, ErrNoState}, {7, ErrState}, {8, ErrState}} {
		_, err := db.StateAt(ctx, ep, tc.turn)
		if (tc.want == nil && err != nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("turn %d: %v, want %v", tc.turn, err, tc.want)
		}
	}
	// Recording a turn again before a corrupt state still records it.
	cp := stateOf(ep, 3)
	if err := db.RecordTurn(ctx, Turn{Episode: ep, Turn: 3, Actor: "agent", Action: "x", Verdicts: "[]", Checkpoint: &cp}); err != nil {
		t.Fatalf("recording turn 3 again: %v", err)
	}
	wantState(t, db, ep, 3, ep)
	record(t, db, ep, 8, 8) // the checkpoint back at turn 8
	// A database written before every turn's state was kept has only the
	// checkpoint: its turn is there, the others are not.
	db.db.Exec(`DELETE FROM turn_states`)
	wantState(t, db, ep, 8, ep)
	if _, err := db.StateAt(ctx, ep, 7); !errors.Is(err, ErrNoState) {
		t.Errorf("turn 7 of an old database: %v", err)
	}
	if _, err := db.Branch(ctx, ep, 7, ""); !errors.Is(err, ErrNoState) {
		t.Errorf("branch at a turn without its state: %v", err)
	}
	if id, err := db.Branch(ctx, ep, 8, ""); err != nil || id != ep+1 {
		t.Errorf("branch at the checkpoint's turn: %d, %v", id, err)
	}
}

// TestStatesReadWhileRecorded: a reader (the timeline) asks for states and
// transcripts while the turns are recorded.
func TestStatesReadWhileRecorded(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t)
	ep, _ := db.StartEpisode(ctx, 1)
	record(t, db, ep, 1, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 2; i <= 60; i++ {
			cp := stateOf(ep, i)
			if err := db.RecordTurn(ctx, Turn{Episode: ep, Turn: i, Actor: "agent", Action: "a", Verdicts: "[]", Checkpoint: &cp}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		ts, err := db.BranchTurns(ctx, ep)
		if err != nil || len(ts) == 0 {
			t.Fatalf("%d turns, %v", len(ts), err)
		}
		wantState(t, db, ep, len(ts), ep)
	}
	wantState(t, db, ep, 60, ep)
}

// A branch's reviews are its line's: its parent's up to the fork, then
// its own; the parent's reviews of later turns stay the parent's.
func TestBranchReviewsFollowTheLine(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t)
	e, _ := db.StartEpisode(ctx, 7)
	record(t, db, e, 1, 10)
	for _, turn := range []int{3, 8} {
		if err := db.RecordReviews(ctx, e, turn, []Review{{Proposal: fmt.Sprintf("p%d", turn), Decision: "accept"}}); err != nil {
			t.Fatal(err)
		}
	}
	b, err := db.Branch(ctx, e, 5, "")
	if err != nil {
		t.Fatal(err)
	}
	record(t, db, b, 6, 9)
	if err := db.RecordReviews(ctx, b, 8, []Review{{Proposal: "mine", Decision: "reject", Reason: "no"}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ep   int64
		want []string
	}{
		{e, []string{"p3", "p8"}},
		{b, []string{"p3", "mine"}},
	} {
		rs, err := db.BranchReviews(ctx, tc.ep)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rs {
			got = append(got, r.Proposal)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("BranchReviews(%d) = %v, want %v", tc.ep, got, tc.want)
		}
	}
}
