// Package zmachine is Lantern's Z-machine interpreter: story versions 1–5, 7
// and 8, with frotz-exact random numbers, fast snapshots, Quetzal saves and
// introspection of memory and the object tree for the layers above.
//
// A Machine runs until the story needs input (Run returns WaitLine or
// WaitChar), takes the input (SendLine, SendChar) and runs on. Output of the
// lower window accumulates until TakeOutput; the upper window and the v3 status
// line are kept as data. The package never panics on a story file: faults come
// back as *RuntimeError naming the PC and the opcode.
package zmachine

import (
	"fmt"
	"io"
	"time"
)

// State is what a machine is doing between calls to Run.
type State int

const (
	// Running: Run will execute instructions.
	Running State = iota
	// WaitLine: the story executed read and waits for SendLine.
	WaitLine
	// WaitChar: the story executed read_char and waits for SendChar.
	WaitChar
	// Halted: the story quit, or a fault stopped it.
	Halted
)

func (s State) String() string {
	switch s {
	case Running:
		return "running"
	case WaitLine:
		return "wait-line"
	case WaitChar:
		return "wait-char"
	case Halted:
		return "halted"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Hooks receive changes to the object tree, and to one watched global
// variable, as they happen. Nil hooks cost nothing; a hook may read the
// machine (OutputLen tells where in the text the change falls) but must
// not run it.
type Hooks struct {
	// ObjectMoved is called when obj's parent changes (newParent 0: removed).
	ObjectMoved func(obj, oldParent, newParent uint16)
	// AttributeChanged is called when an attribute actually changes value.
	AttributeChanged func(obj uint16, attr uint8, set bool)
	// GlobalChanged is called when an instruction's store (store, inc,
	// dec, pull, a result) changes the value of global variable
	// WatchGlobal (0–239). Writes to the globals table through storew or
	// storeb are not seen; stories assign their variables with stores.
	GlobalChanged func(old, new uint16)
	// WatchGlobal is the global GlobalChanged watches.
	WatchGlobal int
}

// Identity is what the interpreter tells the story about itself in the header.
// The zero value is not useful; DefaultIdentity matches Debian's dfrotz 2.54.
type Identity struct {
	InterpreterNumber  byte
	InterpreterVersion byte
	ScreenRows         byte // 255 means infinite
	ScreenCols         byte
	Standard           [2]byte // standard revision major, minor
	Timer              bool    // advertise timed input (v4+ flags 1 bit 7)
}

// DefaultIdentity is the header identity of dfrotz 2.54: interpreter 1
// (DECSystem-20) version 'F', an 80x24 screen, standard 1.1, timed input.
func DefaultIdentity() Identity {
	return Identity{InterpreterNumber: 1, InterpreterVersion: 'F', ScreenRows: 24, ScreenCols: 80, Standard: [2]byte{1, 1}, Timer: true}
}

// Options configure a machine. The zero value is valid.
type Options struct {
	// Seed follows frotz's -s option: the generator starts from this value
	// (at start-up and at every restart) as dfrotz -s does, so transcripts
	// replay exactly. A negative seed takes the clock instead.
	Seed int
	// Identity overrides the header identity; nil means DefaultIdentity.
	Identity *Identity
	// StepBudget bounds the instructions one Run may execute before it fails
	// with ErrInstructionLimit (runaway code). 0 means 50 million. A table
	// instruction (copy_table, scan_table) counts one more for every 64
	// bytes it handles, so that no instruction does unbounded work.
	StepBudget int
	// OutputBudget bounds the characters one Run may print, to any stream,
	// before it fails with ErrOutputLimit (runaway printing would otherwise
	// fill memory). 0 means 1 Mi: a real story prints a few thousand a turn.
	OutputBudget int
	// EchoInput echoes each line of input into the lower window's text, as a
	// terminal would. A newline always follows a line of input.
	EchoInput bool
	// Transcript receives output stream 2 (the story's SCRIPT command), if set.
	Transcript io.Writer
	// Commands receives output stream 4 (the player's commands), if set.
	Commands io.Writer
	// UndoLevels is how many save_undo states are kept; 0 means 20.
	UndoLevels int
	// Saver handles the story's SAVE and RESTORE; nil makes them fail.
	Saver Saver
	// Hooks observe object-tree changes.
	Hooks Hooks
}

// Saver stores and loads Quetzal images for the story's own SAVE and RESTORE.
// The machine chooses nothing about files: the host decides where they go.
type Saver interface {
	Save(data []byte) error
	Restore() ([]byte, error)
}

const (
	defaultBudget       = 50_000_000
	defaultOutputBudget = 1 << 20
	maxFrames           = 1024
	maxStack            = 65535
	// memPad zero bytes follow memory so that decoding an instruction, whose
	// first byte is checked to lie in the story, needs no further checks:
	// an instruction with its store and branch bytes is at most 23 bytes.
	memPad = 32
)

// frame is one routine activation.
type frame struct {
	retPC     uint32
	store     int16 // variable for the result; -1 discards it
	nlocals   uint8
	nargs     uint8
	stackBase int // eval stack depth when the routine started
	locals    [15]uint16
}

// Machine is one running story. It is not safe for concurrent use.
type Machine struct {
	story *Story
	mem   []byte // the story's memory, followed by memPad zero bytes
	end   uint32 // the story's length: addresses at or past it are out of range
	v     int
	opts  Options
	id    Identity

	staticBase uint32
	globals    uint32
	objects    uint32
	dict       uint32
	abbrevs    uint32
	alphabet   uint32 // custom alphabet table, 0 for the default
	unicode    uint32 // unicode translation table, 0 for the default
	packShift  uint
	objSize    uint32
	propDefs   uint32

	pc     uint32
	stack  []uint16
	frames []frame
	cur    *frame

	state   State
	pending readRequest
	rng     rng
	out     output
	undo    []*Snapshot
	screen  Screen
	// restarts counts restart instructions, so hosts can tell one happened.
	restarts int
	// executed counts instructions run since New.
	executed uint64
	// left points at the running Run's instruction budget (table
	// instructions charge it); printLeft is that Run's output budget.
	left      *int
	printLeft int
	// watchVar is the variable number (16–255) of Hooks.WatchGlobal while
	// Hooks.GlobalChanged is set, else 0 (never a global's number).
	watchVar uint8

	// The instruction being executed, for fault reports.
	instrPC uint32
	ops     [8]uint16
	nops    int
}

// New makes a machine for story, ready to Run from the start.
func New(story *Story, opts Options) (*Machine, error) {
	if story == nil {
		return nil, fmt.Errorf("new machine: %w: nil story", ErrCorrupt)
	}
	m := &Machine{story: story, v: story.version, opts: opts}
	m.SetHooks(opts.Hooks)
	if opts.Identity != nil {
		m.id = *opts.Identity
	} else {
		m.id = DefaultIdentity()
	}
	if m.opts.StepBudget <= 0 {
		m.opts.StepBudget = defaultBudget
	}
	if m.opts.OutputBudget <= 0 {
		m.opts.OutputBudget = defaultOutputBudget
	}
	if m.opts.UndoLevels <= 0 {
		m.opts.UndoLevels = 20
	}
	switch {
	case m.v <= 3:
		m.packShift, m.objSize, m.propDefs = 1, 9, 31
	case m.v <= 7:
		m.packShift, m.objSize, m.propDefs = 2, 14, 63
	default:
		m.packShift, m.objSize, m.propDefs = 3, 14, 63
	}
	m.mem = make([]byte, len(story.data)+memPad)
	m.end = uint32(len(story.data))
	m.stack = make([]uint16, 0, 1024)
	m.frames = make([]frame, 1, maxFrames)
	m.rng.seed(opts.Seed)
	m.reset(0)
	return m, nil
}

// reset loads dynamic memory from the story, writes the interpreter's header
// fields and starts at the initial PC. flags2 carries the bits that survive a
// restart (transcript and fixed pitch).
func (m *Machine) reset(keepFlags2 uint16) {
	copy(m.mem, m.story.data)
	m.staticBase = uint32(m.word(hStaticMem))
	m.globals = uint32(m.word(hGlobals))
	m.objects = uint32(m.word(hObjects))
	m.dict = uint32(m.word(hDictionary))
	m.abbrevs = uint32(m.word(hAbbrevs))
	m.alphabet, m.unicode = 0, 0
	if m.v >= 5 {
		if a := uint32(m.word(hAlphabet)); a != 0 && a+78 <= m.end {
			m.alphabet = a
		}
		if ext := uint32(m.word(hExtension)); ext != 0 && ext+8 <= m.end && m.word(ext) >= 3 {
			if u := uint32(m.word(ext + 6)); u != 0 && u < m.end {
				m.unicode = u
			}
		}
	}
	m.writeHeader(keepFlags2)
	m.pc = uint32(m.word(hInitialPC))
	m.stack = m.stack[:0]
	m.frames = m.frames[:1]
	m.frames[0] = frame{store: -1}
	m.cur = &m.frames[0]
	m.state = Running
	m.pending = readRequest{}
	m.out.reset(m)
}

// writeHeader sets the fields an interpreter owns (§11.1).
func (m *Machine) writeHeader(keepFlags2 uint16) {
	mem := m.mem
	f1 := mem[hFlags1]
	if m.v <= 3 {
		f1 &^= 0x10 // status line available
		f1 |= 0x20  // screen splitting available
		f1 &^= 0x40 // fixed-pitch font is not the default
	} else {
		f1 = 0
		if m.id.Timer {
			f1 |= 0x80
		}
	}
	mem[hFlags1] = f1
	f2 := m.word(hFlags2)
	f2 &^= 0x0003
	f2 |= keepFlags2 & 0x0003
	if m.v >= 5 {
		f2 &^= 0x01a0 // no mouse, sound or menus (as dfrotz)
	}
	m.setWord(hFlags2, f2)
	if m.v >= 4 {
		mem[hInterpNumber] = m.id.InterpreterNumber
		mem[hInterpVersion] = m.id.InterpreterVersion
		mem[hScreenRows] = m.id.ScreenRows
		mem[hScreenCols] = m.id.ScreenCols
	}
	if m.v >= 5 {
		m.setWord(hScreenWidth, uint16(m.id.ScreenCols))
		m.setWord(hScreenHeight, uint16(m.id.ScreenRows))
		if m.id.ScreenCols == 0 && m.id.ScreenRows == 0 {
			mem[hFontWidth], mem[hFontHeight] = 0, 0
		} else {
			mem[hFontWidth], mem[hFontHeight] = 1, 1
		}
		mem[hDefaultBG], mem[hDefaultFG] = 0, 0
	}
	mem[hStandard], mem[hStandard+1] = m.id.Standard[0], m.id.Standard[1]
}

// Executed counts the instructions run since the machine was made.
func (m *Machine) Executed() uint64 { return m.executed }

// Story returns the story this machine runs.
func (m *Machine) Story() *Story { return m.story }

// Version is the story's Z-machine version.
func (m *Machine) Version() int { return m.v }

// State reports whether the machine runs, waits for input or has halted.
func (m *Machine) State() State { return m.state }

// PC is the address of the next instruction.
func (m *Machine) PC() uint32 { return m.pc }

// Run executes instructions until the story waits for input or halts. A fault
// halts the machine and returns a *RuntimeError.
func (m *Machine) Run() (st State, err error) {
	switch m.state {
	case Halted:
		return Halted, ErrHalted
	case WaitLine, WaitChar:
		return m.state, nil
	}
	budget := m.opts.StepBudget
	m.left, m.printLeft = &budget, m.opts.OutputBudget
	defer func() {
		m.left = nil
		m.executed += uint64(m.opts.StepBudget - budget)
		if r := recover(); r != nil {
			m.state = Halted
			st = Halted
			err = m.runtimeError(r)
		}
	}()
	m.execute(&budget)
	return m.state, nil
}

func (m *Machine) runtimeError(r any) error {
	var err error
	switch f := r.(type) {
	case fault:
		err = f.err
	case error:
		err = fmt.Errorf("%w: %v", ErrInternal, f)
	default:
		err = fmt.Errorf("%w: %v", ErrInternal, f)
	}
	return &RuntimeError{PC: m.instrPC, Opcode: m.opName(), Err: err}
}

// clock returns the wall clock for seeding; a variable for tests would be
// package state, so the machine asks time directly.
func clock() int64 { return time.Now().UnixNano() }
