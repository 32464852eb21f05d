package zmachine

// Memory, variables and the stack. Reads anywhere in the story are allowed;
// writes only to dynamic memory (§1.1). Out-of-range accesses fault.

func (m *Machine) byteAt(a uint32) uint8 {
	if a >= uint32(len(m.mem)) {
		panic(faultf(ErrAddressRange, "read byte at 0x%x (memory ends 0x%x)", a, len(m.mem)))
	}
	return m.mem[a]
}

func (m *Machine) word(a uint32) uint16 {
	if a+1 >= uint32(len(m.mem)) {
		panic(faultf(ErrAddressRange, "read word at 0x%x (memory ends 0x%x)", a, len(m.mem)))
	}
	return uint16(m.mem[a])<<8 | uint16(m.mem[a+1])
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

func (m *Machine) fetch() uint8 {
	pc := m.pc
	if pc >= uint32(len(m.mem)) {
		panic(faultf(ErrAddressRange, "PC 0x%x beyond the end of the story", pc))
	}
	m.pc = pc + 1
	return m.mem[pc]
}

func (m *Machine) fetchWord() uint16 {
	pc := m.pc
	if pc+1 >= uint32(len(m.mem)) {
		panic(faultf(ErrAddressRange, "PC 0x%x beyond the end of the story", pc))
	}
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
		panic(faultf(ErrStackUnderflow, "pop from an empty routine stack"))
	}
	v := m.stack[n-1]
	m.stack = m.stack[:n-1]
	return v
}

func (m *Machine) peek() uint16 {
	n := len(m.stack)
	if n <= m.cur.stackBase {
		panic(faultf(ErrStackUnderflow, "read from an empty routine stack"))
	}
	return m.stack[n-1]
}

func (m *Machine) poke(v uint16) {
	n := len(m.stack)
	if n <= m.cur.stackBase {
		panic(faultf(ErrStackUnderflow, "write to an empty routine stack"))
	}
	m.stack[n-1] = v
}

// readVar reads variable v: 0 pops the stack, 1–15 are locals, 16–255 globals.
func (m *Machine) readVar(v uint8) uint16 {
	switch {
	case v == 0:
		return m.pop()
	case v < 16:
		if v > m.cur.nlocals {
			panic(faultf(ErrBadVariable, "local %d of a routine with %d locals", v, m.cur.nlocals))
		}
		return m.cur.locals[v-1]
	default:
		a := m.globals + 2*uint32(v-16)
		return uint16(m.mem[a])<<8 | uint16(m.mem[a+1])
	}
}

// writeVar writes variable v: 0 pushes onto the stack.
func (m *Machine) writeVar(v uint8, x uint16) {
	switch {
	case v == 0:
		m.push(x)
	case v < 16:
		if v > m.cur.nlocals {
			panic(faultf(ErrBadVariable, "local %d of a routine with %d locals", v, m.cur.nlocals))
		}
		m.cur.locals[v-1] = x
	default:
		a := m.globals + 2*uint32(v-16)
		m.mem[a] = byte(x >> 8)
		m.mem[a+1] = byte(x)
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
