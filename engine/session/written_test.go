package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/memory"
)

// writtenSession opens a session on the demo in dir whose memory model
// remembers one memory per action, writing through fsys.
func writtenSession(t *testing.T, dir string, fsys atomicfile.FS, actions []string) *Session {
	t.Helper()
	story, binding := demoStory(t)
	client, fake := fakeClient(t)
	for _, a := range actions {
		m := action(a)
		fake.Always("memory of "+a, func(r llmtest.Request) bool { return r.Role == config.RoleMemory && m(r) },
			memReply(true, "NOTE", "After "+a, "Played "+a+".", "ACTIVE"))
	}
	fake.Always("nothing else to remember", llmtest.Role(config.RoleMemory), memReply(false, "NOTE", "", "", "ACTIVE"))
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 3, "justification": "ok"}`})
	agent, _ := engine.NewScriptAgent(strings.NewReader(strings.Join(actions, "\n")))
	sess, err := Open(Options{Story: story, Name: demo.FileName, Binding: binding, WorkDir: dir, Client: client, Agent: agent,
		Engine: engine.Config{Seed: 7, CriticThreshold: -0.2, StartPaused: true}, Files: fsys})
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// stepUntilIdle plays one turn and returns the errors reported until the
// engine is idle after it. An Idle before the turn started (a paused
// engine's first, sent before it read the Step) does not end the wait:
// the turn would then be played while the caller sets up its next fault.
func stepUntilIdle(t *testing.T, e *engine.Engine) []error {
	t.Helper()
	if err := e.Send(context.Background(), engine.Step{}); err != nil {
		t.Fatal(err)
	}
	var errs []error
	started := false
	for ev := range e.Events() {
		switch v := ev.(type) {
		case engine.TurnStarted:
			started = true
		case engine.ErrorEvent:
			errs = append(errs, v.Err)
		case engine.Idle:
			if started {
				return errs
			}
		}
	}
	t.Fatal("events ended")
	return nil
}

func countMemories(t *testing.T, path string) int {
	t.Helper()
	f, err := memory.Load(path)
	if err != nil {
		return 0
	}
	n := 0
	for _, sec := range f.Sections() {
		n += len(sec.Memories)
	}
	return n
}

// A Memories.md the turn cannot write (a full disk, an immutable file, a
// directory where the backup goes) pauses the engine within the turn with
// an error naming the file and the cause; every memory made meanwhile is
// kept, and the next session, once the fault is gone, writes them all.
func TestUnwritableMemoriesPauseAndAreWrittenOnResume(t *testing.T) {
	faults := []struct {
		name string
		op   atomicfile.Op
		err  error
	}{
		{"no space", atomicfile.OpWrite, syscall.ENOSPC},
		{"no inodes", atomicfile.OpOpen, syscall.ENOSPC},
		{"immutable", atomicfile.OpRename, syscall.EPERM},
		{"backup is a directory", atomicfile.OpRead, syscall.EISDIR},
	}
	actions := []string{"n", "e", "examine window", "open window"}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			ffs := &atomicfile.FaultFS{}
			sess := writtenSession(t, dir, ffs, actions)
			go sess.Engine.Run(context.Background())
			// The first turn writes normally.
			if errs := stepUntilIdle(t, sess.Engine); len(errs) > 0 {
				t.Fatalf("turn 1: %v", errs)
			}
			path := sess.Memories.Path()
			before := countMemories(t, path)
			ffs.SetRule(func(op atomicfile.Op, p string) error {
				if op == f.op && strings.Contains(p, "Memories.md") {
					return f.err
				}
				return nil
			})
			// Each later turn stops with the file named and the cause.
			for turn := 2; turn <= 3; turn++ {
				errs := stepUntilIdle(t, sess.Engine)
				var nw *engine.NotWrittenError
				found := false
				for _, err := range errs {
					if errors.As(err, &nw) && nw.Path == path && errors.Is(err, f.err) && engine.Halts(err) {
						found = true
					}
				}
				if !found {
					t.Fatalf("turn %d: errors %v, want a NotWrittenError naming %s with %v", turn, errs, path, f.err)
				}
			}
			if got := countMemories(t, path); got != before {
				t.Fatalf("the file changed under the fault: %d memories, had %d", got, before)
			}
			pending := 0
			for _, sec := range memory.Parse(sess.Memories.Pending()).Sections() {
				pending += len(sec.Memories)
			}
			if pending <= before {
				t.Fatalf("%d memories pending, %d on disk: the turns under the fault made none", pending, before)
			}
			sess.Engine.Send(context.Background(), engine.Quit{})
			for range sess.Engine.Events() {
			}
			sess.Close() // the process ends with the memories unwritten
			// The person fixes the cause; the next session writes them.
			ffs.SetRule(nil)
			again := writtenSession(t, dir, nil, nil)
			defer again.Close()
			if got := countMemories(t, path); got != pending {
				t.Fatalf("after the resume the file has %d memories, want %d (%d pending written)", got, pending, pending-before)
			}
			if kept, _ := again.DB.PendingFiles(context.Background()); len(kept) != 0 {
				t.Fatalf("%d versions still kept in lantern.db", len(kept))
			}
		})
	}
}

// The same pause for knowledgebase.md and current_state.json.
func TestUnwritableStateFilePauses(t *testing.T) {
	dir := t.TempDir()
	ffs := &atomicfile.FaultFS{}
	ffs.SetRule(func(op atomicfile.Op, p string) error {
		if op == atomicfile.OpRename && filepath.Base(p) == "current_state.json" {
			return syscall.EROFS
		}
		return nil
	})
	sess := writtenSession(t, dir, ffs, []string{"n", "e"})
	defer sess.Close()
	go sess.Engine.Run(context.Background())
	errs := stepUntilIdle(t, sess.Engine)
	found := false
	for _, err := range errs {
		var nw *engine.NotWrittenError
		if errors.As(err, &nw) && filepath.Base(nw.Path) == "current_state.json" && errors.Is(err, syscall.EROFS) {
			found = true
		}
	}
	if !found {
		t.Fatalf("errors %v, want current_state.json named", errs)
	}
	if _, err := os.Stat(filepath.Join(sess.Dir, "current_state.json")); err == nil {
		t.Fatal("current_state.json was written under the fault")
	}
}
