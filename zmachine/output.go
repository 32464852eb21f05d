package zmachine

import (
	"strings"
	"unicode/utf8"
)

// Output streams (§7) and the screen model (§8). The lower window's text is
// the transcript: it accumulates until the host takes it. The upper window is
// a grid of cells and the v3 status line is a record; neither is mixed into
// the transcript.

// StatusLine is the v3 status line as data.
type StatusLine struct {
	Location string `json:"location"`
	// Score and Moves, or Hours and Minutes when TimeGame is set.
	Score    int  `json:"score"`
	Moves    int  `json:"moves"`
	TimeGame bool `json:"time_game,omitempty"`
	Hours    int  `json:"hours,omitempty"`
	Minutes  int  `json:"minutes,omitempty"`
}

// Style bits of set_text_style.
const (
	StyleReverse = 1
	StyleBold    = 2
	StyleItalic  = 4
	StyleFixed   = 8
)

type memStream struct {
	table uint32
	count uint16
}

type output struct {
	lower      strings.Builder
	screen     bool // stream 1
	transcript bool // stream 2
	commands   bool // stream 4
	mem        []memStream

	window     int // 0 lower, 1 upper
	upperRows  int
	upper      [][]rune
	row, col   int // upper window cursor, 0-based
	style      uint16
	font       uint16
	fg, bg     uint16
	buffered   bool
	status     StatusLine
	scratch    []uint16
	lastFlags2 uint16
}

func (o *output) reset(m *Machine) {
	o.lower.Reset()
	o.screen = true
	o.commands = false
	o.mem = o.mem[:0]
	o.window = 0
	o.upperRows = 0
	o.upper = nil
	o.row, o.col = 0, 0
	o.style = 0
	o.font = 1
	o.fg, o.bg = 1, 1
	o.buffered = true
	o.status = StatusLine{}
	o.lastFlags2 = m.word(hFlags2)
	o.transcript = o.lastFlags2&1 != 0
}

// flags2Written follows the story's writes to Flags 2: bit 0 turns the
// transcript (stream 2) on or off.
func (o *output) flags2Written(m *Machine) {
	f := m.word(hFlags2)
	if (f^o.lastFlags2)&1 != 0 {
		o.transcript = f&1 != 0
	}
	o.lastFlags2 = f
}

// printZSCII sends one ZSCII character to the active streams.
func (m *Machine) printZSCII(c uint16) {
	o := &m.out
	if n := len(o.mem); n > 0 {
		m.spend()
		// Stream 3 stores what the screen would show: ZSCII 0 is dropped
		// and a code with no character becomes '?' (as in frotz).
		switch {
		case c == 0:
			return
		case c >= 155 && c <= 251 && m.unicodeFor(c) == 0, c == 255:
			c = '?'
		}
		s := &o.mem[n-1]
		m.setByte(s.table+2+uint32(s.count), uint8(c))
		s.count++
		return
	}
	r, ok := m.zsciiRune(c)
	if !ok {
		return
	}
	m.emit(r)
	if c == 11 { // the sentence space is two spaces wide
		m.emit(r)
	}
}

// printRune prints a Unicode character (print_unicode).
func (m *Machine) printRune(r rune) {
	o := &m.out
	if len(o.mem) > 0 {
		c, ok := m.runeZSCII(r)
		if !ok {
			c = '?'
		}
		m.printZSCII(c)
		return
	}
	m.emit(r)
}

// printString prints ASCII text (numbers, interpreter messages).
func (m *Machine) printString(s string) {
	for i := 0; i < len(s); i++ {
		m.printZSCII(uint16(s[i]))
	}
}

func (m *Machine) emit(r rune) {
	o := &m.out
	m.spend()
	if o.screen && m.screen != nil {
		m.screen.Char(o.window, r)
	}
	if o.window == 1 && m.v >= 3 {
		if o.screen {
			o.putUpper(r)
		}
		return
	}
	if o.screen {
		o.lower.WriteRune(r)
	}
	if o.transcript && m.opts.Transcript != nil {
		var b [4]byte
		n := utf8.EncodeRune(b[:], r)
		m.opts.Transcript.Write(b[:n])
	}
}

// spend counts one printed character against the Run's output budget.
func (m *Machine) spend() {
	if m.printLeft--; m.printLeft < 0 {
		m.outputLimit()
	}
}

//go:noinline
func (m *Machine) outputLimit() {
	panic(faultf(ErrOutputLimit, "%d characters without input", m.opts.OutputBudget))
}

func (o *output) newline(m *Machine) { m.printZSCII(13) }

