package memory

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/sanitize"
)

// Store is Memories.md with an in-memory cache keyed by location ID. Every
// change is written at once, atomically (temporary file, fsync, rename; the
// previous version kept as Memories.md.backup), under an exclusive file lock
// (Memories.md.lock) shared with every other Lantern process. Before each
// write the store compares the file on disk (size, modification time,
// SHA-256 of the content) with what it last read or wrote; when they differ
// (an edit by hand, another process) it takes the version on disk and
// applies its change to that, so the edit and the change both survive.
// Reads (List, LocationMemory, ...) come from the cache; Refresh picks up a
// change on disk without writing.
//
// A Store is safe for concurrent use.
type Store struct {
	path string
	lock *flock.Flock

	mu       sync.RWMutex
	file     *File
	disk     []byte      // the file's content as last read or written; nil when there is no file
	fp       fingerprint // of disk
	problems []Problem   // of disk, computed on demand
	probsOK  bool
	undo     []deletion
	undoMu   sync.Mutex // serialises Undo calls
	recent   []added    // memories the agent added lately (keepRecent)
	kept     []Kept     // memories keepRecent put back, for TakeKept
	repaired []Problem  // malformed headers repaired by changes, for TakeRepaired
	unkept   bool       // the cache holds memories keepRecent put back that the file lacks
	reloads  int
	closed   bool
	watched  []replaced // files the store's renames replaced, still watched
	// lateMerged counts memories put back from saves that landed in a
	// replaced file after it was watched past the rename.
	lateMerged int

	// files is the file layer every write goes through; unwritten says
	// the cache holds changes a failed write could not put on disk.
	files     atomicfile.Writer
	unwritten bool
	writeErr  error // the last failed write's, while unwritten

	budget      Budget
	episode     int // the episode being played (SetEpisode, RecordVisit); 0: none
	lockTimeout time.Duration
	settle      time.Duration // see WithSettle
	perm        fs.FileMode

	// beforeWrite, when set (tests), runs after the store has checked the
	// file and before it writes it.
	beforeWrite func()
}

// MaxFileBytes bounds a Memories.md: a file larger than this (or not a
// regular file at all: /dev/zero, a FIFO) is refused before it is read.
const MaxFileBytes = 64 << 20

// fingerprint identifies a version of the file.
type fingerprint struct {
	exists bool
	size   int64
	mtime  time.Time
	sum    [sha256.Size]byte
}

// deletion is what Undo needs to put a deleted memory back.
type deletion struct {
	loc   int
	name  string
	index int // ordinal among the section's entries
	mem   Memory
}

// maxUndo bounds the undo history.
const maxUndo = 100

// maxSlips bounds how often one change is redone when edits keep landing
// between the check and the rename.
const maxSlips = 3

// maxLateSaves bounds how often one change is redone when in-place saves
// keep landing in the file it replaces.
const maxLateSaves = 50

// Option configures a Store.
type Option func(*Store)

// WithBudget sets what LocationMemory shows (default: DefaultBudget).
func WithBudget(b Budget) Option { return func(s *Store) { s.budget = b } }

// WithLockTimeout sets how long a change waits for another process's lock
// before failing with ErrLocked (default 10 s).
func WithLockTimeout(d time.Duration) Option { return func(s *Store) { s.lockTimeout = d } }

// Open opens the store at path (normally <workdir>/<story>/Memories.md),
// reading the file when it exists. The file is created by the first change.
// Temporary files left by a process that died while writing are removed.
func Open(path string, opts ...Option) (*Store, error) {
	s := &Store{
		path:        path,
		budget:      DefaultBudget(),
		lockTimeout: 10 * time.Second,
		settle:      DefaultSettle,
		perm:        0o644,
	}
	for _, o := range opts {
		o(s)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open memories %s: %w", path, err)
	}
	s.lock = flock.New(path+".lock", flock.SetPermissions(0o644))
	if err := s.lockFile(); err != nil {
		s.lock.Close()
		return nil, fmt.Errorf("open memories %s: %w", path, err)
	}
	defer s.lock.Unlock()
	s.removeStaleTemps()
	s.file = Parse(nil)
	if _, err := s.refreshLocked(); err != nil {
		s.lock.Close()
		return nil, fmt.Errorf("open memories %s: %w", path, err)
	}
	s.reloads = 0
	return s, nil
}

