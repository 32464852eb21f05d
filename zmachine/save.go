package zmachine

import "fmt"

// The story's own SAVE and RESTORE opcodes. The machine makes and reads
// Quetzal images; where they are kept is the host's business (Options.Saver).

// saveOp is save: branch (v1–3) or store (v4+) success.
func (m *Machine) saveOp() {
	ok := false
	if m.opts.Saver != nil {
		data := m.SaveQuetzal()
		ok = m.opts.Saver.Save(data) == nil
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
	if err != nil || m.RestoreQuetzal(data) != nil {
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
