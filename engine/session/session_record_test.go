package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/memory/rundb"
)

// playUntilIdle runs the session until the engine first waits for a
// command, then quits it; it returns the events.
func playUntilIdle(t *testing.T, sess *Session) []engine.Event {
	t.Helper()
	ctx := context.Background()
	go sess.Engine.Run(ctx)
	var evs []engine.Event
	quit := false
	for ev := range sess.Engine.Events() {
		evs = append(evs, ev)
		if _, ok := ev.(engine.Idle); ok && !quit {
			quit = true
			sess.Engine.Send(ctx, engine.Quit{})
		}
	}
	return evs
}

// TestUnrecordableTurnPausesTheEngine: a turn lantern.db cannot take (a
// full disk, the database removed) pauses the engine at that turn with an
// ErrNotRecorded error; nothing is played after it.
func TestUnrecordableTurnPausesTheEngine(t *testing.T) {
	cases := []struct {
		name string
		fail func(sess *Session, row rundb.Turn) error
		want error
	}{
		{"disk full", func(*Session, rundb.Turn) error {
			return fmt.Errorf("write lantern.db-wal: %w", syscall.ENOSPC)
		}, syscall.ENOSPC},
		{"database removed", func(sess *Session, row rundb.Turn) error {
			os.Remove(filepath.Join(sess.Dir, "lantern.db"))
			return sess.DB.RecordTurn(context.Background(), row)
		}, rundb.ErrDatabaseGone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			story, binding := demoStory(t)
			sess, err := Open(Options{Story: story, Name: "demo.z5", Binding: binding, WorkDir: t.TempDir(), Autosave: true,
				Agent: recording("look", "look", "look", "look", "look", "look"), Engine: engine.Config{Seed: 3, MaxTurns: 10}})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			sess.record = func(ctx context.Context, row rundb.Turn) error {
				if row.Turn >= 3 {
					return c.fail(sess, row)
				}
				return sess.DB.RecordTurn(ctx, row)
			}
			evs := playUntilIdle(t, sess)
			var notRecorded []int
			last, idleAt := 0, -1
			for _, ev := range evs {
				switch v := ev.(type) {
				case engine.TurnResult:
					last = v.Turn
				case engine.ErrorEvent:
					if errors.Is(v.Err, engine.ErrNotRecorded) {
						notRecorded = append(notRecorded, v.Turn)
						if !errors.Is(v.Err, c.want) {
							t.Errorf("error %v does not wrap %v", v.Err, c.want)
						}
					}
				case engine.Idle:
					if idleAt < 0 {
						idleAt = v.Turn
						if v.Mode != engine.Paused {
							t.Errorf("idle in mode %s, want paused", v.Mode)
						}
					}
				}
			}
			if len(notRecorded) != 1 || notRecorded[0] != 3 || last != 3 || idleAt != 3 {
				t.Errorf("not recorded at %v, last turn %d, idle at %d; want the engine paused at turn 3", notRecorded, last, idleAt)
			}
		})
	}
}

// TestHugeReplyPausesTheEngine: an agent reply past the client's cap is a
// typed error and the engine pauses at once (no retry of the same flood).
func TestHugeReplyPausesTheEngine(t *testing.T) {
	story, binding := demoStory(t)
	client, fake := fakeClient(t)
	fake.Always("agent", llmtest.Role(config.RoleAgent), llmtest.Reply{Content: strings.Repeat("x", llm.DefaultMaxReply+1), ChunkRunes: 64 << 10}) // few, large pieces: the cap, not the streaming, is under test
	sess, err := Open(Options{Story: story, Name: "demo.z5", Binding: binding, WorkDir: t.TempDir(), Client: client,
		Engine: engine.Config{Seed: 3, MaxTurns: 10}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	evs := playUntilIdle(t, sess)
	tooLarge, idle := 0, false
	for _, ev := range evs {
		switch v := ev.(type) {
		case engine.ErrorEvent:
			if errors.Is(v.Err, llm.ErrReplyTooLarge) {
				tooLarge++
			}
		case engine.Idle:
			idle = idle || v.Mode == engine.Paused
		}
	}
	if tooLarge != 1 || !idle {
		t.Errorf("%d reply-too-large errors, paused %v; want one, then paused", tooLarge, idle)
	}
}

// TestUnrecordedTurnStillReachesMemories: a turn lantern.db could not take
// still goes through the memory bookkeeping (the visit to the new room).
func TestUnrecordedTurnStillReachesMemories(t *testing.T) {
	story, binding := demoStory(t)
	sess, err := Open(Options{Story: story, Name: "demo.z5", Binding: binding, WorkDir: t.TempDir(), Autosave: true,
		Agent: recording("north"), Engine: engine.Config{Seed: 3, MaxTurns: 5}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	sess.record = func(context.Context, rundb.Turn) error { return fmt.Errorf("write: %w", syscall.EROFS) }
	evs := playUntilIdle(t, sess)
	var moved int
	for _, ev := range evs {
		if v, ok := ev.(engine.TurnResult); ok && v.Turn == 1 {
			moved = v.Observation.Location.ID
		}
	}
	if moved == 0 {
		t.Fatal("turn 1 was not played")
	}
	sec, ok := func() (memory.Section, bool) {
		for _, s := range sess.Memories.Sections() {
			if s.ID == moved {
				return s, true
			}
		}
		return memory.Section{}, false
	}()
	if !ok || sec.Visits != 1 {
		t.Errorf("Memories.md after the unrecorded move to L%d: %+v", moved, sec)
	}
}
