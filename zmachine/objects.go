package zmachine

// The object table (§12) for both layouts: v1–3 (255 objects, 32 attributes,
// byte links) and v4+ (65535 objects, 48 attributes, word links).
//
// Operations on object 0 are treated as frotz treats them: reads give 0 and
// changes do nothing, so sloppy but playable stories keep running.

func (m *Machine) objAddr(o uint16) uint32 {
	if m.v <= 3 && o > 255 {
		panic(faultf(ErrBadObject, "object %d (at most 255 in version %d)", o, m.v))
	}
	a := m.objects + 2*m.propDefs + uint32(o-1)*m.objSize
	if a+m.objSize > m.end {
		panic(faultf(ErrBadObject, "object %d lies outside memory", o))
	}
	return a
}

func (m *Machine) objLink(o uint16, off uint32) uint16 {
	if o == 0 {
		return 0
	}
	a := m.objAddr(o)
	if m.v <= 3 {
		return uint16(m.mem[a+4+off])
	}
	return m.word(a + 6 + 2*off)
}

func (m *Machine) setObjLink(o uint16, off uint32, to uint16) {
	a := m.objAddr(o)
	if m.v <= 3 {
		m.setByte(a+4+off, uint8(to))
		return
	}
	m.setWord(a+6+2*off, to)
}

func (m *Machine) objParent(o uint16) uint16  { return m.objLink(o, 0) }
func (m *Machine) objSibling(o uint16) uint16 { return m.objLink(o, 1) }
func (m *Machine) objChild(o uint16) uint16   { return m.objLink(o, 2) }

func (m *Machine) maxAttr() uint16 {
	if m.v <= 3 {
		return 31
	}
	return 47
}

func (m *Machine) testAttr(o, attr uint16) bool {
	if o == 0 || attr > m.maxAttr() {
		return false
	}
	a := m.objAddr(o) + uint32(attr/8)
	return m.mem[a]&(0x80>>(attr%8)) != 0
}

func (m *Machine) setAttr(o, attr uint16, on bool) {
	if o == 0 || attr > m.maxAttr() {
		return
	}
	a := m.objAddr(o) + uint32(attr/8)
	bit := uint8(0x80 >> (attr % 8))
	old := m.mem[a]
	nb := old &^ bit
	if on {
		nb = old | bit
	}
	if nb == old {
		return
	}
	m.setByte(a, nb)
	if h := m.opts.Hooks.AttributeChanged; h != nil {
		h(o, uint8(attr), on)
	}
}

// unlink removes o from its parent's child list without reporting a move.
func (m *Machine) unlink(o uint16) uint16 {
	p := m.objParent(o)
	if p == 0 {
		return 0
	}
	next := m.objSibling(o)
	if c := m.objChild(p); c == o {
		m.setObjLink(p, 2, next)
	} else {
		for guard := 0; c != 0 && guard < 65536; guard++ {
			s := m.objSibling(c)
			if s == o {
				m.setObjLink(c, 1, next)
				break
			}
			c = s
		}
	}
	m.setObjLink(o, 0, 0)
	m.setObjLink(o, 1, 0)
	return p
}

func (m *Machine) removeObj(o uint16) {
	if o == 0 {
		return
	}
	if old := m.unlink(o); old != 0 {
		if h := m.opts.Hooks.ObjectMoved; h != nil {
			h(o, old, 0)
		}
	}
}

func (m *Machine) insertObj(o, dest uint16) {
	if o == 0 || dest == 0 {
		return
	}
	old := m.unlink(o)
	m.setObjLink(o, 0, dest)
	m.setObjLink(o, 1, m.objChild(dest))
	m.setObjLink(dest, 2, o)
	if h := m.opts.Hooks.ObjectMoved; h != nil && old != dest {
		h(o, old, dest)
	}
}

// propTable returns the address of object o's property table.
func (m *Machine) propTable(o uint16) uint32 {
	return uint32(m.word(m.objAddr(o) + m.objSize - 2))
}