// Path is the file's path.
func (s *Store) Path() string { return s.path }

// Close releases the lock file's handle. The store cannot change the file
// afterwards.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	// A save that landed in a replaced file since the last change is put
	// back before the store lets go.
	// So is what a failed write left in the cache, if the file can be
	// written by now.
	if (len(s.watched) > 0 || s.unwritten) && s.lockFile() == nil {
		if _, err := s.refreshLocked(); err == nil && (s.mergeLateLocked() || s.unwritten) {
			s.writeLocked(s.file.Bytes())
		}
		s.lock.Unlock()
	}
	s.closeWatched()
	if err := s.lock.Close(); err != nil {
		return fmt.Errorf("close memories %s: %w", s.path, err)
	}
	return nil
}

func (s *Store) lockFile() error {
	ctx, cancel := context.WithTimeout(context.Background(), s.lockTimeout)
	defer cancel()
	ok, err := s.lock.TryLockContext(ctx, 2*time.Millisecond)
	if ok {
		return nil
	}
	if err == nil || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("waited %v for %s: %w", s.lockTimeout, s.lock.Path(), ErrLocked)
	}
	return fmt.Errorf("lock %s: %w", s.lock.Path(), err)
}

// removeStaleTemps deletes the temporary files of writes that never
// finished (the writer was killed). The caller holds the lock, so no write
// is under way.
func (s *Store) removeStaleTemps() {
	dir, base := filepath.Split(s.path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, "."+base+".tmp-") || strings.HasPrefix(n, "."+base+".backup.tmp-") {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// refreshLocked reads the file when it changed since it was last read or
// written and makes it the cache. It reports whether it did. A file that
// shrank or vanished is first given the settle interval (an in-place save
// may be half done).
func (s *Store) refreshLocked() (bool, error) {
	// The file's information is taken after its content, on the same
	// descriptor: a truncation between a stat and a read would make an
	// emptied file look still since its last save.
	data, fi, err := atomicfile.ReadRegularInfo(s.path, MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		data, fi = nil, nil
	} else if err != nil {
		return false, fmt.Errorf("read: %w", err)
	}
	if enc := sanitize.ForeignEncoding(data); enc != "" {
		return false, fmt.Errorf("%s is %s, which Lantern cannot write back; it is left untouched (save it as UTF-8): %w", s.path, enc, ErrEncoding)
	}
	if fi == nil || !s.fp.exists || sha256.Sum256(data) != s.fp.sum {
		if fi, data, err = s.settleLocked(fi, data); err != nil {
			return false, err
		}
	}
	if fi == nil {
		if !s.fp.exists {
			return false, nil
		}
		s.setDisk(nil, fingerprint{})
		next := Parse(nil)
		if s.unwritten {
			s.noteRecentLocked(mergeMissing(next, s.file))
		}
		s.file = next
		s.reloads++
		return true, nil
	}
	fp := fingerprint{exists: true, size: fi.Size(), mtime: fi.ModTime(), sum: sha256.Sum256(data)}
	if s.fp.exists && fp.sum == s.fp.sum {
		s.fp = fp // same content; only touched (or the same size and time)
		return false, nil
	}
	s.perm = fi.Mode().Perm()
	next := Parse(decodeText(data))
	s.keepRecent(next)
	if s.unwritten {
		// What a failed write left in the cache is kept over the new
		// version on disk.
		s.noteRecentLocked(mergeMissing(next, s.file))
	}
	s.keepGeneration(s.file, next)
	s.setDisk(data, fp)
	s.file = next
	s.reloads++
	return true, nil
}

func (s *Store) setDisk(data []byte, fp fingerprint) {
	s.disk, s.fp = data, fp
	s.problems, s.probsOK = nil, false
}

// Refresh takes the file on disk when it changed since the store last read
// or wrote it, and reports whether it did.
func (s *Store) Refresh() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, fmt.Errorf("refresh memories %s: %w", s.path, ErrClosed)
	}
	if err := s.lockFile(); err != nil {
		return false, fmt.Errorf("refresh memories %s: %w", s.path, err)
	}
	defer s.lock.Unlock()
	changed, err := s.refreshLocked()
	if err != nil {
		return false, fmt.Errorf("refresh memories %s: %w", s.path, err)
	}
	if late := s.mergeLateLocked(); late || s.unkept {
		what := "keep a save that landed in a replaced file"
		if !late {
			what = "keep the agent's memories a save by hand lacked"
		}
		if err := s.updateLocked(what, func(*File) error { return nil }, true); err != nil {
			return true, fmt.Errorf("refresh memories %s: %w", s.path, err)
		}
		changed = true
	}
	return changed, nil
}

