package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
)

// WorkLockName is the lock file of a story's work dir. One Lantern owns the
// folder for its whole session (TUI, run, bench): it holds an flock on the
// folder itself, through a descriptor open for the whole session, so deleting
// or replacing a file cannot let a second Lantern in; it also holds an flock
// on this file (as earlier Lanterns did) and writes its PID into it, so a
// second Lantern can name the owner.
const WorkLockName = "lantern.lock"

// ErrInUse: another Lantern owns the story's work dir.
var ErrInUse = errors.New("story work dir is in use by another Lantern")

// InUseError says who owns a work dir; errors.Is(err, ErrInUse) holds.
type InUseError struct {
	Dir string
	PID int // 0 when the owner did not write its PID (yet)
}

func (e *InUseError) Error() string {
	who := "another Lantern"
	if e.PID > 0 {
		who = fmt.Sprintf("another Lantern (PID %d)", e.PID)
	}
	return fmt.Sprintf("%s is in use by %s; close it, or give this one another --workdir", e.Dir, who)
}

// Is makes errors.Is(err, ErrInUse) hold.
func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// A WorkLock is the ownership of one story work dir.
type WorkLock struct {
	dir, fl *flock.Flock
}

// dirLock is the flock on the work dir itself, opened read-only (a
// directory cannot be opened for writing).
func dirLock(dir string) *flock.Flock { return flock.New(dir, flock.SetFlag(os.O_RDONLY)) }

// LockWorkDir takes the work dir's lock for this process, or fails with an
// *InUseError naming the owner's PID.
func LockWorkDir(dir string) (*WorkLock, error) {
	path := filepath.Join(dir, WorkLockName)
	dl := dirLock(dir)
	ok, err := dl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock work dir %q: %w", dir, err)
	}
	if !ok {
		return nil, &InUseError{Dir: dir, PID: readPID(path)}
	}
	fl := flock.New(path, flock.SetPermissions(0o644))
	ok, err = fl.TryLock()
	if err != nil || !ok {
		dl.Unlock()
		if err != nil {
			return nil, fmt.Errorf("lock work dir %q: %w", dir, err)
		}
		return nil, &InUseError{Dir: dir, PID: readPID(path)}
	}
	// The file is ours while the lock is held: its content is our PID.
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		fl.Unlock()
		dl.Unlock()
		return nil, fmt.Errorf("lock work dir %q: %w", dir, err)
	}
	return &WorkLock{dir: dl, fl: fl}, nil
}

// Unlock gives the work dir up. The file stays (removing it would let a
// third process lock a new file while a second still waits on the old one).
func (l *WorkLock) Unlock() error {
	if l == nil || l.fl == nil {
		return nil
	}
	fl, dl := l.fl, l.dir
	l.fl, l.dir = nil, nil
	_ = os.WriteFile(fl.Path(), nil, 0o644)
	err := fl.Unlock()
	if dl != nil {
		err = errors.Join(err, dl.Unlock())
	}
	return err
}

// WorkDirOwner reports whether another process holds dir's lock, and its
// PID when known; it takes and releases the lock when it is free.
func WorkDirOwner(dir string) (pid int, inUse bool, err error) {
	path := filepath.Join(dir, WorkLockName)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	dl := dirLock(dir)
	defer dl.Close()
	ok, err := dl.TryLock()
	if err != nil {
		return 0, false, fmt.Errorf("check work dir %q: %w", dir, err)
	}
	if !ok {
		return readPID(path), true, nil
	}
	defer dl.Unlock()
	// An earlier Lantern locks only the file.
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	fl := flock.New(path)
	defer fl.Close()
	if ok, err = fl.TryLock(); err != nil {
		return 0, false, fmt.Errorf("check work dir %q: %w", dir, err)
	}
	if ok {
		fl.Unlock()
		return 0, false, nil
	}
	return readPID(path), true, nil
}

func readPID(path string) int {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 32 {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid < 0 {
		return 0
	}
	return pid
}
