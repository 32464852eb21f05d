package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/memory/rundb"
)

// EpisodeSource is the run database's read side (*rundb.RunDB): past
// episodes for the episode browser. It is read only from commands.
type EpisodeSource interface {
	EpisodeSummaries(ctx context.Context) ([]rundb.EpisodeSummary, error)
	Turns(ctx context.Context, episode int64) ([]rundb.Turn, error)
	// Reviews are the person's decisions in review mode.
	Reviews(ctx context.Context, episode int64) ([]rundb.Review, error)
}

// episodesMsg is the list of stored episodes; replayMsg one episode's turns.
type (
	episodesMsg struct {
		eps []rundb.EpisodeSummary
		err error
	}
	replayMsg struct {
		line    domain.Line
		turns   []rundb.Turn
		reviews []rundb.Review
		err     error
	}
)

func listEpisodes(ctx context.Context, src EpisodeSource) tea.Cmd {
	return func() tea.Msg {
		eps, err := src.EpisodeSummaries(ctx)
		return episodesMsg{eps: eps, err: err}
	}
}

// loadEpisode reads a stored line of play for its replay.
func loadEpisode(ctx context.Context, src EpisodeSource, l domain.Line) tea.Cmd {
	ep := l.ID
	return func() tea.Msg {
		// A branch's whole line when the source knows branches: its
		// parents' turns up to its fork, then its own.
		var turns []rundb.Turn
		var err error
		if b, ok := src.(interface {
			BranchTurns(ctx context.Context, episode int64) ([]rundb.Turn, error)
		}); ok {
			turns, err = b.BranchTurns(ctx, ep)
		} else {
			turns, err = src.Turns(ctx, ep)
		}
		if err != nil {
			return replayMsg{line: l, err: err}
		}
		var reviews []rundb.Review
		if b, ok := src.(interface {
			BranchReviews(ctx context.Context, episode int64) ([]rundb.Review, error)
		}); ok {
			reviews, err = b.BranchReviews(ctx, ep)
		} else {
			reviews, err = src.Reviews(ctx, ep)
		}
		return replayMsg{line: l, turns: turns, reviews: reviews, err: err}
	}
}

// episodePicker lists the stored lines of play, newest first.
type episodePicker struct {
	c      *common
	load   func(l domain.Line) tea.Cmd // reads a line for its replay
	eps    []rundb.EpisodeSummary
	sel    int
	loaded bool
	err    string
}

func (p *episodePicker) frame() frame { return frame{title: "Episodes", wide: true, keys: closeKeys()} }

func (p *episodePicker) view(w, _ int) []string {
	s := p.c.styles
	switch {
	case !p.loaded:
		return []string{s.Muted.Render("Reading lantern.db…")}
	case p.err != "":
		return []string{s.Error.Render(p.err)}
	case len(p.eps) == 0:
		return []string{s.Muted.Render("No episodes are stored yet: they are recorded as they are played.")}
	}
	w = max(w, 10)
	out := []string{s.Muted.Render(fit("Replay a stored line of play turn by turn, read-only:", w))}
	head, rows := lineTable(episodeRows(p.eps), w-1)
	out = append(out, s.Muted.Render(fit(" "+head, w)))
	for i, row := range rows {
		row = fit(" "+row, w)
		if i == p.sel {
			row = s.Selected.Render(row)
		} else {
			row = s.Text.Render(row)
		}
		out = append(out, row)
	}
	return append(append(out, ""), keyRows(p.c, w, [2]string{"↑/↓", "choose"}, [2]string{"enter", "replay"}, [2]string{"esc", "close"})...)
}

// replay shows a stored line of play in panes of its own; the live panes
// keep following the engine meanwhile.
type replay struct {
	line       domain.Line
	turns      []rundb.Turn
	reviews    map[int][]rundb.Review // by turn
	pos        int                    // turns shown
	transcript *transcriptPane
	reasoning  *reasoningPane
	mapp       *mapPane
}

func newReplay(c *common, l domain.Line, turns []rundb.Turn, reviews []rundb.Review) *replay {
	r := &replay{line: l, turns: turns, reviews: map[int][]rundb.Review{}}
	for _, rv := range reviews {
		r.reviews[rv.Turn] = append(r.reviews[rv.Turn], rv)
	}
	r.rebuild(c, min(1, len(turns)))
	return r
}

// rebuild lays out the first n turns afresh (stepping back replays from the
// start: a few hundred turns cost nothing).
func (r *replay) rebuild(c *common, n int) {
	r.transcript, r.reasoning, r.mapp = newTranscript(c), newReasoning(c), newMapPane(c)
	r.transcript.addNote(fmt.Sprintf("Replay of %s (%s): ←/→ step, home/end, T to rewind the game to one of its turns, esc returns to the live game.",
		lineName(r.line), plural(len(r.turns), "turn", "turns")), stSystem)
	if len(r.reviews) > 0 {
		var all []rundb.Review
		for _, t := range r.turns {
			all = append(all, r.reviews[t.Turn]...)
		}
		st := rundb.SumReviews(all)
		note := fmt.Sprintf("You reviewed %d proposals: %d accepted (%.0f%%), %d edited, %d rejected.", st.Decisions, st.Accepted, 100*st.AcceptanceRate(), st.Edited, st.Rejected)
		if len(st.Reasons) > 0 {
			note += " Reasons: " + strings.Join(st.Reasons, "; ") + "."
		}
		r.transcript.addNote(note, stSystem)
	}
	r.pos = 0
	for r.pos < n {
		r.step()
	}
}

