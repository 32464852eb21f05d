package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/progress"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
)

// modeLabel is the mode the status bar shows: running, stepping, paused, or
// manual (the person is typing, or played last while the agent waits).
func (m *Model) modeLabel() (string, lipgloss.Style) {
	s := m.c.styles
	switch {
	case m.quitting:
		return "quitting", s.ModeStopped
	case m.stopped:
		return "stopped", s.ModeStopped
	case m.mode == engine.Running:
		if m.thinking {
			return "running · thinking", s.ModeRunning
		}
		return "running", s.ModeRunning
	case m.mode == engine.Stepping || m.stepping:
		if m.queuedSteps > 0 {
			return fmt.Sprintf("stepping · %d queued", m.queuedSteps), s.ModeStepping
		}
		return "stepping", s.ModeStepping
	case m.pending != nil:
		return "your review", s.ModeStepping
	case m.state == stInput || m.lastActor == engine.ActorHuman:
		return "manual", s.ModeManual
	}
	return "paused", s.ModePaused
}

type statusPart struct {
	label, value string
	drop         int // the order in which parts go when space is short (0: never)
}

// statusView is the status bar: story, episode, Turn: N, score, moves,
// location, mode, model, and the last turn's prompt tokens and latency.
func (m *Model) statusView() string {
	s := m.c.styles
	score := fmt.Sprint(m.score)
	if m.opts.MaxScore > 0 {
		score = fmt.Sprintf("%d/%d", m.score, m.opts.MaxScore)
	}
	loc := "—"
	if m.loc.ID != 0 {
		loc = fmt.Sprintf("L%d %s", m.loc.ID, oneLine(m.loc.Name))
	}
	// Least important first when space is short: the supervisor's gauges,
	// the last call's tokens, moves, the model, then the story and the
	// episode; turn, score, location and mode always stay.
	parts := []statusPart{
		{"", m.opts.Story, 6},
		{"Ep ", fmt.Sprint(max(m.episode, 1)), 5},
		{"Turn: ", fmt.Sprint(m.turn), 0},
		{"Score ", score, 0},
		{"Moves ", fmt.Sprint(m.moves), 3},
		{"", loc, 0},
	}
	tail := []statusPart{
		{"", m.roleModels[config.RoleAgent], 4},
	}
	if sv := m.supervisor; m.haveSupervisor {
		tail = append(tail, statusPart{"supervisor ", fmt.Sprintf("trust %+.1f work %+.1f comfort %+.1f", sv.Trust, sv.Work, sv.Comfort), 1})
	}
	if m.haveMetrics && m.metrics.LLM.Calls > 0 {
		tail = append(tail, statusPart{"last call ", fmt.Sprintf("%d tok · %s", m.metrics.LLM.PromptTokens, seconds(m.metrics.LLM.Latency)), 2})
	}
	mode, modeStyle := m.modeLabel()
	if r := m.replay; r != nil {
		mode, modeStyle = fmt.Sprintf("replay %d/%d", r.pos, len(r.turns)), s.ModeStepping
		parts[1].value = fmt.Sprint(r.episode)
		if t, ok := r.current(); ok {
			parts[2].value, parts[4].value = fmt.Sprint(t.Turn), fmt.Sprint(t.Moves)
			parts[3].value = fmt.Sprint(t.Score)
			if m.opts.MaxScore > 0 {
				parts[3].value = fmt.Sprintf("%d/%d", t.Score, m.opts.MaxScore)
			}
			parts[5].value = fmt.Sprintf("L%d %s", t.LocationID, oneLine(t.Location))
		}
	}
	badge := modeStyle.Render(mode)
	bw := ansi.StringWidth(badge)
	render := func(ps []statusPart) string {
		var b strings.Builder
		for _, p := range ps {
			if p.value == "" {
				continue
			}
			if b.Len() > 0 {
				b.WriteString(s.StatusSep.Render(" │ "))
			} else {
				b.WriteString(s.StatusBar.Render(" "))
			}
			if p.label != "" {
				b.WriteString(s.StatusLabel.Render(p.label))
			}
			b.WriteString(s.StatusValue.Render(p.value))
		}
		return b.String()
	}
	width := func(a, b []statusPart) int {
		return ansi.StringWidth(render(a)) + bw + 2 + ansi.StringWidth(render(b))
	}
	// Drop parts, least important first, until the bar fits.
	for level := 1; level <= 6 && width(parts, tail) > m.w; level++ {
		parts = dropLevel(parts, level)
		tail = dropLevel(tail, level)
	}
	left := render(parts) + s.StatusBar.Render(" ") + badge
	right := render(tail)
	gap := m.w - ansi.StringWidth(left) - ansi.StringWidth(right) - 1
	if gap < 1 {
		return fit(left, m.w)
	}
	return left + s.StatusBar.Render(strings.Repeat(" ", gap)) + right + s.StatusBar.Render(" ")
}

