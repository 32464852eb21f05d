package rundb

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// lantern.db lands inside the work dir whatever characters its path holds:
// none is read as URI syntax.
func TestOpenPathCharactersArePath(t *testing.T) {
	tests := []struct{ name, dir string }{
		{"question mark", "W?x"},
		{"hash", "W#x"},
		{"percent", "W%x"},
		{"percent escape", "W%41x"},
		{"space", "my work"},
		{"unicode", "Zörk — 森"},
		{"uri-like", "file:a?mode=ro&vfs=x"},
		{"all", "a?b#c%d e&f=g"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, tc.dir)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "lantern.db")
			db, err := OpenRunDB(path, "abc")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.StartEpisode(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			db.Close()
			if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
				t.Fatalf("lantern.db is not inside %q: %v", dir, err)
			}
			// Nothing else appeared beside the work dir.
			entries, _ := os.ReadDir(parent)
			if len(entries) != 1 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Fatalf("the parent holds %q, want only the work dir", names)
			}
		})
	}
}

// Someone else's SQLite database at lantern.db is refused and left byte for
// byte as it was.
func TestOpenRefusesForeignDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lantern.db")
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(`CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5);`); err != nil {
		t.Fatal(err)
	}
	other.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenRunDB(path, "abc")
	if err == nil {
		db.Close()
		t.Fatal("a foreign database was opened")
	}
	if !errors.Is(err, ErrForeign) {
		t.Fatalf("error %v, want ErrForeign", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("the foreign database changed")
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("a WAL file was created beside the foreign database")
	}
}

// A file that is not SQLite at all is refused untouched too.
func TestOpenRefusesNonDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lantern.db")
	junk := bytes.Repeat([]byte("not a database "), 400)
	if err := os.WriteFile(path, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	if db, err := OpenRunDB(path, "abc"); err == nil {
		db.Close()
		t.Fatal("a non-database was opened")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, junk) {
		t.Fatal("the file changed")
	}
}

// Lantern's own database opens again, and one from before the schema was
// versioned (version 0, some of Lantern's tables) is upgraded.
func TestOpenAcceptsOwnDatabases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lantern.db")
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(schema); err != nil {
		t.Fatal(err)
	}
	old.Close()
	for range 2 {
		db, err := OpenRunDB(path, "abc")
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
}
