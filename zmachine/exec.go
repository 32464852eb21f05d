package zmachine

// Instruction decoding (§4) and control flow: branches, calls, returns.

type opKind uint8

const (
	op2 opKind = iota
	op1
	op0
	opVar
	opExt
)

// step decodes and executes one instruction.
func (m *Machine) step() {
	if m.pc >= m.end {
		m.pcFault()
	}
	m.instrPC = m.pc
	op := m.fetch()
	switch {
	case op < 0x80: // long form, always 2OP
		m.opKind, m.opNum = op2, op&0x1f
		a := m.fetch()
		if op&0x40 != 0 {
			m.ops[0] = m.readVar(a)
		} else {
			m.ops[0] = uint16(a)
		}
		b := m.fetch()
		if op&0x20 != 0 {
			m.ops[1] = m.readVar(b)
		} else {
			m.ops[1] = uint16(b)
		}
		m.nops = 2
		m.exec2()
	case op < 0xb0: // short form, 1OP
		m.opKind, m.opNum = op1, op&0x0f
		switch (op >> 4) & 3 {
		case 0:
			m.ops[0] = m.fetchWord()
		case 1:
			m.ops[0] = uint16(m.fetch())
		default:
			m.ops[0] = m.readVar(m.fetch())
		}
		m.nops = 1
		m.exec1()
	case op < 0xc0: // short form, 0OP (or the extended prefix)
		if op == 0xbe && m.v >= 5 {
			m.opKind, m.opNum = opExt, m.fetch()
			m.operands(uint16(m.fetch())<<8|0xff, 4)
			m.execExt()
			return
		}
		m.opKind, m.opNum = op0, op&0x0f
		m.nops = 0
		m.exec0()
	case op < 0xe0: // variable form of a 2OP
		m.opKind, m.opNum = op2, op&0x1f
		m.operands(uint16(m.fetch())<<8|0xff, 4)
		m.exec2()
	default: // variable form, VAR
		m.opKind, m.opNum = opVar, op&0x1f
		if m.opNum == 12 || m.opNum == 26 { // call_vs2, call_vn2: two type bytes
			t := uint16(m.fetch()) << 8
			t |= uint16(m.fetch())
			m.operands(t, 8)
		} else {
			m.operands(uint16(m.fetch())<<8|0xff, 4)
		}
		m.execVar()
	}
}

// operands reads up to max operands whose types are packed two bits each in
// types, most significant first; type 3 ends the list.
func (m *Machine) operands(types uint16, max int) {
	n := 0
	for ; n < max; n++ {
		switch (types >> (14 - 2*uint(n))) & 3 {
		case 0:
			m.ops[n] = m.fetchWord()
		case 1:
			m.ops[n] = uint16(m.fetch())
		case 2:
			m.ops[n] = m.readVar(m.fetch())
		default:
			m.nops = n
			return
		}
	}
	m.nops = n
}

// store writes v to the variable named by the next byte.
func (m *Machine) store(v uint16) { m.writeVar(m.fetch(), v) }

// branch reads branch data and jumps (or returns) when cond matches it.
func (m *Machine) branch(cond bool) {
	b := m.fetch()
	var off int32
	if b&0x40 != 0 {
		off = int32(b & 0x3f)
	} else {
		off = int32(b&0x3f)<<8 | int32(m.fetch())
		if off&0x2000 != 0 {
			off -= 0x4000
		}
	}
	if (b&0x80 != 0) != cond {
		return
	}
	switch off {
	case 0:
		m.ret(0)
	case 1:
		m.ret(1)
	default:
		m.pc = uint32(int32(m.pc) + off - 2)
	}
}

