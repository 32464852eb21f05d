package memory

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/lantern-if/lantern/atomicfile"
)

// Guards against the ways a person's save can lose memories:
//   - an editor that saves in place truncates the file, then writes it: a
//     file seen emptied or shrunk within the settle interval is read again
//     once it has been still that long, before it counts as a deletion;
//   - a save that removes memories by hand (more than one, or a whole
//     section) keeps the version before it as a generation in
//     Memories.md.history/, which RestoreGeneration (`lantern memories
//     undo`) brings back;
//   - a file saved as UTF-16, or with a byte-order mark, is read as UTF-8.

// DefaultSettle is how long a shrunk Memories.md must stay unchanged
// before the store believes it: longer than an editor's in-place save.
const DefaultSettle = 2 * time.Second

// maxGenerations bounds Memories.md.history/.
const maxGenerations = 20

// WithSettle sets the settle interval (default DefaultSettle).
func WithSettle(d time.Duration) Option { return func(s *Store) { s.settle = d } }

// HistoryDir is where the generations of a Memories.md are kept.
func HistoryDir(path string) string { return path + ".history" }

// shrunk: data may be an in-place save caught half way, against the
// content the store last knew.
func (s *Store) shrunk(data []byte) bool {
	if !s.fp.exists || len(s.disk) == 0 {
		return false
	}
	return truncated(data, s.disk)
}

// truncated: data looks like known caught half way through an in-place
// save: emptied, cut off mid-line, or less than half of it.
func truncated(data, known []byte) bool {
	return len(known) > 0 && (len(data) < len(known) || !bytes.HasSuffix(data, []byte("\n")))
}

// settleLocked re-reads a file that shrank (or vanished) until it has
// been still for the settle interval, and returns what is then on disk
// (fi nil: no file).
func (s *Store) settleLocked(fi fs.FileInfo, data []byte) (fs.FileInfo, []byte, error) {
	if s.settle <= 0 {
		return fi, data, nil
	}
	start := time.Now()
	deadline := start.Add(5 * s.settle)
	for time.Now().Before(deadline) {
		if fi != nil && !s.shrunk(data) {
			return fi, data, nil
		}
		if fi != nil && time.Since(fi.ModTime()) >= s.settle {
			return fi, data, nil // shrunk, and still for long enough: a real edit
		}
		if fi == nil && (!s.fp.exists || time.Since(start) >= s.settle) {
			return nil, nil, nil // gone for the whole interval: deleted
		}
		time.Sleep(min(s.settle/8+time.Millisecond, time.Until(deadline)))
		var err error
		data, fi, err = atomicfile.ReadRegularInfo(s.path, MaxFileBytes)
		if errors.Is(err, fs.ErrNotExist) {
			fi, data = nil, nil
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read: %w", err)
		}
	}
	if fi != nil && s.shrunk(data) {
		return nil, nil, fmt.Errorf("%s: %w", s.path, ErrSaving)
	}
	return fi, data, nil
}

// lateSave: the file a write replaced was changed after the store read it
// (an in-place save under way, or done before the rename).
func (s *Store) lateSave(old *os.File, existed bool, expected []byte, mtime time.Time) bool {
	if old == nil || !existed || s.settle <= 0 {
		return false
	}
	fi, err := old.Stat()
	return err == nil && (fi.Size() != int64(len(expected)) || !fi.ModTime().Equal(mtime))
}

// settleOld waits for a replaced file's old inode (an editor may still be
// writing into it, in place) to be still for the settle interval and
// returns its content.
func (s *Store) settleOld(f *os.File) ([]byte, bool) {
	deadline := time.Now().Add(5 * s.settle)
	for {
		fi, err := f.Stat()
		if err != nil {
			return nil, false
		}
		// Still for the interval, and not left empty (an editor that
		// truncated it is about to write): done.
		if (time.Since(fi.ModTime()) >= s.settle && fi.Size() > 0) || !time.Now().Before(deadline) {
			break
		}
		time.Sleep(s.settle/8 + time.Millisecond)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, false
	}
	data, err := io.ReadAll(f)
	return data, err == nil
}

