package zmachine

import (
	"encoding/binary"
	"math/bits"
)

// Quetzal 1.4 save files (the "Z-machine Common Save-File Format Standard").
//
// A save made by the story's own SAVE instruction is a standard Quetzal file:
// an IFF FORM of type IFZS holding the chunks IFhd, CMem and Stks in frotz's
// order, so dfrotz and other interpreters restore it and Lantern restores
// theirs (CMem or UMem; other chunks such as IntD or ANNO are skipped).
//
// The PC kept in IFhd is that of the save instruction's branch data (v1–3) or
// store byte (v4+): a restore completes that instruction by branching true or
// storing 2. Quetzal can describe no other kind of resumption, so a host that
// saves between instructions – typically at a prompt, where the story waits in
// read – cannot make a standard file: restoring it elsewhere would complete a
// save instruction that is not there. For those saves SaveQuetzal writes
// Lantern's variant instead, as Bocfel does for its interpreter-made saves: the
// same chunks in a FORM of type LNZS, which other interpreters refuse instead
// of misreading, plus a chunk "LnSt" that says what the machine was doing:
//
//	byte 0     format of the chunk, 1
//	byte 1     the State: 0 running (resume at the PC), 1 waiting in read,
//	           2 waiting in read_char, 3 halted
//	bytes 2-9  the pending read's words: text buffer, parse buffer, time and
//	           timer routine (zero unless waiting)
//
// RestoreQuetzal called by the host brings such a file back exactly: a
// machine saved at a prompt waits at that prompt again. The story's own
// RESTORE refuses it (it can only continue after a SAVE).
//
// For a host, Snapshot is still the faster and more complete way to keep a
// state in memory: a Quetzal file holds only what the standard names (memory,
// stacks, PC), not the output streams, windows, random generator or undo
// states, which a restore leaves as they are.

const (
	quetzalForm = "IFZS"
	lanternForm = "LNZS"
	lanternSt   = "LnSt"
	lnStLen     = 10 // format 1: state and pending read
	lnStLen2    = 18 // format 2 adds the random generator
	ifhdLen     = 13
)

// quetzalImage is a parsed save file, checked against the story but not yet
// applied to the machine.
type quetzalImage struct {
	pc      uint32
	dyn     []byte // dynamic memory as saved
	stack   []uint16
	frames  []frame
	exact   bool // LNZS: resume in state and pending, not after a save
	state   State
	pending readRequest
	rng     *rng // LNZS format 2: the generator as saved
}

// SaveQuetzal returns the machine's state as a Quetzal 1.4 image. Called while
// the story executes SAVE (that is, from Options.Saver) it is a standard IFZS
// file that any interpreter restores. Called by the host between runs – at a
// prompt, before the first Run, after a halt – it is Lantern's LNZS variant,
// which only Lantern's RestoreQuetzal reads; it resumes exactly where it was
// made (see the notes at the top of this file). A host keeping states in
// memory should prefer Snapshot. SaveQuetzal must not be called from Hooks,
// in the middle of an instruction.
func (m *Machine) SaveQuetzal() []byte {
	exact := !(m.state == Running && m.inSaveOp())
	form := quetzalForm
	if exact {
		form = lanternForm
	}
	out := make([]byte, 0, 128+int(m.staticBase)/4+2*len(m.stack))
	out = append(out, "FORM\x00\x00\x00\x00"...)
	out = append(out, form...)

	var hd [ifhdLen]byte
	d := m.story.data
	copy(hd[0:2], d[hRelease:hRelease+2])
	copy(hd[2:8], d[hSerial:hSerial+6])
	copy(hd[8:10], d[hChecksum:hChecksum+2])
	hd[10], hd[11], hd[12] = byte(m.pc>>16), byte(m.pc>>8), byte(m.pc)
	out = appendChunk(out, "IFhd", hd[:])
	out = appendChunk(out, "CMem", m.compressMemory())
	out = appendChunk(out, "Stks", m.encodeStacks())
	if exact {
		var st [lnStLen2]byte
		st[0] = 2
		st[1] = byte(m.state)
		binary.BigEndian.PutUint32(st[10:], m.rng.a)
		binary.BigEndian.PutUint16(st[14:], m.rng.interval)
		binary.BigEndian.PutUint16(st[16:], m.rng.counter)
		if m.state == WaitLine || m.state == WaitChar {
			p := m.pending
			binary.BigEndian.PutUint16(st[2:], uint16(p.text))
			binary.BigEndian.PutUint16(st[4:], uint16(p.parse))
			binary.BigEndian.PutUint16(st[6:], p.time)
			binary.BigEndian.PutUint16(st[8:], p.routine)
		}
		out = appendChunk(out, lanternSt, st[:])
	}
	binary.BigEndian.PutUint32(out[4:8], uint32(len(out)-8))
	return out
}