// update applies one change: lock, take the version on disk if it changed,
// apply op to a copy of the cache, write, keep the copy. op may run more
// than once (when an edit lands while the store writes, the change is made
// again on top of that edit), so it must only change the File it is given
// and the caller's results.
func (s *Store) update(what string, op func(*File) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("%s: %w", what, ErrClosed)
	}
	if err := s.lockFile(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer s.lock.Unlock()
	if _, err := s.refreshLocked(); err != nil {
		return fmt.Errorf("%s: %s: %w", what, s.path, err)
	}
	return s.updateLocked(what, op, s.mergeLateLocked())
}

// updateLocked is update once the file is locked and the cache fresh;
// pending says the cache holds what the file lacks (it is written even
// when op fails).
func (s *Store) updateLocked(what string, op func(*File) error, pending bool) error {
	defer s.takeRepairsLocked()
	pending = pending || s.unkept
	s.unkept = false
	for slip := 0; ; slip++ {
		work := s.file.clone()
		if err := op(work); err != nil && slip > 0 && errors.Is(err, ErrDuplicate) {
			// the change is already in what was taken from disk; what was
			// merged into it still has to be written
			work = s.file.clone()
		} else if err != nil {
			if slip > 0 || pending {
				// the change no longer applies to the edit that slipped in
				// (it removed the memory, say): put the edit back on disk
				s.writeLocked(s.file.Bytes())
			}
			return fmt.Errorf("%s: %w", what, err)
		}
		data := work.Bytes()
		if s.fp.exists && bytes.Equal(data, s.disk) {
			s.file, s.unwritten = work, false
			return nil
		}
		if s.beforeWrite != nil {
			s.beforeWrite()
		}
		backup := s.path + ".backup"
		oldBackup, _ := os.Stat(backup)
		// The file being replaced stays open: an editor saving in place
		// may still be writing into it after the rename.
		oldFile, _ := os.Open(s.path)
		if err := s.files.Write(s.path, data, s.perm, true); err != nil {
			closeFile(oldFile)
			// The change is kept in the cache, not dropped: the next
			// change or Flush writes it.
			s.file, s.unwritten = work, true
			s.writeErr = &atomicfile.NotWrittenError{Path: s.path, Err: err}
			return fmt.Errorf("%s: %w", what, s.writeErr)
		}
		s.unwritten = false
		expected, existed, expMtime := s.disk, s.fp.exists, s.fp.mtime
		s.file = work
		fp := fingerprint{exists: true, size: int64(len(data)), sum: sha256.Sum256(data)}
		if fi, err := os.Stat(s.path); err == nil {
			fp.mtime = fi.ModTime()
		}
		s.setDisk(data, fp)
		// An editor saving in place may have truncated the old file before
		// the rename: what it writes lands there. Wait for it to settle.
		if s.lateSave(oldFile, existed, expected, expMtime) && slip < maxLateSaves {
			late, ok := s.settleOld(oldFile)
			closeFile(oldFile)
			if !ok {
				return nil
			}
			ours := s.disk
			if _, err := s.refreshLocked(); err != nil {
				return fmt.Errorf("%s: %s: %w", what, s.path, err)
			}
			lateFile := Parse(decodeText(late))
			if bytes.Equal(s.disk, ours) {
				// Nothing saved since: the late save is the version the
				// change is made on, as for any edit that slipped in (with
				// what the store wrote lately that the editor had not read).
				s.noteRecentLocked(mergeMissing(s.file.clone(), lateFile))
				s.keepRecent(lateFile)
				keepUnseen(lateFile, s.file, expected)
				s.file = lateFile
			} else {
				// Saved again on top of our write: keep that, with what the
				// late save had and it lacks.
				s.file = s.file.clone()
				s.noteRecentLocked(mergeMissing(s.file, lateFile))
			}
			s.reloads++
			continue
		}
		// The replaced file is watched for a while yet: an editor's
		// truncation and write may still be on their way to it.
		if existed {
			s.watchReplaced(oldFile, int64(len(expected)), expMtime)
		} else {
			closeFile(oldFile)
		}
		// The write made a new backup from what was on disk just before the
		// rename. If that is not what the store checked, an edit landed in
		// between: take it and make the change again on top of it. (When
		// the backup was not replaced, the file was gone at that moment:
		// there is nothing to take.)
		newBackup, err := os.Stat(backup)
		if err != nil || (oldBackup != nil && os.SameFile(oldBackup, newBackup)) {
			return nil
		}
		prev, err := os.ReadFile(backup)
		if err != nil || (existed && bytes.Equal(prev, expected)) {
			return nil
		}
		prevFile := Parse(decodeText(prev))
		if slip >= maxSlips {
			// Edits keep landing: the change is not made again, but what
			// the last one added stays in the cache, and the next change
			// or Refresh writes it (it is on disk only in the backup now).
			s.file = s.file.clone()
			if len(mergeMissing(s.file, prevFile)) > 0 {
				s.unkept = true
			}
			return nil
		}
		s.keepRecent(prevFile)
		keepUnseen(prevFile, s.file, expected)
		s.file = prevFile
		s.reloads++
	}
}

