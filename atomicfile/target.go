package atomicfile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// WriteTarget writes data to the output a person named (an export's -o, a
// formatter's -w): a regular file, or a name not yet taken, is replaced
// atomically; anything else that exists (a device such as /dev/null or
// /dev/stdout, a FIFO, a socket) is written in place, never replaced. A
// symbolic link is followed: its target is what is written. Opening a FIFO
// with no reader yet waits until ctx is done.
func WriteTarget(ctx context.Context, path string, data []byte, perm os.FileMode) error {
	fi, err := os.Stat(path)
	if err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return fmt.Errorf("write %q: is a directory", path)
		}
		return writeInPlace(ctx, path, data)
	}
	if err == nil {
		if real, lerr := filepath.EvalSymlinks(path); lerr == nil {
			path = real // keep the link; replace what it points to
		}
		perm = fi.Mode().Perm()
	}
	return Write(path, data, perm, false)
}

// writeInPlace opens a special file for writing (no create, no truncate)
// and writes data; the open runs aside so ctx ends a wait for a FIFO's
// reader.
func writeInPlace(ctx context.Context, path string, data []byte) error {
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		ch <- opened{f, err}
	}()
	var o opened
	select {
	case o = <-ch:
	case <-ctx.Done():
		go func() { // close the file should the open still succeed
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return fmt.Errorf("write %q: %w", path, ctx.Err())
	}
	if o.err != nil {
		return fmt.Errorf("write %q: %w", path, o.err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := o.f.Write(data)
		done <- err
	}()
	select {
	case err := <-done:
		if cerr := o.f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write %q: %w", path, err)
		}
		return nil
	case <-ctx.Done():
		o.f.Close()
		return fmt.Errorf("write %q: %w", path, ctx.Err())
	}
}
