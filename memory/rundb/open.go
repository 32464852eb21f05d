package rundb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ErrForeign: the file at the database's path is an SQLite database that is
// not Lantern's (tables Lantern never creates); it is refused untouched.
var ErrForeign = errors.New("not a Lantern run database")

// dsn is the driver's name for the database file at path: a file: URI whose
// path is percent-encoded byte by byte, so no character of a directory's
// name ('?', '#', '%', a space, a non-ASCII letter) is read as URI syntax.
// The busy timeout is the only parameter.
func dsn(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	abs = filepath.ToSlash(abs)
	var b strings.Builder
	b.WriteString("file:")
	if !strings.HasPrefix(abs, "/") {
		b.WriteByte('/') // a drive letter: file:/C:/dir
	}
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(abs); i++ {
		c := abs[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '/', c == ':' && i > 0:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	b.WriteString("?_pragma=busy_timeout(5000)")
	return b.String(), nil
}

// createTable finds the tables the migration steps create.
var createTable = regexp.MustCompile(`(?i)CREATE TABLE IF NOT EXISTS\s+(\w+)`)

// lanternTables are the tables some migration step creates.
func lanternTables() []string {
	var names []string
	for _, m := range migrations {
		for _, sm := range createTable.FindAllStringSubmatch(m.sql, -1) {
			names = append(names, strings.ToLower(sm[1]))
		}
	}
	return names
}

// checkOwn refuses a database holding a table no migration step creates:
// someone else's database, which Lantern must neither add its tables to nor
// switch to its journal mode. It only reads.
func checkOwn(ctx context.Context, db *sql.DB, path string) error {
	names, err := queryAll(ctx, db, fmt.Sprintf("open run database %q", path), scanOne[string],
		`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`)
	if err != nil {
		return err
	}
	ours := lanternTables()
	var foreign []string
	for _, name := range names {
		if !slices.Contains(ours, strings.ToLower(name)) {
			foreign = append(foreign, name)
		}
	}
	if len(foreign) > 0 {
		if len(foreign) > 3 {
			foreign = append(foreign[:3], "…")
		}
		return fmt.Errorf("open run database %q: %w (it has tables %s); move it aside or give Lantern another --workdir", path, ErrForeign, strings.Join(foreign, ", "))
	}
	return nil
}
