// Package atomicfile writes files so that a crash never leaves a torn file:
// the data goes to a temporary file in the same directory, is synced, and
// replaces the target by rename; the previous version can be kept as
// <name>.backup. Every file Lantern writes in its work dir goes through here,
// through an FS that tests replace to inject faults (a full disk, a
// read-only file, a failed rename).
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// File is what FS.OpenFile returns: enough to write and sync.
type File interface {
	Write(p []byte) (int, error)
	Sync() error
	Close() error
}

// FS is the file system the writes go through.
type FS interface {
	OpenFile(name string, flag int, perm os.FileMode) (File, error)
	ReadFile(name string) ([]byte, error)
	Rename(oldpath, newpath string) error
	Remove(name string) error
}

// OS is the real file system.
type OS struct{}

// OpenFile is os.OpenFile.
func (OS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return f, nil
}

// ReadFile is os.ReadFile.
func (OS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

// Rename is os.Rename.
func (OS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Remove is os.Remove.
func (OS) Remove(name string) error { return os.Remove(name) }

// Writer writes through an FS; its zero value writes to the real one.
type Writer struct {
	FS FS
}

func (w Writer) fs() FS {
	if w.FS == nil {
		return OS{}
	}
	return w.FS
}

// Write replaces path with data atomically and durably (the data and the
// rename are synced to disk). With backup, the previous content (if any) is
// kept as path+".backup".
func Write(path string, data []byte, perm os.FileMode, backup bool) error {
	return Writer{}.Write(path, data, perm, backup)
}

// Replace replaces path with data atomically but without syncing: a killed
// process never leaves a torn or missing file, though a power cut may undo
// the last replacement. It suits files rewritten every turn (the autosave,
// current_state.json), where a sync per turn would cost more than the turn.
func Replace(path string, data []byte, perm os.FileMode) error {
	return Writer{}.Replace(path, data, perm)
}

// Write is the package's Write through w's FS.
func (w Writer) Write(path string, data []byte, perm os.FileMode, backup bool) error {
	return w.retry(func() error { return w.write(path, data, perm, backup, true) })
}

// Replace is the package's Replace through w's FS.
func (w Writer) Replace(path string, data []byte, perm os.FileMode) error {
	return w.retry(func() error { return w.write(path, data, perm, false, false) })
}

// Transient reports whether a failed write may succeed if tried again at
// once (an interrupted call, a busy or temporarily unavailable resource);
// a full disk, a read-only or immutable file, a missing or wrong-typed
// directory entry do not.
func Transient(err error) bool {
	return errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EBUSY) ||
		errors.Is(err, syscall.ETXTBSY)
}

// retry runs write, again a few times while it fails transiently.
func (w Writer) retry(write func() error) error {
	wait := 10 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := write()
		if err == nil || attempt == 4 || !Transient(err) {
			return err
		}
		time.Sleep(wait)
		wait *= 4
	}
}

func (w Writer) write(path string, data []byte, perm os.FileMode, backup, sync bool) error {
	fsys := w.fs()
	dir := filepath.Dir(path)
	// One temporary name per process: a process never writes the same file
	// from two goroutines at once. A leftover of that name (from a killed
	// process with the same pid, or a planted symbolic link) is removed and
	// the file created afresh, never opened through a link.
	name := filepath.Join(dir, "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid()))
	if err := fsys.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %q: %w", path, err)
	}
	tmp, err := fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	fail := func(err error) error {
		tmp.Close()
		fsys.Remove(name)
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
		fsys.Remove(name)
		return fmt.Errorf("write %q: %w", path, err)
	}
	if backup {
		// The backup is part of the write: a version that cannot be kept
		// (unreadable, a directory in the backup's place) fails it.
		old, err := fsys.ReadFile(path)
		switch {
		case err == nil:
			// A convenience copy: replaced atomically but not synced,
			// which halves the cost of a durable write.
			if err := w.write(path+".backup", old, perm, false, false); err != nil {
				fsys.Remove(name)
				return err
			}
		case !errors.Is(err, fs.ErrNotExist):
			fsys.Remove(name)
			return fmt.Errorf("write %q: keep the previous version: %w", path, err)
		}
	}
	if err := fsys.Rename(name, path); err != nil {
		fsys.Remove(name)
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