// inSaveOp and inRestoreOp report whether the instruction being executed is
// save or restore: Run is inside it exactly when the machine is Running and
// the last decoded instruction is that one (between runs a Running machine
// has just taken input or has not started).
func (m *Machine) inSaveOp() bool {
	kind, num := m.decodeOp()
	return (kind == op0 && num == 5 && m.v <= 4) || (kind == opExt && num == 0 && m.v >= 5)
}

func (m *Machine) inRestoreOp() bool {
	if m.state != Running {
		return false
	}
	kind, num := m.decodeOp()
	return (kind == op0 && num == 6 && m.v <= 4) || (kind == opExt && num == 1 && m.v >= 5)
}

func appendChunk(out []byte, id string, body []byte) []byte {
	out = append(out, id...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
	out = append(out, body...)
	if len(body)%2 == 1 {
		out = append(out, 0)
	}
	return out
}

// compressMemory is CMem: dynamic memory XORed with the story's, zero bytes
// run-length coded as 0 then (count-1), a trailing run left out.
func (m *Machine) compressMemory() []byte {
	orig := m.story.data[:m.staticBase]
	cur := m.mem[:m.staticBase]
	var out []byte
	run := 0
	for i := range orig {
		x := cur[i] ^ orig[i]
		if x == 0 {
			run++
			continue
		}
		for run > 0 {
			n := min(run, 256)
			out = append(out, 0, byte(n-1))
			run -= n
		}
		out = append(out, x)
	}
	return out
}

// encodeStacks is Stks: every frame, the main routine's dummy frame first,
// each with its locals and its part of the evaluation stack.
func (m *Machine) encodeStacks() []byte {
	var out []byte
	for i := range m.frames {
		f := &m.frames[i]
		lo, hi := f.stackBase, len(m.stack)
		if i+1 < len(m.frames) {
			hi = m.frames[i+1].stackBase
		}
		lo = max(0, min(lo, len(m.stack)))
		hi = max(lo, min(hi, len(m.stack)))
		words := m.stack[lo:hi]
		nl := 0
		if i == 0 {
			out = append(out, 0, 0, 0, 0, 0, 0)
		} else {
			nl = int(min(f.nlocals, 15))
			flags, result := byte(nl), byte(0)
			if f.store < 0 {
				flags |= 0x10
			} else {
				result = byte(f.store)
			}
			args := byte(uint16(1)<<min(f.nargs, 8) - 1) // bit n: argument n+1 given
			out = append(out, byte(f.retPC>>16), byte(f.retPC>>8), byte(f.retPC), flags, result, args)
		}
		out = binary.BigEndian.AppendUint16(out, uint16(len(words)))
		for _, w := range f.locals[:nl] {
			out = binary.BigEndian.AppendUint16(out, w)
		}
		for _, w := range words {
			out = binary.BigEndian.AppendUint16(out, w)
		}
	}
	return out
}

// RestoreQuetzal loads a Quetzal image made by this or another interpreter.
// The whole image is checked first – form, chunk bounds, that it was saved
// from this story (release, serial and checksum), memory size, frames, stack
// limits and PCs – and on any problem it returns an error wrapping ErrBadSave
// and leaves the machine as it was. It never panics.
//
// A standard (IFZS) image resumes after the save instruction that made it:
// called by the host, RestoreQuetzal completes that instruction (branch true
// or store 2) and the machine is Running; during the story's RESTORE the
// opcode does that itself. An LNZS image (SaveQuetzal between runs) resumes
// in the state it was saved in; the story's RESTORE refuses it.
//
// The interpreter's header fields are written again as after a restart,
// keeping the current transcript and fixed-pitch bits. The output streams,
// the random generator and the undo states stay as they are. After a standard
// image, as in frotz, v3 closes the upper window and v4+ clears it when the
// file was saved on a screen of another size.
func (m *Machine) RestoreQuetzal(data []byte) (err error) {
	img, err := m.parseQuetzal(data)
	if err != nil {
		return err
	}
	fromOp := m.inRestoreOp()
	if img.exact && fromOp {
		return errSave("the file was saved by Lantern between instructions (at a prompt), not by the story's SAVE; only the host can restore it")
	}
	if !img.exact {
		if err := m.checkResume(img); err != nil {
			return err
		}
	}
	var backup *Snapshot
	if !img.exact && !fromOp {
		backup = m.Snapshot()
	}
	savedRows, savedCols := img.dyn[hScreenRows], img.dyn[hScreenCols]
	m.loadImage(img)
	if backup != nil {
		if err := m.completeSave(); err != nil {
			m.Restore(backup)
			return err
		}
	}
	switch {
	case img.exact:
		if m.state == WaitLine && m.v <= 3 {
			m.out.updateStatus(m)
		}
		if m.screen != nil && (m.state == WaitLine || m.state == WaitChar) {
			m.screen.ReadLine(m.state == WaitChar)
		}
	case m.v == 3:
		m.out.splitWindow(m, 0)
	case m.v > 3 && (savedRows != m.id.ScreenRows || savedCols != m.id.ScreenCols):
		// Saved on a screen of another size: clear the status window, as frotz.
		m.out.eraseWindow(m, 1)
	}
	return nil
}

// loadImage replaces the machine's memory, stacks, PC and state with img.
func (m *Machine) loadImage(img *quetzalImage) {
	keep := m.word(hFlags2)
	copy(m.mem[:m.staticBase], img.dyn)
	m.writeHeader(keep)
	m.out.lastFlags2 = m.word(hFlags2)
	m.stack = append(m.stack[:0], img.stack...)
	m.frames = append(m.frames[:0], img.frames...)
	m.cur = &m.frames[len(m.frames)-1]
	m.pc = img.pc
	m.state = img.state
	m.pending = img.pending
	if img.rng != nil {
		seed := m.rng.userSeed
		m.rng = *img.rng
		m.rng.userSeed = seed
	}
}

// completeSave finishes the restored save instruction for a host restore.
func (m *Machine) completeSave() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errSave("completing the save instruction at 0x%x: %v", m.pc, m.runtimeError(r))
		}
	}()
	m.afterRestore()
	return nil
}