func dropLevel(ps []statusPart, level int) []statusPart {
	out := ps[:0:0]
	for _, p := range ps {
		if p.drop != level {
			out = append(out, p)
		}
	}
	return out
}

func seconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// footerView is the bottom line: the command input, the search, a message,
// or the short help.
func (m *Model) footerView() string {
	s := m.c.styles
	w := m.w
	switch m.state {
	case stInput:
		hint := s.HelpDesc.Render("  enter sends · esc leaves")
		if m.flash != "" {
			st := s.Flash
			if m.flashErr {
				st = s.Error
			}
			hint = st.Render("  " + oneLine(m.flash))
		}
		iw := max(min(w-ansi.StringWidth(m.input.Prompt)-28, 60), 10)
		m.input.SetWidth(iw)
		return fit(m.input.View()+hint, w)
	case stSearch:
		m.search.SetWidth(max(w-40, 10))
		return fit(m.search.View()+s.HelpDesc.Render("  enter older · ↓ newer · esc closes"), w)
	case stForm:
		// Every key types into the form: no help key to offer here.
		return fit(s.HelpKey.Render(" ctrl+s")+s.HelpDesc.Render(" save · ")+s.HelpKey.Render("tab")+s.HelpDesc.Render(" next field · ")+
			s.HelpKey.Render("esc")+s.HelpDesc.Render(" cancel"), w)
	case stObjInput:
		m.objInput.SetWidth(max(w-ansi.StringWidth(m.objInput.Prompt)-4, 10))
		return fit(m.objInput.View(), w)
	case stReviewInput:
		m.reviewInput.SetWidth(max(w-ansi.StringWidth(m.reviewInput.Prompt)-24, 10))
		return fit(m.reviewInput.View()+s.HelpDesc.Render("  enter sends · esc back"), w)
	}
	if m.pending != nil && m.replay == nil {
		return m.reviewLine(w)
	}
	// A word (a flash, the armed cancel) takes the pane's keys' place; the
	// help key stays at the end.
	if m.flash != "" {
		st := s.Flash
		if m.flashErr {
			st = s.Error
		}
		return m.withHelpKey(st.Render(" "+oneLine(m.flash)), w)
	}
	if m.escArmed && m.thinking {
		return m.withHelpKey(s.Notice.Render(" esc again cancels the model call in flight"), w)
	}
	hl := &m.c.helpLine
	ctx := fmt.Sprint(m.focus, m.replay != nil, m.state, m.mapZoom)
	if hl.w != w || hl.gen != m.c.gen || hl.ctx != ctx {
		hl.w, hl.gen, hl.ctx, hl.s = w, m.c.gen, ctx, m.shortHelp(w)
	}
	return hl.s
}

func newProgressBar(c *common) progress.Model {
	return progress.New(progress.WithColors(c.styles.ProgressFull), progress.WithFillCharacters('█', '░'))
}

// dialogView draws an overlay (help, form, model picker, viewer) centred in
// the panes area.
func (m *Model) dialogView(w, h int) []string {
	dw := m.dialogWidth()
	var title string
	var body []string
	switch m.state {
	case stHelp:
		title = "Keys"
		body = m.helpBody(dw-4, h-2)
	case stForm:
		title = "Memory"
		body = m.form.view()
	case stModels:
		title = "Model per role"
		body = m.picker.view(m.c, dw-4)
	case stEpisodes:
		title = "Episodes"
		body = m.episodes.view(m.c, dw-4)
	case stNotes:
		title = "Notes"
		body = m.notes.view(m.c, dw-4)
	case stViewer:
		title = m.viewer.title
		dw = min(max(w-4, 20), 100)
		body = m.viewer.view(m.c, h-2)
	}
	bh := min(len(body)+2, h)
	inner := make([]string, 0, bh-2)
	for _, l := range body {
		if len(inner) == bh-2 {
			break
		}
		inner = append(inner, fit(l, dw-4))
	}
	box := m.c.box(title, "", true, dw, bh, inner)
	out := blank(w, h)
	top := max((h-bh)/2, 0)
	left := max((w-dw)/2, 0)
	pad := strings.Repeat(" ", left)
	for i, l := range box {
		if top+i < h {
			out[top+i] = fit(pad+l, w)
		}
	}
	return out
}
