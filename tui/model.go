package tui

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/themes"
)

// Model is the root model: it owns the layout and the focus, routes the
// keys to the top dialog or the focused pane (then to the game's keys),
// applies the engine's events to the components, and composes their views.
type Model struct {
	ctx  context.Context
	opts Options
	log  *slog.Logger
	c    *common
	out  *outbox

	w, h  int
	lay   layout
	focus paneID

	panes   *paneSet     // the panes, a replay's, the map's zoom
	game    *game        // the status bar's game, the engine's keys
	dialogs dialogStack  // the open dialogs
	cmdline *commandLine // the command line, kept while it is closed
	foot    *footer      // the footer's flash
	review  *reviewer    // review mode
	server  *server      // the model server's notice and pulls

	mouseOff  bool   // the terminal's own selection instead of the mouse
	clipboard string // what y copied last
	themeSet  bool   // a theme was chosen (flag or t); the background no longer decides
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
	m := &Model{ctx: ctx, opts: opts, log: log, c: c, out: &outbox{}, themeSet: themeSet, foot: &footer{c: c}}
	m.build()
	m.resize(80, 24)
	return m
}

// build makes the components.
func (m *Model) build() {
	c, opts, ft := m.c, m.opts, m.foot
	m.panes = &paneSet{c: c, transcript: newTranscript(c), reasoning: newReasoning(c),
		memory: newMemoryPane(c, m, ft, opts.Memories, m.log), objectives: newObjectivesPane(c, m, ft, opts.Objectives != nil),
		mapp: newMapPane(c)}
	m.game = &game{c: c, h: m, ft: ft, mode: engine.Paused, roleModels: map[string]string{}}
	m.cmdline = newCommandLine(c, m, ft, m.log, m.panes, m.game)
	m.review = &reviewer{c: c, h: m, ft: ft, panes: m.panes, on: opts.Review, autoAccept: opts.AutoAccept}
	m.server = &server{c: c, ctx: m.ctx, models: opts.Models, ft: ft, log: m.log}
	if opts.Models != nil {
		if r, ok := opts.Models.Role(config.RoleAgent); ok {
			m.game.roleModels[config.RoleAgent] = r.Model
		}
		if !opts.Models.Loopback() {
			m.panes.transcript.addNote("The Ollama server "+opts.Models.Host()+" is not on this machine: the game's text, the memories and the prompts go to it over the network.", stWarning)
		}
	}
}

// Init starts the event reader, the model-server check, the memory read and
// asks the terminal for its background colour.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{readEvents(m.opts.Engine.Events()), tea.RequestBackgroundColor, loadMemories(m.opts.Memories, false), m.server.check()}
	if m.opts.RefreshEvery > 0 && m.opts.Memories != nil {
		cmds = append(cmds, memTick(m.opts.RefreshEvery))
	}
	if m.opts.Objectives != nil {
		cmds = append(cmds, loadObjectives(m.opts.Objectives))
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
)

// loadMemories reads the store's sections (after a refresh from disk when
// refresh is set) off the Update goroutine.
func loadMemories(src MemorySource, refresh bool) tea.Cmd {
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

func loadObjectives(src ObjectiveSource) tea.Cmd {
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
func (m *Model) setFlash(s string, isErr bool) tea.Cmd { return m.foot.set(s, isErr) }

func (m *Model) areaHeight() int { return m.lay.area.h }

func (m *Model) dialogWidth() int { return min(max(m.w-6, 20), 84) }

// open puts a dialog on top of the stack.
func (m *Model) open(d dialog) { m.dialogs.push(d) }

// openViewer shows a Markdown viewer and returns the command that fills it.
func (m *Model) openViewer(title string, load func(at mdAt, id int) tea.Cmd) tea.Cmd {
	m.dialogs.viewers++
	id := m.dialogs.viewers
	at := mdAt{viewerWidth(m.lay.area.w), m.c.theme.Palette}
	m.open(&viewer{c: m.c, h: m, id: id, title: title, loading: true, want: at})
	return load(at, id)
}

// rewind sends a rewind the timeline asked for (the host's side): the
// footer says it is under way until the engine's answer replaces it with
// the outcome.
func (m *Model) rewind(to engine.Rewind, ask rewindAsk) tea.Cmd {
	m.game.rewinding = &ask
	cmd := tea.Batch(m.send(to), m.setFlash(ask.progress(), false))
	m.foot.holdIt() // no timeout: the outcome takes its place
	return cmd
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
		return m.dialogs.resized(m.lay.area.w, m.dialogWidth())
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
			m.game.rewinding = nil
		}
		return m.setFlash(fmt.Sprintf("the engine did not take the command: %v", msg.err), true)
	case tea.KeyPressMsg:
		if m.game.endArmed && !key.Matches(msg, m.c.keys.EndEpisode) {
			m.game.endArmed = false // any other key: the episode goes on
		}
		return m.handleKey(msg)
	case tea.MouseClickMsg:
		return m.handleClick(msg.Mouse())
	case tea.MouseWheelMsg:
		return m.handleWheel(msg.Mouse())
	}
	return m.updateComponents(msg)
}

