package zmachine

import "encoding/binary"

// Memory, variables and the stack. Reads anywhere in the story are allowed;
// writes only to dynamic memory (§1.1). Out-of-range accesses fault.

// The hot accessors keep their fault paths in separate functions so that
// they stay small enough to be inlined.

func (m *Machine) byteAt(a uint32) uint8 {
	if a >= m.end {
		m.readFault(a)
	}
	return m.mem[a]
}

func (m *Machine) word(a uint32) uint16 {
	if a+1 >= m.end {
		m.readFault(a)
	}
	return binary.BigEndian.Uint16(m.mem[a:])
}

//go:noinline
func (m *Machine) readFault(a uint32) {
	panic(faultf(ErrAddressRange, "read at 0x%x (memory ends 0x%x)", a, int(m.end)))
}

//go:noinline
func (m *Machine) pcFault() {
	panic(faultf(ErrAddressRange, "PC 0x%x beyond the end of the story", m.pc))
}

func (m *Machine) setByte(a uint32, b uint8) {
	if a >= m.staticBase {
		panic(faultf(ErrAddressRange, "write byte at 0x%x outside dynamic memory (ends 0x%x)", a, m.staticBase))
	}
	m.mem[a] = b
	if a == hFlags2+1 {
		m.out.flags2Written(m)
	}
}

func (m *Machine) setWord(a uint32, w uint16) {
	if a+1 >= m.staticBase {
		panic(faultf(ErrAddressRange, "write word at 0x%x outside dynamic memory (ends 0x%x)", a, m.staticBase))
	}
	m.mem[a] = byte(w >> 8)
	m.mem[a+1] = byte(w)
	if a == hFlags2 || a+1 == hFlags2 {
		m.out.flags2Written(m)
	}
}

// fetch and fetchWord read the instruction stream. step checks that each
// instruction starts inside the story; the bytes after it are inside memPad.
func (m *Machine) fetch() uint8 {
	pc := m.pc
	m.pc = pc + 1
	return m.mem[pc]
}

func (m *Machine) fetchWord() uint16 {
	pc := m.pc
	m.pc = pc + 2
	return uint16(m.mem[pc])<<8 | uint16(m.mem[pc+1])
}

func (m *Machine) unpackRoutine(p uint16) uint32 {
	a := uint32(p) << m.packShift
	if m.v == 7 {
		a += 8 * uint32(m.word(hRoutineOffset))
	}
	return a
}

func (m *Machine) unpackString(p uint16) uint32 {
	a := uint32(p) << m.packShift
	if m.v == 7 {
		a += 8 * uint32(m.word(hStringOffset))
	}
	return a
}

func (m *Machine) push(v uint16) {
	if len(m.stack) >= maxStack {
		panic(faultf(ErrStackOverflow, "evaluation stack full (%d words)", maxStack))
	}
	m.stack = append(m.stack, v)
}

func (m *Machine) pop() uint16 {
	n := len(m.stack)
	if n <= m.cur.stackBase {
		underflow()
	}
	v := m.stack[n-1]
	m.stack = m.stack[:n-1]
	return v
}

func (m *Machine) peek() uint16 {
	n := len(m.stack)
	if n <= m.cur.stackBase {
		underflow()
	}
	return m.stack[n-1]
}

func (m *Machine) poke(v uint16) {
	n := len(m.stack)
	if n <= m.cur.stackBase {
		underflow()
	}
	m.stack[n-1] = v
}

//go:noinline
func underflow() { panic(faultf(ErrStackUnderflow, "pop from an empty routine stack")) }

//go:noinline
func (m *Machine) localFault(v uint8) {
	panic(faultf(ErrBadVariable, "local %d of a routine with %d locals", v, m.cur.nlocals))
}

// readVar reads variable v: 0 pops the stack, 1–15 are locals, 16–255 globals.
func (m *Machine) readVar(v uint8) uint16 {
	if v >= 16 {
		a := m.globals + 2*uint32(v-16)
		return uint16(m.mem[a])<<8 | uint16(m.mem[a+1])
	}
	if v == 0 {
		return m.pop()
	}
	if v > m.cur.nlocals {
		m.localFault(v)
	}
	return m.cur.locals[v-1]
}

// writeVar writes variable v: 0 pushes onto the stack.
func (m *Machine) writeVar(v uint8, x uint16) {
	if v >= 16 {
		a := m.globals + 2*uint32(v-16)
		if v == m.watchVar {
			m.watchedWrite(a, x)
			return
		}
		m.mem[a] = byte(x >> 8)
		m.mem[a+1] = byte(x)
		return
	}
	if v == 0 {
		m.push(x)
		return
	}
	if v > m.cur.nlocals {
		m.localFault(v)
	}
	m.cur.locals[v-1] = x
}

// watchedWrite stores x in the watched global at a and reports a change
// of value to Hooks.GlobalChanged.
//
//go:noinline
func (m *Machine) watchedWrite(a uint32, x uint16) {
	old := uint16(m.mem[a])<<8 | uint16(m.mem[a+1])
	m.mem[a] = byte(x >> 8)
	m.mem[a+1] = byte(x)
	if old != x {
		m.opts.Hooks.GlobalChanged(old, x)
	}
}

// readVarInPlace and writeVarInPlace are the indirect forms (§6.3.4): the
// stack top is read or replaced, not popped or pushed.
func (m *Machine) readVarInPlace(v uint8) uint16 {
	if v == 0 {
		return m.peek()
	}
	return m.readVar(v)
}

func (m *Machine) writeVarInPlace(v uint8, x uint16) {
	if v == 0 {
		m.poke(x)
		return
	}
	m.writeVar(v, x)
}
