package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/progress"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
)

// game is the game as the status bar shows it, from the events, and the
// keys that steer the engine (pause, step, cancel, end, quit).
type game struct {
	c  *common
	h  host
	ft *footer

	episode, turn, score, moves int
	loc                         env.Location
	mode                        engine.Mode
	lastActor                   engine.Actor
	thinking                    bool
	thinkSecs, thinkID          int
	metrics                     *engine.TurnCompleted
	supervisor                  *engine.SupervisorChanged
	roleModels                  map[string]string
	stopped, quitting           bool
	stepping                    bool // a step was sent and its turn has not ended
	queuedSteps                 int  // n pressed while a step was in flight
	// branch is the line being played: each turn's own line, else the
	// last EpisodeStarted's (line() names it).
	branch engine.Branch
	// rewinding is the rewind asked for until the engine answers.
	rewinding *rewindAsk
	// epMark is where the episode starts in the transcript and the
	// reasoning (their items' sequence numbers); a rewind clears back to it.
	epMark    struct{ transcript, reasoning int }
	resumeGen int  // resumes (and rewinds) announced
	escArmed  bool // esc pressed once while a call is in flight
	escID     int
	endArmed  bool // X pressed once: X again ends the episode
}

// escDoneMsg disarms "esc esc"; thinkTickMsg counts the seconds the agent
// has been thinking; forceQuitMsg ends the TUI when the engine does not
// stop in time.
type (
	escDoneMsg   struct{ id int }
	thinkTickMsg struct{ id int }
	forceQuitMsg struct{}
)

func thinkTick(id int) tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return thinkTickMsg{id: id} })
}

// line is the line being played, its episode always named (an event
// that does not say is the episode's being played).
func (g *game) line() domain.Line {
	l := g.branch
	if l.Episode == 0 {
		l.Episode = int64(max(g.episode, 1))
	}
	return l
}

// follow takes the line an event names as the one being played.
func (g *game) follow(l domain.Line) {
	if !known(l) {
		return
	}
	g.branch = l
	if l.Episode != 0 {
		g.episode = int(l.Episode)
	}
}

// branchID is the branch being played: its row, else the episode's.
func (g *game) branchID() int64 {
	if g.branch.ID != 0 {
		return g.branch.ID
	}
	return int64(g.episode)
}

// markEpisode notes where the episode starts in the transcript and the
// reasoning, which a rewind clears back to.
func (g *game) markEpisode(ps *paneSet) {
	g.epMark.transcript, g.epMark.reasoning = ps.transcript.feed.next, ps.reasoning.feed.next
}

// rewound clears what the episode showed (its turns are shown again from
// lantern.db, up to the turn play goes on from) and what was in flight:
// the engine abandoned it and paused.
func (g *game) rewound(ps *paneSet) {
	ps.transcript.cutFrom(g.epMark.transcript)
	ps.reasoning.cutFrom(g.epMark.reasoning)
	g.thinking, g.stepping, g.queuedSteps = false, false, 0
	g.mode, g.lastActor = engine.Paused, ""
}

// thinkingTitle is what the Reasoning pane's title adds while the agent
// thinks (not over a replay).
func (g *game) thinkingTitle(replaying bool) string {
	switch {
	case !g.thinking || replaying:
		return ""
	case g.thinkSecs > 0:
		return fmt.Sprintf(" · thinking… %ds", g.thinkSecs)
	}
	return " · thinking…"
}

// at takes where a turn left the game.
func (g *game) at(turn int, o env.Observation) {
	g.turn, g.score, g.moves, g.loc = turn, o.Score, o.Moves, o.Location
}

// started counts the agent's thinking from a turn's start.
func (g *game) started(ev engine.TurnStarted) tea.Cmd {
	g.thinking = ev.Actor == engine.ActorAgent
	if !g.thinking {
		return nil
	}
	g.thinkSecs = 0
	g.thinkID++
	return thinkTick(g.thinkID)
}

// ticked counts a second of thinking.
func (g *game) ticked(msg thinkTickMsg) tea.Cmd {
	if msg.id == g.thinkID && g.thinking {
		g.thinkSecs++
		return thinkTick(msg.id)
	}
	return nil
}

// idle takes the engine's mode when it waits; a step queued meanwhile is
// sent now.
func (g *game) idle(ev engine.Idle) tea.Cmd {
	g.mode, g.thinking = ev.Mode, false
	if g.stepping && ev.Mode == engine.Paused {
		if g.queuedSteps > 0 {
			g.queuedSteps--
			g.mode = engine.Stepping
			return g.h.send(engine.Step{})
		}
		g.stepping = false
	}
	return nil
}

