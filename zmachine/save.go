package zmachine

import (
	"errors"
	"fmt"
)

// ErrEndOfInput: a Saver whose error wraps it has no more input to ask a
// file name from; the machine halts as on quit, since a story that asks
// again without reading a line would otherwise loop (dfrotz exits there).
var ErrEndOfInput = errors.New("end of input")

// The story's own SAVE and RESTORE opcodes. The machine makes and reads
// Quetzal images; where they are kept is the host's business (Options.Saver).

// saveOp is save: branch (v1–3) or store (v4+) success.
func (m *Machine) saveOp() {
	ok := false
	if m.opts.Saver != nil {
		data := m.SaveQuetzal()
		err := m.opts.Saver.Save(data)
		if errors.Is(err, ErrEndOfInput) {
			m.state = Halted
			return
		}
		ok = err == nil
	}
	m.saveResult(ok)
}

func (m *Machine) saveResult(ok bool) {
	if m.v <= 3 {
		m.branch(ok)
		return
	}
	if ok {
		m.store(1)
	} else {
		m.store(0)
	}
}

// restoreOp is restore: on success the machine continues after the save that
// made the image, which now reports 2 (v4+) or branches true (v1–3).
func (m *Machine) restoreOp() {
	if m.opts.Saver == nil {
		m.saveResult(false)
		return
	}
	data, err := m.opts.Saver.Restore()
	if errors.Is(err, ErrEndOfInput) {
		m.state = Halted
		return
	}
	if err != nil {
		m.saveResult(false)
		return
	}
	if err := m.RestoreQuetzal(data); err != nil {
		m.printMessage(m.restoreComplaint(data))
		m.saveResult(false)
		return
	}
	m.afterRestore()
}

// afterRestore completes the save instruction at the restored PC.
func (m *Machine) afterRestore() {
	if m.v <= 3 {
		m.branch(true)
		return
	}
	m.store(2)
}

// errSave wraps a Quetzal problem.
func errSave(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrBadSave}, args...)...)
}

// printMessage prints an interpreter message as story text.
func (m *Machine) printMessage(s string) {
	for i := 0; i < len(s); i++ {
		c := uint16(s[i])
		if c == '\n' {
			c = 13
		}
		m.printZSCII(c)
	}
}

// restoreComplaint is what frotz says when it cannot restore data: it reads
// the IFF chunks in order, stops at a file that is not Quetzal or was saved
// from another story, and names the required chunks it did not find.
// Files too short or cut inside a chunk fail silently.
func (m *Machine) restoreComplaint(data []byte) string {
	be32 := func(b []byte) int { return int(b[0])<<24 | int(b[1])<<16 | int(b[2])<<8 | int(b[3]) }
	if len(data) < 12 {
		return ""
	}
	if string(data[0:4]) != "FORM" || string(data[8:12]) != "IFZS" {
		return "This is not a saved game file!\n"
	}
	left := be32(data[4:8])
	if left&1 != 0 || left < 4 {
		return ""
	}
	left -= 4
	var out string
	var header, stack, memory bool
	d := m.story.data
	for pos := 12; left > 0; {
		if left < 8 || pos+8 > len(data) {
			return out
		}
		id, n := string(data[pos:pos+4]), be32(data[pos+4:pos+8])
		left -= 8
		if left < n || pos+8+n > len(data) {
			return out
		}
		body := data[pos+8 : pos+8+n]
		left -= n + n&1
		pos += 8 + n + n&1
		switch id {
		case "IFhd":
			if header {
				return out + "Save file has two IFZS chunks!\n"
			}
			header = true
			if n < ifhdLen {
				return out
			}
			if string(body[0:2]) != string(d[hRelease:hRelease+2]) || string(body[2:8]) != string(d[hSerial:hSerial+6]) ||
				string(body[8:10]) != string(d[hChecksum:hChecksum+2]) {
				return out + "File was not saved from this story!\n"
			}
		case "Stks":
			if stack {
				out += "File contains two stack chunks!\n"
			}
			stack = true
		case "CMem":
			memory = true
		case "UMem":
			if !memory {
				if n == int(m.staticBase) {
					memory = true
				} else {
					out += "`UMem' chunk wrong size!\n"
				}
			}
		}
	}
	if !header {
		out += "error: no valid header (`IFhd') chunk in file.\n"
	}
	if !stack {
		out += "error: no valid stack (`Stks') chunk in file.\n"
	}
	if !memory {
		out += "error: no valid memory (`CMem' or `UMem') chunk in file.\n"
	}
	return out
}
