package atomicfile

import (
	"errors"
	"fmt"
)

// ErrNotWritten: a file of the work dir could not be written (a full disk,
// an immutable file, a directory where the backup goes). Its writer keeps
// what the file should hold and writes it once the cause is gone; a
// session also keeps it in lantern.db across a restart.
var ErrNotWritten = errors.New("work dir file not written")

// NotWrittenError names the file that could not be written and the cause;
// errors.Is holds for ErrNotWritten and for the cause.
type NotWrittenError struct {
	Path string // the file's path
	Err  error  // the cause
}

func (e *NotWrittenError) Error() string {
	return fmt.Sprintf("%s could not be written (%v); what it should hold is kept and written once the cause is fixed", e.Path, e.Err)
}

// Unwrap makes errors.Is find ErrNotWritten and the cause.
func (e *NotWrittenError) Unwrap() []error { return []error{ErrNotWritten, e.Err} }