// step plays one agent turn; presses while a step is in flight are queued
// and played one after another (the engine takes one step at a time).
func (g *game) step(unreachable bool) tea.Cmd {
	if unreachable {
		return g.ft.set("n needs the model server, which is not reachable: type a command (i), or r to check again", true)
	}
	if g.stepping {
		g.queuedSteps++
		return g.ft.set(fmt.Sprintf("step queued: %d more after this one", g.queuedSteps), false)
	}
	g.stepping = true
	g.mode = engine.Stepping
	return g.h.send(engine.Step{})
}

func (g *game) togglePause(unreachable bool) tea.Cmd {
	g.queuedSteps = 0
	if g.mode == engine.Running {
		g.mode = engine.Paused
		return g.h.send(engine.Pause{})
	}
	if unreachable {
		return g.ft.set("the agent needs the model server, which is not reachable: type a command (i), or r to check again", true)
	}
	g.mode = engine.Running
	return g.h.send(engine.Unpause{})
}

// escape arms "esc esc" while a model call is in flight; the second esc in
// time cancels it (the turn is not played; the engine pauses; cancelled
// marks it in the Reasoning pane). With no call in flight esc only says so.
func (g *game) escape(cancelled func()) tea.Cmd {
	if !g.thinking {
		g.escArmed = false
		return g.ft.set("esc: nothing to leave or cancel here (esc esc cancels a model call in flight)", false)
	}
	if g.escArmed {
		g.escArmed = false
		g.mode = engine.Paused
		g.queuedSteps = 0
		cancelled()
		return tea.Batch(g.h.send(engine.CancelTurn{}), g.ft.set("cancelled the model call; paused", false))
	}
	g.escArmed = true
	g.ft.clear() // the footer shows the armed cancel
	g.escID++
	id := g.escID
	return tea.Tick(escWindow, func(time.Time) tea.Msg { return escDoneMsg{id: id} })
}

// endEpisode asks first: X again ends the episode.
func (g *game) endEpisode() tea.Cmd {
	k := g.c.keys.EndEpisode
	if g.endArmed {
		g.endArmed = false
		return tea.Batch(g.h.send(engine.EndEpisode{}), g.ft.set(fmt.Sprintf("ending episode %d…", g.episode), false))
	}
	g.endArmed = true
	return g.ft.set(fmt.Sprintf("press %s again to end episode %d (any other key: go on)", k.Keys()[0], g.episode), false)
}

// quit asks the engine to stop at a turn boundary; the TUI ends when it has
// (or after quitTimeout).
func (g *game) quit() tea.Cmd {
	if g.stopped {
		return tea.Quit
	}
	if g.quitting {
		return nil
	}
	g.quitting = true
	return tea.Batch(g.h.send(engine.Quit{}), g.ft.set("quitting: the engine stops at the turn boundary…", false),
		tea.Tick(quitTimeout, func(time.Time) tea.Msg { return forceQuitMsg{} }))
}

// statusOf is what else the status bar says: the story, whether a
// proposal waits for the person or the person is typing, and the replay
// shown instead of the live game.
type statusOf struct {
	story           string
	maxScore        int
	waiting, typing bool
	replay          *replay
}