// call starts the routine at packed address p with args; store is the result
// variable, or -1 to discard it.
func (m *Machine) call(p uint16, args []uint16, store int16) {
	if p == 0 {
		if store >= 0 {
			m.writeVar(uint8(store), 0)
		}
		return
	}
	a := m.unpackRoutine(p)
	n := m.byteAt(a)
	if n > 15 {
		panic(faultf(ErrIllegalOpcode, "routine at 0x%x declares %d locals (not a routine?)", a, n))
	}
	if len(m.frames) >= maxFrames {
		panic(faultf(ErrStackOverflow, "%d nested routine calls", maxFrames))
	}
	m.frames = append(m.frames, frame{retPC: m.pc, store: store, nlocals: n, nargs: uint8(len(args)), stackBase: len(m.stack)})
	f := &m.frames[len(m.frames)-1]
	a++
	if m.v <= 4 {
		for i := 0; i < int(n); i++ {
			f.locals[i] = m.word(a)
			a += 2
		}
	}
	for i := 0; i < len(args) && i < int(n); i++ {
		f.locals[i] = args[i]
	}
	m.cur = f
	m.pc = a
}

// ret returns v from the current routine.
func (m *Machine) ret(v uint16) {
	n := len(m.frames)
	if n <= 1 {
		panic(faultf(ErrStackUnderflow, "return from the main routine"))
	}
	f := m.frames[n-1]
	m.frames = m.frames[:n-1]
	m.cur = &m.frames[n-2]
	m.stack = m.stack[:f.stackBase]
	m.pc = f.retPC
	if f.store >= 0 {
		m.writeVar(uint8(f.store), v)
	}
}

// callStore calls ops[0] with the remaining operands, storing the result.
func (m *Machine) callStore() {
	s := int16(m.fetch())
	p := m.routineOperand()
	m.call(p, m.ops[1:m.nops], s)
}

// callDiscard calls ops[0] with the remaining operands, dropping the result.
func (m *Machine) callDiscard() {
	p := m.routineOperand()
	m.call(p, m.ops[1:m.nops], -1)
}

// routineOperand is a call's first operand, which must be there.
func (m *Machine) routineOperand() uint16 {
	if m.nops == 0 {
		panic(faultf(ErrIllegalOpcode, "call without a routine operand"))
	}
	return m.ops[0]
}

func (m *Machine) illegal() {
	panic(faultf(ErrIllegalOpcode, "not defined in version %d", m.v))
}

// opName names the instruction being executed, for fault reports.
func (m *Machine) opName() string {
	var names []string
	switch m.opKind {
	case op2:
		names = names2[:]
	case op1:
		names = names1[:]
	case op0:
		names = names0[:]
	case opVar:
		names = namesVar[:]
	case opExt:
		if int(m.opNum) < len(namesExt) && namesExt[m.opNum] != "" {
			return namesExt[m.opNum]
		}
		return "ext_" + itoa(int(m.opNum))
	}
	if int(m.opNum) < len(names) && names[m.opNum] != "" {
		return names[m.opNum]
	}
	return "op_" + itoa(int(m.opNum))
}

var names2 = [32]string{"", "je", "jl", "jg", "dec_chk", "inc_chk", "jin", "test", "or", "and", "test_attr", "set_attr", "clear_attr", "store", "insert_obj", "loadw", "loadb", "get_prop", "get_prop_addr", "get_next_prop", "add", "sub", "mul", "div", "mod", "call_2s", "call_2n", "set_colour", "throw"}
var names1 = [16]string{"jz", "get_sibling", "get_child", "get_parent", "get_prop_len", "inc", "dec", "print_addr", "call_1s", "remove_obj", "print_obj", "ret", "jump", "print_paddr", "load", "not/call_1n"}
var names0 = [16]string{"rtrue", "rfalse", "print", "print_ret", "nop", "save", "restore", "restart", "ret_popped", "pop/catch", "quit", "new_line", "show_status", "verify", "extended", "piracy"}
var namesVar = [32]string{"call_vs", "storew", "storeb", "put_prop", "read", "print_char", "print_num", "random", "push", "pull", "split_window", "set_window", "call_vs2", "erase_window", "erase_line", "set_cursor", "get_cursor", "set_text_style", "buffer_mode", "output_stream", "input_stream", "sound_effect", "read_char", "scan_table", "not", "call_vn", "call_vn2", "tokenise", "encode_text", "copy_table", "print_table", "check_arg_count"}
var namesExt = [14]string{"save", "restore", "log_shift", "art_shift", "set_font", "", "", "", "", "save_undo", "restore_undo", "print_unicode", "check_unicode", "set_true_colour"}