// firstProp skips the short name to the first property's size byte.
func (m *Machine) firstProp(o uint16) uint32 {
	t := m.propTable(o)
	return t + 1 + 2*uint32(m.byteAt(t))
}

// propInfo decodes the size byte(s) at a: property number, data address and
// data length.
func (m *Machine) propInfo(a uint32) (num uint16, data uint32, length uint16) {
	b := m.byteAt(a)
	if m.v <= 3 {
		return uint16(b & 0x1f), a + 1, uint16(b>>5) + 1
	}
	num = uint16(b & 0x3f)
	if b&0x80 != 0 {
		length = uint16(m.byteAt(a+1) & 0x3f)
		if length == 0 {
			length = 64
		}
		return num, a + 2, length
	}
	if b&0x40 != 0 {
		return num, a + 1, 2
	}
	return num, a + 1, 1
}

// findProp returns the data address and length of property p of object o, or
// 0 when the object does not have it.
func (m *Machine) findProp(o, p uint16) (uint32, uint16) {
	a := m.firstProp(o)
	for guard := 0; guard < 256; guard++ {
		num, data, length := m.propInfo(a)
		if num == 0 {
			return 0, 0
		}
		if num == p {
			return data, length
		}
		if num < p {
			return 0, 0 // properties are stored in descending order
		}
		a = data + uint32(length)
	}
	return 0, 0
}

func (m *Machine) getProp(o, p uint16) uint16 {
	if o == 0 {
		return 0
	}
	if p == 0 || uint32(p) > m.propDefs {
		panic(faultf(ErrBadProperty, "get_prop %d of object %d", p, o))
	}
	data, length := m.findProp(o, p)
	if data == 0 {
		return m.word(m.objects + 2*uint32(p-1))
	}
	if length == 1 {
		return uint16(m.byteAt(data))
	}
	return m.word(data)
}

func (m *Machine) getPropAddr(o, p uint16) uint16 {
	if o == 0 {
		return 0
	}
	data, _ := m.findProp(o, p)
	return uint16(data)
}

func (m *Machine) getNextProp(o, p uint16) uint16 {
	if o == 0 {
		return 0
	}
	var a uint32
	if p == 0 {
		a = m.firstProp(o)
	} else {
		data, length := m.findProp(o, p)
		if data == 0 {
			panic(faultf(ErrBadProperty, "get_next_prop %d: object %d has no such property", p, o))
		}
		a = data + uint32(length)
	}
	num, _, _ := m.propInfo(a)
	return num
}

// propLen is get_prop_len: the length of the property whose data is at a.
func (m *Machine) propLen(a uint16) uint16 {
	if a == 0 {
		return 0
	}
	b := m.byteAt(uint32(a) - 1)
	if m.v <= 3 {
		return uint16(b>>5) + 1
	}
	if b&0x80 != 0 {
		if l := uint16(b & 0x3f); l != 0 {
			return l
		}
		return 64
	}
	if b&0x40 != 0 {
		return 2
	}
	return 1
}

func (m *Machine) putProp(o, p, v uint16) {
	if o == 0 {
		return
	}
	data, length := m.findProp(o, p)
	if data == 0 {
		panic(faultf(ErrBadProperty, "put_prop %d: object %d has no such property", p, o))
	}
	if length == 1 {
		m.setByte(data, uint8(v))
		return
	}
	m.setWord(data, v)
}

// objName decodes object o's short name.
func (m *Machine) objName(o uint16) string {
	if o == 0 {
		return ""
	}
	t := m.propTable(o)
	if m.byteAt(t) == 0 {
		return ""
	}
	s, _ := m.decodeZString(t + 1)
	return s
}

func (m *Machine) printObjName(o uint16) {
	if o == 0 {
		return
	}
	t := m.propTable(o)
	if m.byteAt(t) == 0 {
		return // an empty short name prints nothing (as dfrotz)
	}
	m.printZString(t + 1)
}
