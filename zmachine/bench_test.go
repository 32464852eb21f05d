package zmachine_test

// The Zork I walkthrough (396 commands, seed 12, as the dfrotz reference
// transcript was made) as a test of the final score and as a benchmark of
// the whole interpreter, and the cost of a snapshot and restore.

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/sharedtest"
	"github.com/lantern-if/lantern/zmachine"
)

const (
	zork1Seed       = 12
	zork1FinalScore = "Your score is 350 (total of 350 points), in 394 moves."
)

// zork1Bytes is the Zork I story file from the shared data.
func zork1Bytes(tb testing.TB) []byte {
	tb.Helper()
	data, err := os.ReadFile(sharedtest.File(tb, "stories/zork1.z3"))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// zork1 loads Zork I and its walkthrough from the shared data.
func zork1(tb testing.TB) (*zmachine.Story, []string) {
	tb.Helper()
	s, err := zmachine.LoadStory(zork1Bytes(tb))
	if err != nil {
		tb.Fatal(err)
	}
	text, err := os.ReadFile(sharedtest.File(tb, "walkthroughs/zork1.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	cmds := strings.Split(strings.TrimRight(string(text), "\n"), "\n")
	for i, c := range cmds {
		cmds[i] = strings.TrimRight(c, "\r")
	}
	return s, cmds
}

// playZork1 plays the walkthrough in-process and returns the whole
// transcript; every command must be taken by a line read.
func playZork1(tb testing.TB, s *zmachine.Story, cmds []string) string {
	return playZork1With(tb, s, cmds, zmachine.Hooks{})
}

// playZork1With plays the walkthrough with hooks.
func playZork1With(tb testing.TB, s *zmachine.Story, cmds []string, hooks zmachine.Hooks) string {
	m, err := zmachine.New(s, zmachine.Options{Seed: zork1Seed, Hooks: hooks})
	if err != nil {
		tb.Fatal(err)
	}
	var out strings.Builder
	for i, c := range cmds {
		st, err := m.Run()
		out.WriteString(m.TakeOutput())
		if err != nil {
			tb.Fatalf("before command %d %q: %v", i+1, c, err)
		}
		if st != zmachine.WaitLine {
			tb.Fatalf("before command %d %q: state %v, want wait-line", i+1, c, st)
		}
		if err := m.SendLine(c); err != nil {
			tb.Fatalf("command %d %q: %v", i+1, c, err)
		}
	}
	if _, err := m.Run(); err != nil {
		tb.Fatalf("after the walkthrough: %v", err)
	}
	out.WriteString(m.TakeOutput())
	return out.String()
}

func TestZork1WalkthroughScore(t *testing.T) {
	s, cmds := zork1(t)
	if len(cmds) != 396 {
		t.Fatalf("walkthrough has %d commands, want 396", len(cmds))
	}
	out := playZork1(t, s, cmds)
	if !strings.Contains(out, zork1FinalScore) {
		t.Fatalf("transcript lacks %q; it ends:\n%s", zork1FinalScore, tail(out, 1500))
	}
}

func BenchmarkZork1Walkthrough(b *testing.B) {
	s, cmds := zork1(b)
	if out := playZork1(b, s, cmds); !strings.Contains(out, zork1FinalScore) {
		b.Fatalf("transcript lacks %q; it ends:\n%s", zork1FinalScore, tail(out, 1500))
	}
	for b.Loop() {
		playZork1(b, s, cmds)
	}
}

// BenchmarkZork1WalkthroughWatched is the walkthrough with the location
// global (global 0) watched, as the environment watches it during a step;
// against BenchmarkZork1Walkthrough it is the watch's cost.
func BenchmarkZork1WalkthroughWatched(b *testing.B) {
	s, cmds := zork1(b)
	changes := 0
	hooks := zmachine.Hooks{GlobalChanged: func(_, _ uint16) { changes++ }, WatchGlobal: 0}
	if out := playZork1With(b, s, cmds, hooks); !strings.Contains(out, zork1FinalScore) || changes == 0 {
		b.Fatalf("%d location changes; transcript ends:\n%s", changes, tail(out, 1500))
	}
	for b.Loop() {
		playZork1With(b, s, cmds, hooks)
	}
}

func BenchmarkSnapshotRestore(b *testing.B) {
	s, cmds := zork1(b)
	m, err := zmachine.New(s, zmachine.Options{Seed: zork1Seed})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range cmds[:8] {
		if _, err := m.Run(); err != nil {
			b.Fatal(err)
		}
		if err := m.SendLine(c); err != nil {
			b.Fatal(err)
		}
	}
	if st, err := m.Run(); err != nil || st != zmachine.WaitLine {
		b.Fatalf("after 8 moves: %v %v", st, err)
	}
	m.TakeOutput()
	b.ReportAllocs()
	for b.Loop() {
		snap := m.Snapshot()
		if err := m.Restore(snap); err != nil {
			b.Fatal(err)
		}
	}
}

// LoadStoryOwned keeps the caller's buffer; LoadStory copies it. Both
// describe the story alike.
func TestLoadStoryOwnedKeepsTheBuffer(t *testing.T) {
	data := zork1Bytes(t)
	copied, err1 := zmachine.LoadStory(data)
	owned, err2 := zmachine.LoadStoryOwned(data)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if copied.Info() != owned.Info() {
		t.Fatalf("info %+v, owned %+v", copied.Info(), owned.Info())
	}
	data[0x1E] ^= 0xff // a byte of the header's interpreter number: the owned story sees it
	if got := owned.Bytes()[0x1E]; got != data[0x1E] {
		t.Errorf("the owned story copied its buffer (byte 0x1E %#x, buffer %#x)", got, data[0x1E])
	}
	if got := copied.Bytes()[0x1E]; got == data[0x1E] {
		t.Errorf("LoadStory kept the caller's buffer")
	}
	if _, err := zmachine.LoadStoryOwned(data[:10]); !errors.Is(err, zmachine.ErrTruncated) {
		t.Errorf("a truncated owned buffer: %v, want ErrTruncated", err)
	}
}
