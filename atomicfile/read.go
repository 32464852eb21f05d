package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ErrNotRegular: an input file is a device, a FIFO, a socket or a
// directory, which Lantern does not read (/dev/zero would never end, a FIFO
// would wait for a writer without end).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge: an input file is larger than its kind ever needs to be.
var ErrTooLarge = errors.New("file too large")

// ReadRegular reads the regular file at path (a symbolic link is followed),
// refusing anything else, and anything larger than max bytes, before reading
// a byte of it. It never blocks on a FIFO: the file is opened without
// waiting for a writer and its type checked on the open descriptor.
func ReadRegular(path string, max int64) ([]byte, error) {
	data, _, err := ReadRegularInfo(path, max)
	return data, err
}

// ReadRegularInfo is ReadRegular with the file's FileInfo as it stood
// once read (taken on the descriptor after the read): its modification
// time is never older than what was read, so a file changed while it was
// read (an editor's truncation) is not taken for one that has been still.
func ReadRegularInfo(path string, max int64) ([]byte, os.FileInfo, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, fi.Size(), max)}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(data)) > max { // grew while read
		return nil, nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)}
	}
	if fi, err = f.Stat(); err != nil {
		return nil, nil, err
	}
	return data, fi, nil
}

// OpenRegular opens the regular file at path (a symbolic link is
// followed) for reading, with its FileInfo; anything else is refused with
// ErrNotRegular, without blocking on a FIFO (the file is opened without
// waiting for a writer and its type checked on the open descriptor).
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
	}
	// Reads of a regular file never wait; the flag only kept the open
	// from waiting on a FIFO.
	return f, fi, nil
}

func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}