// updateComponents gives a message of a component's command to the
// component; the rest (cursor blinks, pastes, a dialog's answers) is the
// top dialog's.
func (m *Model) updateComponents(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case memoriesMsg:
		return m.panes.memory.take(msg)
	case memTickMsg:
		return tea.Batch(loadMemories(m.opts.Memories, true), memTick(m.opts.RefreshEvery))
	case objectivesMsg:
		m.panes.objectives.set(msg.active, msg.completed)
	case ollamaMsg:
		return m.server.checked(msg, m.game.roleModels[config.RoleAgent])
	case pullMsg:
		return m.server.pulled(msg)
	case replayMsg:
		return m.panes.startReplay(msg, m.foot)
	case resumedMsg:
		return m.handleResumed(msg)
	case undoCheckMsg:
		return m.panes.memory.undoChecked(msg)
	case flashMsg:
		return m.setFlash(msg.text, msg.err)
	case flashDoneMsg:
		m.foot.done(msg.id)
	case reviewTickMsg:
		return m.review.ticked(msg)
	case thinkTickMsg:
		return m.game.ticked(msg)
	case escDoneMsg:
		if msg.id == m.game.escID {
			m.game.escArmed = false
		}
	case forceQuitMsg:
		m.log.Warn("quit: the engine did not stop in time")
		return tea.Quit
	default:
		return m.dialogs.updateTop(msg)
	}
	return nil
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
	m.cmdline.setStyles()
	for _, d := range m.dialogs.open {
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

// relayout places the panes for the screen size and what else is on it.
func (m *Model) relayout() {
	top := len(m.server.lines(m.w))
	h := max(m.h-2-top, 3)
	m.lay = computeLayout(m.w, h, top, m.focus)
	m.panes.setSizes(m.lay, m.focus, m.inner)
	for _, d := range m.dialogs.open {
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

// Render is the whole screen as text (View's content; the golden tests and
// the benchmark use it).
func (m *Model) Render() string {
	rows := make([]string, 0, m.h)
	rows = append(rows, m.server.lines(m.w)...)
	area := m.lay.area
	switch d := m.dialogs.overlay(); {
	case d != nil:
		rows = append(rows, overlayView(m.c, d, m.dialogWidth(), area.w, area.h)...)
	case m.panes.mapZoom:
		rows = append(rows, m.panes.box(pMap, area, true, "")...)
	default:
		rows = append(rows, m.panes.view(m.lay, m.focus, func(p paneID) string {
			if p != pReasoning {
				return ""
			}
			return m.game.thinkingTitle(m.panes.replay != nil)
		})...)
	}
	status := statusOf{story: m.opts.Story, maxScore: m.opts.MaxScore, replay: m.panes.replay,
		waiting: m.review.pending != nil && m.panes.replay == nil, typing: m.dialogs.typing()}
	rows = append(rows, m.game.statusView(m.w, status), m.footerView())
	if len(rows) > m.h {
		rows = rows[:m.h]
	}
	return strings.Join(rows, "\n")
}

// footerView is the bottom line: a dialog's line or keys, a proposal
// waiting, a message, or the keys in focus.
func (m *Model) footerView() string {
	w, ft := m.w, m.foot
	if d := m.dialogs.top(); d != nil {
		return dialogFooter(ft, d, w)
	}
	if m.review.pending != nil && m.panes.replay == nil {
		return m.review.line(w)
	}
	// A word (a flash, the armed cancel) takes the pane's keys' place; the
	// timeline and help keys stay at the end, the timeline's unless the
	// word would be cut.
	// The timeline's key ends the panes' footer before quit and help
	// (outside a replay, whose own T rewinds from it).
	var tl []key.Binding
	if m.panes.replay == nil {
		tl = append(tl, described(m.c.keys.Timeline, "timeline"))
	}
	tail := ft.tail(tl...)
	if ft.text != "" {
		msg := ft.flashView()
		if ansi.StringWidth(msg)+2+ansi.StringWidth(tail) > w {
			tail = ft.tail()
		}
		return ft.withTail(msg, w, tail)
	}
	if m.game.escArmed && m.game.thinking {
		return ft.withTail(m.c.styles.Notice.Render(" esc again cancels the model call in flight"), w, tail)
	}
	ctx := fmt.Sprint("panes ", m.focus, m.panes.replay != nil, m.panes.mapZoom)
	return ft.cachedKeysLine(ctx, w, func() []key.Binding { return hints(m.focusHints()) }, func() string { return tail })
}
