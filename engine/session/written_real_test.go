//go:build linux

package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory"
)

// The same faults on a real file system: a small tmpfs run out of inodes,
// an immutable Memories.md (chattr +i), a directory where the backup goes.
// Each pauses the engine within the turn; once the fault is cleared the
// next session writes every memory the turns made.
func TestRealFaultsPauseAndResume(t *testing.T) {
	actions := []string{"n", "e", "examine window", "open window"}
	faults := []struct {
		name         string
		setup, clear func(t *testing.T, dir string) bool // false: not possible here
	}{
		{"tmpfs out of inodes", nil, nil},
		{"immutable Memories.md", func(t *testing.T, dir string) bool {
			return exec.Command("chattr", "+i", filepath.Join(dir, "Memories.md")).Run() == nil
		}, func(t *testing.T, dir string) bool {
			return exec.Command("chattr", "-i", filepath.Join(dir, "Memories.md")).Run() == nil
		}},
		{"directory at the backup path", func(t *testing.T, dir string) bool {
			b := filepath.Join(dir, "Memories.md.backup")
			os.Remove(b)
			return os.MkdirAll(filepath.Join(b, "inside"), 0o755) == nil
		}, func(t *testing.T, dir string) bool {
			return os.RemoveAll(filepath.Join(dir, "Memories.md.backup")) == nil
		}},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			work := t.TempDir()
			setup, clear := f.setup, f.clear
			if setup == nil {
				// A 4 MB tmpfs with few inodes, filled up after the first turn.
				if os.Geteuid() != 0 {
					t.Skip("mounting a tmpfs needs root")
				}
				if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m,nr_inodes=200", "tmpfs", work).Run(); err != nil {
					t.Skipf("cannot mount a tmpfs here: %v", err)
				}
				t.Cleanup(func() { exec.Command("umount", work).Run() })
				var fill []string
				setup = func(t *testing.T, dir string) bool {
					for i := 0; ; i++ {
						p := filepath.Join(dir, fmt.Sprintf("fill-%d", i))
						if err := os.WriteFile(p, nil, 0o644); err != nil {
							return errors.Is(err, syscall.ENOSPC) && len(fill) > 0
						}
						fill = append(fill, p)
					}
				}
				clear = func(t *testing.T, dir string) bool {
					for _, p := range fill {
						os.Remove(p)
					}
					return true
				}
			}
			sess := writtenSession(t, work, nil, actions)
			go sess.Engine.Run(context.Background())
			if errs := stepUntilIdle(t, sess.Engine); len(errs) > 0 {
				t.Fatalf("turn 1: %v", errs)
			}
			path := sess.Memories.Path()
			if !setup(t, sess.Dir) {
				sess.Close()
				t.Skipf("%s is not possible here", f.name)
			}
			errs := stepUntilIdle(t, sess.Engine)
			named := false
			for _, err := range errs {
				for _, file := range notWrittenFiles(err) {
					named = named || file == path
				}
			}
			if !named {
				clear(t, sess.Dir)
				t.Fatalf("errors %v, want the engine paused on %s", errs, path)
			}
			stepUntilIdle(t, sess.Engine) // paused again: still not written
			pending := 0
			for _, sec := range memory.Parse(sess.Memories.Pending()).Sections() {
				pending += len(sec.Memories)
			}
			sess.Engine.Send(context.Background(), engine.Quit{})
			for range sess.Engine.Events() {
			}
			sess.Close()
			if !clear(t, sess.Dir) {
				t.Fatal("could not clear the fault")
			}
			again := writtenSession(t, work, nil, nil)
			defer again.Close()
			if got := countMemories(t, path); pending == 0 || got != pending {
				t.Fatalf("after the resume the file has %d memories, want the %d pending", got, pending)
			}
		})
	}
}

// notWrittenFiles are the files the NotWrittenErrors in err's tree name.
func notWrittenFiles(err error) []string {
	var out []string
	if nw, ok := err.(*engine.NotWrittenError); ok {
		out = append(out, nw.Path)
	}
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			out = append(out, notWrittenFiles(e)...)
		}
	case interface{ Unwrap() error }:
		out = append(out, notWrittenFiles(u.Unwrap())...)
	}
	return out
}