// keepGeneration saves the version the store knew as a generation when the
// new one lost more than one memory, or a whole section, by hand.
func (s *Store) keepGeneration(before, after *File) {
	if len(s.disk) == 0 {
		return
	}
	lostMems, lostSecs := 0, 0
	for _, sec := range before.Sections() {
		now, ok := after.Section(sec.ID)
		if !ok {
			lostSecs++
			lostMems += len(sec.Memories)
			continue
		}
		for _, m := range sec.Memories {
			if !hasTitle(now.Memories, m.Title) {
				lostMems++
			}
		}
	}
	if lostMems < 2 && lostSecs == 0 {
		return
	}
	dir := HistoryDir(s.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	name := filepath.Join(dir, strconv.FormatInt(time.Now().UnixNano(), 10)+".md")
	if atomicfile.Replace(name, s.disk, s.perm) != nil {
		return
	}
	gens := generations(s.path)
	for len(gens) > maxGenerations {
		os.Remove(gens[0])
		gens = gens[1:]
	}
}

func hasTitle(ms []Memory, title string) bool {
	for _, m := range ms {
		if normTitle(m.Title) == normTitle(title) {
			return true
		}
	}
	return false
}

func normTitle(t string) string { return strings.ToLower(strings.Join(strings.Fields(t), " ")) }

// generations lists the kept generations, oldest first.
func generations(path string) []string {
	entries, err := os.ReadDir(HistoryDir(path))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, filepath.Join(HistoryDir(path), e.Name()))
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		na, _ := strconv.ParseInt(strings.TrimSuffix(filepath.Base(a), ".md"), 10, 64)
		nb, _ := strconv.ParseInt(strings.TrimSuffix(filepath.Base(b), ".md"), 10, 64)
		return int(na - nb)
	})
	return out
}

// RestoreGeneration puts back the memories of the latest generation that
// the file lacks (by location and title), then drops that generation; it
// returns how many came back. With no generation it returns
// ErrNothingToUndo.
func (s *Store) RestoreGeneration() (int, error) {
	gens := generations(s.path)
	if len(gens) == 0 {
		return 0, fmt.Errorf("restore memories: no earlier version kept: %w", ErrNothingToUndo)
	}
	last := gens[len(gens)-1]
	data, err := os.ReadFile(last)
	if err != nil {
		return 0, fmt.Errorf("restore memories: %w", err)
	}
	old := Parse(decodeText(data))
	n := 0
	err = s.update("restore memories from "+filepath.Base(last), func(f *File) error {
		n = len(mergeMissing(f, old))
		return nil
	})
	if err != nil {
		return 0, err
	}
	os.Remove(last)
	return n, nil
}

// added is a memory the store wrote that an editor may not have read, and
// when; restored is set once the guard has put it back.
type added struct {
	loc      int
	name     string
	mem      Memory
	at       time.Time
	restored bool
}

// Kept is a memory the guard put back into a version saved by hand that
// lacked it: the agent wrote it (or the store put it back from a save
// that landed in a replaced file) so shortly before that save that the
// editor cannot have read it. It is put back once: deleted again, it
// stays deleted.
type Kept struct {
	Location int
	Name     string // the location's name
	Title    string
	Written  time.Time // when the store wrote it
}

// String is the notice a client shows.
func (k Kept) String() string {
	return fmt.Sprintf("kept %q at L%d: written %s before your editor saved without it; delete it again to drop it",
		k.Title, k.Location, time.Since(k.Written).Round(time.Second))
}

// TakeKept returns the memories the guard put back since the last call
// (oldest first) and forgets them.
func (s *Store) TakeKept() []Kept { return takeAll(s, &s.kept) }

// takeAll hands over what the store collected in *list and empties it.
func takeAll[T any](s *Store, list *[]T) []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := *list
	*list = nil
	return out
}

// recentWindow is how long a memory the agent added is kept through a save
// by hand that lacks it: an editor that read the file before the memory
// was written saves without it, though the person never saw it.
func (s *Store) recentWindow() time.Duration { return max(5*s.settle, time.Second) }

func (s *Store) noteAdded(loc int, name string, m Memory) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noteRecentLocked([]added{{loc: loc, name: name, mem: m}})
}

// noteRecentLocked keeps as, from now on, through saves by hand that lack
// them, like memories the agent added: what the store put back from a
// save that landed in a replaced file is in no version the person's
// editor may have read, just as a memory the agent adds is not.
func (s *Store) noteRecentLocked(as []added) {
	now := time.Now()
	cut := now.Add(-s.recentWindow())
	keep := s.recent[:0]
	for _, a := range s.recent {
		if a.at.After(cut) {
			keep = append(keep, a)
		}
	}
	for _, a := range as {
		a.at = now
		keep = append(keep, a)
	}
	s.recent = keep
}

