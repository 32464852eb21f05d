package tui

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/themes"
)

// Model is the root model.
type Model struct {
	ctx  context.Context
	opts Options
	log  *slog.Logger
	c    *common
	out  *outbox

	w, h  int
	lay   layout
	focus paneID
	panes
	gameView

	// dialogs are the open dialogs, the top one last: it has the keyboard.
	dialogs []dialog
	viewers int // viewers opened (a viewer's answer names its viewer)
	commandState
	footerState
	reviewState

	replay    *replay // a past episode shown instead of the live one
	notice    notice
	checking  bool // a check of the model server is in flight
	pull      *pullState
	mouseOff  bool   // the terminal's own selection instead of the mouse
	clipboard string // what y copied last
	themeSet  bool   // a theme was chosen (flag or t); the background no longer decides
}

// panes are the live panes.
type panes struct {
	transcript *transcriptPane
	reasoning  *reasoningPane
	memory     *memoryPane
	objectives *objectivesPane
	mapp       *mapPane
	mapZoom    bool // the map pane takes the whole panes area
}

// gameView is the game as the status bar shows it, from the events.
type gameView struct {
	episode, turn, score, moves int
	loc                         env.Location
	mode                        engine.Mode
	lastActor                   engine.Actor
	thinking                    bool
	thinkSecs, thinkID          int
	metrics                     engine.TurnCompleted
	haveMetrics                 bool
	supervisor                  engine.SupervisorChanged
	haveSupervisor              bool
	roleModels                  map[string]string
	stopped, quitting           bool
	stepping                    bool // a step was sent and its turn has not ended
	queuedSteps                 int  // n pressed while a step was in flight
	// branch is the line being played: each turn's own line, else the
	// last EpisodeStarted's (m.line() names it).
	branch engine.Branch
	// rewinding is the rewind asked for until the engine answers.
	rewinding *rewindAsk
	// epMark is where the episode starts in the transcript and the
	// reasoning (their items' sequence numbers); a rewind clears back to it.
	epMark    struct{ transcript, reasoning int }
	resumeGen int // resumes (and rewinds) announced
}

// commandState is the command line's: its text is kept while it is
// closed, with the commands sent before.
type commandState struct {
	input   textinput.Model
	history []string
	histAt  int
	// suggested is 1 + the turn whose actions were asked for (0: none).
	suggested int
}

// footerState is what the footer says for a moment, and the keys armed
// for a second press.
type footerState struct {
	flash     string
	flashErr  bool
	flashID   int
	flashHold int // the flash that stays until another replaces it (a rewind under way)
	escArmed  bool
	escID     int
	endArmed  bool // X pressed once: X again ends the episode
	undoArmed int  // u asked to bring back a deletion by hand while this flash shows
}

// reviewState is review mode's: pending is the proposal waiting for the
// person.
type reviewState struct {
	reviewOn     bool
	pending      *engine.ReviewRequested
	reviewTickID int
}

// New makes the root model.
func New(ctx context.Context, opts Options) *Model {
	if ctx == nil {
		ctx = context.Background()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.RefreshEvery == 0 {
		opts.RefreshEvery = 2 * time.Second
	}
	name := opts.Theme
	themeSet := name != ""
	if name == "" {
		name = "dark"
	}
	th, err := themes.Load(name)
	if err != nil {
		log.Warn("theme", "err", err)
		th, themeSet = themes.MustLoad("dark"), false
	}
	c := newCommon(th)
	c.keys.remap(opts.Keys)
	m := &Model{
		ctx: ctx, opts: opts, log: log, c: c, out: &outbox{}, themeSet: themeSet,
		panes: panes{transcript: newTranscript(c), reasoning: newReasoning(c),
			memory: newMemoryPane(c, opts.Memories != nil), objectives: newObjectivesPane(c, opts.Objectives != nil),
			mapp: newMapPane(c)},
		gameView: gameView{mode: engine.Paused, roleModels: map[string]string{}},
	}
	if opts.Models != nil {
		if r, ok := opts.Models.Role(config.RoleAgent); ok {
			m.roleModels[config.RoleAgent] = r.Model
		}
		if !opts.Models.Loopback() {
			m.transcript.addNote("The Ollama server "+opts.Models.Host()+" is not on this machine: the game's text, the memories and the prompts go to it over the network.", stWarning)
		}
	}
	m.input = m.newInput("› ", "a command for the story, e.g. inventory")
	// Tab completes from what the game lets the player do here (the
	// engine's ActionsSuggested); ctrl+n/ctrl+p pick another match.
	m.input.ShowSuggestions = true
	m.reviewOn = opts.Review
	m.resize(80, 24)
	return m
}

func (m *Model) newInput(prompt, placeholder string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = prompt
	ti.Placeholder = placeholder
	ti.CharLimit = 200
	m.c.styleInput(&ti)
	return ti
}

// Init starts the event reader, the model-server check, the memory read and
// asks the terminal for its background colour.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{readEvents(m.opts.Engine.Events()), tea.RequestBackgroundColor, m.loadMemories(false)}
	if m.opts.Models != nil {
		m.checking = true
		cmds = append(cmds, checkOllama(m.ctx, m.opts.Models))
	}
	if m.opts.RefreshEvery > 0 && m.opts.Memories != nil {
		cmds = append(cmds, memTick(m.opts.RefreshEvery))
	}
	if m.opts.Objectives != nil {
		cmds = append(cmds, m.loadObjectives())
	}
	return tea.Batch(cmds...)
}

