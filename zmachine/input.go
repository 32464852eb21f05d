package zmachine

import (
	"io"
	"unicode"
)

// Input (§15 read, read_char, tokenise, encode_text). Input always comes from
// the host: Run stops at a read and the host answers with SendLine or
// SendChar. Timed input is deterministic: the answer arrives before any
// timeout, so timer routines never run (as with dfrotz reading piped input).

type readRequest struct {
	text, parse uint32
	time        uint16
	routine     uint16
}

// ReadRequest describes the input a waiting story asked for.
type ReadRequest struct {
	MaxLen  int    // longest line the story accepts (WaitLine)
	Preload string // text the story put in the buffer before reading (v5+)
	Time    int    // timeout in tenths of a second, 0 for none
	Routine uint16 // packed address of the timer routine
}

// maxInput is frotz's input buffer limit.
const maxInput = 200

func (m *Machine) beginRead() {
	p := readRequest{text: uint32(m.ops[0])}
	if m.nops > 1 {
		p.parse = uint32(m.ops[1])
	}
	if m.nops > 3 {
		p.time, p.routine = m.ops[2], m.ops[3]
	}
	if m.v <= 3 {
		m.out.updateStatus(m)
	}
	m.pending = p
	m.state = WaitLine
	if m.screen != nil {
		m.screen.ReadLine(false)
	}
}

func (m *Machine) beginReadChar() {
	p := readRequest{}
	if m.nops > 2 {
		p.time, p.routine = m.ops[1], m.ops[2]
	}
	m.pending = p
	m.state = WaitChar
	if m.screen != nil {
		m.screen.ReadLine(true)
	}
}

// Pending describes the outstanding read, if the machine waits for input.
func (m *Machine) Pending() (ReadRequest, bool) {
	if m.state != WaitLine && m.state != WaitChar {
		return ReadRequest{}, false
	}
	r := ReadRequest{Time: int(m.pending.time), Routine: m.pending.routine}
	if m.state == WaitLine {
		r.MaxLen = m.maxLine()
		if m.v >= 5 {
			// Byte, not mem: the story chose the buffer's address, and
			// introspection never faults (a bad buffer faults in SendLine).
			t := int(m.pending.text)
			n := int(m.Byte(t + 1))
			for i := 0; i < n && i < r.MaxLen; i++ {
				if c, ok := m.zsciiRune(uint16(m.Byte(t + 2 + i))); ok {
					r.Preload += string(c)
				}
			}
		}
	}
	return r, true
}

// maxLine is the longest line the pending read takes. A text buffer outside
// memory reads as 0 here; SendLine then faults when it writes to it.
func (m *Machine) maxLine() int {
	max := int(m.Byte(int(m.pending.text)))
	if m.v <= 4 {
		max--
	}
	if max >= maxInput {
		max = maxInput - 1
	}
	if max < 0 {
		max = 0
	}
	return max
}

// guard converts a fault raised while the host feeds input into an error.
func (m *Machine) guard(err *error) {
	if r := recover(); r != nil {
		m.state = Halted
		*err = m.runtimeError(r)
	}
}

// SendLine answers a read with one line of input. The text is lower-cased and
// converted to ZSCII (characters without a ZSCII code are dropped), cut to the
// story's buffer, tokenised, and the machine is ready to Run again.
func (m *Machine) SendLine(line string) (err error) {
	if m.state != WaitLine {
		return ErrNotWaiting
	}
	defer m.guard(&err)
	zs := make([]uint16, 0, len(line))
	for _, r := range line {
		if r == '\n' || r == '\r' {
			break
		}
		if c, ok := m.runeZSCII(unicode.ToLower(r)); ok && c != 13 {
			zs = append(zs, c)
		}
	}
	text := m.pending.text
	max := m.maxLine()
	if m.v <= 4 {
		if len(zs) > max {
			zs = zs[:max]
		}
		for i, c := range zs {
			m.setByte(text+1+uint32(i), uint8(c))
		}
		m.setByte(text+1+uint32(len(zs)), 0)
	} else {
		pre := int(m.byteAt(text + 1))
		if pre > max {
			pre = max
		}
		if len(zs) > max-pre {
			zs = zs[:max-pre]
		}
		for i, c := range zs {
			m.setByte(text+2+uint32(pre+i), uint8(c))
		}
		m.setByte(text+1, uint8(pre+len(zs)))
	}
	if m.screen != nil {
		m.screen.Input(line, false)
	}
	if m.opts.EchoInput {
		m.out.lower.WriteString(line)
	}
	m.echoNewline()
	if m.out.commands && m.opts.Commands != nil {
		io.WriteString(m.opts.Commands, line+"\n")
	}
	if m.out.transcript && m.opts.Transcript != nil {
		io.WriteString(m.opts.Transcript, line+"\n")
	}
	if m.pending.parse != 0 {
		m.tokenise(text, m.pending.parse, m.dict, false)
	}
	m.state = Running
	if m.v >= 5 {
		m.store(13)
	}
	return nil
}

