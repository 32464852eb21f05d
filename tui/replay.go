package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine"
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
	closed bool
	h      host // nil: the read-only replay's (its own pages)
}

func (p *episodePicker) frame() frame { return frame{title: "Episodes", wide: true} }

// bindings choose a line of play and replay it (load's command), or close.
func (p *episodePicker) bindings() []binding {
	page := func() int { return max(p.h.areaHeight()/3, 1) }
	return append(p.choose(page), closing(p.c.keys, p.c.keys.Episodes, &p.closed)...)
}

// choose are the keys that choose a line of play and replay it, page rows
// a page.
func (p *episodePicker) choose(page func() int) []binding {
	k := p.c.keys
	return append(choosing(k, &p.sel, func() int { return len(p.eps) }, page), shown(described(k.Accept, "replay"), act(func() tea.Cmd {
		if p.sel < len(p.eps) {
			p.closed = true
			return p.load(p.eps[p.sel].Line())
		}
		return nil
	})))
}

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
	return append(append(out, ""), keyRows(p.c, w, rowKeys(p.bindings())...)...)
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
	t := storedTurn(r.turns[r.pos])
	r.pos++
	if r.pos == 1 {
		// The map starts where the first turn started; lantern.db keeps where
		// each turn ended, so the first room is where turn 1 ended.
		r.mapp.replayTurn(t, true)
	}
	showStored(r.transcript, r.reasoning, r.turns[r.pos-1], int(max(r.line.Episode, r.line.ID)))
	for _, rv := range r.reviews[t.turn] {
		r.reasoning.add(t.turn, rpart{kind: rkVerdict, text: reviewLine(rv), ok: rv.Decision != string(engine.DecisionReject)})
	}
	if r.pos > 1 {
		r.mapp.replayTurn(t, false)
	}
}

// showStored adds a turn of lantern.db to a transcript and a reasoning
// pane, by its actor, as it was shown when it was played.
func showStored(tp *transcriptPane, rp *reasoningPane, t rundb.Turn, episode int) {
	st := storedTurn(t)
	tp.addTurn(st, episode)
	rp.started(t.Turn, st.actor)
	if strings.TrimSpace(t.Reasoning) != "" {
		rp.add(t.Turn, rpart{kind: rkReasoning, text: strings.TrimSpace(t.Reasoning)})
	}
	var vs []engine.Verdict
	if json.Unmarshal([]byte(t.Verdicts), &vs) == nil {
		for _, v := range vs {
			rp.proposal(t.Turn, proposed{action: v.Action})
			rp.verdict(t.Turn, v)
		}
	}
	rp.played(st)
}

// current is the turn shown last.
func (r *replay) current() (rundb.Turn, bool) {
	if r.pos == 0 {
		return rundb.Turn{}, false
	}
	return r.turns[r.pos-1], true
}

// openEpisodes shows the episode browser.
func openEpisodes(ctx context.Context, c *common, h host, ft *footer, src EpisodeSource) tea.Cmd {
	if src == nil {
		return ft.set("no run database attached", true)
	}
	h.open(&episodePicker{c: c, h: h, load: func(l domain.Line) tea.Cmd { return loadEpisode(ctx, src, l) }})
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
		return pressed(p, &p.closed, msg, nil)
	}
	return p, nil
}

// startReplay shows a stored line of play read for its replay.
func (ps *paneSet) startReplay(msg replayMsg, ft *footer) tea.Cmd {
	if msg.err != nil {
		return ft.set("replay of "+lineName(msg.line)+": "+msg.err.Error(), true)
	}
	if len(msg.turns) == 0 {
		return ft.set(lineName(msg.line)+" has no stored turns", true)
	}
	ps.replay = newReplay(ps.c, msg.line, msg.turns, msg.reviews)
	return nil
}

// replayActions are what a replay's keys ask of the root: leave the
// replay, open the timeline of the line replayed at a turn, say something.
type replayActions struct {
	leave    func() tea.Cmd
	timeline func(l domain.Line, turn int) tea.Cmd
}

// bindings are a replay's keys. The replay is read-only: the keys that
// would steer the engine say so.
func (r *replay) bindings(c *common, a replayActions) []binding {
	k := c.keys
	readOnly := func() string { return "a replay is read-only: esc returns to the live game" }
	return []binding{
		bind(keyOf("←/→", "step back/forward", "left", "h", "p", ",", "right", "l", "n", "."), "step", func(key tea.KeyPressMsg) tea.Cmd {
			switch key.String() {
			case "left", "h", "p", ",":
				r.rebuild(c, max(r.pos-1, 1))
			default:
				r.step()
			}
			return nil
		}),
		bind(keyOf("home/end", "first/last turn", "home", "end"), "first/last", func(key tea.KeyPressMsg) tea.Cmd {
			if key.String() == "home" {
				r.rebuild(c, 1)
			}
			for key.String() == "end" && r.pos < len(r.turns) {
				r.step()
			}
			return nil
		}),
		bind(described(k.Timeline, "timeline of the replayed episode: rewind to one of its turns"), "rewind here",
			func(tea.KeyPressMsg) tea.Cmd { return a.timeline(r.line, r.at()) }),
		bind(described(k.Back, "back to the live game"), "live game", act(a.leave)),
		bind(described(k.Episodes, "back to the live game"), "", act(a.leave)),
		{key: readOnlyKeys(k.Pause, k.Input, k.Edit, k.Supersede, k.Add, k.Delete, k.Undo, k.Complete),
			run: act(func() tea.Cmd { return nil }), disabled: readOnly},
	}
}

// at is the turn shown last (0: none).
func (r *replay) at() int {
	if t, ok := r.current(); ok {
		return t.Turn
	}
	return 0
}

// readOnlyKeys is one binding for the keys a replay refuses, its help
// naming them.
func readOnlyKeys(kbs ...key.Binding) key.Binding {
	names := strings.Fields(joined("", kbs...).Help().Key)
	if len(names) == 1 {
		names = strings.Split(names[0], "/")
	}
	return key.NewBinding(key.WithKeys(joined("", kbs...).Keys()...), key.WithHelp("the others", strings.Join(names, " ")+": say a replay is read-only"))
}
