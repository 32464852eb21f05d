package zmachine

// The opcodes (§14, §15), by operand count.

func (m *Machine) exec2(n uint8) {
	a, b := m.ops[0], m.ops[1]
	switch n {
	case 1: // je
		if m.nops < 2 {
			panic(faultf(ErrIllegalOpcode, "je with %d operand(s)", m.nops))
		}
		eq := false
		for i := 1; i < m.nops; i++ {
			if m.ops[i] == a {
				eq = true
				break
			}
		}
		m.branch(eq)
	case 2: // jl
		m.branch(int16(a) < int16(b))
	case 3: // jg
		m.branch(int16(a) > int16(b))
	case 4: // dec_chk
		v := uint8(a)
		x := m.readVarInPlace(v) - 1
		m.writeVarInPlace(v, x)
		m.branch(int16(x) < int16(b))
	case 5: // inc_chk
		v := uint8(a)
		x := m.readVarInPlace(v) + 1
		m.writeVarInPlace(v, x)
		m.branch(int16(x) > int16(b))
	case 6: // jin
		m.branch(m.objParent(a) == b)
	case 7: // test
		m.branch(a&b == b)
	case 8: // or
		m.store(a | b)
	case 9: // and
		m.store(a & b)
	case 10: // test_attr
		m.branch(m.testAttr(a, b))
	case 11: // set_attr
		m.setAttr(a, b, true)
	case 12: // clear_attr
		m.setAttr(a, b, false)
	case 13: // store
		m.writeVarInPlace(uint8(a), b)
	case 14: // insert_obj
		m.insertObj(a, b)
	case 15: // loadw
		m.store(m.word(uint32(a + 2*b)))
	case 16: // loadb
		m.store(uint16(m.byteAt(uint32(a + b))))
	case 17: // get_prop
		m.store(m.getProp(a, b))
	case 18: // get_prop_addr
		m.store(m.getPropAddr(a, b))
	case 19: // get_next_prop
		m.store(m.getNextProp(a, b))
	case 20: // add
		m.store(a + b)
	case 21: // sub
		m.store(a - b)
	case 22: // mul
		m.store(a * b)
	case 23: // div
		if b == 0 {
			panic(faultf(ErrDivisionByZero, "%d / 0", int16(a)))
		}
		m.store(uint16(int16(a) / int16(b)))
	case 24: // mod
		if b == 0 {
			panic(faultf(ErrDivisionByZero, "%d %% 0", int16(a)))
		}
		m.store(uint16(int16(a) % int16(b)))
	case 25: // call_2s
		if m.v < 4 {
			m.illegal()
		}
		m.callStore()
	case 26: // call_2n
		if m.v < 5 {
			m.illegal()
		}
		m.callDiscard()
	case 27: // set_colour
		if m.v < 5 {
			m.illegal()
		}
		m.flushScreen()
		m.out.setColour(a, b)
	case 28: // throw
		if m.v < 5 {
			m.illegal()
		}
		m.throw(a, b)
	default:
		m.illegal()
	}
}

func (m *Machine) exec1(n uint8) {
	a := m.ops[0]
	switch n {
	case 0: // jz
		m.branch(a == 0)
	case 1: // get_sibling
		s := m.objSibling(a)
		m.store(s)
		m.branch(s != 0)
	case 2: // get_child
		c := m.objChild(a)
		m.store(c)
		m.branch(c != 0)
	case 3: // get_parent
		m.store(m.objParent(a))
	case 4: // get_prop_len
		m.store(m.propLen(a))
	case 5: // inc
		v := uint8(a)
		m.writeVarInPlace(v, m.readVarInPlace(v)+1)
	case 6: // dec
		v := uint8(a)
		m.writeVarInPlace(v, m.readVarInPlace(v)-1)
	case 7: // print_addr
		m.printZString(uint32(a))
	case 8: // call_1s
		if m.v < 4 {
			m.illegal()
		}
		m.callStore()
	case 9: // remove_obj
		m.removeObj(a)
	case 10: // print_obj
		m.printObjName(a)
	case 11: // ret
		m.ret(a)
	case 12: // jump
		m.pc = uint32(int32(m.pc) + int32(int16(a)) - 2)
	case 13: // print_paddr
		m.printZString(m.unpackString(a))
	case 14: // load
		m.store(m.readVarInPlace(uint8(a)))
	case 15: // not (v1–4) / call_1n (v5+)
		if m.v < 5 {
			m.store(^a)
		} else {
			m.callDiscard()
		}
	}
}