func (o *output) putUpper(r rune) {
	if r == '\n' {
		o.row++
		o.col = 0
		return
	}
	if o.row >= len(o.upper) {
		return
	}
	line := o.upper[o.row]
	if o.col < len(line) {
		line[o.col] = r
		o.col++
	}
}

func (o *output) cols(m *Machine) int {
	if c := int(m.id.ScreenCols); c > 0 {
		return c
	}
	return 80
}

func (o *output) splitWindow(m *Machine, lines int) {
	if lines < 0 {
		lines = 0
	}
	if lines > 255 {
		lines = 255
	}
	old := o.upper
	o.upper = make([][]rune, lines)
	for i := range o.upper {
		if i < len(old) {
			o.upper[i] = old[i]
			continue
		}
		o.upper[i] = blankRow(o.cols(m))
	}
	o.upperRows = lines
	if m.screen != nil {
		m.screen.Split(lines)
	}
	if m.v == 3 {
		o.clearUpper(m)
	}
	if o.row >= lines {
		o.row, o.col = 0, 0
	}
}

func blankRow(n int) []rune {
	r := make([]rune, n)
	for i := range r {
		r[i] = ' '
	}
	return r
}

func (o *output) clearUpper(m *Machine) {
	for i := range o.upper {
		o.upper[i] = blankRow(o.cols(m))
	}
}

func (o *output) setWindow(m *Machine, w int) {
	if w != 0 && w != 1 {
		return
	}
	if m.screen != nil {
		m.screen.SetWindow(w)
	}
	o.window = w
	if w == 1 {
		o.row, o.col = 0, 0
	}
}

func (o *output) eraseWindow(m *Machine, w int16) {
	if m.screen != nil {
		m.screen.Erase(int(w))
	}
	switch w {
	case -1:
		o.upper = nil
		o.upperRows = 0
		o.window = 0
	case -2, 1:
		o.clearUpper(m)
	}
}

func (o *output) eraseLine(m *Machine, v uint16) {
	if v != 1 {
		return
	}
	if m.screen != nil {
		m.screen.EraseLine()
	}
	if o.window != 1 || o.row >= len(o.upper) {
		return
	}
	line := o.upper[o.row]
	for i := o.col; i < len(line); i++ {
		line[i] = ' '
	}
}

func (o *output) setCursor(m *Machine, row, col int16) {
	if m.screen != nil {
		m.screen.SetCursor(int(row), int(col))
	}
	if o.window != 1 || row < 1 {
		return
	}
	o.row, o.col = int(row)-1, int(col)-1
	if o.col < 0 {
		o.col = 0
	}
}

func (o *output) cursor() (row, col uint16) {
	if o.window == 1 {
		return uint16(o.row + 1), uint16(o.col + 1)
	}
	return 1, 1
}

func (o *output) setStyle(s uint16) {
	if s == 0 {
		o.style = 0
		return
	}
	o.style |= s
}

func (o *output) setColour(fg, bg uint16) {
	if fg != 0 {
		o.fg = fg
	}
	if bg != 0 {
		o.bg = bg
	}
}

func (o *output) setFont(f uint16) uint16 {
	switch f {
	case 0:
		return o.font
	case 1, 4:
		prev := o.font
		o.font = f
		return prev
	}
	return 0
}

// updateStatus records the v3 status line from globals 0–2 (§8.2).
func (o *output) updateStatus(m *Machine) {
	loc := m.readGlobal(0)
	st := StatusLine{Location: m.objNameSafe(loc)}
	a, b := int(int16(m.readGlobal(1))), int(m.readGlobal(2))
	if m.v == 3 && m.mem[hFlags1]&0x02 != 0 {
		st.TimeGame, st.Hours, st.Minutes = true, a, b
	} else {
		st.Score, st.Moves = a, b
	}
	o.status = st
	if m.screen != nil {
		m.screen.Status(st)
	}
}

// outputStream selects (n > 0) or deselects (n < 0) a stream; stream 3
// redirects to a table and nests (§7.1.2.1).
func (m *Machine) outputStream(n int16, table uint16) {
	o := &m.out
	switch n {
	case 1:
		o.screen = true
	case -1:
		o.screen = false
	case 2, -2:
		f := m.word(hFlags2)
		if n > 0 {
			f |= 1
		} else {
			f &^= 1
		}
		m.setWord(hFlags2, f)
	case 3:
		if len(o.mem) >= 16 {
			panic(faultf(ErrStackOverflow, "output stream 3 nested more than 16 deep"))
		}
		o.mem = append(o.mem, memStream{table: uint32(table)})
	case -3:
		if k := len(o.mem); k > 0 {
			s := o.mem[k-1]
			o.mem = o.mem[:k-1]
			m.setWord(s.table, s.count)
		}
	case 4:
		o.commands = true
	case -4:
		o.commands = false
	}
}
