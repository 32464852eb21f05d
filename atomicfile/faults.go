package atomicfile

import (
	"os"
	"sync"
)

// Op names a file operation for FaultFS.
type Op string

// The operations FaultFS can fail.
const (
	OpOpen   Op = "open"   // creating the temporary file
	OpWrite  Op = "write"  // writing into it
	OpSync   Op = "sync"   // syncing it
	OpRename Op = "rename" // replacing the target (path is the target)
	OpRead   Op = "read"   // reading the old content for the backup
)

// FaultFS is an FS that fails the operations a rule picks, over another
// FS: the fault-injecting layer of the tests of every writer (a full disk at
// the write, a read-only directory at the open, a failed rename). It counts
// what it failed. Safe for concurrent use.
type FaultFS struct {
	Base FS // nil: the real file system

	mu     sync.Mutex
	rule   func(op Op, path string) error
	failed int
}

// SetRule makes the operations for which rule returns an error fail with
// it; nil lets every operation through again (the fault cleared).
func (f *FaultFS) SetRule(rule func(op Op, path string) error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rule = rule
}

// Failed is how many operations were failed.
func (f *FaultFS) Failed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

func (f *FaultFS) check(op Op, path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rule == nil {
		return nil
	}
	err := f.rule(op, path)
	if err != nil {
		f.failed++
		return &os.PathError{Op: string(op), Path: path, Err: err}
	}
	return nil
}

func (f *FaultFS) base() FS {
	if f.Base == nil {
		return OS{}
	}
	return f.Base
}

// OpenFile fails by the rule, else opens a file whose writes and sync the
// rule may fail too.
func (f *FaultFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	if err := f.check(OpOpen, name); err != nil {
		return nil, err
	}
	file, err := f.base().OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, fs: f, name: name}, nil
}

// ReadFile fails by the rule, else reads.
func (f *FaultFS) ReadFile(name string) ([]byte, error) {
	if err := f.check(OpRead, name); err != nil {
		return nil, err
	}
	return f.base().ReadFile(name)
}

// Rename fails by the rule (asked with the target's path), else renames.
func (f *FaultFS) Rename(oldpath, newpath string) error {
	if err := f.check(OpRename, newpath); err != nil {
		return err
	}
	return f.base().Rename(oldpath, newpath)
}

// Remove is never failed: it only cleans up.
func (f *FaultFS) Remove(name string) error { return f.base().Remove(name) }

type faultFile struct {
	File
	fs   *FaultFS
	name string
}

func (f *faultFile) Write(p []byte) (int, error) {
	if err := f.fs.check(OpWrite, f.name); err != nil {
		return 0, err
	}
	return f.File.Write(p)
}

func (f *faultFile) Sync() error {
	if err := f.fs.check(OpSync, f.name); err != nil {
		return err
	}
	return f.File.Sync()
}
