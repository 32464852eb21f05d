package zmachine

import "strings"

// Introspection for the layers above: memory, globals, the object tree, the
// dictionary, the screen. Reads never fault: out-of-range reads give zero.

// Byte reads the byte at a (0 beyond the end of memory).
func (m *Machine) Byte(a int) uint8 {
	if a < 0 || a >= int(m.end) {
		return 0
	}
	return m.mem[a]
}

// Word reads the big-endian word at a (0 beyond the end of memory).
func (m *Machine) Word(a int) uint16 {
	if a < 0 || a+1 >= int(m.end) {
		return 0
	}
	return uint16(m.mem[a])<<8 | uint16(m.mem[a+1])
}

// Global reads global variable n (0–239).
func (m *Machine) Global(n int) uint16 {
	if n < 0 || n > 239 {
		return 0
	}
	return m.readGlobal(uint8(n))
}

func (m *Machine) readGlobal(n uint8) uint16 {
	a := m.globals + 2*uint32(n)
	return uint16(m.mem[a])<<8 | uint16(m.mem[a+1])
}

// DynamicMemory returns a copy of dynamic memory (up to the static base).
func (m *Machine) DynamicMemory() []byte { return append([]byte(nil), m.mem[:m.staticBase]...) }

// ObjectCount estimates the number of objects: the table runs until the
// first property table begins.
func (m *Machine) ObjectCount() int {
	first := m.objects + 2*m.propDefs
	if first+m.objSize > m.end {
		return 0
	}
	lowest := m.end
	max := 255
	if m.v >= 4 {
		max = 65535
	}
	n := 0
	for n < max {
		a := first + uint32(n)*m.objSize
		if a+m.objSize > m.end || a >= lowest {
			break
		}
		pt := uint32(m.mem[a+m.objSize-2])<<8 | uint32(m.mem[a+m.objSize-1])
		if pt != 0 && pt < lowest {
			lowest = pt
		}
		n++
	}
	return n
}

func (m *Machine) validObject(o uint16) bool {
	return o != 0 && int(o) <= m.ObjectCount()
}

// safely runs f, turning a fault into ok=false.
func safely(f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			ok = false
		}
	}()
	f()
	return true
}

// ObjectName is object o's short name ("" for an invalid object).
func (m *Machine) ObjectName(o uint16) string { return m.objNameSafe(o) }

func (m *Machine) objNameSafe(o uint16) string {
	var s string
	if o == 0 || !safely(func() { s = m.objName(o) }) {
		return ""
	}
	return s
}

// Parent, Sibling and Child follow the object tree (0 for none or invalid).
func (m *Machine) Parent(o uint16) uint16  { return m.link(o, 0) }
func (m *Machine) Sibling(o uint16) uint16 { return m.link(o, 1) }
func (m *Machine) Child(o uint16) uint16   { return m.link(o, 2) }

func (m *Machine) link(o uint16, which uint32) uint16 {
	var r uint16
	if o == 0 || !safely(func() { r = m.objLink(o, which) }) {
		return 0
	}
	return r
}

// Children lists o's children in tree order.
func (m *Machine) Children(o uint16) []uint16 {
	var out []uint16
	for c := m.Child(o); c != 0 && len(out) < 65536; c = m.Sibling(c) {
		out = append(out, c)
	}
	return out
}

// HasAttr reports whether object o has attribute attr.
func (m *Machine) HasAttr(o uint16, attr int) bool {
	var r bool
	if attr < 0 || attr > int(m.maxAttr()) || !safely(func() { r = m.testAttr(o, uint16(attr)) }) {
		return false
	}
	return r
}

// Attributes lists the attributes object o has.
func (m *Machine) Attributes(o uint16) []int {
	var out []int
	for a := 0; a <= int(m.maxAttr()); a++ {
		if m.HasAttr(o, a) {
			out = append(out, a)
		}
	}
	return out
}

// AttributeBytes returns object o's raw attribute bytes (4 or 6).
func (m *Machine) AttributeBytes(o uint16) []byte {
	var out []byte
	safely(func() {
		a := m.objAddr(o)
		n := uint32(4)
		if m.v >= 4 {
			n = 6
		}
		out = append(out, m.mem[a:a+n]...)
	})
	return out
}

// Property is one property of an object.
type Property struct {
	Num  int    `json:"num"`
	Addr int    `json:"addr"`
	Data []byte `json:"data"`
}

// Properties lists object o's properties in table order.
func (m *Machine) Properties(o uint16) []Property {
	var out []Property
	safely(func() {
		if o == 0 {
			return
		}
		a := m.firstProp(o)
		for len(out) < 64 {
			num, data, length := m.propInfo(a)
			if num == 0 {
				return
			}
			out = append(out, Property{Num: int(num), Addr: int(data), Data: append([]byte(nil), m.mem[data:data+uint32(length)]...)})
			a = data + uint32(length)
		}
	})
	return out
}

// DictionaryWords lists the story's dictionary words as the story spells them.
func (m *Machine) DictionaryWords() []string {
	var out []string
	safely(func() {
		d := m.dict
		nsep := uint32(m.mem[d])
		entryLen := uint32(m.mem[d+1+nsep])
		count := int(int16(m.word(d + 2 + nsep)))
		if count < 0 {
			count = -count
		}
		for i := 0; i < count; i++ {
			s, _ := m.decodeZString(d + 4 + nsep + uint32(i)*entryLen)
			out = append(out, s)
		}
	})
	return out
}

// Separators lists the dictionary's word separators.
func (m *Machine) Separators() string {
	var b strings.Builder
	safely(func() {
		n := uint32(m.mem[m.dict])
		for i := uint32(0); i < n; i++ {
			b.WriteByte(m.mem[m.dict+1+i])
		}
	})
	return b.String()
}

// OutputLen is the length in bytes of the lower window's text not yet
// taken: where, in the text TakeOutput will return, what the story prints
// next begins. Hooks use it to place a change within a turn's text.
func (m *Machine) OutputLen() int { return m.out.lower.Len() }

// TakeOutput returns the lower window's text since the last call.
func (m *Machine) TakeOutput() string {
	s := m.out.lower.String()
	m.out.lower.Reset()
	return s
}

// Status is the v3 status line as last shown (before each read and on
// show_status).
func (m *Machine) Status() StatusLine { return m.out.status }

// UpperWindow returns the upper window's rows, trailing spaces trimmed.
func (m *Machine) UpperWindow() []string {
	out := make([]string, len(m.out.upper))
	for i, r := range m.out.upper {
		out[i] = strings.TrimRight(string(r), " ")
	}
	return out
}

// Halted reports whether the story has quit.
func (m *Machine) Halted() bool { return m.state == Halted }

// Instruction names the instruction being executed (or last executed), as
// the Standards Document names it ("print", "set_cursor", ...). Screen
// devices that mimic an interpreter's quirks use it.
func (m *Machine) Instruction() string { return m.opName() }