// Messages of the TUI's own commands.
type (
	memoriesMsg struct {
		secs     []memory.Section
		problems []memory.Problem // entries that could not be read
		kept     []memory.Kept    // memories the guard put back
		repaired []memory.Problem // mistyped headers the store repaired
		err      error
	}
	memTickMsg    struct{}
	objectivesMsg struct{ active, completed []string }
	flashDoneMsg  struct{ id int }
	escDoneMsg    struct{ id int }
	forceQuitMsg  struct{}
)

// loadMemories reads the store's sections (after a refresh from disk when
// refresh is set) off the Update goroutine.
func (m *Model) loadMemories(refresh bool) tea.Cmd {
	src := m.opts.Memories
	if src == nil {
		return nil
	}
	return func() tea.Msg {
		if refresh {
			changed, err := src.Refresh()
			if err != nil {
				return memoriesMsg{err: err}
			}
			if !changed {
				return nil
			}
		}
		msg := memoriesMsg{secs: src.Sections()}
		if n, ok := src.(memoryNotices); ok {
			msg.problems, msg.kept = n.Problems(), n.TakeKept()
		}
		if r, ok := src.(headerRepairs); ok {
			msg.repaired = r.TakeRepaired()
		}
		return msg
	}
}

func memTick(d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return memTickMsg{} })
}

func (m *Model) loadObjectives() tea.Cmd {
	src := m.opts.Objectives
	if src == nil {
		return nil
	}
	return func() tea.Msg {
		a, c := src.Objectives()
		return objectivesMsg{active: a, completed: c}
	}
}

// send queues commands for the engine and returns the command that sends
// them.
func (m *Model) send(cmds ...engine.Command) tea.Cmd {
	m.out.push(cmds...)
	return m.out.flush(m.ctx, m.opts.Engine)
}

// setFlash shows a short message in the footer for a few seconds.
func (m *Model) setFlash(s string, isErr bool) tea.Cmd {
	m.flash, m.flashErr = s, isErr
	m.flashID++
	id := m.flashID
	return tea.Tick(5*time.Second, func(time.Time) tea.Msg { return flashDoneMsg{id: id} })
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.relayout()
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m.resizeDialogs()
	case tea.BackgroundColorMsg:
		if !m.themeSet {
			m.setTheme(themes.Default(msg.IsDark()))
		}
		return nil
	case eventsMsg:
		return m.handleEvents(msg)
	case sendFailedMsg:
		m.log.Warn("send", "cmd", fmt.Sprintf("%T", msg.cmd), "err", msg.err)
		if _, ok := msg.cmd.(engine.Rewind); ok {
			m.rewinding = nil
		}
		return m.setFlash(fmt.Sprintf("the engine did not take the command: %v", msg.err), true)
	case memoriesMsg:
		if msg.err != nil {
			m.log.Warn("memories", "err", msg.err)
			return m.setFlash("Memories.md: "+msg.err.Error(), true)
		}
		m.memory.setSections(msg.secs)
		m.memory.setProblems(msg.problems)
		var notes []string
		for _, k := range msg.kept {
			// The guard put back an agent's memory the editor could not have
			// seen: say so, so a second deletion is a choice.
			notes = append(notes, k.String())
		}
		for _, r := range msg.repaired {
			notes = append(notes, fmt.Sprintf("Memories.md line %d: the header was repaired as %q; its memories reach the agent again", r.Line, r.Fix))
		}
		if len(notes) > 0 {
			return m.setFlash(strings.Join(notes, "; "), false)
		}
		return nil
	case memTickMsg:
		return tea.Batch(m.loadMemories(true), memTick(m.opts.RefreshEvery))
	case objectivesMsg:
		m.objectives.set(msg.active, msg.completed)
		return nil
	case ollamaMsg:
		return m.handleOllama(msg)
	case pullMsg:
		return m.handlePull(msg)
	case replayMsg:
		return m.handleReplay(msg)
	case resumedMsg:
		return m.handleResumed(msg)
	case undoCheckMsg:
		return m.handleUndo(msg)
	case flashMsg:
		return m.setFlash(msg.text, msg.err)
	case flashDoneMsg:
		if msg.id == m.flashID && msg.id != m.flashHold {
			m.flash = ""
		}
		return nil
	case reviewTickMsg:
		if msg.id == m.reviewTickID && m.pending != nil && !m.pending.Deadline.IsZero() {
			return reviewTick(msg.id) // the footer's countdown
		}
	case thinkTickMsg:
		if msg.id == m.thinkID && m.thinking {
			m.thinkSecs++
			return thinkTick(msg.id)
		}
		return nil
	case escDoneMsg:
		if msg.id == m.escID {
			m.escArmed = false
		}
		return nil
	case forceQuitMsg:
		m.log.Warn("quit: the engine did not stop in time")
		return tea.Quit
	case tea.KeyPressMsg:
		if m.endArmed && !key.Matches(msg, m.c.keys.EndEpisode) {
			m.endArmed = false // any other key: the episode goes on
		}
		return m.handleKey(msg)
	case tea.MouseClickMsg:
		return m.handleClick(msg.Mouse())
	case tea.MouseWheelMsg:
		return m.handleWheel(msg.Mouse())
	}
	// The rest (cursor blinks, pastes, a dialog's answers) is the top
	// dialog's.
	return m.updateTop(msg)
}

