package rundb

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// Storing a note logs it as the memory-tool design does; a near-duplicate,
// not stored, logs nothing.
func TestRememberLogsStoredNotes(t *testing.T) {
	ctx := context.Background()
	db, err := OpenRunDB(filepath.Join(t.TempDir(), "lantern.db"), "abc")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var buf bytes.Buffer
	db.SetLogger(slog.New(slog.NewTextHandler(&buf, nil)))
	for _, tc := range []struct {
		note Note
		want string // "": nothing logged
	}{
		{Note{Session: "1", Turn: 5, Content: "Mailbox at West of House holds a leaflet", Importance: 300},
			"MEMORY STORED [importance: 300/1000]: Mailbox at West of House holds a leaflet"},
		{Note{Session: "1", Turn: 6, Content: "mailbox at west of house holds a leaflet.", Importance: 900}, ""},
		{Note{Session: "1", Turn: 7, Content: "  Lamp in the living room  ", Importance: 5000},
			"MEMORY STORED [importance: 1000/1000]: Lamp in the living room"},
	} {
		buf.Reset()
		if _, _, err := db.Remember(ctx, tc.note); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		if tc.want == "" && got != "" {
			t.Errorf("%q logged %q, want nothing", tc.note.Content, got)
		}
		if tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%q logged %q, want %q", tc.note.Content, got, tc.want)
		}
	}
}
