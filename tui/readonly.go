package tui

import (
	"context"
	"fmt"
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"

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
	return &readOnly{ctx: ctx, opts: opts, c: c, picker: episodePicker{c: c}, w: 80, h: 24}
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
		return m, m.key(msg.String())
	}
	return m, nil
}

func (m *readOnly) sizeReplay() {
	if m.rp != nil {
		m.rp.transcript.setSize(max(m.w, 10), max(m.h-3, 1))
	}
}

func (m *readOnly) key(k string) tea.Cmd {
	if k == "ctrl+c" || k == "q" {
		return tea.Quit
	}
	if r := m.rp; r != nil {
		switch k {
		case "esc":
			m.rp = nil
		case "right", "l", "space":
			r.step()
		case "left", "h":
			r.rebuild(m.c, max(r.pos-1, 1))
			m.sizeReplay()
		case "home":
			r.rebuild(m.c, min(1, len(r.turns)))
			m.sizeReplay()
		case "end":
			for r.pos < len(r.turns) {
				r.step()
			}
		case "up", "k":
			r.transcript.scroll(-1)
		case "down", "j":
			r.transcript.scroll(1)
		}
		return nil
	}
	switch k {
	case "esc":
		return tea.Quit
	case "up", "k":
		m.picker.sel = max(m.picker.sel-1, 0)
	case "down", "j":
		m.picker.sel = min(m.picker.sel+1, max(len(m.picker.eps)-1, 0))
	case "enter":
		if m.picker.sel < len(m.picker.eps) {
			return loadEpisode(m.ctx, m.opts.Episodes, m.picker.eps[m.picker.sel].Line())
		}
	}
	return nil
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
	var help string
	if m.rp != nil {
		body = m.rp.transcript.view()
		help = s.HelpKey.Render("←/→") + s.HelpDesc.Render(" step · ") + s.HelpKey.Render("home/end") +
			s.HelpDesc.Render(" first/last turn · ") + s.HelpKey.Render("esc") + s.HelpDesc.Render(" episodes · ") +
			s.HelpKey.Render("q") + s.HelpDesc.Render(" quit")
	} else {
		body = m.picker.view(m.w, m.h)
		help = s.HelpKey.Render("q") + s.HelpDesc.Render(" quit (the other Lantern keeps playing)")
	}
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