func (m *Machine) exec0(n uint8) {
	switch n {
	case 0: // rtrue
		m.ret(1)
	case 1: // rfalse
		m.ret(0)
	case 2: // print
		m.pc = m.printZString(m.pc)
	case 3: // print_ret
		m.pc = m.printZString(m.pc)
		m.out.newline(m)
		m.ret(1)
	case 4: // nop
	case 5: // save
		if m.v >= 5 {
			m.illegal()
		}
		m.saveOp()
	case 6: // restore
		if m.v >= 5 {
			m.illegal()
		}
		m.restoreOp()
	case 7: // restart
		m.restart()
	case 8: // ret_popped
		m.ret(m.pop())
	case 9: // pop (v1–4) / catch (v5+)
		if m.v < 5 {
			m.pop()
		} else {
			m.store(uint16(len(m.frames) - 1))
		}
	case 10: // quit
		m.state = Halted
		if m.screen != nil {
			m.screen.Quit()
		}
	case 11: // new_line
		m.out.newline(m)
	case 12: // show_status
		if m.v == 3 {
			m.out.updateStatus(m)
		}
	case 13: // verify
		if m.v < 3 {
			m.illegal()
		}
		m.branch(m.checksum() == m.word(hChecksum))
	case 15: // piracy
		if m.v < 5 {
			m.illegal()
		}
		m.branch(true)
	default:
		m.illegal()
	}
}

func (m *Machine) execVar(n uint8) {
	o := &m.ops
	switch n {
	case 0: // call / call_vs
		m.callStore()
	case 1: // storew
		m.setWord(uint32(o[0]+2*o[1]), o[2])
	case 2: // storeb
		m.setByte(uint32(o[0]+o[1]), uint8(o[2]))
	case 3: // put_prop
		m.putProp(o[0], o[1], o[2])
	case 4: // sread / aread
		m.beginRead()
	case 5: // print_char
		m.printZSCII(o[0])
	case 6: // print_num
		m.printString(itoa(int(int16(o[0]))))
	case 7: // random
		m.store(m.rng.random(int16(o[0])))
	case 8: // push
		m.push(o[0])
	case 9: // pull
		v := m.pop()
		m.writeVarInPlace(uint8(o[0]), v)
	case 10: // split_window
		m.out.splitWindow(m, int(o[0]))
	case 11: // set_window
		m.out.setWindow(m, int(o[0]))
	case 12: // call_vs2
		if m.v < 4 {
			m.illegal()
		}
		m.callStore()
	case 13: // erase_window
		m.out.eraseWindow(m, int16(o[0]))
	case 14: // erase_line
		m.out.eraseLine(m, o[0])
	case 15: // set_cursor
		m.out.setCursor(m, int16(o[0]), int16(o[1]))
	case 16: // get_cursor
		m.flushScreen()
		row, col := m.out.cursor()
		m.setWord(uint32(o[0]), row)
		m.setWord(uint32(o[0])+2, col)
	case 17: // set_text_style
		m.out.setStyle(o[0])
		if m.screen != nil {
			m.screen.SetStyle(o[0])
		}
	case 18: // buffer_mode
		m.out.buffered = o[0] != 0
		if m.screen != nil {
			m.screen.SetBuffered(o[0] != 0)
		}
	case 19: // output_stream
		m.flushScreen()
		m.outputStream(int16(o[0]), o[1])
	case 20: // input_stream
		// Input always comes from the host; stream 1 (a file) is not offered.
	case 21: // sound_effect
		// Only the two bleeps sound (no operand means the high one);
		// samples are skipped.
		if n := m.nops; (n == 0 || o[0] == 1 || o[0] == 2) && m.screen != nil {
			pitch := 1
			if n > 0 {
				pitch = int(o[0])
			}
			m.screen.Beep(pitch)
		}
	case 22: // read_char
		if m.v < 4 {
			m.illegal()
		}
		m.beginReadChar()
	case 23: // scan_table
		m.scanTable()
	case 24: // not
		if m.v < 5 {
			m.illegal()
		}
		m.store(^o[0])
	case 25, 26: // call_vn, call_vn2
		if m.v < 5 {
			m.illegal()
		}
		m.callDiscard()
	case 27: // tokenise
		if m.v < 5 {
			m.illegal()
		}
		dict := uint32(m.dict)
		if m.nops > 2 && o[2] != 0 {
			dict = uint32(o[2])
		}
		m.tokenise(uint32(o[0]), uint32(o[1]), dict, m.nops > 3 && o[3] != 0)
	case 28: // encode_text
		if m.v < 5 {
			m.illegal()
		}
		m.encodeText(uint32(o[0]), int(o[1]), int(o[2]), uint32(o[3]))
	case 29: // copy_table
		if m.v < 5 {
			m.illegal()
		}
		m.copyTable(o[0], o[1], int16(o[2]))
	case 30: // print_table
		if m.v < 5 {
			m.illegal()
		}
		m.flushScreen()
		m.printTable()
	case 31: // check_arg_count
		if m.v < 5 {
			m.illegal()
		}
		m.branch(int(o[0]) <= int(m.cur.nargs))
	}
}

