package rundb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSchemaDocumented: docs/lantern-db.md gives the current schema
// version and, under a heading per table, every column of every table a
// fresh database has, and no table that is not there.
func TestSchemaDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "lantern-db.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	if want := fmt.Sprintf("Schema version: **%d**", SchemaVersion); !strings.Contains(text, want) {
		t.Errorf("docs/lantern-db.md does not say %q", want)
	}
	if !strings.Contains(text, fmt.Sprintf("\n| %d | ", SchemaVersion)) {
		t.Errorf("docs/lantern-db.md's table of versions lacks version %d", SchemaVersion)
	}
	sections := map[string]string{}
	parts := regexp.MustCompile(`(?m)^### (\w+)\s*$`).FindAllStringSubmatchIndex(text, -1)
	for i, p := range parts {
		end := len(text)
		if i+1 < len(parts) {
			end = parts[i+1][0]
		}
		if next := strings.Index(text[p[1]:end], "\n## "); next >= 0 {
			end = p[1] + next
		}
		sections[text[p[2]:p[3]]] = text[p[1]:end]
	}
	db, err := OpenRunDB(filepath.Join(t.TempDir(), "lantern.db"), "00")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	rows, err := db.db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	if len(tables) == 0 {
		t.Fatal("a fresh database has no tables")
	}
	for _, table := range tables {
		sec, ok := sections[table]
		if !ok {
			t.Errorf("docs/lantern-db.md has no section ### %s", table)
			continue
		}
		delete(sections, table)
		cols, err := db.db.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for cols.Next() {
			var c string
			cols.Scan(&c)
			n++
			if !strings.Contains(sec, "| `"+c+"` |") {
				t.Errorf("docs/lantern-db.md: table %s lacks column %s", table, c)
			}
		}
		cols.Close()
		if documented := strings.Count(sec, "\n| `"); documented != n {
			t.Errorf("docs/lantern-db.md: table %s documents %d columns, the schema has %d", table, documented, n)
		}
	}
	for table := range sections {
		t.Errorf("docs/lantern-db.md documents table %s, which the schema does not have", table)
	}
}