// parseQuetzal reads and checks a whole image without touching the machine.
func (m *Machine) parseQuetzal(data []byte) (*quetzalImage, error) {
	if len(data) < 12 {
		return nil, errSave("%d bytes is too short for a Quetzal file", len(data))
	}
	if string(data[0:4]) != "FORM" {
		return nil, errSave("not an IFF file (begins %q, not \"FORM\")", data[0:4])
	}
	formLen := binary.BigEndian.Uint32(data[4:8])
	if formLen < 4 || uint64(formLen) > uint64(len(data)-8) {
		return nil, errSave("FORM length %d, but the file holds %d bytes after it (truncated?)", formLen, len(data)-8)
	}
	img := &quetzalImage{state: Running}
	switch string(data[8:12]) {
	case quetzalForm:
	case lanternForm:
		img.exact = true
	default:
		return nil, errSave("FORM type %q is not IFZS (not a Z-machine save)", data[8:12])
	}
	var gotHeader, gotStacks, gotState bool
	var memErr error
	body := data[12 : 8+formLen]
	for len(body) > 0 {
		if len(body) < 8 {
			return nil, errSave("%d stray bytes at the end of the FORM", len(body))
		}
		id := string(body[0:4])
		n := binary.BigEndian.Uint32(body[4:8])
		body = body[8:]
		if uint64(n) > uint64(len(body)) {
			return nil, errSave("chunk %q is %d bytes long, but only %d remain", id, n, len(body))
		}
		c := body[:n]
		body = body[n:]
		if n%2 == 1 && len(body) > 0 {
			body = body[1:] // pad byte
		}
		switch id {
		case "IFhd":
			if gotHeader {
				return nil, errSave("two IFhd chunks")
			}
			gotHeader = true
			if err := m.parseHeader(img, c); err != nil {
				return nil, err
			}
		case "CMem", "UMem":
			if img.dyn != nil {
				continue // the first good memory chunk wins
			}
			dyn, err := m.parseMemory(id, c)
			if err != nil {
				if memErr == nil {
					memErr = err
				}
				continue
			}
			img.dyn = dyn
		case "Stks":
			if gotStacks {
				return nil, errSave("two Stks chunks")
			}
			gotStacks = true
			if err := parseStacks(img, c); err != nil {
				return nil, err
			}
		case lanternSt:
			if !img.exact {
				continue
			}
			if gotState {
				return nil, errSave("two %s chunks", lanternSt)
			}
			gotState = true
			if err := parseLanternState(img, c); err != nil {
				return nil, err
			}
		}
	}
	switch {
	case !gotHeader:
		return nil, errSave("no IFhd chunk")
	case img.dyn == nil && memErr != nil:
		return nil, memErr
	case img.dyn == nil:
		return nil, errSave("no CMem or UMem chunk")
	case !gotStacks:
		return nil, errSave("no Stks chunk")
	case img.exact && !gotState:
		return nil, errSave("LNZS file without its %s chunk", lanternSt)
	}
	if err := m.checkImage(img); err != nil {
		return nil, err
	}
	return img, nil
}

