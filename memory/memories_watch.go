package memory

import (
	"os"
	"time"
)

// An editor that saves in place opens Memories.md with O_TRUNC, then
// writes. When the store's rename lands between the editor's path lookup
// and its truncation, or between its truncation and its write, the
// editor's bytes go to the file the rename replaced, which no longer has a
// name. The store therefore keeps every file it replaces open and watches
// it (size and modification time, through the open descriptor) until a
// check made at least the settle interval after the rename finds it
// untouched. A replaced file that changed is given the settle interval to
// be written completely, then read through the descriptor; the memories it
// has that the file on disk lacks are put back and written. Checks run at
// every change, every Refresh and at Close.

// replaced is a file the store's rename replaced, still open.
type replaced struct {
	f     *os.File
	at    time.Time // when it was replaced
	size  int64     // its size and modification time then
	mtime time.Time
}

// watchReplaced keeps f, the file a rename just replaced, under watch
// (the store takes over f); size and mtime are what the store knew of it,
// so a change made before the rename counts too. Without a settle
// interval it is closed.
func (s *Store) watchReplaced(f *os.File, size int64, mtime time.Time) {
	if f == nil {
		return
	}
	if s.settle <= 0 {
		f.Close()
		return
	}
	s.watched = append(s.watched, replaced{f: f, at: time.Now(), size: size, mtime: mtime})
}

// lateSavesLocked checks the watched files: each that changed since it was
// replaced is read (once still) and returned; each that did not and was
// replaced at least the settle interval ago is let go.
func (s *Store) lateSavesLocked() [][]byte {
	if len(s.watched) == 0 {
		return nil
	}
	now := time.Now()
	var late [][]byte
	keep := s.watched[:0]
	for _, w := range s.watched {
		fi, err := w.f.Stat()
		switch {
		case err != nil:
			w.f.Close()
		case fi.Size() != w.size || !fi.ModTime().Equal(w.mtime):
			if data, ok := s.settleOld(w.f); ok && len(data) > 0 {
				late = append(late, data)
			}
			w.f.Close()
		case now.Sub(w.at) >= s.settle:
			w.f.Close()
		default:
			keep = append(keep, w)
		}
	}
	clear(s.watched[len(keep):])
	s.watched = keep
	return late
}

// mergeLateLocked puts into the cache the memories of late saves found in
// replaced files that it lacks, and reports whether there were any (the
// cache then differs from the file and must be written).
func (s *Store) mergeLateLocked() bool {
	late := s.lateSavesLocked()
	n := 0
	for _, data := range late {
		if n == 0 {
			s.file = s.file.clone()
		}
		back := mergeMissing(s.file, Parse(decodeText(data)))
		s.noteRecentLocked(back)
		n += len(back)
	}
	if n > 0 {
		s.reloads++
		s.lateMerged += n
	}
	return n > 0
}

// closeWatched lets every watched file go.
func (s *Store) closeWatched() {
	for _, w := range s.watched {
		w.f.Close()
	}
	clear(s.watched)
	s.watched = nil
}
