// Package atomicfile writes files so that a crash never leaves a torn file:
// the data goes to a temporary file in the same directory, is synced, and
// replaces the target by rename; the previous version can be kept as
// <name>.backup. Every file Lantern writes in its work dir goes through here.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Write replaces path with data atomically and durably (the data and the
// rename are synced to disk). With backup, the previous content (if any) is
// kept as path+".backup".
func Write(path string, data []byte, perm os.FileMode, backup bool) error {
	return write(path, data, perm, backup, true)
}

// Replace replaces path with data atomically but without syncing: a killed
// process never leaves a torn or missing file, though a power cut may undo
// the last replacement. It suits files rewritten every turn (the autosave,
// current_state.json), where a sync per turn would cost more than the turn.
func Replace(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false, false)
}

func write(path string, data []byte, perm os.FileMode, backup, sync bool) error {
	dir := filepath.Dir(path)
	// One temporary name per process: a process never writes the same file
	// from two goroutines at once. A leftover of that name (from a killed
	// process with the same pid, or a planted symbolic link) is removed and
	// the file created afresh, never opened through a link.
	name := filepath.Join(dir, "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid()))
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %q: %w", path, err)
	}
	tmp, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("write %q: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %q: %w", path, err)
	}
	if backup {
		if old, err := os.ReadFile(path); err == nil {
			// The backup is a convenience copy: replaced atomically but not
			// synced, which halves the cost of a durable write.
			if err := write(path+".backup", old, perm, false, false); err != nil {
				os.Remove(name)
				return err
			}
		}
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %q: %w", path, err)
	}
	if !sync {
		return nil
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // make the rename durable where the platform allows
		d.Close()
	}
	return nil
}