func closeFile(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// writeLocked writes data as the file, best effort (the caller is already
// returning an error).
func (s *Store) writeLocked(data []byte) {
	oldFile, _ := os.Open(s.path)
	if err := s.files.Write(s.path, data, s.perm, true); err != nil {
		closeFile(oldFile)
		s.unwritten, s.writeErr = true, &atomicfile.NotWrittenError{Path: s.path, Err: err}
		return
	}
	s.unwritten = false
	if s.fp.exists {
		s.watchReplaced(oldFile, int64(len(s.disk)), s.fp.mtime)
	} else {
		closeFile(oldFile)
	}
	fp := fingerprint{exists: true, size: int64(len(data)), sum: sha256.Sum256(data)}
	if fi, err := os.Stat(s.path); err == nil {
		fp.mtime = fi.ModTime()
	}
	s.setDisk(data, fp)
}

// Add stores the agent's memory at a location (created, with name, when
// new). A memory with the same normalised title as a visible one there,
// however worded, is not stored again: Add returns ErrDuplicate. The
// status is required. For a short while a save by hand that lacks it puts
// it back once (an editor that read the file before it was written; see
// keepRecent).
func (s *Store) Add(loc int, name string, m Memory) error { return s.AddBy(loc, name, m, ByModel) }

// AddBy is Add for an actor: a person's memory (ByHuman) is not put back
// when a save by hand lacks it, since the person has seen it.
func (s *Store) AddBy(loc int, name string, m Memory, by Actor) error {
	what := fmt.Sprintf("add memory %q at location %d", m.Title, loc)
	if loc <= 0 {
		return fmt.Errorf("%s: location must be positive: %w", what, ErrInvalid)
	}
	m, err := normalize(neutral(m))
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	err = s.update(what, func(f *File) error {
		sec := f.ensureSection(loc, name) // first: it may repair a header that hid the location's memories
		if at, dup := f.duplicate(loc, m); dup {
			if !at.part().mem.staleFor(m) {
				return ErrDuplicate
			}
			// An EPHEMERAL memory of an earlier episode held only there:
			// the same lesson learned again takes its place.
			at.setMemory(m)
			return nil
		}
		sec.insertEntry(m, -1)
		return nil
	})
	if err == nil && by == ByModel {
		s.noteAdded(loc, name, m)
	}
	return err
}

// Edit changes one memory: fn gets a copy to change (any field); the result
// is checked as Add checks a new memory. Setting a status other than
// SUPERSEDED clears the supersession record.
func (s *Store) Edit(ref Ref, fn func(*Memory)) error {
	what := fmt.Sprintf("edit memory %q at location %d", ref.Title, ref.Location)
	return s.update(what, func(f *File) error {
		at, err := f.find(ref)
		if err != nil {
			return err
		}
		m := at.part().mem
		fn(&m)
		m, err = normalize(neutral(m))
		if err != nil {
			return err
		}
		at.setMemory(m)
		return nil
	})
}

// SetStatus changes one memory's status. SUPERSEDED set this way is a
// person's decision without a replacement: `[Superseded by human]`. Any
// other status clears the supersession record.
func (s *Store) SetStatus(ref Ref, st Status) error {
	what := fmt.Sprintf("set status of memory %q at location %d to %s", ref.Title, ref.Location, st)
	st, ok := ParseStatus(string(st))
	if !ok {
		return fmt.Errorf("%s: %w", what, ErrInvalid)
	}
	return s.update(what, func(f *File) error {
		at, err := f.find(ref)
		if err != nil {
			return err
		}
		m := at.part().mem
		if m.Status == st {
			return nil
		}
		m.Status = st
		m.Superseded = Supersession{}
		if st == StatusSuperseded {
			m.Superseded = Supersession{Human: true}
		}
		at.setMemory(m)
		return nil
	})
}

// Invalidate cancels a memory without a replacement: it becomes
// SUPERSEDED with the record `[Invalidated at T<turn>: "<reason>"]`
// (proven false; nothing takes its place).
func (s *Store) Invalidate(ref Ref, reason string, turn int) error {
	what := fmt.Sprintf("invalidate memory %q at location %d", ref.Title, ref.Location)
	reason = cleanLine(reason)
	if reason == "" || turn < 0 {
		return fmt.Errorf("%s: an invalidation needs a reason: %w", what, ErrInvalid)
	}
	return s.update(what, func(f *File) error {
		at, err := f.find(ref)
		if err != nil {
			return err
		}
		m := at.part().mem
		m.Status = StatusSuperseded
		m.Superseded = Supersession{Turn: turn, Reason: reason}
		at.setMemory(m)
		return nil
	})
}

// Supersede stores m at the location and marks the memories there whose
// titles are in titles (normalised; superseded ones excepted) as
// SUPERSEDED, with the record `[Superseded at T<m's last turn> by
// "<m's title>"]` (ByHuman writes `by human: "<title>"`). The new memory
// takes the place of the first one it supersedes, which follows it. When m
// duplicates a visible memory, that one stands in for it. It returns how
// many memories it marked; titles that match nothing are not an error (the
// model may name one that is not there), but a duplicate (by title) that
// supersedes nothing is ErrDuplicate, as for Add; m superseding a memory
// of its own title replaces it.
func (s *Store) Supersede(loc int, name string, m Memory, titles []string, by Actor) (int, error) {
	what := fmt.Sprintf("supersede at location %d with memory %q", loc, m.Title)
	if loc <= 0 {
		return 0, fmt.Errorf("%s: location must be positive: %w", what, ErrInvalid)
	}
	m, err := normalize(neutral(m))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	keys := make(map[string]bool, len(titles))
	for _, t := range titles {
		if k := normKey(t); k != "" {
			keys[k] = true
		}
	}
	marked := 0
	err = s.update(what, func(f *File) error {
		marked = 0
		sec := f.ensureSection(loc, name)
		dup, isDup := f.duplicate(loc, m)
		// An EPHEMERAL memory of an earlier episode gives its place to m.
		stale := isDup && dup.part().mem.staleFor(m)
		// A memory superseding its own title replaces it: not a duplicate.
		isDup = isDup && !keys[normKey(m.Title)] && !stale
		var targets []*part
		var first entryAt
		for _, o := range f.secs {
			if o.id != loc {
				continue
			}
			for i, p := range o.parts {
				if p.kind != kEntry || !p.mem.Visible() || !keys[normKey(p.mem.Title)] {
					continue
				}
				if (isDup || stale) && p == dup.part() {
					continue
				}
				if targets == nil {
					first = entryAt{o, i}
				}
				targets = append(targets, p)
			}
		}
		if isDup && len(targets) == 0 {
			return ErrDuplicate
		}
		rec := Supersession{Turn: m.LastTurn(), By: m.Title, Human: by == ByHuman}
		if isDup {
			rec.By = dup.part().mem.Title
		}
		for _, p := range targets {
			old := p.mem
			old.Status = StatusSuperseded
			old.Superseded = rec
			p.mem = old
			p.dirty = true
		}
		marked = len(targets)
		switch {
		case stale:
			dup.setMemory(m)
		case !isDup:
			if targets != nil {
				first.s.insertEntry(m, first.i)
			} else {
				sec.insertEntry(m, -1)
			}
		}
		return nil
	})
	return marked, err
}

// Delete removes one memory. Undo puts it back.
func (s *Store) Delete(ref Ref) error {
	what := fmt.Sprintf("delete memory %q at location %d", ref.Title, ref.Location)
	var d deletion
	err := s.update(what, func(f *File) error {
		at, err := f.find(ref)
		if err != nil {
			return err
		}
		d = deletion{loc: at.s.id, name: at.s.name, index: at.s.entryOrdinal(at.i), mem: at.part().mem}
		at.s.parts = slices.Delete(at.s.parts, at.i, at.i+1)
		return nil
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.undo = append(s.undo, d)
	if len(s.undo) > maxUndo {
		s.undo = slices.Delete(s.undo, 0, len(s.undo)-maxUndo)
	}
	s.mu.Unlock()
	return nil
}

// Undo puts back the memory deleted last (by this store), where it was, and
// returns it. With nothing deleted it returns ErrNothingToUndo.
func (s *Store) Undo() (Memory, error) {
	s.undoMu.Lock()
	defer s.undoMu.Unlock()
	s.mu.Lock()
	if len(s.undo) == 0 {
		s.mu.Unlock()
		return Memory{}, fmt.Errorf("undo: %w", ErrNothingToUndo)
	}
	d := s.undo[len(s.undo)-1]
	s.mu.Unlock()
	what := fmt.Sprintf("undo deletion of memory %q at location %d", d.mem.Title, d.loc)
	err := s.update(what, func(f *File) error {
		sec := f.ensureSection(d.loc, d.name)
		sec.insertEntry(d.mem, sec.entryIndex(d.index))
		return nil
	})
	if err != nil {
		return Memory{}, err
	}
	s.mu.Lock()
	if n := len(s.undo); n > 0 && s.undo[n-1] == d {
		s.undo = s.undo[:n-1]
	}
	s.mu.Unlock()
	return d.mem, nil
}

// RecordVisit counts a visit to a location (created, with name, when new)
// and adds the episode to its list. A visit is made in the episode being
// played: the store takes it as its episode too (SetEpisode).
func (s *Store) RecordVisit(loc int, name string, episode int) error {
	what := fmt.Sprintf("record visit to location %d", loc)
	if loc <= 0 || episode < 0 {
		return fmt.Errorf("%s: location must be positive, episode not negative: %w", what, ErrInvalid)
	}
	s.SetEpisode(episode)
	return s.update(what, func(f *File) error {
		sec := f.ensureSection(loc, name)
		eps := sec.episodes
		if episode > 0 && !slices.Contains(eps, episode) {
			eps = append(slices.Clone(eps), episode)
			slices.Sort(eps)
		}
		sec.setVisits(sec.visits+1, eps)
		return nil
	})
}