func (m *Machine) execExt(n uint8) {
	o := &m.ops
	switch n {
	case 0: // save
		if m.nops > 0 {
			m.store(0) // saving a table to a named file is not offered
			return
		}
		m.saveOp()
	case 1: // restore
		if m.nops > 0 {
			m.store(0)
			return
		}
		m.restoreOp()
	case 2: // log_shift
		m.store(logShift(o[0], int16(o[1])))
	case 3: // art_shift
		m.store(artShift(o[0], int16(o[1])))
	case 4: // set_font
		m.store(m.out.setFont(o[0]))
	case 9: // save_undo
		m.saveUndo()
	case 10: // restore_undo
		m.restoreUndo()
	case 11: // print_unicode
		m.printRune(rune(o[0]))
	case 12: // check_unicode
		m.store(checkUnicode(rune(o[0])))
	case 13: // set_true_colour
		m.flushScreen()
	default:
		m.illegal()
	}
}

func logShift(x uint16, places int16) uint16 {
	switch {
	case places >= 16 || places <= -16:
		return 0
	case places >= 0:
		return x << uint(places)
	default:
		return x >> uint(-places)
	}
}

func artShift(x uint16, places int16) uint16 {
	switch {
	case places >= 16:
		return 0
	case places >= 0:
		return x << uint(places)
	case places <= -16:
		if int16(x) < 0 {
			return 0xffff
		}
		return 0
	default:
		return uint16(int16(x) >> uint(-places))
	}
}

// throw returns v from the routine whose frame catch identified as f.
func (m *Machine) throw(v, f uint16) {
	if f == 0 || int(f) >= len(m.frames) {
		panic(faultf(ErrStackUnderflow, "throw to frame %d of %d", f, len(m.frames)))
	}
	m.frames = m.frames[:f+1]
	m.cur = &m.frames[f]
	m.ret(v)
}

// scanTable: scan_table x table len form -> (result) ?(label)
func (m *Machine) scanTable() {
	x, table, n := m.ops[0], uint32(m.ops[1]), int(m.ops[2])
	form := uint16(0x82)
	if m.nops > 3 {
		form = m.ops[3]
	}
	size := uint32(form & 0x7f)
	words := form&0x80 != 0
	m.charge(n)
	for i := 0; i < n; i++ {
		var v uint16
		if words {
			v = m.word(table)
		} else {
			v = uint16(m.byteAt(table))
		}
		if v == x {
			m.store(uint16(table))
			m.branch(true)
			return
		}
		table += size
	}
	m.store(0)
	m.branch(false)
}

// copyTable: zero first when second is 0; copy backwards-safe for a positive
// size and forwards (possibly overlapping) for a negative one (§15 copy_table).
func (m *Machine) copyTable(first, second uint16, size int16) {
	n := int(size)
	if n < 0 {
		n = -n
	}
	m.charge(n)
	if second == 0 {
		for i := 0; i < n; i++ {
			m.setByte(uint32(first)+uint32(i), 0)
		}
		return
	}
	src, dst := uint32(first), uint32(second)
	if size < 0 || dst < src {
		for i := 0; i < n; i++ {
			m.setByte(dst+uint32(i), m.byteAt(src+uint32(i)))
		}
		return
	}
	for i := n - 1; i >= 0; i-- {
		m.setByte(dst+uint32(i), m.byteAt(src+uint32(i)))
	}
}

// printTable prints a rectangle of ZSCII text: width columns, height rows,
// skipping skip bytes after each row.
func (m *Machine) printTable() {
	addr := uint32(m.ops[0])
	width := int(m.ops[1])
	height, skip := 1, 0
	if m.nops > 2 {
		height = int(m.ops[2])
	}
	if m.nops > 3 {
		skip = int(m.ops[3])
	}
	row, col := m.out.cursor()
	for r := 0; r < height; r++ {
		if r > 0 {
			if m.out.window == 1 {
				m.out.setCursor(m, int16(row)+int16(r), int16(col))
			} else {
				m.out.newline(m)
			}
		}
		for c := 0; c < width; c++ {
			m.printZSCII(uint16(m.byteAt(addr)))
			addr++
		}
		addr += uint32(skip)
	}
}

// checksum sums the story file's bytes from 0x40 to the header's file length.
func (m *Machine) checksum() uint16 {
	d := m.story.data
	n := int(uint16(d[hFileLength])<<8|uint16(d[hFileLength+1])) * fileLengthScale(m.v)
	if n > len(d) || n == 0 {
		n = len(d)
	}
	var sum uint16
	for _, b := range d[headerSize:n] {
		sum += uint16(b)
	}
	return sum
}

// restart starts the story again, keeping the transcript and fixed-pitch bits.
func (m *Machine) restart() {
	keep := m.word(hFlags2)
	m.restarts++
	m.rng.restart()
	m.reset(keep)
	if m.screen != nil {
		m.screen.Restart()
	}
}
