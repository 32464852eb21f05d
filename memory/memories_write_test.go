package memory

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/lantern-if/lantern/atomicfile"
)

// A write that fails (a full disk, an immutable file, a directory where the
// backup goes) fails the change with ErrNotWritten naming the file and the
// cause; the memory stays in the store, is written with the next change
// once the fault is gone.
func TestFailedWritesKeepTheMemories(t *testing.T) {
	faults := []struct {
		name string
		op   atomicfile.Op
		err  error
	}{
		{"out of space", atomicfile.OpWrite, syscall.ENOSPC},
		{"out of inodes", atomicfile.OpOpen, syscall.ENOSPC},
		{"immutable", atomicfile.OpRename, syscall.EPERM},
		{"backup is a directory", atomicfile.OpRead, syscall.EISDIR},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "Memories.md")
			ffs := &atomicfile.FaultFS{}
			s, err := Open(path, WithFiles(ffs))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			add := func(title string) error {
				return s.Add(3, "Kitchen", Memory{Category: CategoryNote, Status: StatusActive, Title: title, Text: "t"})
			}
			if err := add("first"); err != nil {
				t.Fatal(err)
			}
			ffs.SetRule(func(op atomicfile.Op, _ string) error {
				if op == f.op {
					return f.err
				}
				return nil
			})
			failed := 0
			for _, title := range []string{"second", "third", "fourth"} {
				err := add(title)
				var we *atomicfile.NotWrittenError
				if !errors.Is(err, ErrNotWritten) || !errors.Is(err, f.err) || !errors.As(err, &we) || we.Path != path {
					t.Fatalf("add %s: %v, want ErrNotWritten naming %s with %v", title, err, path, f.err)
				}
				failed++
			}
			if !s.Unwritten() || len(s.List(3)) != 4 {
				t.Fatalf("unwritten %v, %d memories in the store; want 4 kept", s.Unwritten(), len(s.List(3)))
			}
			ffs.SetRule(nil)
			if err := s.Flush(); err != nil {
				t.Fatalf("flush once the fault cleared: %v", err)
			}
			got, _ := Load(path)
			sec, _ := got.Section(3)
			if len(sec.Memories) != 4 || failed != 3 {
				t.Fatalf("the file has %d memories after the flush, want 4 (3 pending written)", len(sec.Memories))
			}
			if s.Unwritten() {
				t.Fatal("still unwritten after a flush")
			}
		})
	}
}

// Pending memories kept across a restart are merged into the file, once.
func TestMergePending(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "Memories.md")
	ffs := &atomicfile.FaultFS{}
	s, err := Open(path, WithFiles(ffs))
	if err != nil {
		t.Fatal(err)
	}
	s.Add(1, "Hall", Memory{Category: CategoryNote, Status: StatusActive, Title: "on disk", Text: "x"})
	ffs.SetRule(func(atomicfile.Op, string) error { return syscall.ENOSPC })
	s.Add(1, "Hall", Memory{Category: CategoryNote, Status: StatusActive, Title: "pending", Text: "y"})
	pending := s.Pending()
	s.Close() // the write still fails: the process ends with it pending
	if pending == nil {
		t.Fatal("no pending version")
	}
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for i, want := range []int{1, 0} {
		n, err := s2.MergePending(pending)
		if err != nil || n != want {
			t.Fatalf("merge %d: %d, %v; want %d", i, n, err, want)
		}
	}
	if data, _ := os.ReadFile(path); len(s2.List(1)) != 2 || len(data) == 0 {
		t.Fatalf("%d memories after the merge", len(s2.List(1)))
	}
}

// A Memories.md in an encoding Lantern cannot write back is refused
// untouched.
func TestForeignEncodingRefused(t *testing.T) {
	text := "# Memories\n\n## Location 3: Kitchen\n"
	var utf16 []byte
	for _, r := range text {
		utf16 = append(utf16, byte(r), 0)
	}
	path := filepath.Join(t.TempDir(), "Memories.md")
	os.WriteFile(path, utf16, 0o644)
	if s, err := Open(path); !errors.Is(err, ErrEncoding) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("open: %v, want ErrEncoding", err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(utf16) {
		t.Fatal("the file changed")
	}
}
