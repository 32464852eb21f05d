package lineplay

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/lantern-if/lantern/zmachine"
)

// dumb renders the story the way Debian's dfrotz 2.54 does with -m -p: a
// 24x80 screen of cells in which frotz's generic screen code wraps words,
// scrolls and counts lines, and of which only the rows that changed are
// printed, at each input and whenever a MORE prompt would have been due.
// Folded to single spaces, its output equals dfrotz's. The rules are taken
// from frotz's src/common/screen.c and buffer.c and src/dumb/dumb_output.c
// (read, not copied). The v3 status line is drawn into the top row as
// frotz draws it, in reverse fixed-pitch text, which dfrotz's plain output
// prints as nothing: only its changing shows (as an empty line).
type dumb struct {
	w          *bufio.Writer
	v          int
	rows, cols int
	cells      []cell
	line       []byte // a row's text, reused by showRow
	changed    []byte // 1 where a cell changed since the screen was last shown (bytes, so a row is searched with bytes.IndexByte)
	curRow     int    // the terminal cursor, 0-based
	curCol     int
	win        [8]window
	cwin       int
	buf        []cell // frotz's word buffer, each char with its style
	prevC      rune
	style      uint16 // the story's text style (set_text_style)
	// keysLeft: keys typed on one line for read_char remain, so the next
	// read_char takes one without showing the screen (dfrotz reads a new
	// line, and shows what changed, only when none is left).
	keysLeft bool
	// instr names the instruction being executed (nil: unknown).
	instr   func() string
	origins map[originKey]uint16
}

// originKey is a drawing path: the instruction's name and the flush kind.
type originKey struct {
	name string
	kind byte
}

// origin numbers the path along which text is being drawn: the instruction
// (the text-printing ones share one path, as in frotz) and the flush kind
// (print_char draws spaces and new lines alike).
func (d *dumb) origin(kind byte) uint16 {
	name := ""
	if d.instr != nil {
		name = d.instr()
	}
	switch name {
	case "print", "print_ret", "print_addr", "print_paddr":
		name = "text"
	case "print_char":
		if kind == flushLine {
			kind = flushWord
		}
	}
	return d.originOf(name, kind)
}

// originOf numbers the drawing path named name ended by kind.
func (d *dumb) originOf(name string, kind byte) uint16 {
	key := originKey{name, kind}
	n, ok := d.origins[key]
	if !ok {
		if d.origins == nil {
			d.origins = map[originKey]uint16{}
		}
		n = uint16(len(d.origins) + originFirst)
		d.origins[key] = n
	}
	return n
}

// cell is a character, the style it was drawn in and where the drawing
// came from. dfrotz's cells carry colour fields that its plain output never
// sets, so a cell redrawn with the same character and style still counts as
// changed when it was drawn along another path through the interpreter (an
// instruction flushing the word buffer, a space or a new line inside a
// print): origin stands for that path, so that a status line redrawn
// differently shows as dfrotz shows it.
type cell struct {
	r      rune
	style  uint16
	origin uint16
}

// Flush kinds: what ended the word being drawn.
const (
	flushOp     = 'o' // an instruction (set_cursor, set_window, read, ...)
	flushWord   = 'w' // a space or a hyphen inside printed text
	flushLine   = 'n' // a new line inside printed text
	flushDirect = 'd' // unbuffered text, drawn character by character
)

// originInput marks the typed text dfrotz copies onto the screen; the
// drawing paths are numbered from originFirst.
const (
	originInput = 1
	originFirst = 2
)

// statusPath names the v3 status line's drawing path: frotz draws it along
// the same path whether the read or the show_status instruction asks.
const statusPath = "(status line)"

// blankCell is an erased cell.
var blankCell = cell{r: ' '}

// visible reports whether dfrotz prints a cell's character: only plain,
// fixed-pitch and reverse text shows; bold and italic text prints nothing.
func (c cell) visible() bool {
	switch c.style {
	case 0, 1, zmachine.StyleFixed:
		return true
	}
	return false
}

// window is one of frotz's window records (1-based cursor, in cells).
type window struct {
	yPos, xPos, ySize, xSize int
	yCur, xCur               int
	left, right              int
	lineCount                int
	attr                     int // 1 wrapping, 2 scrolling, 4 scripting, 8 buffering
}

