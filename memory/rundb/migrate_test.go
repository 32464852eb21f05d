package rundb

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// releaseDB is a lantern.db written by the release before the schema was
// versioned (user_version 0): one ended episode of three turns with a
// checkpoint, a review, a supervisor round, two notes and a bench run, for
// the story "md5-zork1".
const releaseDB = "testdata/lantern-release.db"

func copyFixture(t *testing.T, from string) string {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(t.TempDir(), "lantern.db")
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return to
}

func rawVersion(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestReleaseDatabaseUpgradesInPlace(t *testing.T) {
	orig, err := os.ReadFile(releaseDB)
	if err != nil {
		t.Fatal(err)
	}
	path := copyFixture(t, releaseDB)
	if v := rawVersion(t, path); v != 0 {
		t.Fatalf("fixture version = %d, want 0 (written before versioning)", v)
	}
	ctx := context.Background()
	db, err := OpenRunDB(path, "md5-zork1")
	if err != nil {
		t.Fatalf("open release database: %v", err)
	}
	if v, err := db.Version(ctx); err != nil || v != SchemaVersion {
		t.Fatalf("version after upgrade = %d, %v; want %d", v, err, SchemaVersion)
	}
	eps, err := db.Episodes(ctx)
	if err != nil || len(eps) != 1 || eps[0].Score != 15 || eps[0].Turns != 3 || eps[0].Reason != "quit" {
		t.Fatalf("episodes after upgrade = %+v, %v", eps, err)
	}
	turns, err := db.Turns(ctx, eps[0].ID)
	if err != nil || len(turns) != 3 || turns[2].Location != "Forest" {
		t.Fatalf("turns after upgrade = %d, %v", len(turns), err)
	}
	notes, err := db.TopNotes(ctx, 10)
	if err != nil || len(notes) != 2 {
		t.Fatalf("notes after upgrade = %+v, %v", notes, err)
	}
	if rs, err := db.Reviews(ctx, eps[0].ID); err != nil || len(rs) != 1 || rs[0].Decision != "accept" {
		t.Fatalf("reviews after upgrade = %+v, %v", rs, err)
	}
	if rds, err := db.Rounds(ctx); err != nil || len(rds) != 1 {
		t.Fatalf("rounds after upgrade = %+v, %v", rds, err)
	}
	if bs, err := db.BenchRuns(ctx); err != nil || len(bs) != 1 || bs[0].Label != "base" {
		t.Fatalf("bench runs after upgrade = %+v, %v", bs, err)
	}
	// The new step's column is there and works on the old rows.
	if _, err := db.db.ExecContext(ctx, `UPDATE notes SET edited_at = 'x' WHERE id = ?`, notes[0].ID); err != nil {
		t.Fatalf("edited_at after upgrade: %v", err)
	}
	// An episode of the release is a root; it kept no turn states, so it
	// cannot be rewound, and says so.
	if eps[0].Parent != 0 || eps[0].ForkTurn != 0 || eps[0].Branch != "" {
		t.Fatalf("an old episode is a branch: %+v", eps[0])
	}
	if _, err := db.StateAt(ctx, eps[0].ID, 2); !errors.Is(err, ErrNoState) {
		t.Fatalf("state of an old turn: %v, want ErrNoState", err)
	}
	if _, err := db.Branch(ctx, eps[0].ID, 2, "x"); !errors.Is(err, ErrNoState) {
		t.Fatalf("branch of an old episode: %v, want ErrNoState", err)
	}
	if tree, err := db.Branches(ctx, eps[0].ID); err != nil || len(tree) != 1 || tree[0].Turns != 3 || tree[0].Score != 15 || !tree[0].Ended {
		t.Fatalf("tree of an old episode: %+v, %v", tree, err)
	}
	// The upgraded database keeps working: a new episode is numbered after the old one.
	if id, err := db.StartEpisode(ctx, 1); err != nil || id != eps[0].ID+1 {
		t.Fatalf("new episode after upgrade = %d, %v", id, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Opening again applies nothing.
	db, err = OpenRunDB(path, "md5-zork1")
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	db.Close()
	if v := rawVersion(t, path); v != SchemaVersion {
		t.Fatalf("version on disk = %d, want %d", v, SchemaVersion)
	}
	if now, _ := os.ReadFile(releaseDB); !bytes.Equal(now, orig) {
		t.Fatal("the fixture itself was changed")
	}
}

// Every intermediate version upgrades to the current one.
func TestEveryVersionUpgrades(t *testing.T) {
	ctx := context.Background()
	for from := 0; from <= SchemaVersion; from++ {
		t.Run(fmt.Sprint("from", from), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "lantern.db")
			raw, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			for i := range from {
				if _, err := raw.Exec(migrations[i].sql); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := raw.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, from)); err != nil {
				t.Fatal(err)
			}
			raw.Close()
			db, err := OpenRunDB(path, "s")
			if err != nil {
				t.Fatalf("open at version %d: %v", from, err)
			}
			defer db.Close()
			if v, _ := db.Version(ctx); v != SchemaVersion {
				t.Fatalf("version = %d, want %d", v, SchemaVersion)
			}
			if _, _, err := db.Remember(ctx, Note{Content: "a note"}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestNewerDatabaseIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lantern.db")
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(fmt.Sprintf(`CREATE TABLE future (x); PRAGMA user_version = %d`, SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	before, _ := os.ReadFile(path)

	_, err = OpenRunDB(path, "s")
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("open newer database: err = %v, want ErrNewerSchema", err)
	}
	var se *SchemaError
	if !errors.As(err, &se) || se.Have != SchemaVersion+1 || se.Want != SchemaVersion || se.Path != path {
		t.Fatalf("schema error = %+v", se)
	}
	if v := rawVersion(t, path); v != SchemaVersion+1 {
		t.Fatalf("version changed to %d", v)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("a refused database was written to")
	}
	if !strings.Contains(err.Error(), "upgrade Lantern") {
		t.Errorf("the error does not say what to do: %v", err)
	}
	raw, _ = sql.Open("sqlite", "file:"+path)
	defer raw.Close()
	var n int
	if err := raw.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'episodes'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a refused database got tables: %d, %v", n, err)
	}
}

func TestFreshDatabaseIsCurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lantern.db")
	db, err := OpenRunDB(path, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.Version(context.Background()); err != nil || v != SchemaVersion || SchemaVersion < 2 {
		t.Fatalf("fresh version = %d, %v (SchemaVersion %d)", v, err, SchemaVersion)
	}
}
