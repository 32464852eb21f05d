package rundb

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// holdLock takes lantern.db's write lock on another connection and keeps
// it for d (forever when d is 0: the returned func releases it).
func holdLock(t *testing.T, path string, d time.Duration) (release func()) {
	t.Helper()
	other, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	release = func() {
		select {
		case <-done:
			return
		default:
			close(done)
		}
		conn.ExecContext(context.Background(), "COMMIT")
		conn.Close()
		other.Close()
	}
	if d > 0 {
		time.AfterFunc(d, release)
	}
	t.Cleanup(release)
	return release
}

func openFaultDB(t *testing.T) (*RunDB, string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lantern.db")
	db, err := OpenRunDB(path, "abc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ep, err := db.StartEpisode(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	return db, path, ep
}

// TestRecordTurnOutlastsA6sLock: another connection holds the write lock
// for 6 s, longer than SQLite's busy timeout; the turn is recorded after a
// retry.
func TestRecordTurnOutlastsA6sLock(t *testing.T) {
	t.Parallel() // waits on children or a held lock, not on the processor
	if testing.Short() {
		t.Skip("holds a lock for 6 s")
	}
	db, path, ep := openFaultDB(t)
	holdLock(t, path, 6*time.Second)
	start := time.Now()
	if err := db.RecordTurn(context.Background(), Turn{Episode: ep, Turn: 10, Actor: "agent", Action: "n", Verdicts: "[]"}); err != nil {
		t.Fatalf("after %v: %v", time.Since(start), err)
	}
	turns, err := db.Turns(context.Background(), ep)
	if err != nil || len(turns) != 1 || turns[0].Turn != 10 {
		t.Fatalf("turns %+v, %v", turns, err)
	}
	t.Logf("recorded after %v", time.Since(start).Round(time.Millisecond))
}

// TestRecordTurnGivesUpOnAHeldLock: a lock held past the retry budget is
// an error that says so.
func TestRecordTurnGivesUpOnAHeldLock(t *testing.T) {
	t.Parallel() // waits on children or a held lock, not on the processor
	if testing.Short() {
		t.Skip("waits for SQLite's busy timeout")
	}
	db, path, ep := openFaultDB(t)
	db.SetRecordRetry(time.Second, 50*time.Millisecond, 2)
	holdLock(t, path, 0)
	err := db.RecordTurn(context.Background(), Turn{Episode: ep, Turn: 1, Actor: "agent", Action: "n", Verdicts: "[]"})
	if err == nil || !isBusy(err) {
		t.Fatalf("err = %v, want a busy database", err)
	}
}

// TestRecordTurnNoticesTheDatabaseGone: lantern.db removed (or replaced)
// while open is an error, not turns written to an unlinked file.
func TestRecordTurnNoticesTheDatabaseGone(t *testing.T) {
	for _, replace := range []bool{false, true} {
		db, path, ep := openFaultDB(t)
		if err := db.RecordTurn(context.Background(), Turn{Episode: ep, Turn: 1, Actor: "agent", Action: "n", Verdicts: "[]"}); err != nil {
			t.Fatal(err)
		}
		os.Remove(path)
		if replace {
			os.WriteFile(path, nil, 0o644)
		}
		err := db.RecordTurn(context.Background(), Turn{Episode: ep, Turn: 2, Actor: "agent", Action: "n", Verdicts: "[]"})
		if !errors.Is(err, ErrDatabaseGone) {
			t.Errorf("replace %v: err = %v, want ErrDatabaseGone", replace, err)
		}
	}
}
