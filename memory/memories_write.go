package memory

import (
	"errors"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/sanitize"
)

// ErrNotWritten: a change to Memories.md could not be written (a full disk,
// an immutable file, a directory where the backup goes). The change is not
// lost: the store keeps it and writes it with the next change or Flush,
// once the cause is gone, and Pending hands it to whoever keeps it across
// a restart. The error is an *atomicfile.NotWrittenError naming the file.
var ErrNotWritten = atomicfile.ErrNotWritten

// ErrEncoding: Memories.md is in an encoding Lantern cannot write back
// (UTF-16 without a byte-order mark, UTF-32); it is refused untouched.
var ErrEncoding = errors.New("memories file in an encoding Lantern cannot write")

// WithFiles makes the store write through fsys (tests inject faults).
func WithFiles(fsys atomicfile.FS) Option {
	return func(s *Store) { s.files = atomicfile.Writer{FS: fsys} }
}

// Unwritten reports whether the store holds changes the file lacks (a
// write failed).
func (s *Store) Unwritten() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.unwritten
}

// WriteErr is the last failed write's *atomicfile.NotWrittenError while the store holds
// changes the file lacks; nil otherwise.
func (s *Store) WriteErr() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.unwritten {
		return nil
	}
	return s.writeErr
}

// Pending is the whole file as the store would write it, while it holds
// changes the file lacks; nil otherwise. Encoding fills the parsed file's
// caches, so it takes the write lock: readers may hold the read lock
// meanwhile on other goroutines (memory synthesis beside the next turn).
func (s *Store) Pending() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.unwritten {
		return nil
	}
	return s.file.Bytes()
}

// Flush writes the changes a failed write left in the store, if any.
func (s *Store) Flush() error {
	if !s.Unwritten() {
		return nil
	}
	return s.update("write the memories kept from a failed write", func(*File) error { return nil })
}

// MergePending adds to the file the memories of data (a Pending kept across
// a restart) that it lacks, by location and title, and writes it; it
// returns how many were added.
func (s *Store) MergePending(data []byte) (int, error) {
	from := Parse(decodeText(data))
	n := 0
	err := s.update("write the memories kept from a failed write", func(f *File) error {
		n = len(mergeMissing(f, from))
		return nil
	})
	return n, err
}

// neutral is m with the control characters of its title and text
// neutralised: Memories.md is a file for people, and what a model wrote
// must not move their terminal's cursor when they cat it.
func neutral(m Memory) Memory {
	m.Title = sanitize.Line(m.Title)
	m.Text = sanitize.Text(m.Text)
	return m
}