func newDumb(w io.Writer, version int) *dumb {
	d := &dumb{w: bufio.NewWriter(w), v: version, rows: 24, cols: 80}
	d.cells = make([]cell, d.rows*d.cols)
	d.changed = make([]byte, d.rows*d.cols)
	for i := range d.cells {
		d.cells[i] = blankCell
	}
	d.restartScreen()
	return d
}

func (d *dumb) flush() error { return d.w.Flush() }

func (d *dumb) restartScreen() {
	for i := range d.win {
		d.win[i] = window{yPos: 1, xPos: 1, yCur: 1, xCur: 1, attr: 8}
	}
	d.win[0].attr = 15
	d.win[0].xSize = d.cols
	d.win[1].xSize = d.cols
	if d.v <= 3 {
		d.win[7].xSize = d.cols
	}
	d.cwin = 0
	d.eraseScreen(-1)
}

// flag is a changed mark: 1 for true.
func flag(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func (d *dumb) cur() *window { return &d.win[d.cwin] }

func (d *dumb) setCell(row, col int, c cell) {
	i := row*d.cols + col
	if i < 0 || i >= len(d.cells) {
		return
	}
	d.changed[i] = flag(c != d.cells[i])
	d.cells[i] = c
}

// drawStyle is the style frotz draws with: the story's style, plus fixed
// pitch outside the lower window.
func (d *dumb) drawStyle() uint16 {
	if d.cwin != 0 {
		return d.style | zmachine.StyleFixed
	}
	return d.style
}

// eraseArea blanks a 1-based inclusive rectangle (the part of it on the
// screen), marking the cells whose content changes.
func (d *dumb) eraseArea(top, left, bottom, right int) {
	top, left, bottom, right = max(top-1, 0), max(left-1, 0), min(bottom-1, d.rows-1), min(right-1, d.cols-1)
	if left > right {
		return
	}
	blank := cell{r: ' ', style: d.drawStyle()}
	for r := top; r <= bottom; r++ {
		from, to := r*d.cols+left, r*d.cols+right+1
		row, changed := d.cells[from:to], d.changed[from:to]
		for i := range row {
			changed[i] = flag(row[i] != blank)
			row[i] = blank
		}
	}
}

func (d *dumb) scrollArea(top, left, bottom, right int) {
	top, left, bottom, right = max(top-1, 0), max(left-1, 0), min(bottom-1, d.rows-1), min(right-1, d.cols-1)
	if left > right {
		return
	}
	if left == 0 && right == d.cols-1 && top < bottom {
		// Whole rows lie next to each other: one move.
		dst, src, end := top*d.cols, (top+1)*d.cols, (bottom+1)*d.cols
		copy(d.cells[dst:], d.cells[src:end])
		copy(d.changed[dst:], d.changed[src:end])
	} else {
		for r := top; r < bottom; r++ {
			dst, src := r*d.cols, (r+1)*d.cols
			copy(d.cells[dst+left:dst+right+1], d.cells[src+left:src+right+1])
			copy(d.changed[dst+left:dst+right+1], d.changed[src+left:src+right+1])
		}
	}
	d.eraseArea(bottom+1, left+1, bottom+1, right+1)
}

func (d *dumb) setCursor(row, col int) {
	d.curRow, d.curCol = row-1, col-1
	if d.curRow >= d.rows {
		d.curRow = d.rows - 1
	}
}

func (d *dumb) updateCursor() {
	w := d.cur()
	d.setCursor(w.yPos+w.yCur-1, w.xPos+w.xCur-1)
}

func (d *dumb) resetCursor(n int) {
	lines := 0
	if d.v <= 4 && n == 0 {
		lines = d.win[0].ySize - 1
	}
	d.win[n].yCur = lines + 1
	d.win[n].xCur = d.win[n].left + 1
	if n == d.cwin {
		d.updateCursor()
	}
}

func (d *dumb) eraseScreen(n int) {
	d.eraseArea(1, 1, d.rows, d.cols)
	if n == -1 {
		d.splitWindow(0)
		d.setWindow(0)
		d.resetCursor(0)
	}
	for i := range d.win {
		d.win[i].lineCount = 0
	}
}

func (d *dumb) eraseWindow(n int) {
	w := &d.win[n]
	d.eraseArea(w.yPos, w.xPos, w.yPos+w.ySize-1, w.xPos+w.xSize-1)
	d.resetCursor(n)
	w.lineCount = 0
}

func (d *dumb) splitWindow(h int) {
	d.flushBuffer()
	stat := 0
	if d.v <= 3 {
		stat = 1
	}
	w1, w0 := &d.win[1], &d.win[0]
	w1.yCur += w1.yPos - 1 - stat
	w1.yPos = 1 + stat
	w1.ySize = h
	if w1.yCur > w1.ySize {
		d.resetCursor(1)
	}
	w0.yCur += w0.yPos - 1 - stat - h
	w0.yPos = 1 + stat + h
	w0.ySize = d.rows - stat - h
	if w0.yCur < 1 {
		d.resetCursor(0)
	}
	if d.v == 3 && h != 0 {
		d.eraseWindow(1)
	}
}

func (d *dumb) setWindow(n int) {
	d.flushBuffer()
	d.cwin = n
	if n != 0 {
		d.win[n].yCur, d.win[n].xCur = 1, 1
	}
	d.updateCursor()
}

func (d *dumb) unitsLeft() int {
	w := d.cur()
	return w.xSize - w.right - w.xCur + 1
}

func (d *dumb) displayChar(c cell) {
	d.setCell(d.curRow, d.curCol, c)
	d.curCol++
	if d.curCol == d.cols {
		if d.curRow == d.rows-1 {
			d.curCol--
		} else {
			d.curRow++
			d.curCol = 0
		}
	}
}

func (d *dumb) screenNewLine() {
	w := d.cur()
	w.xCur = w.left + 1
	if w.yCur+1 > w.ySize {
		if w.attr&2 != 0 {
			d.scrollArea(w.yPos, w.xPos, w.yPos+w.ySize-1, w.xPos+w.xSize-1)
		} else {
			w.yCur = 1
		}
	} else {
		w.yCur++
	}
	d.updateCursor()
	if w.attr&2 != 0 {
		above := w.yCur - 1
		below := w.ySize - w.yCur + 1
		w.lineCount++
		if w.lineCount >= above+below-1 {
			d.elideMore()
			w.lineCount = 0
		}
	}
}

func (d *dumb) screenChar(r cell) {
	if d.unitsLeft() < 1 {
		w := d.cur()
		if w.attr&1 == 0 {
			w.xCur = w.xSize - w.right
			return
		}
		d.screenNewLine()
	}
	d.displayChar(r)
	d.cur().xCur++
}

func (d *dumb) screenWord(s []cell) {
	if d.unitsLeft() < len(s) {
		if d.cur().attr&1 == 0 {
			for _, r := range s {
				d.screenChar(r)
			}
			return
		}
		if len(s) > 0 && s[0].r == ' ' {
			s = s[1:]
		}
		d.screenNewLine()
	}
	for _, r := range s {
		d.displayChar(r)
	}
	d.cur().xCur += len(s)
}

func (d *dumb) flushBuffer() { d.flushAs(flushOp) }

// flushAs draws the buffered word, tagged with the path that ended it.
func (d *dumb) flushAs(kind byte) {
	if len(d.buf) > 0 {
		o := d.origin(kind)
		for i := range d.buf {
			d.buf[i].origin = o
		}
		d.screenWord(d.buf)
	}
	d.buf = d.buf[:0]
	d.prevC = 0
}

func (d *dumb) newLine() {
	d.flushAs(flushLine)
	d.screenNewLine()
}

// printChar is frotz's print_char: buffered words break before spaces and
// after hyphens.
func (d *dumb) printChar(r rune) {
	if r == '\n' {
		d.newLine()
		return
	}
	c := cell{r: r, style: d.drawStyle()}
	if d.cur().attr&8 == 0 {
		c.origin = d.origin(flushDirect)
		d.screenChar(c)
		return
	}
	if r == ' ' || (d.prevC == '-' && r != '-') {
		d.flushAs(flushWord)
	}
	d.prevC = r
	d.buf = append(d.buf, c)
}

// rowChanged: a row shows when a cell that changed is not blank.
func (d *dumb) rowChanged(r int) bool {
	if r < 0 || r >= d.rows {
		return false
	}
	from, to := r*d.cols, (r+1)*d.cols
	cells, changed := d.cells[from:to], d.changed[from:to]
	for c := bytes.IndexByte(changed, 1); c >= 0; {
		if cells[c].r != ' ' {
			return true
		}
		next := bytes.IndexByte(changed[c+1:], 1)
		if next < 0 {
			break
		}
		c += next + 1
	}
	return false
}

func (d *dumb) showRow(r int) {
	if r >= 0 {
		row := d.cells[r*d.cols : (r+1)*d.cols]
		last := len(row) - 1
		for last >= 0 && row[last].r == ' ' {
			last--
		}
		line := d.line[:0]
		for _, c := range row[:last+1] {
			if c.visible() {
				line = utf8.AppendRune(line, c.r)
			}
		}
		d.w.Write(line)
		d.line = line
	}
	d.w.WriteByte('\n')
}

// showScreen prints the rows that changed since the last time, compressing
// runs of unchanged rows to one empty line (dfrotz's "spans" mode).
func (d *dumb) showScreen(showCursor bool) {
	changed := make([]bool, d.rows+2)
	first, last := -1, -1
	for r := 0; r < d.rows; r++ {
		changed[r] = d.rowChanged(r)
		if changed[r] {
			if first == -1 {
				first = r
			}
			last = r
		}
	}
	if first != -1 {
		if showCursor && d.curRow == last {
			blank := true
			for c := d.curCol; c < d.cols; c++ {
				if d.cells[last*d.cols+c].r != ' ' {
					blank = false
					break
				}
			}
			if blank {
				last--
			}
		}
		for r := first; r <= last; r++ {
			if changed[r] || changed[r+1] {
				d.showRow(r)
				continue
			}
			for r+1 < len(changed)-1 && !changed[r+1] {
				r++
			}
			d.showRow(-1)
		}
		if showCursor && d.curRow > last+1 {
			if d.curRow == last+2 {
				d.showRow(last + 1)
			} else {
				d.showRow(-1)
			}
		}
	}
	clear(d.changed)
}

func (d *dumb) showPrompt() {
	if d.curRow < 0 || d.curRow >= d.rows {
		return
	}
	for c := 0; c < d.curCol && c < d.cols; c++ {
		if cl := d.cells[d.curRow*d.cols+c]; cl.visible() {
			d.w.WriteRune(cl.r)
		}
	}
}

// elideMore is what dfrotz does instead of a MORE prompt under -m.
func (d *dumb) elideMore() {
	d.showScreen(false)
	d.showRow(-1)
}

// prompt prints a prompt that is not part of the story (file names).
func (d *dumb) prompt(text string) {
	d.flushBuffer()
	d.showScreen(false)
	d.w.WriteString(text)
}

// The zmachine.Screen interface.

func (d *dumb) Char(_ int, r rune) { d.printChar(r) }
func (d *dumb) Split(lines int)    { d.splitWindow(lines) }
func (d *dumb) SetWindow(n int) {
	if n == 0 || n == 1 {
		d.setWindow(n)
	}
}

func (d *dumb) Erase(n int) {
	d.flushBuffer()
	switch n {
	case -1, -2:
		d.eraseScreen(n)
	case 0, 1:
		d.eraseWindow(n)
	}
}

func (d *dumb) EraseLine() {
	d.flushBuffer()
	w := d.cur()
	y := w.yPos + w.yCur - 1
	x := w.xPos + w.xCur - 1
	d.eraseArea(y, x, y, w.xPos+w.xSize-1)
}

func (d *dumb) SetCursor(row, col int) {
	d.flushBuffer()
	if row < 0 {
		return
	}
	w := &d.win[1]
	if row == 0 {
		row = w.yCur
	}
	if col == 0 {
		col = w.xCur
	}
	w.yCur, w.xCur = row, col
	if d.cwin == 1 {
		d.updateCursor()
	}
}

func (d *dumb) SetBuffered(on bool) {
	d.flushBuffer()
	d.win[0].attr &^= 8
	if on {
		d.win[0].attr |= 8
	}
}

// SetStyle follows set_text_style: 0 clears, anything else adds.
func (d *dumb) SetStyle(s uint16) {
	if s == 0 {
		d.style = 0
		return
	}
	d.style |= s
}

// Status draws the v3 status line into the top row as frotz's show_status
// does (window 7, reverse fixed-pitch text, buffered in words): a space and
// the location's name, then the score at column 51 and the moves at column
// 67, or the time at column 61, padded with spaces to the row's end and
// clipped there. A cell's changed mark says whether its last drawing
// changed it, so a status line drawn again unchanged before the screen is
// shown (the show_status instruction during a turn, then the read) leaves
// the row unchanged; a word that ends differently (the name "Forest" where
// "Forest Path" was) is drawn along another path and so changes.
func (d *dumb) Status(st zmachine.StatusLine) {
	d.flushBuffer()
	d.cwin = 7
	w := d.cur()
	w.yCur, w.xCur = 1, 1
	d.updateCursor()
	sw := statusWriter{d: d}
	sw.text(" " + st.Location)
	if st.TimeGame {
		// frotz reads the globals as unsigned words and prints numbers signed.
		hours, minutes := uint16(st.Hours), uint16(st.Minutes)
		sw.pad(20)
		sw.text("Time: ")
		h := (hours+11)%12 + 1
		if h < 10 {
			sw.text(" ")
		}
		sw.text(strconv.Itoa(int(h)) + ":")
		if minutes < 10 {
			sw.text("0")
		}
		sw.text(strconv.Itoa(int(int16(minutes))) + " ")
		if hours >= 12 {
			sw.text("pm")
		} else {
			sw.text("am")
		}
	} else {
		sw.pad(30)
		sw.text("Score: " + strconv.Itoa(int(int16(st.Score))))
		sw.pad(14)
		sw.text("Moves: " + strconv.Itoa(int(int16(st.Moves))))
	}
	sw.pad(0)
	d.cwin = 0
	d.updateCursor()
}

// statusWriter draws the status line's text as frotz's print_char buffers
// it: a word ends before a space or after a hyphen, or when the padding
// flushes it; the padding's spaces are drawn one by one.
type statusWriter struct {
	d     *dumb
	word  []cell
	prevC rune
}

const statusStyle = zmachine.StyleReverse | zmachine.StyleFixed

func (s *statusWriter) text(str string) {
	for _, r := range str {
		if r == ' ' || (s.prevC == '-' && r != '-') {
			s.flush(flushWord)
		}
		s.prevC = r
		s.word = append(s.word, cell{r: r, style: statusStyle})
	}
}

func (s *statusWriter) flush(kind byte) {
	if len(s.word) > 0 {
		o := s.d.originOf(statusPath, kind)
		for i := range s.word {
			s.word[i].origin = o
		}
		s.d.screenWord(s.word)
	}
	s.word, s.prevC = s.word[:0], 0
}

// pad is frotz's pad_status_line: spaces up to column from the right edge.
func (s *statusWriter) pad(column int) {
	s.flush(flushOp)
	blank := cell{r: ' ', style: statusStyle, origin: s.d.originOf(statusPath, flushDirect)}
	for n := s.d.unitsLeft() - column; n > 0; n-- {
		s.d.screenChar(blank)
	}
}

func (d *dumb) ReadLine(char bool) {
	d.flushBuffer()
	if char && d.keysLeft {
		return
	}
	if !char && d.cwin == 0 && d.unitsLeft() < 10 {
		d.screenNewLine()
	}
	d.showScreen(true)
	d.showPrompt()
}

func (d *dumb) Input(text string, char bool) {
	for i := range d.win {
		d.win[i].lineCount = 0
	}
	if char {
		return
	}
	// The typed text goes on the screen without counting as a change.
	n := 0
	for _, r := range text {
		i := d.curRow*d.cols + d.curCol + n
		if i >= 0 && i < len(d.cells) {
			d.cells[i] = cell{r: r, origin: originInput}
		}
		n++
	}
	d.curCol += n
	d.cur().xCur += n
	d.screenNewLine()
}

// Restart: text not yet shown is lost, as the screen is erased first.
func (d *dumb) Restart() {
	d.flushBuffer()
	d.style = 0
	d.restartScreen()
}

// Beep: dfrotz prints its visual bell at once, ahead of any text not yet
// shown.
func (d *dumb) Beep(pitch int) {
	if pitch == 1 {
		d.w.WriteString("[HIGH-PITCHED BEEP]\n")
		return
	}
	d.w.WriteString("[LOW-PITCHED BEEP]\n")
}

func (d *dumb) Flush() { d.flushBuffer() }

func (d *dumb) Quit() {
	d.flushBuffer()
	d.showScreen(false)
}