// modeLabel is the mode the status bar shows: running, stepping, paused,
// waiting for you (a proposal waits for the person's review), or manual
// (the person is typing, or played last while the agent waits).
func (g *game) modeLabel(o statusOf) (string, lipgloss.Style) {
	s := g.c.styles
	switch {
	case g.quitting:
		return "quitting", s.ModeStopped
	case g.stopped:
		return "stopped", s.ModeStopped
	case o.waiting:
		// The game waits on the person's review, whatever the mode.
		return "waiting for you", s.ModeStepping
	case g.mode == engine.Running:
		if g.thinking {
			return "running · thinking", s.ModeRunning
		}
		return "running", s.ModeRunning
	case g.mode == engine.Stepping || g.stepping:
		if g.queuedSteps > 0 {
			return fmt.Sprintf("stepping · %d queued", g.queuedSteps), s.ModeStepping
		}
		return "stepping", s.ModeStepping
	case o.typing || g.lastActor == engine.ActorHuman:
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

func scoreText(score, maxScore int) string {
	if maxScore > 0 {
		return fmt.Sprintf("%d/%d", score, maxScore)
	}
	return fmt.Sprint(score)
}

// leftParts are the status bar's left side: story, the line of play in its
// written form (Ep 1/no-bar: what `lantern run --from 1/no-bar:TURN`
// takes), Turn: N, score, moves and location, a replay's when one is shown.
func (g *game) leftParts(o statusOf) []statusPart {
	loc, short := "—", ""
	if g.loc.ID != 0 {
		loc, short = fmt.Sprintf("L%d %s", g.loc.ID, oneLine(g.loc.Name)), fmt.Sprintf("L%d", g.loc.ID)
	}
	// Least important first when space is short: the supervisor's gauges,
	// the last call's tokens, moves, the model, the story, then the
	// location's name; the line of play, turn, score and mode always stay.
	parts := []statusPart{
		{label: "", value: o.story, drop: 5},
		{label: "Ep ", value: lineName(g.line()), cut: true},
		{label: "Turn: ", value: fmt.Sprint(g.turn)},
		{label: "Score ", value: scoreText(g.score, o.maxScore)},
		{label: "Moves ", value: fmt.Sprint(g.moves), drop: 3},
		{label: "", value: loc, short: short},
	}
	if r := o.replay; r != nil {
		parts[1].value = lineName(r.line)
		if t, ok := r.current(); ok {
			parts[2].value, parts[4].value = fmt.Sprint(t.Turn), fmt.Sprint(t.Moves)
			parts[3].value = scoreText(t.Score, o.maxScore)
			parts[5].value, parts[5].short = fmt.Sprintf("L%d %s", t.LocationID, oneLine(t.Location)), fmt.Sprintf("L%d", t.LocationID)
		}
	}
	return parts
}

// rightParts are the status bar's right side: the agent's model, the
// supervisor's gauges and the last turn's times and tokens.
func (g *game) rightParts() []statusPart {
	tail := []statusPart{{label: "", value: g.roleModels[config.RoleAgent], drop: 4}}
	if sv := g.supervisor; sv != nil {
		tail = append(tail, statusPart{label: "supervisor ", value: fmt.Sprintf("trust %+.1f work %+.1f comfort %+.1f", sv.Trust, sv.Work, sv.Comfort), drop: 1})
	}
	c := g.metrics
	if c == nil {
		return tail
	}
	if c.Agent > 0 && c.Span > 0 {
		// What the person waited for the last turn against the agent's own
		// call: the managers and the critic should add little to it.
		tail = append(tail, statusPart{label: "turn ", value: fmt.Sprintf("%s · agent %s (%.1f×)", seconds(c.Span), seconds(c.Agent), c.Span.Seconds()/c.Agent.Seconds()), drop: 2})
	}
	if c.LLM.Calls > 0 {
		tail = append(tail, statusPart{label: "last call ", value: fmt.Sprintf("%d tok · %s", c.LLM.PromptTokens, seconds(c.LLM.Latency)), drop: 2})
	}
	return tail
}

// statusView is the status bar, w cells wide: the parts that fit, the
// mode's badge after the left ones.
func (g *game) statusView(w int, o statusOf) string {
	s := g.c.styles
	parts, tail := g.leftParts(o), g.rightParts()
	mode, modeStyle := g.modeLabel(o)
	if r := o.replay; r != nil {
		mode, modeStyle = fmt.Sprintf("replay %d/%d", r.pos, len(r.turns)), s.ModeStepping
	}
	badge := modeStyle.Render(mode)
	bw := ansi.StringWidth(badge)
	width := func(a, b []statusPart) int {
		return ansi.StringWidth(g.renderParts(a)) + bw + 2 + ansi.StringWidth(g.renderParts(b))
	}
	// Drop parts, least important first, then shorten, until the bar fits.
	for level := 1; level <= shortLevel && width(parts, tail) > w; level++ {
		parts = dropLevel(parts, level)
		tail = dropLevel(tail, level)
	}
	if over := width(parts, tail) - w; over > 0 {
		// Only a long branch name is left to cut: it keeps its start.
		for i := range parts {
			if p := &parts[i]; p.cut {
				p.value = ansi.Truncate(p.value, max(ansi.StringWidth(p.value)-over, 4), "…")
			}
		}
	}
	left := g.renderParts(parts) + s.StatusBar.Render(" ") + badge
	right := g.renderParts(tail)
	gap := w - ansi.StringWidth(left) - ansi.StringWidth(right) - 1
	if gap < 1 {
		return fit(left, w)
	}
	return left + s.StatusBar.Render(strings.Repeat(" ", gap)) + right + s.StatusBar.Render(" ")
}

// renderParts draws parts with their separators.
func (g *game) renderParts(ps []statusPart) string {
	s := g.c.styles
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

func newProgressBar(c *common) progress.Model {
	return progress.New(progress.WithColors(c.styles.ProgressFull), progress.WithFillCharacters('█', '░'))
}
