package session

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine"
)

// playZorkKept plays Zork I's whole walkthrough by script with a
// checkpoint every turn, in a session on dir, and returns the session (its
// engine has stopped) and the number of turns played.
func playZorkKept(t testing.TB, dir string) (*Session, int) {
	t.Helper()
	story, _ := zork(t)
	cmds := walkthrough(t)
	agent, err := engine.NewScriptAgent(strings.NewReader(strings.Join(cmds, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := Open(Options{Story: story, Name: "zork1.z3", Binding: zorkBinding(t), WorkDir: dir,
		Agent: agent, Autosave: true, Engine: engine.Config{Seed: 12}})
	if err != nil {
		t.Fatal(err)
	}
	go sess.Engine.Run(context.Background())
	for ev := range sess.Engine.Events() {
		if e, ok := ev.(engine.ErrorEvent); ok {
			t.Errorf("error: %v", e.Err)
		}
	}
	turns, err := sess.DB.Turns(context.Background(), 1)
	if err != nil || len(turns) != len(cmds) {
		t.Fatalf("the database holds %d turns, want %d (%v)", len(turns), len(cmds), err)
	}
	return sess, len(turns)
}

// BenchmarkRewind: from the end of Zork I's walkthrough (turn 396) back to
// turn 20: the state read from lantern.db and restored into the machine
// and the engine, as a rewind does (goal: at most 5 ms). "longest" is the
// turn whose state decodes the longest chain of deltas.
func BenchmarkRewind(b *testing.B) {
	sess, _ := playZorkKept(b, b.TempDir())
	defer sess.Close()
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		turn int
	}{{"to20", 20}, {"longest", 32}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				cp, err := sess.DB.StateAt(ctx, 1, bc.turn)
				if err != nil {
					b.Fatal(err)
				}
				obs, err := sess.Env.RestoreState(cp.Machine, cp.Turn)
				if err != nil {
					b.Fatal(err)
				}
				if err := sess.Engine.ResumeFrom(cp.Machine, cp.Engine); err != nil {
					b.Fatal(err)
				}
				if obs.Turn != bc.turn {
					b.Fatalf("restored turn %d", obs.Turn)
				}
			}
		})
	}
}

// TestRewoundStateIsTheTurnsState: the state kept for an early turn,
// restored, is the machine as it was after that turn (its score, moves
// and room), and the walkthrough played on from it matches what was played
// then.
func TestRewoundStateIsTheTurnsState(t *testing.T) {
	sess, _ := playZorkKept(t, t.TempDir())
	defer sess.Close()
	ctx := context.Background()
	turns, _ := sess.DB.Turns(ctx, 1)
	for _, at := range []int{1, 20, 33, 200, len(turns)} {
		cp, err := sess.DB.StateAt(ctx, 1, at)
		if err != nil {
			t.Fatal(err)
		}
		obs, err := sess.Env.RestoreState(cp.Machine, cp.Turn)
		if err != nil {
			t.Fatal(err)
		}
		tr := turns[at-1]
		if obs.Score != tr.Score || obs.Moves != tr.Moves || obs.Location.ID != tr.LocationID {
			t.Errorf("turn %d restored: score %d moves %d room %d; recorded %d %d %d", at, obs.Score, obs.Moves, obs.Location.ID,
				tr.Score, tr.Moves, tr.LocationID)
		}
		if at < len(turns) {
			next, err := sess.Env.Step(turns[at].Action)
			if err != nil || next.Score != turns[at].Score || next.Location.ID != turns[at].LocationID {
				t.Errorf("turn %d played again from turn %d's state: score %d room %d, recorded %d %d (%v)", at+1, at,
					next.Score, next.Location.ID, turns[at].Score, turns[at].LocationID, err)
			}
		}
	}
}

// TestKeptStatesGrowTheDatabaseLittle: lantern.db grows at most 2 KB a turn
// on Zork I's walkthrough with every turn's state kept.
func TestKeptStatesGrowTheDatabaseLittle(t *testing.T) {
	dir := t.TempDir()
	story, _ := zork(t)
	empty, err := Open(Options{Story: story, Name: "zork1.z3", Binding: zorkBinding(t), WorkDir: dir, Agent: recording("look"), Autosave: true})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(empty.Dir, "lantern.db")
	empty.Close()
	before, _ := dbSize(t, path)
	sess, n := playZorkKept(t, dir)
	sess.Close()
	after, states := dbSize(t, path)
	perTurn := float64(after-before) / float64(n)
	t.Logf("lantern.db: %d bytes before, %d after %d turns: %.0f bytes a turn (turn states %.0f bytes a turn)",
		before, after, n, perTurn, float64(states)/float64(n))
	if perTurn > 2048 {
		t.Errorf("lantern.db grew %.0f bytes a turn, want at most 2048", perTurn)
	}
}

// dbSize is the database's size once its write-ahead log is folded in,
// and the bytes of its turn states.
func dbSize(t *testing.T, path string) (size, states int64) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT COALESCE(SUM(LENGTH(state)), 0) FROM turn_states`).Scan(&states); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			size += fi.Size()
		}
	}
	return size, states
}