func (m *Machine) parseHeader(img *quetzalImage, c []byte) error {
	if len(c) < ifhdLen {
		return errSave("IFhd chunk is %d bytes, needs %d", len(c), ifhdLen)
	}
	d := m.story.data
	if string(c[0:2]) != string(d[hRelease:hRelease+2]) ||
		string(c[2:8]) != string(d[hSerial:hSerial+6]) ||
		string(c[8:10]) != string(d[hChecksum:hChecksum+2]) {
		return errSave("saved from another story (release %d, serial %s, checksum 0x%04x; this is release %d, serial %s, checksum 0x%04x)",
			binary.BigEndian.Uint16(c[0:2]), serialString(c[2:8]), binary.BigEndian.Uint16(c[8:10]),
			binary.BigEndian.Uint16(d[hRelease:]), serialString(d[hSerial:hSerial+6]), binary.BigEndian.Uint16(d[hChecksum:]))
	}
	img.pc = uint32(c[10])<<16 | uint32(c[11])<<8 | uint32(c[12])
	return nil
}

// parseMemory decodes CMem (XOR with the story, runs of zeros) or UMem.
func (m *Machine) parseMemory(id string, c []byte) ([]byte, error) {
	size := int(m.staticBase)
	if id == "UMem" {
		if len(c) != size {
			return nil, errSave("UMem chunk holds %d bytes; dynamic memory is %d", len(c), size)
		}
		return append([]byte(nil), c...), nil
	}
	dyn := append([]byte(nil), m.story.data[:size]...)
	i := 0
	for j := 0; j < len(c); j++ {
		if b := c[j]; b != 0 {
			if i >= size {
				return nil, errSave("CMem chunk decodes to more than the %d bytes of dynamic memory", size)
			}
			dyn[i] ^= b
			i++
			continue
		}
		j++
		if j == len(c) {
			return nil, errSave("CMem chunk ends inside a run")
		}
		i += int(c[j]) + 1
		if i > size {
			return nil, errSave("CMem chunk decodes to more than the %d bytes of dynamic memory", size)
		}
	}
	return dyn, nil
}

