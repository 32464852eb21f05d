package zmachine

import (
	"errors"
	"fmt"
)

// Load errors: a story file that cannot be run is rejected with one of these,
// wrapped with details. Test for them with errors.Is.
var (
	// ErrTruncated: the file is shorter than its header says or than a header.
	ErrTruncated = errors.New("story file truncated")
	// ErrCorrupt: the header's tables point outside the file or overlap wrongly.
	ErrCorrupt = errors.New("story file corrupt")
	// ErrUnsupportedVersion: the story's version is not 1–5, 7 or 8.
	ErrUnsupportedVersion = errors.New("unsupported story version")
)

// Runtime faults: the story did something the machine cannot do. They arrive
// wrapped in a *RuntimeError that names the PC and the opcode.
var (
	ErrDivisionByZero   = errors.New("division by zero")
	ErrStackUnderflow   = errors.New("stack underflow")
	ErrStackOverflow    = errors.New("stack overflow")
	ErrIllegalOpcode    = errors.New("illegal opcode")
	ErrAddressRange     = errors.New("address out of range")
	ErrBadObject        = errors.New("bad object number")
	ErrBadProperty      = errors.New("bad property")
	ErrBadVariable      = errors.New("bad variable")
	ErrInstructionLimit = errors.New("instruction budget exceeded (runaway code)")
	ErrOutputLimit      = errors.New("output budget exceeded (runaway printing)")
	ErrInternal         = errors.New("internal interpreter error")
)

// Driving errors: the host used the machine in the wrong state.
var (
	// ErrNotWaiting: input was given while the story was not waiting for it.
	ErrNotWaiting = errors.New("story is not waiting for input")
	// ErrHalted: the story has quit (or faulted) and cannot run further.
	ErrHalted = errors.New("story has halted")
	// ErrNoUndo: there is no saved undo state to restore.
	ErrNoUndo = errors.New("no undo state")
	// ErrBadSave: a Quetzal file cannot be read or does not belong to this story.
	ErrBadSave = errors.New("bad save file")
)

// RuntimeError is a fault raised while executing story code.
type RuntimeError struct {
	PC     uint32 // address of the faulting instruction
	Opcode string // name of the opcode, or "" when decoding failed
	Err    error  // one of the runtime sentinel errors, possibly wrapped
}

func (e *RuntimeError) Error() string {
	op := e.Opcode
	if op == "" {
		op = "?"
	}
	return fmt.Sprintf("zmachine: pc 0x%05x (%s): %v", e.PC, op, e.Err)
}

func (e *RuntimeError) Unwrap() error { return e.Err }

// fault is raised (by panic) deep inside instruction execution and turned into
// a *RuntimeError by Run; it never escapes the package.
type fault struct{ err error }

func faultf(sentinel error, format string, args ...any) fault {
	return fault{fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)}
}
