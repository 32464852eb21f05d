// Package atomicfile writes files so that a crash never leaves a torn file:
// the data goes to a temporary file in the same directory, is synced, and
// replaces the target by rename; the previous version can be kept as
// <name>.backup. Every file Lantern writes in its work dir goes through here.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write replaces path with data atomically. With backup, the previous
// content (if any) is kept as path+".backup".
func Write(path string, data []byte, perm os.FileMode, backup bool) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("write %q: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %q: %w", path, err)
	}
	if backup {
		if old, err := os.ReadFile(path); err == nil {
			if err := Write(path+".backup", old, perm, false); err != nil {
				os.Remove(name)
				return err
			}
		}
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %q: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // make the rename durable where the platform allows
		d.Close()
	}
	return nil
}