func (m *Model) resize(w, h int) {
	m.w, m.h = max(w, 20), max(h, 6)
	m.relayout()
}

// setTheme switches the theme by name.
func (m *Model) setTheme(name string) {
	th, err := themes.Load(name)
	if err != nil {
		m.log.Warn("theme", "err", err)
		return
	}
	m.c.setTheme(th)
	m.c.styleInput(&m.input)
	for _, d := range m.dialogs {
		if r, ok := d.(restyler); ok {
			r.setStyles()
		}
	}
}

// nextTheme cycles through the built-in themes.
func (m *Model) nextTheme() tea.Cmd {
	names := themes.Names()
	i := 0
	for j, n := range names {
		if n == m.c.theme.Name {
			i = j
		}
	}
	next := names[(i+1)%len(names)]
	m.setTheme(next)
	m.themeSet = true
	if save := m.savePrefs(next, nil); save != nil {
		return tea.Batch(m.setFlash("theme: "+next+" (saved for next time)", false), save)
	}
	return m.setFlash("theme: "+next, false)
}

// savePrefs writes the person's choices off the Update goroutine; nil when
// there is nowhere to save them.
func (m *Model) savePrefs(theme string, models map[string]string) tea.Cmd {
	save := m.opts.SavePrefs
	if save == nil {
		return nil
	}
	return func() tea.Msg {
		if err := save(theme, models); err != nil {
			return flashMsg{text: "not saved: " + err.Error(), err: true}
		}
		return nil
	}
}

// noticeLines is the notice (and a pull's progress) wrapped to the screen.
func (m *Model) noticeLines() []string {
	var out []string
	w := m.w
	if m.notice.kind != noticeNone && !m.notice.hidden {
		for i, l := range wrap(m.notice.text, w-2, stWarning, "") {
			prefix := "  "
			if i == 0 {
				prefix = "⚠ "
			}
			out = append(out, m.c.render(line{segs: append([]seg{{prefix, stWarning}}, l.segs...), width: l.width + 2}, w, "", false))
		}
	}
	if p := m.pull; p != nil {
		label := fmt.Sprintf("Pulling %s: %s ", p.model, orDash(p.status))
		bw := max(w-len(label)-2, 10)
		p.bar.SetWidth(bw)
		out = append(out, fit(m.c.styles.Info.Render(label)+p.bar.ViewAs(p.percent), w))
	}
	return out
}

