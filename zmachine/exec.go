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

// execute decodes and executes instructions while the machine runs,
// counting them down from *left. The opcode byte is checked to lie inside
// the story; the operand bytes after it are inside memPad. The decoding is
// written out in the loop rather than called once an instruction: the call
// cost a twentieth of the interpreter's time.
func (m *Machine) execute(left *int) {
	for m.state == Running {
		if *left == 0 {
			m.instructionLimit()
		}
		*left--
		pc := m.pc
		if pc >= m.end {
			m.pcFault()
		}
		m.instrPC = pc
		mem := m.mem
		op := mem[pc]
		pc++
		switch {
		case op < 0x80: // long form, always 2OP
			a, b := mem[pc], mem[pc+1]
			m.pc = pc + 2
			x, y := uint16(a), uint16(b)
			if op&0x40 != 0 {
				x = m.readVar(a)
			}
			if op&0x20 != 0 {
				y = m.readVar(b)
			}
			m.ops[0], m.ops[1], m.nops = x, y, 2
			m.exec2(op & 0x1f)
		case op < 0xb0: // short form, 1OP
			switch (op >> 4) & 3 {
			case 0:
				m.ops[0] = uint16(mem[pc])<<8 | uint16(mem[pc+1])
				m.pc = pc + 2
			case 1:
				m.ops[0] = uint16(mem[pc])
				m.pc = pc + 1
			default:
				m.pc = pc + 1
				m.ops[0] = m.readVar(mem[pc])
			}
			m.nops = 1
			m.exec1(op & 0x0f)
		case op < 0xc0: // short form, 0OP (or the extended prefix)
			if op == 0xbe && m.v >= 5 {
				n, types := mem[pc], mem[pc+1]
				m.pc = pc + 2
				m.operands(uint16(types)<<8|0xff, 4)
				m.execExt(n)
				continue
			}
			m.pc = pc
			m.nops = 0
			m.exec0(op & 0x0f)
		case op < 0xe0: // variable form of a 2OP
			m.pc = pc + 1
			m.operands(uint16(mem[pc])<<8|0xff, 4)
			m.exec2(op & 0x1f)
		default: // variable form, VAR
			n := op & 0x1f
			if n == 12 || n == 26 { // call_vs2, call_vn2: two type bytes
				m.pc = pc + 2
				m.operands(uint16(mem[pc])<<8|uint16(mem[pc+1]), 8)
			} else {
				m.pc = pc + 1
				m.operands(uint16(mem[pc])<<8|0xff, 4)
			}
			m.execVar(n)
		}
	}
}

// charge counts a table instruction's n bytes against the Run's budget: one
// instruction for every 64.
func (m *Machine) charge(n int) {
	c := n / 64
	if c == 0 || m.left == nil {
		return
	}
	if *m.left < c {
		m.instructionLimit()
	}
	*m.left -= c
}

//go:noinline
func (m *Machine) instructionLimit() {
	panic(faultf(ErrInstructionLimit, "%d instructions without input", m.opts.StepBudget))
}

// operands reads up to max operands whose types are packed two bits each in
// types, most significant first; type 3 ends the list.
func (m *Machine) operands(types uint16, max int) {
	pc, mem := m.pc, m.mem
	n := 0
	for ; n < max; n++ {
		t := types >> 14
		types <<= 2
		switch t {
		case 0:
			m.ops[n&7] = uint16(mem[pc])<<8 | uint16(mem[pc+1])
			pc += 2
		case 1:
			m.ops[n&7] = uint16(mem[pc])
			pc++
		case 2:
			v := mem[pc]
			pc++
			m.ops[n&7] = m.readVar(v)
		default:
			m.pc, m.nops = pc, n
			return
		}
	}
	m.pc, m.nops = pc, n
}

// decodeOp names the instruction at instrPC: its form and number. Only fault
// reports and save detection need it, so step does not record it.
func (m *Machine) decodeOp() (opKind, uint8) {
	op := m.mem[m.instrPC]
	switch {
	case op < 0x80:
		return op2, op & 0x1f
	case op < 0xb0:
		return op1, op & 0x0f
	case op < 0xc0:
		if op == 0xbe && m.v >= 5 {
			return opExt, m.mem[m.instrPC+1]
		}
		return op0, op & 0x0f
	case op < 0xe0:
		return op2, op & 0x1f
	}
	return opVar, op & 0x1f
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
	kind, num := m.decodeOp()
	var names []string
	switch kind {
	case op2:
		names = names2[:]
	case op1:
		names = names1[:]
	case op0:
		names = names0[:]
	case opVar:
		names = namesVar[:]
	case opExt:
		if int(num) < len(namesExt) && namesExt[num] != "" {
			return namesExt[num]
		}
		return "ext_" + itoa(int(num))
	}
	if int(num) < len(names) && names[num] != "" {
		return names[num]
	}
	return "op_" + itoa(int(num))
}

var names2 = [32]string{"", "je", "jl", "jg", "dec_chk", "inc_chk", "jin", "test", "or", "and", "test_attr", "set_attr", "clear_attr", "store", "insert_obj", "loadw", "loadb", "get_prop", "get_prop_addr", "get_next_prop", "add", "sub", "mul", "div", "mod", "call_2s", "call_2n", "set_colour", "throw"}
var names1 = [16]string{"jz", "get_sibling", "get_child", "get_parent", "get_prop_len", "inc", "dec", "print_addr", "call_1s", "remove_obj", "print_obj", "ret", "jump", "print_paddr", "load", "not/call_1n"}
var names0 = [16]string{"rtrue", "rfalse", "print", "print_ret", "nop", "save", "restore", "restart", "ret_popped", "pop/catch", "quit", "new_line", "show_status", "verify", "extended", "piracy"}
var namesVar = [32]string{"call_vs", "storew", "storeb", "put_prop", "read", "print_char", "print_num", "random", "push", "pull", "split_window", "set_window", "call_vs2", "erase_window", "erase_line", "set_cursor", "get_cursor", "set_text_style", "buffer_mode", "output_stream", "input_stream", "sound_effect", "read_char", "scan_table", "not", "call_vn", "call_vn2", "tokenise", "encode_text", "copy_table", "print_table", "check_arg_count"}
var namesExt = [14]string{"save", "restore", "log_shift", "art_shift", "set_font", "", "", "", "", "save_undo", "restore_undo", "print_unicode", "check_unicode", "set_true_colour"}
