package tui

import (
	"context"
	"fmt"
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/themes"
)

// ReadOnlyOptions configure the read-only replay a second Lantern offers
// when the story's work dir is owned by another one.
type ReadOnlyOptions struct {
	Episodes EpisodeSource // only read
	Story    string
	OwnerPID int // 0 when unknown
	Theme    string
}

// readOnly lists the stored episodes and replays them; it has no engine
// and writes nothing.
type readOnly struct {
	ctx    context.Context
	opts   ReadOnlyOptions
	c      *common
	picker episodePicker
	rp     *replay
	w, h   int
}

// NewReadOnly is the read-only replay's model.
func NewReadOnly(ctx context.Context, opts ReadOnlyOptions) tea.Model {
	th, err := themes.Load(opts.Theme)
	if opts.Theme == "" || err != nil {
		th = themes.MustLoad("dark")
	}
	c := newCommon(th)
	m := &readOnly{ctx: ctx, opts: opts, c: c, picker: episodePicker{c: c}, w: 80, h: 24}
	m.picker.load = func(l domain.Line) tea.Cmd { return loadEpisode(ctx, opts.Episodes, l) }
	return m
}

// RunReadOnly shows the read-only replay until the person quits.
func RunReadOnly(ctx context.Context, opts ReadOnlyOptions, in io.Reader, out io.Writer) error {
	p := tea.NewProgram(NewReadOnly(ctx, opts), tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out))
	_, err := p.Run()
	if err != nil && ctx.Err() != nil {
		return nil // ended from outside (a signal)
	}
	return err
}

func (m *readOnly) Init() tea.Cmd { return listEpisodes(m.ctx, m.opts.Episodes) }

func (m *readOnly) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		if msg.Width > 0 && msg.Height > 0 { // 0×0: no terminal size known
			m.w, m.h = msg.Width, msg.Height
			m.sizeReplay()
		}
	case episodesMsg:
		m.picker.loaded, m.picker.eps, m.picker.sel = true, msg.eps, 0
		if msg.err != nil {
			m.picker.err = "lantern.db: " + msg.err.Error()
		}
	case replayMsg:
		if msg.err != nil {
			m.picker.err = fmt.Sprintf("%s: %v", lineName(msg.line), msg.err)
			return m, nil
		}
		m.rp = newReplay(m.c, msg.line, msg.turns, msg.reviews)
		m.sizeReplay()
	case tea.KeyPressMsg:
		cmd, _ := dispatch(m.bindings(), msg, nil)
		return m, cmd
	}
	return m, nil
}

func (m *readOnly) sizeReplay() {
	if m.rp != nil {
		m.rp.transcript.setSize(max(m.w, 10), max(m.h-3, 1))
	}
}

// bindings are the keys of the replay shown (step, scroll, back to the
// episodes), else of the episode list; q quits.
func (m *readOnly) bindings() []binding {
	k := m.c.keys
	quit := func(desc string) binding {
		return shown(described(k.Quit, desc), act(func() tea.Cmd { return tea.Quit }))
	}
	r := m.rp
	if r == nil {
		page := func() int { return max(m.h/3, 1) }
		bs := append(m.picker.choose(page), bind(described(k.Back, "quit"), "", act(func() tea.Cmd { return tea.Quit })))
		return append(bs, quit("quit (the other Lantern keeps playing)"))
	}
	scroll := func(n int) func(tea.KeyPressMsg) tea.Cmd { return do(func() { r.transcript.scroll(n) }) }
	return []binding{
		shown(keyOf("←/→", "step", "left", "h", "right", "l", "space"), func(key tea.KeyPressMsg) tea.Cmd {
			if key.String() == "left" || key.String() == "h" {
				r.rebuild(m.c, max(r.pos-1, 1))
				m.sizeReplay()
				return nil
			}
			r.step()
			return nil
		}),
		shown(keyOf("home/end", "first/last turn", "home", "end"), func(key tea.KeyPressMsg) tea.Cmd {
			if key.String() == "home" {
				r.rebuild(m.c, min(1, len(r.turns)))
				m.sizeReplay()
			}
			for key.String() == "end" && r.pos < len(r.turns) {
				r.step()
			}
			return nil
		}),
		shown(described(k.Back, "episodes"), do(func() { m.rp = nil })),
		quit("quit"),
		bind(k.Up, "", scroll(-1)),
		bind(k.Down, "", scroll(1)),
	}
}

// Render is the screen as text.
func (m *readOnly) Render() string {
	s := m.c.styles
	owner := "another Lantern"
	if m.opts.OwnerPID > 0 {
		owner = fmt.Sprintf("another Lantern (PID %d)", m.opts.OwnerPID)
	}
	head := s.Title.Render(fit(fmt.Sprintf(" %s is being played by %s: read-only replay", m.opts.Story, owner), m.w))
	var body []string
	if m.rp != nil {
		body = m.rp.transcript.view()
	} else {
		body = m.picker.view(m.w, m.h)
	}
	keys := rowKeys(m.bindings())
	if m.rp == nil {
		keys = keys[len(keys)-1:] // the list draws its own keys
	}
	help := keyRows(m.c, 1<<20, keys...)[0]
	if room := max(m.h-2, 1); len(body) > room {
		body = body[len(body)-room:]
	}
	return strings.Join(append(append([]string{head}, body...), help), "\n")
}

func (m *readOnly) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	return v
}
