package memory

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// inPlaceSave saves the file as nano and many GUI editors do: read it, add
// the person's memory, then truncate the file, pause, and write it.
func inPlaceSave(path string, title string, pause time.Duration) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	f := Parse(data)
	sec := f.ensureSection(900, "The person's notes")
	sec.insertEntry(Memory{Category: CategoryNote, Status: StatusActive, Title: title, Text: "Written by hand: " + title + ".", Episode: 1, Turn: 1}, -1)
	out := f.Bytes()
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	time.Sleep(pause)
	if _, err := fh.Write(out); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// TestSlowInPlaceSavesLoseNothing: slow in-place saves by hand while the
// store keeps adding memories: every memory the person saved and every one
// the store added is in the file at the end. A store's rename that lands
// between an editor's truncating open and its write sends the write to the
// replaced file; the store watches replaced files and puts such a save
// back. 50 saves always; LANTERN_STRESS=1 makes it 250.
func TestSlowInPlaceSavesLoseNothing(t *testing.T) {
	saves := 50
	if os.Getenv("LANTERN_STRESS") == "1" {
		saves = 250
	}
	path := filepath.Join(t.TempDir(), "Memories.md")
	// The settle interval is the time a truncated file is given to be
	// written again; a second keeps a save slowed by a loaded machine (the
	// race detector, CI) inside it. The default is 2 s.
	s, err := Open(path, WithSettle(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Add(1, "West of House", Memory{Category: CategoryNote, Status: StatusActive, Title: "seed", Text: "x", Episode: 1, Turn: 1}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 19))
	pauses := make([]time.Duration, saves)
	for i := range pauses {
		pauses[i] = time.Duration(rng.IntN(40)) * time.Millisecond
		if i%25 == 0 {
			pauses[i] = 90 * time.Millisecond
		}
	}
	storeRng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 20))
	var added []string
	busy := 0
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			title := fmt.Sprintf("lantern %d", i)
			err := s.Add(1+i%7, fmt.Sprintf("Room %d", 1+i%7), Memory{Category: CategoryDiscovery, Status: StatusActive, Title: title, Text: "Seen by the store: " + title + ".", Episode: 1, Turn: i + 1})
			if errors.Is(err, ErrSaving) {
				busy++
				continue // not written, and the caller is told
			}
			if err != nil {
				t.Errorf("add %s: %v", title, err)
				return
			}
			added = append(added, title)
			time.Sleep(time.Duration(storeRng.IntN(3)) * time.Millisecond)
		}
	}()
	var person []string
	gap := 40 * time.Millisecond
	if g, err := time.ParseDuration(os.Getenv("LANTERN_SAVE_GAP")); err == nil {
		gap = g
	}
	for i := 0; i < saves; i++ {
		title := fmt.Sprintf("person %d", i)
		if err := inPlaceSave(path, title, pauses[i]); err != nil {
			t.Fatal(err)
		}
		person = append(person, title)
		time.Sleep(gap + time.Duration(rng.IntN(5))*time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if _, err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, sec := range f.Sections() {
		for _, m := range sec.Memories {
			have[m.Title] = true
		}
	}
	lostPerson, lostStore := 0, 0
	for _, p := range person {
		if !have[p] {
			t.Logf("lost %s", p)
			lostPerson++
		}
	}
	for _, a := range added {
		if !have[a] {
			lostStore++
		}
	}
	t.Logf("%d in-place saves, %d memories added by the store (%d refused while a save went on), %d put back from replaced files: lost %d of the person's, %d of the store's", saves, len(added), busy, s.lateMerged, lostPerson, lostStore)
	if lostPerson > 0 || lostStore > 0 {
		t.Errorf("lost %d of the person's and %d of the store's memories", lostPerson, lostStore)
	}
}