// echoNewline ends a line of input in the lower window, as a terminal does.
func (m *Machine) echoNewline() {
	if m.out.window == 0 || m.v < 3 {
		m.out.lower.WriteByte('\n')
	}
}

// SendChar answers read_char with a ZSCII code (13 for Enter).
func (m *Machine) SendChar(c uint16) (err error) {
	if m.state != WaitChar {
		return ErrNotWaiting
	}
	defer m.guard(&err)
	if m.screen != nil {
		k := ""
		if r, ok := m.zsciiRune(c); ok && c != 13 {
			k = string(r)
		}
		m.screen.Input(k, true)
	}
	m.state = Running
	m.store(c)
	return nil
}

// SendKey answers read_char with a typed character.
func (m *Machine) SendKey(r rune) error {
	c, ok := m.runeZSCII(r)
	if !ok {
		c = '?'
	}
	return m.SendChar(c)
}

// tokenise splits the text buffer into words and looks each up in dict
// (§13.6). With keep, unrecognised words leave their parse entry untouched.
func (m *Machine) tokenise(text, parse, dict uint32, keep bool) {
	var start, n uint32
	if m.v <= 4 {
		start = text + 1
		limit := uint32(m.byteAt(text))
		for n < limit && m.byteAt(start+n) != 0 {
			n++
		}
	} else {
		start = text + 2
		n = uint32(m.byteAt(text + 1))
	}
	nsep := uint32(m.byteAt(dict))
	isSep := func(c uint8) bool {
		for i := uint32(0); i < nsep; i++ {
			if m.byteAt(dict+1+i) == c {
				return true
			}
		}
		return false
	}
	maxWords := int(m.byteAt(parse))
	count := 0
	word := make([]uint16, 0, 16)
	emit := func(pos uint32, w []uint16) {
		if count >= maxWords {
			return
		}
		entry := m.lookup(dict, w)
		a := parse + 2 + 4*uint32(count)
		if entry != 0 || !keep {
			m.setWord(a, entry)
			m.setByte(a+2, uint8(len(w)))
			m.setByte(a+3, uint8(pos-text))
		}
		count++
	}
	wordStart := uint32(0)
	for i := uint32(0); i <= n; i++ {
		var c uint8 = ' '
		if i < n {
			c = m.byteAt(start + i)
		}
		switch {
		case c == ' ' || i == n:
			if len(word) > 0 {
				emit(wordStart, word)
				word = word[:0]
			}
		case isSep(c):
			if len(word) > 0 {
				emit(wordStart, word)
				word = word[:0]
			}
			emit(start+i, []uint16{uint16(c)})
		default:
			if len(word) == 0 {
				wordStart = start + i
			}
			word = append(word, uint16(c))
		}
	}
	m.setByte(parse+1, uint8(count))
}

// lookup finds a word in a dictionary; it returns the entry's address or 0.
// A negative entry count marks an unsorted (custom) dictionary.
func (m *Machine) lookup(dict uint32, w []uint16) uint16 {
	key := m.encodeZChars(w)
	nsep := uint32(m.byteAt(dict))
	entryLen := uint32(m.byteAt(dict + 1 + nsep))
	count := int(int16(m.word(dict + 2 + nsep)))
	entries := dict + 4 + nsep
	words := 2
	if m.v >= 4 {
		words = 3
	}
	cmp := func(a uint32) int {
		for i := 0; i < words; i++ {
			x := m.word(a + 2*uint32(i))
			if x != key[i] {
				if key[i] < x {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	if count > 0 {
		lo, hi := 0, count-1
		for lo <= hi {
			mid := (lo + hi) / 2
			a := entries + uint32(mid)*entryLen
			switch cmp(a) {
			case 0:
				return uint16(a)
			case -1:
				hi = mid - 1
			default:
				lo = mid + 1
			}
		}
		return 0
	}
	for i := 0; i < -count; i++ {
		a := entries + uint32(i)*entryLen
		if cmp(a) == 0 {
			return uint16(a)
		}
	}
	return 0
}

// encodeText is encode_text: the word of length n at text+from, encoded into
// 6 bytes at coded.
func (m *Machine) encodeText(text uint32, n, from int, coded uint32) {
	w := make([]uint16, 0, n)
	for i := 0; i < n; i++ {
		w = append(w, uint16(m.byteAt(text+uint32(from+i))))
	}
	key := m.encodeZChars(w)
	for i := 0; i < 3; i++ {
		m.setWord(coded+2*uint32(i), key[i])
	}
}
