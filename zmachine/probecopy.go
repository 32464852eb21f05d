package zmachine

// Probing many commands from one state: each starts from a ProbePoint
// (the snapshot with the undo states and the restart count), on the
// machine itself inside Probe or on probe copies, which share nothing that
// changes with the machine they copy and so may run on other goroutines.

// ProbePoint is a state probed commands start from.
type ProbePoint struct {
	snap     *Snapshot
	undo     []*Snapshot
	restarts int
}

// ProbePoint records the machine's present state for ResetTo.
func (m *Machine) ProbePoint() *ProbePoint {
	return &ProbePoint{snap: m.Snapshot(), undo: append([]*Snapshot(nil), m.undo...), restarts: m.restarts}
}

// ResetTo puts the machine in the state of p: as Restore, and the undo
// states and restart count as they were; output not yet taken is dropped.
// It fails with ErrBadSave when p was taken from another story.
func (m *Machine) ResetTo(p *ProbePoint) error {
	if err := m.Restore(p.snap); err != nil {
		return err
	}
	m.undo = append(m.undo[:0:0], p.undo...)
	m.restarts = p.restarts
	m.out.lower.Reset()
	return nil
}

// ProbeCopy returns a machine in the state of p for probing beside m: m's
// story and options without hooks, screen, transcript, command stream or
// saver (a probe writes no file). reuse, a probe copy made before for the
// same story, is used again instead of a new machine.
func (m *Machine) ProbeCopy(reuse *Machine, p *ProbePoint) (*Machine, error) {
	c := reuse
	if c == nil || c.story != m.story {
		opts := m.opts
		opts.Transcript, opts.Commands, opts.Saver, opts.Hooks = nil, nil, nil, Hooks{}
		var err error
		if c, err = New(m.story, opts); err != nil {
			return nil, err
		}
	}
	if err := c.ResetTo(p); err != nil {
		return nil, err
	}
	return c, nil
}

// DiscardOutput drops the lower window's text not yet taken.
func (m *Machine) DiscardOutput() { m.out.lower.Reset() }

// AppendBytes appends the bytes at from..to-1 to buf, as Byte reads them
// (0 outside the story).
func (m *Machine) AppendBytes(buf []byte, from, to int) []byte {
	for a := from; a < to && a < 0; a++ {
		buf = append(buf, 0)
	}
	lo, hi := max(from, 0), min(to, int(m.end))
	if lo < hi {
		buf = append(buf, m.mem[lo:hi]...)
	}
	for a := max(hi, lo, from); a < to; a++ {
		buf = append(buf, 0)
	}
	return buf
}