// keepRecent puts back into a version saved by hand a memory the store
// wrote within the window that it lacks, when the editor cannot have read
// it: the store's own version still has it (a memory the store deleted
// itself stays deleted), the version saved by hand holds no memory the
// store wrote after it (an editor that read that one read this one too),
// and it was not put back before (deleted again, it was deleted by a
// person who saw it). Each memory put back is reported by TakeKept.
func (s *Store) keepRecent(next *File) {
	cut := time.Now().Add(-s.recentWindow())
	for i, a := range s.recent {
		if a.at.Before(cut) || a.restored {
			continue
		}
		if mine, ok := s.file.Section(a.loc); !ok || !hasTitle(mine.Memories, a.mem.Title) {
			continue
		}
		if holds(next, a) || next.hiddenHolds(a) || s.sawLater(next, a) {
			continue
		}
		next.ensureSection(a.loc, a.name).insertEntry(a.mem, -1)
		s.recent[i].restored = true
		s.unkept = true
		s.kept = append(s.kept, Kept{Location: a.loc, Name: a.name, Title: a.mem.Title, Written: a.at})
	}
}

// holds: f has the memory a (by location and title).
func holds(f *File, a added) bool {
	sec, ok := f.Section(a.loc)
	return ok && hasTitle(sec.Memories, a.mem.Title)
}

// sawLater: f holds a memory the store wrote after a, so the editor that
// saved f read a version that already had a.
func (s *Store) sawLater(f *File, a added) bool {
	for _, b := range s.recent {
		if b.at.After(a.at) && holds(f, b) {
			return true
		}
	}
	return false
}

// keepUnseen puts into next, a version saved by hand that the store is
// about to take, each memory of mine (the store's version) that neither it
// nor seen holds. seen is the file the hand save replaced: what the
// person could have read. A memory the store had and the file did not was
// never in front of the person, so its absence is no deletion.
func keepUnseen(next, mine *File, seen []byte) {
	before := Parse(decodeText(seen))
	mergeWhere(next, mine, func(loc int, title string) bool {
		was, _ := before.Section(loc)
		return !hasTitle(was.Memories, title)
	})
}

// mergeMissing adds to f the memories of from that f lacks (by location
// and title) and returns them.
func mergeMissing(f, from *File) []added { return mergeWhere(f, from, nil) }

// mergeWhere is mergeMissing for the memories of from that take says to
// take (nil: all).
func mergeWhere(f, from *File, take func(loc int, title string) bool) []added {
	var out []added
	for _, sec := range from.Sections() {
		now, _ := f.Section(sec.ID)
		var target *section
		for _, m := range sec.Memories {
			if hasTitle(now.Memories, m.Title) || (take != nil && !take(sec.ID, m.Title)) {
				continue
			}
			if target == nil {
				target = f.ensureSection(sec.ID, sec.Name)
				// a repaired header brings back memories the check above
				// could not see
				if now, _ = f.Section(sec.ID); hasTitle(now.Memories, m.Title) {
					continue
				}
			}
			m.Line = 0
			target.insertEntry(m, -1)
			out = append(out, added{loc: sec.ID, name: sec.Name, mem: m})
		}
	}
	return out
}

// ErrSaving: Memories.md kept being rewritten in place (emptied, then
// written) for longer than the store waits; the change was not made.
var ErrSaving = errors.New("memories file is being saved by another program")

// Encoding says how a Memories.md was stored when it was not plain UTF-8
// ("" when it was).
func Encoding(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return "UTF-8 with a byte-order mark"
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return "UTF-16 (little-endian)"
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return "UTF-16 (big-endian)"
	}
	return ""
}

// decodeText turns a UTF-16 file (with its byte-order mark) into UTF-8 and
// drops a UTF-8 byte-order mark; other data is returned as it is.
func decodeText(data []byte) []byte {
	var order binary.ByteOrder
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		order = binary.LittleEndian
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		order = binary.BigEndian
	default:
		return data
	}
	body := data[2:]
	units := make([]uint16, 0, len(body)/2)
	for i := 0; i+1 < len(body); i += 2 {
		units = append(units, order.Uint16(body[i:]))
	}
	out := make([]byte, 0, len(units))
	for _, r := range utf16.Decode(units) {
		out = utf8.AppendRune(out, r)
	}
	return out
}