// step shows the next turn.
func (r *replay) step() {
	if r.pos >= len(r.turns) {
		return
	}
	t := r.turns[r.pos]
	r.pos++
	if r.pos == 1 {
		// The map starts where the first turn started; lantern.db keeps where
		// each turn ended, so the first room is where turn 1 ended.
		r.mapp.replayTurn(engine.TurnResult{Observation: env.Observation{Location: env.Location{ID: t.LocationID, Name: t.Location}}}, true)
	}
	ev := showStored(r.transcript, r.reasoning, t, int(max(r.line.Episode, r.line.ID)))
	for _, rv := range r.reviews[t.Turn] {
		text := reviewText(engine.Decision(rv.Decision), rv.Proposal, rv.Command, rv.Reason, rv.Remembered)
		r.reasoning.add(t.Turn, rpart{kind: rkVerdict, text: text, ok: rv.Decision != string(engine.DecisionReject)})
	}
	if r.pos > 1 {
		r.mapp.replayTurn(ev, false)
	}
}

// showStored adds a turn of lantern.db to a transcript and a reasoning
// pane, by its actor, as it was shown when it was played.
func showStored(tp *transcriptPane, rp *reasoningPane, t rundb.Turn, episode int) engine.TurnResult {
	ev := replayTurn(t)
	tp.addTurn(ev, episode)
	rp.started(engine.TurnStarted{Turn: t.Turn, Actor: ev.Actor})
	if strings.TrimSpace(t.Reasoning) != "" {
		rp.add(t.Turn, rpart{kind: rkReasoning, text: strings.TrimSpace(t.Reasoning)})
	}
	var vs []engine.Verdict
	if json.Unmarshal([]byte(t.Verdicts), &vs) == nil {
		for i, v := range vs {
			rp.proposal(engine.ProposalMade{Turn: t.Turn, Attempt: i + 1, Action: v.Action})
			rp.verdict(engine.CriticVerdict{Turn: t.Turn, Attempt: i + 1, Action: v.Action, Score: v.Score, Justification: v.Justification, Accepted: v.Accepted, Stage: v.Stage})
		}
	}
	rp.played(ev)
	return ev
}

func replayTurn(t rundb.Turn) engine.TurnResult {
	return engine.TurnResult{Turn: t.Turn, Actor: engine.Actor(t.Actor), Action: t.Action, Reasoning: t.Reasoning,
		Observation: env.Observation{Text: t.Response, Location: env.Location{ID: t.LocationID, Name: t.Location}, Score: t.Score, Moves: t.Moves}}
}

// current is the turn shown last.
func (r *replay) current() (rundb.Turn, bool) {
	if r.pos == 0 {
		return rundb.Turn{}, false
	}
	return r.turns[r.pos-1], true
}

// openEpisodes shows the episode browser.
func (m *Model) openEpisodes() tea.Cmd {
	if m.opts.Episodes == nil {
		return m.setFlash("no run database attached", true)
	}
	ctx, src := m.ctx, m.opts.Episodes
	m.open(&episodePicker{c: m.c, load: func(l domain.Line) tea.Cmd { return loadEpisode(ctx, src, l) }})
	return listEpisodes(ctx, src)
}

func (p *episodePicker) update(msg tea.Msg) (dialog, tea.Cmd) {
	switch msg := msg.(type) {
	case episodesMsg:
		p.loaded = true
		if msg.err != nil {
			p.err = msg.err.Error()
			return p, nil
		}
		p.eps = msg.eps
	case tea.KeyPressMsg:
		switch msg.String() {
		case "esc", "q", "E":
			return nil, nil
		case "up", "k":
			p.sel = max(p.sel-1, 0)
		case "down", "j":
			p.sel = min(p.sel+1, max(len(p.eps)-1, 0))
		case "enter":
			if p.sel < len(p.eps) {
				return nil, p.load(p.eps[p.sel].Line())
			}
		}
	}
	return p, nil
}

func (m *Model) handleReplay(msg replayMsg) tea.Cmd {
	if msg.err != nil {
		return m.setFlash("replay of "+lineName(msg.line)+": "+msg.err.Error(), true)
	}
	if len(msg.turns) == 0 {
		return m.setFlash(lineName(msg.line)+" has no stored turns", true)
	}
	m.replay = newReplay(m.c, msg.line, msg.turns, msg.reviews)
	m.relayout()
	return nil
}

// replayKey handles the keys of a replay; it reports whether it took the
// key. The replay is read-only: keys that would steer the engine say so.
func (m *Model) replayKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	r := m.replay
	switch k.String() {
	case "esc", "E":
		m.replay = nil
		return m.setFlash("back to the live game", false), true
	case "right", "l", "n", ".":
		r.step()
	case "left", "h", "p", ",":
		r.rebuild(m.c, max(r.pos-1, 1))
	case "home":
		r.rebuild(m.c, 1)
	case "end":
		for r.pos < len(r.turns) {
			r.step()
		}
	case "T":
		at := 0
		if r.pos > 0 && r.pos <= len(r.turns) {
			at = r.turns[r.pos-1].Turn
		}
		return m.openTimelineOf(r.line, at), true
	case "space", "i", "e", "s", "a", "d", "u", "c":
		return m.setFlash("a replay is read-only: esc returns to the live game", true), true
	default:
		return nil, false
	}
	m.relayout()
	return nil, true
}