// parseStacks decodes Stks into frames and the evaluation stack. The first
// frame is the main routine's dummy frame (v1–5, 7, 8): no locals, its PC,
// flags, result and arguments ignored.
func parseStacks(img *quetzalImage, c []byte) error {
	for len(c) > 0 {
		if len(c) < 8 {
			return errSave("Stks chunk ends inside a frame header (%d bytes left)", len(c))
		}
		k := len(img.frames)
		if k >= maxFrames {
			return errSave("more than %d frames", maxFrames)
		}
		flags := c[3]
		nl := int(flags & 0x0f)
		n := int(binary.BigEndian.Uint16(c[6:8]))
		if flags&0xe0 != 0 {
			return errSave("frame %d: reserved flag bits set (0x%02x)", k, flags)
		}
		if k == 0 && nl != 0 {
			return errSave("the main routine's frame has locals (%d)", nl)
		}
		need := 8 + 2*(nl+n)
		if len(c) < need {
			return errSave("frame %d needs %d bytes, Stks has %d left", k, need, len(c))
		}
		if len(img.stack)+n > maxStack {
			return errSave("evaluation stack deeper than %d words", maxStack)
		}
		f := frame{store: -1, nlocals: uint8(nl), stackBase: len(img.stack)}
		if k > 0 {
			f.retPC = uint32(c[0])<<16 | uint32(c[1])<<8 | uint32(c[2])
			f.nargs = uint8(bits.Len8(c[5]))
			if flags&0x10 == 0 {
				f.store = int16(c[4])
			}
		}
		p := c[8:need]
		for i := 0; i < nl; i++ {
			f.locals[i] = binary.BigEndian.Uint16(p[2*i:])
		}
		for i := nl; i < nl+n; i++ {
			img.stack = append(img.stack, binary.BigEndian.Uint16(p[2*i:]))
		}
		img.frames = append(img.frames, f)
		c = c[need:]
	}
	if len(img.frames) == 0 {
		return errSave("Stks chunk has no frames")
	}
	return nil
}

func parseLanternState(img *quetzalImage, c []byte) error {
	switch {
	case len(c) >= lnStLen2 && c[0] == 2:
		r := rng{a: binary.BigEndian.Uint32(c[10:]), interval: binary.BigEndian.Uint16(c[14:]), counter: binary.BigEndian.Uint16(c[16:])}
		if r.interval != 0 && r.counter >= r.interval {
			return errSave("%s: random counter %d beyond its interval %d", lanternSt, r.counter, r.interval)
		}
		img.rng = &r
	case len(c) >= lnStLen && c[0] == 1:
	default:
		return errSave("%s chunk of %d bytes is not format 1 or 2", lanternSt, len(c))
	}
	st := State(c[1])
	switch st {
	case Running, Halted:
	case WaitLine, WaitChar:
		img.pending = readRequest{
			text:    uint32(binary.BigEndian.Uint16(c[2:])),
			parse:   uint32(binary.BigEndian.Uint16(c[4:])),
			time:    binary.BigEndian.Uint16(c[6:]),
			routine: binary.BigEndian.Uint16(c[8:]),
		}
		if st == WaitChar {
			img.pending.text, img.pending.parse = 0, 0
		}
	default:
		return errSave("unknown machine state %d in %s", st, lanternSt)
	}
	img.state = st
	return nil
}

// imageByte reads the image's memory: restored dynamic memory, else the story.
func (m *Machine) imageByte(img *quetzalImage, a uint32) (byte, bool) {
	switch {
	case a < uint32(len(img.dyn)):
		return img.dyn[a], true
	case a < uint32(len(m.story.data)):
		return m.story.data[a], true
	}
	return 0, false
}

