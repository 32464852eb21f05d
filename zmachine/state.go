package zmachine

// Snapshots: the whole machine state (dynamic memory, stacks and frames, PC,
// random generator, output and input state) copied in memory, for undo,
// rewind and probing actions. save_undo and restore_undo use them too.

// Snapshot is a saved machine state. It is immutable once taken and may be
// restored any number of times, into the machine that took it or into another
// machine running the same story.
type Snapshot struct {
	story   *Story
	dyn     []byte
	stack   []uint16
	frames  []frame
	pc      uint32
	state   State
	pending readRequest
	rng     rng
	out     outputState
}

// outputState is the part of the output that a restore brings back.
type outputState struct {
	screen, transcript, commands bool
	mem                          []memStream
	window, upperRows, row, col  int
	upper                        [][]rune
	style, font, fg, bg          uint16
	buffered                     bool
	status                       StatusLine
	lastFlags2                   uint16
}

func (o *output) save() outputState {
	s := outputState{
		screen: o.screen, transcript: o.transcript, commands: o.commands,
		window: o.window, upperRows: o.upperRows, row: o.row, col: o.col,
		style: o.style, font: o.font, fg: o.fg, bg: o.bg, buffered: o.buffered,
		status: o.status, lastFlags2: o.lastFlags2,
	}
	if len(o.mem) > 0 {
		s.mem = append([]memStream(nil), o.mem...)
	}
	if len(o.upper) > 0 {
		s.upper = make([][]rune, len(o.upper))
		for i, r := range o.upper {
			s.upper[i] = append([]rune(nil), r...)
		}
	}
	return s
}

func (o *output) load(s outputState) {
	o.screen, o.transcript, o.commands = s.screen, s.transcript, s.commands
	o.mem = append(o.mem[:0], s.mem...)
	o.window, o.upperRows, o.row, o.col = s.window, s.upperRows, s.row, s.col
	o.upper = nil
	if len(s.upper) > 0 {
		o.upper = make([][]rune, len(s.upper))
		for i, r := range s.upper {
			o.upper[i] = append([]rune(nil), r...)
		}
	}
	o.style, o.font, o.fg, o.bg, o.buffered = s.style, s.font, s.fg, s.bg, s.buffered
	o.status, o.lastFlags2 = s.status, s.lastFlags2
}

// Snapshot copies the machine's state. Output not yet taken is not part of it.
func (m *Machine) Snapshot() *Snapshot {
	return &Snapshot{
		story:   m.story,
		dyn:     append([]byte(nil), m.mem[:m.staticBase]...),
		stack:   append([]uint16(nil), m.stack...),
		frames:  append([]frame(nil), m.frames...),
		pc:      m.pc,
		state:   m.state,
		pending: m.pending,
		rng:     m.rng,
		out:     m.out.save(),
	}
}

// Restore puts the machine back in the state of s. Output not yet taken is
// kept. It fails with ErrBadSave when s was taken from another story.
func (m *Machine) Restore(s *Snapshot) error {
	if s == nil || (s.story != m.story && s.story.md5() != m.story.md5()) {
		return ErrBadSave
	}
	copy(m.mem, s.dyn)
	m.stack = append(m.stack[:0], s.stack...)
	m.frames = append(m.frames[:0], s.frames...)
	m.cur = &m.frames[len(m.frames)-1]
	m.pc = s.pc
	m.state = s.state
	m.pending = s.pending
	m.rng = s.rng
	m.out.load(s.out)
	return nil
}

// saveUndo is save_undo: keep a snapshot that resumes by storing 2.
func (m *Machine) saveUndo() {
	s := m.Snapshot()
	s.state = Running
	if len(m.undo) >= m.opts.UndoLevels {
		copy(m.undo, m.undo[1:])
		m.undo = m.undo[:len(m.undo)-1]
	}
	m.undo = append(m.undo, s)
	m.store(1)
}

// restoreUndo is restore_undo: 0 when nothing was saved; otherwise the state
// returns to the save_undo, which now stores 2.
func (m *Machine) restoreUndo() {
	n := len(m.undo)
	if n == 0 {
		m.store(0)
		return
	}
	s := m.undo[n-1]
	m.undo = m.undo[:n-1]
	m.Restore(s)
	m.store(2)
}

// UndoDepth is the number of save_undo states held.
func (m *Machine) UndoDepth() int { return len(m.undo) }

// Probe runs f and then puts the machine back exactly as it was: memory,
// stacks, PC, state, random generator, undo states and the output not yet
// taken. While f runs the screen, the transcript and command streams and the
// hooks are detached, so probing leaves no trace outside the machine either.
// Probe is how the layers above try actions (valid exits, valid actions).
func (m *Machine) Probe(f func() error) error {
	snap := m.Snapshot()
	text := m.out.lower.String()
	undo := append([]*Snapshot(nil), m.undo...)
	restarts := m.restarts
	screen, transcript, commands, hooks := m.screen, m.opts.Transcript, m.opts.Commands, m.opts.Hooks
	m.screen, m.opts.Transcript, m.opts.Commands = nil, nil, nil
	m.SetHooks(Hooks{})
	defer func() {
		m.Restore(snap)
		m.out.lower.Reset()
		m.out.lower.WriteString(text)
		m.undo = undo
		m.restarts = restarts
		m.screen, m.opts.Transcript, m.opts.Commands = screen, transcript, commands
		m.SetHooks(hooks)
	}()
	return f()
}

// SetHooks replaces the hooks. A WatchGlobal outside 0–239 watches
// nothing.
func (m *Machine) SetHooks(h Hooks) {
	m.opts.Hooks, m.watchVar = h, 0
	if h.GlobalChanged != nil && h.WatchGlobal >= 0 && h.WatchGlobal <= 239 {
		m.watchVar = uint8(h.WatchGlobal + 16)
	}
}

// Restarts counts the story's restart instructions since New.
func (m *Machine) Restarts() int { return m.restarts }
