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

// modeLabel is the mode the status bar shows: running, stepping, paused,
// waiting for you (a proposal waits for the person's review), or manual
// (the person is typing, or played last while the agent waits).
func (m *Model) modeLabel() (string, lipgloss.Style) {
	s := m.c.styles
	switch {
	case m.quitting:
		return "quitting", s.ModeStopped
	case m.stopped:
		return "stopped", s.ModeStopped
	case m.pending != nil && m.replay == nil:
		// The game waits on the person's review, whatever the mode.
		return "waiting for you", s.ModeStepping
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
	case m.typing() || m.lastActor == engine.ActorHuman:
		return "manual", s.ModeManual
	}
	return "paused", s.ModePaused
}

type statusPart struct {
	label, value string
	drop         int    // the order in which parts go when space is short (0: never)
	short        string // what the part shrinks to at level shortLevel ("": it stays whole)
	cut          bool   // the part cut when nothing else is left to drop
}

// shortLevel is the level at which the parts with a short form take it,
// after the droppable ones are gone.
const shortLevel = 6

// statusView is the status bar: story, the line of play in its written
// form (Ep 1/no-bar: what `lantern run --from 1/no-bar:TURN` takes),
// Turn: N, score, moves, location, mode, model, and the last turn's
// prompt tokens and latency.
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
	// the last call's tokens, moves, the model, the story, then the
	// location's name; the line of play, turn, score and mode always stay.
	parts := []statusPart{
		{label: "", value: m.opts.Story, drop: 5},
		{label: "Ep ", value: lineName(m.line()), cut: true},
		{label: "Turn: ", value: fmt.Sprint(m.turn)},
		{label: "Score ", value: score},
		{label: "Moves ", value: fmt.Sprint(m.moves), drop: 3},
		{label: "", value: loc, short: fmt.Sprintf("L%d", m.loc.ID)},
	}
	tail := []statusPart{
		{label: "", value: m.roleModels[config.RoleAgent], drop: 4},
	}
	if sv := m.supervisor; m.haveSupervisor {
		tail = append(tail, statusPart{label: "supervisor ", value: fmt.Sprintf("trust %+.1f work %+.1f comfort %+.1f", sv.Trust, sv.Work, sv.Comfort), drop: 1})
	}
	if c := m.metrics; m.haveMetrics && c.Agent > 0 && c.Span > 0 {
		// What the person waited for the last turn against the agent's own
		// call: the managers and the critic should add little to it.
		tail = append(tail, statusPart{label: "turn ", value: fmt.Sprintf("%s · agent %s (%.1f×)", seconds(c.Span), seconds(c.Agent), c.Span.Seconds()/c.Agent.Seconds()), drop: 2})
	}
	if m.haveMetrics && m.metrics.LLM.Calls > 0 {
		tail = append(tail, statusPart{label: "last call ", value: fmt.Sprintf("%d tok · %s", m.metrics.LLM.PromptTokens, seconds(m.metrics.LLM.Latency)), drop: 2})
	}
	if m.loc.ID == 0 {
		parts[5].short = ""
	}
	mode, modeStyle := m.modeLabel()
	if r := m.replay; r != nil {
		mode, modeStyle = fmt.Sprintf("replay %d/%d", r.pos, len(r.turns)), s.ModeStepping
		parts[1].value = lineName(r.line)
		if t, ok := r.current(); ok {
			parts[2].value, parts[4].value = fmt.Sprint(t.Turn), fmt.Sprint(t.Moves)
			parts[3].value = fmt.Sprint(t.Score)
			if m.opts.MaxScore > 0 {
				parts[3].value = fmt.Sprintf("%d/%d", t.Score, m.opts.MaxScore)
			}
			parts[5].value, parts[5].short = fmt.Sprintf("L%d %s", t.LocationID, oneLine(t.Location)), fmt.Sprintf("L%d", t.LocationID)
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
	// Drop parts, least important first, then shorten, until the bar fits.
	for level := 1; level <= shortLevel && width(parts, tail) > m.w; level++ {
		parts = dropLevel(parts, level)
		tail = dropLevel(tail, level)
	}
	if over := width(parts, tail) - m.w; over > 0 {
		// Only a long branch name is left to cut: it keeps its start.
		for i := range parts {
			if p := &parts[i]; p.cut {
				p.value = ansi.Truncate(p.value, max(ansi.StringWidth(p.value)-over, 4), "…")
			}
		}
	}
	left := render(parts) + s.StatusBar.Render(" ") + badge
	right := render(tail)
	gap := m.w - ansi.StringWidth(left) - ansi.StringWidth(right) - 1
	if gap < 1 {
		return fit(left, m.w)
	}
	return left + s.StatusBar.Render(strings.Repeat(" ", gap)) + right + s.StatusBar.Render(" ")
}

// dropLevel leaves out the parts of a level, or shortens those that
// have a short form at shortLevel.
func dropLevel(ps []statusPart, level int) []statusPart {
	out := ps[:0:0]
	for _, p := range ps {
		if level == shortLevel && p.short != "" {
			p.value = p.short
		}
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
	if line, ok := m.dialogFooter(w); ok {
		return line
	}
	if m.pending != nil && m.replay == nil {
		return m.reviewLine(w)
	}
	// A word (a flash, the armed cancel) takes the pane's keys' place; the
	// timeline and help keys stay at the end, the timeline's unless the
	// word would be cut.
	if m.flash != "" {
		st := s.Flash
		if m.flashErr {
			st = s.Error
		}
		msg, tail := " "+oneLine(m.flash), m.footTail()
		if ansi.StringWidth(msg)+2+ansi.StringWidth(tail) > w {
			tail = m.helpTail()
		}
		return m.withTail(st.Render(msg), w, tail)
	}
	if m.escArmed && m.thinking {
		return m.withTail(s.Notice.Render(" esc again cancels the model call in flight"), w, m.footTail())
	}
	hl := &m.c.helpLine
	ctx := fmt.Sprint("panes ", m.focus, m.replay != nil, m.mapZoom)
	if hl.w != w || hl.gen != m.c.gen || hl.ctx != ctx {
		hl.w, hl.gen, hl.ctx, hl.s = w, m.c.gen, ctx, m.shortHelp(w)
	}
	return hl.s
}

func newProgressBar(c *common) progress.Model {
	return progress.New(progress.WithColors(c.styles.ProgressFull), progress.WithFillCharacters('█', '░'))
}