// checkImage checks the parts of an image that depend on each other and on
// the story: PCs inside the story, result variables that exist, read buffers
// inside dynamic memory.
func (m *Machine) checkImage(img *quetzalImage) error {
	end := uint32(len(m.story.data))
	if img.pc < headerSize || img.pc >= end {
		return errSave("PC 0x%x outside the story (0x%x..0x%x)", img.pc, headerSize, end)
	}
	for k := 1; k < len(img.frames); k++ {
		f := &img.frames[k]
		if f.retPC < headerSize || f.retPC >= end {
			return errSave("frame %d returns to 0x%x, outside the story", k, f.retPC)
		}
		if f.store < 0 {
			continue
		}
		if b, _ := m.imageByte(img, f.retPC-1); int16(b) != f.store {
			return errSave("frame %d stores its result in variable %d, but its call names %d (another version of the story?)", k, f.store, b)
		}
		if f.store > 0 && f.store < 16 && uint8(f.store) > img.frames[k-1].nlocals {
			return errSave("frame %d returns into local %d of a routine with %d locals", k, f.store, img.frames[k-1].nlocals)
		}
	}
	top := &img.frames[len(img.frames)-1]
	switch img.state {
	case WaitLine:
		t, p := img.pending.text, img.pending.parse
		if t < headerSize || t+1 >= m.staticBase || (p != 0 && (p < headerSize || p+1 >= m.staticBase)) {
			return errSave("read buffers at 0x%x and 0x%x are not in dynamic memory", t, p)
		}
		if m.v >= 5 {
			if n := uint32(min(img.dyn[t+1], maxInput)); t+2+n > end {
				return errSave("read buffer at 0x%x runs past the story", t)
			}
			return checkStore(img, top, img.pc, m)
		}
	case WaitChar:
		return checkStore(img, top, img.pc, m)
	}
	return nil
}

// checkStore checks that the store byte at a names a variable that exists.
func checkStore(img *quetzalImage, top *frame, a uint32, m *Machine) error {
	v, ok := m.imageByte(img, a)
	switch {
	case !ok:
		return errSave("store byte at 0x%x outside the story", a)
	case v == 0 && len(img.stack) >= maxStack:
		return errSave("no room on the stack for the result")
	case v > 0 && v < 16 && v > top.nlocals:
		return errSave("result goes to local %d of a routine with %d locals", v, top.nlocals)
	}
	return nil
}

// checkResume checks that the save instruction at the image's PC can be
// completed (store 2, or branch true) without a fault.
func (m *Machine) checkResume(img *quetzalImage) error {
	top := &img.frames[len(img.frames)-1]
	if m.v >= 4 {
		return checkStore(img, top, img.pc, m)
	}
	pc := img.pc
	b, ok := m.imageByte(img, pc)
	if !ok {
		return errSave("branch data at 0x%x outside the story", pc)
	}
	pc++
	off := int64(b & 0x3f)
	if b&0x40 == 0 {
		b2, ok := m.imageByte(img, pc)
		if !ok {
			return errSave("branch data at 0x%x outside the story", pc)
		}
		pc++
		off = off<<8 | int64(b2)
		if off&0x2000 != 0 {
			off -= 0x4000
		}
	}
	if b&0x80 == 0 { // branches on false: the restore goes on after it
		return nil
	}
	switch off {
	case 0, 1: // returns from the routine
		if len(img.frames) < 2 {
			return errSave("the save's branch returns from the main routine")
		}
		if v := top.store; v > 0 && v < 16 && uint8(v) > img.frames[len(img.frames)-2].nlocals {
			return errSave("the save's branch returns into a missing local %d", v)
		}
	default:
		if t := int64(pc) + off - 2; t < 0 || t >= int64(len(m.story.data)) {
			return errSave("the save's branch jumps to 0x%x, outside the story", t)
		}
	}
	return nil
}
