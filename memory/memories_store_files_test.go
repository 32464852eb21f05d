package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// The store against the file system: files that vanish, two stores, stale
// temporary files, a held lock.

// A file that disappears while the store writes (no backup is made then)
// does not make the store mistake an older backup for a hand edit.
func TestFileVanishesDuringWrite(t *testing.T) {
	s, path := tempStore(t, fixture(t, "seed003_example.md"))
	if err := s.Add(23, "Living Room", swordFailure); err != nil {
		t.Fatal(err)
	}
	s.beforeWrite = func() {
		s.beforeWrite = nil
		if err := os.Remove(path); err != nil {
			t.Error(err)
		}
	}
	m := Memory{Category: CategoryNote, Status: StatusActive, Title: "Second", Episode: 2, Turn: 8, Text: "x"}
	if err := s.Add(23, "Living Room", m); err != nil {
		t.Fatal(err)
	}
	titles := map[string]bool{}
	for _, m := range Parse([]byte(fileString(t, path))).Sections()[1].Memories {
		titles[m.Title] = true
	}
	if !titles["Take trophy case"] || !titles["Second"] || !titles["Acquire brass lantern"] {
		t.Errorf("memories after the write: %v", titles)
	}
}

// A file deleted by hand stays deleted but for the store's change.
func TestFileDeletedByHand(t *testing.T) {
	s, path := tempStore(t, fixture(t, "seed003_example.md"))
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(23, "Living Room", swordFailure); err != nil {
		t.Fatal(err)
	}
	secs := s.Sections()
	if len(secs) != 1 || len(secs[0].Memories) != 1 {
		t.Errorf("sections after the deletion: %+v", secs)
	}
}

// Two stores (as two Lantern processes) writing at once: every change is
// in the file.
func TestTwoStoresConcurrently(t *testing.T) {
	a, path := tempStore(t, fixture(t, "seed003_example.md"))
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const workers, each = 3, 8
	var wg sync.WaitGroup
	errs := make(chan error, 2*workers*each)
	for w := range workers {
		for k, s := range []*Store{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					m := Memory{Category: CategoryNote, Status: StatusActive, Title: fmt.Sprintf("store %d worker %d note %d", k, w, i), Episode: 1, Turn: i + 1, Text: "x"}
					if err := s.Add(100+w, "Room", m); err != nil {
						errs <- err
					}
					if i%3 == 0 {
						if err := s.RecordVisit(15, "West of House", 1); err != nil {
							errs <- err
						}
					}
					_ = s.LocationMemory(100 + w)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	f := Parse([]byte(fileString(t, path)))
	if p := f.Problems(); len(p) != 0 {
		t.Fatalf("problems: %v", p)
	}
	n := 0
	for w := range workers {
		sec, _ := f.Section(100 + w)
		n += len(sec.Memories)
	}
	if n != 2*workers*each {
		t.Errorf("%d memories, want %d", n, 2*workers*each)
	}
	west, _ := f.Section(15)
	if want := 3 + 2*workers*((each+2)/3); west.Visits != want {
		t.Errorf("visits %d, want %d", west.Visits, want)
	}
}

func TestStaleTempFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "Memories.md")
	stale := []string{".Memories.md.tmp-123", ".Memories.md.backup.tmp-456"}
	for _, n := range append(stale, "other.txt") {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, n := range stale {
		if _, err := os.Stat(filepath.Join(dir, n)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s not removed: %v", n, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "other.txt")); err != nil {
		t.Error(err)
	}
}

func TestLockTimeout(t *testing.T) {
	s, path := tempStore(t, "", WithLockTimeout(50*time.Millisecond))
	other := flock.New(path + ".lock")
	if ok, err := other.TryLock(); !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	start := time.Now()
	err := s.Add(1, "Room", swordFailure)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("add under another lock: %v", err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("gave up after %v", d)
	}
	other.Unlock()
	if err := s.Add(1, "Room", swordFailure); err != nil {
		t.Fatal(err)
	}
}