// relayout places the panes for the screen size and what else is on it.
func (m *Model) relayout() {
	top := len(m.noticeLines())
	h := max(m.h-2-top, 3)
	m.lay = computeLayout(m.w, h, top, m.focus)
	m.transcript.setSize(m.inner(pTranscript))
	m.reasoning.setSize(m.inner(pReasoning))
	if r := m.replay; r != nil {
		r.transcript.setSize(m.inner(pTranscript))
		r.reasoning.setSize(m.inner(pReasoning))
		r.mapp.setSize(m.inner(pMap))
	}
	m.memory.setSize(m.inner(pMemory))
	m.objectives.setSize(m.inner(pObjectives))
	m.mapp.setSize(m.inner(pMap))
	if m.focus != pMap {
		m.mapZoom = false
	}
	if m.mapZoom {
		w, h := max(m.lay.area.w-4, 0), max(m.lay.area.h-2, 0)
		m.mapp.setSize(w, h)
		if r := m.replay; r != nil {
			r.mapp.setSize(w, h)
		}
	}
	for _, d := range m.dialogs {
		if f, ok := d.(*memForm); ok {
			f.setWidth(m.dialogWidth())
		}
	}
}

// inner is a pane's content size (inside its border).
func (m *Model) inner(p paneID) (int, int) {
	r := m.lay.panes[p]
	if r.empty() {
		// A hidden tab keeps the size of the visible one, so its scroll
		// position means the same when it is shown.
		r = m.lay.panes[m.focus]
	}
	return max(r.w-4, 0), max(r.h-2, 0)
}

func (m *Model) dialogWidth() int { return min(max(m.w-6, 20), 84) }

// View draws the screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	if m.mouseOff {
		v.MouseMode = tea.MouseModeNone
	}
	v.BackgroundColor = m.c.styles.Background
	v.WindowTitle = "Lantern"
	if m.opts.Story != "" {
		v.WindowTitle = "Lantern · " + m.opts.Story
	}
	return v
}

// shown are the panes on screen: the live ones, or a replay's.
func (m *Model) shown() (*transcriptPane, *reasoningPane, *mapPane) {
	if r := m.replay; r != nil {
		return r.transcript, r.reasoning, r.mapp
	}
	return m.transcript, m.reasoning, m.mapp
}

// Render is the whole screen as text (View's content; the golden tests and
// the benchmark use it).
func (m *Model) Render() string {
	rows := make([]string, 0, m.h)
	rows = append(rows, m.noticeLines()...)
	area := m.lay.area
	switch d := m.overlay(); {
	case d != nil:
		rows = append(rows, m.dialogView(d, area.w, area.h)...)
	case m.mapZoom:
		rows = append(rows, m.paneBox(pMap, area)...)
	default:
		rows = append(rows, m.panesView()...)
	}
	rows = append(rows, m.statusView(), m.footerView())
	if len(rows) > m.h {
		rows = rows[:m.h]
	}
	return strings.Join(rows, "\n")
}

// panesView draws the panes area.
func (m *Model) panesView() []string {
	l := m.lay
	area := l.area
	if l.tabs {
		r := l.panes[m.focus]
		return append([]string{m.c.tabBarView(l, m.focus)}, m.paneBox(m.focus, r)...)
	}
	grid := make([][]string, 0, 3)
	// Columns: group panes by x, top to bottom.
	xs := []int{}
	for _, r := range l.panes {
		if r.empty() {
			continue
		}
		found := false
		for _, x := range xs {
			found = found || x == r.x
		}
		if !found {
			xs = append(xs, r.x)
		}
	}
	for _, x := range xs {
		var col []string
		for y := area.y; y < area.y+area.h; {
			next := -1
			for i, r := range l.panes {
				if !r.empty() && r.x == x && r.y == y {
					next = i
				}
			}
			if next < 0 {
				break
			}
			r := l.panes[next]
			col = append(col, m.paneBox(paneID(next), r)...)
			y += r.h
		}
		grid = append(grid, col)
	}
	return hjoin(grid...)
}

// paneBox draws one pane in its border.
func (m *Model) paneBox(p paneID, r rect) []string {
	var body []string
	var info string
	tp, rp, mp := m.shown()
	switch p {
	case pTranscript:
		body, info = tp.view(), tp.info()
	case pReasoning:
		body, info = rp.view(), rp.info()
	case pMemory:
		body, info = m.memory.view(), m.memory.info()
	case pObjectives:
		body, info = m.objectives.view(), m.objectives.info()
	case pMap:
		body, info = mp.view(), mp.info()
	}
	title := paneNames()[p]
	if r := m.replay; r != nil && (p == pTranscript || p == pReasoning || p == pMap) {
		title += " · replay of " + lineName(r.line)
	}
	if p == pReasoning && m.thinking && m.replay == nil {
		title += " · thinking…"
		if m.thinkSecs > 0 {
			title += fmt.Sprintf(" %ds", m.thinkSecs)
		}
	}
	return m.c.box(title, info, p == m.focus, r.w, r.h, body)
}
