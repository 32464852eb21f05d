package memory

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// TestHandDeletionKeptAndUndone: a save by hand that deletes two sections
// keeps the version before it; RestoreGeneration brings the memories back
// and a second call has nothing left.
func TestHandDeletionKeptAndUndone(t *testing.T) {
	seed := fixture(t, "seed003_example.md")
	s, path := tempStore(t, seed)
	before := 0
	for _, sec := range s.Sections() {
		before += len(sec.Memories)
	}
	f := Parse([]byte(seed))
	f.secs = f.secs[:1] // keep the first section only
	if err := os.WriteFile(path, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute) // a finished save, not one under way
	os.Chtimes(path, old, old)
	if _, err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	if len(generations(path)) != 1 {
		t.Fatalf("generations: %v", generations(path))
	}
	n, err := s.RestoreGeneration()
	if err != nil {
		t.Fatal(err)
	}
	after := 0
	for _, sec := range s.Sections() {
		after += len(sec.Memories)
	}
	if after != before || n == 0 {
		t.Errorf("%d memories brought back, %d in all, want %d", n, after, before)
	}
	if _, err := s.RestoreGeneration(); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("second undo: %v", err)
	}
}

// TestUTF16MemoriesRead: a Memories.md saved as UTF-16 (either byte order)
// or with a UTF-8 byte-order mark is read as its text, check says so, and
// the next write is plain UTF-8.
func TestUTF16MemoriesRead(t *testing.T) {
	seed := fixture(t, "seed003_example.md")
	utf16of := func(order binary.AppendByteOrder, bom []byte) []byte {
		out := append([]byte(nil), bom...)
		for _, u := range utf16.Encode([]rune(seed)) {
			out = order.AppendUint16(out, u)
		}
		return out
	}
	for name, data := range map[string][]byte{
		"utf16le": utf16of(binary.LittleEndian, []byte{0xFF, 0xFE}),
		"utf16be": utf16of(binary.BigEndian, []byte{0xFE, 0xFF}),
		"utf8bom": append([]byte{0xEF, 0xBB, 0xBF}, seed...),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "Memories.md")
			os.WriteFile(path, data, 0o644)
			var out strings.Builder
			if code := Check(&out, path); code != 0 || !strings.Contains(out.String(), "note: the file is") {
				t.Fatalf("check = %d:\n%s", code, out.String())
			}
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if len(s.Sections()) != len(Parse([]byte(seed)).Sections()) {
				t.Fatalf("sections: %d", len(s.Sections()))
			}
			if err := s.Add(23, "Living Room", Memory{Category: CategoryNote, Status: StatusActive, Title: "After", Text: "x", Episode: 1, Turn: 1}); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if Encoding(got) != "" || !bytes.HasPrefix(got, []byte(seed[:10])) || !strings.Contains(string(got), "**[NOTE] After**") {
				t.Errorf("written back:\n%.300s", got)
			}
		})
	}
}
