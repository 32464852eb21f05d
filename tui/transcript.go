package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/memory/rundb"
)

// maxTranscript bounds the turns the transcript keeps in memory; older ones
// are in lantern.db.
const maxTranscript = 5000

// turnItem is one played turn (or an episode's opening text).
type turnItem struct {
	episode int
	turn    int
	actor   engine.Actor
	action  string
	text    string
	meta    string
}

func (t *turnItem) plain() string { return t.action + "\n" + t.text }

func (t *turnItem) layout(w int) []line {
	var head line
	if t.turn == 0 {
		head = mkLine(seg{fmt.Sprintf("Episode %d", t.episode), stEpisode}, seg{" · the story begins", stMeta})
	} else {
		label, st := "agent", stAgent
		switch t.actor {
		case engine.ActorHuman:
			label, st = "human", stHuman
		case engine.ActorHumanEdited:
			label, st = "human-edited", stHuman
		}
		head = mkLine(seg{fmt.Sprintf("T%d ", t.turn), stMeta}, seg{label, st}, seg{" › ", stMeta}, seg{t.action, stCommand})
	}
	// The turn's result on the right when it fits.
	if t.meta != "" {
		mw := ansi.StringWidth(t.meta)
		if head.width+2+mw <= w {
			head.segs = append(head.segs, seg{strings.Repeat(" ", w-head.width-mw), stMeta}, seg{t.meta, stMeta})
			head.width = w
		}
	}
	out := []line{head}
	out = append(out, wrap(strings.Trim(t.text, "\n"), w, stResponse, "  ")...)
	return append(out, line{})
}

// noteItem is a line from Lantern in the transcript: an episode's end, a
// rejected command.
type noteItem struct {
	text string
	st   styleID
}

func (n *noteItem) plain() string { return n.text }

func (n *noteItem) layout(w int) []line {
	return append(wrap(n.text, w, n.st, ""), line{})
}

// transcriptPane is the game text with every command, marked agent or human;
// it scrolls back and searches.
type transcriptPane struct {
	c     *common
	feed  *feed
	query string // the search, highlighted while set
	match int    // seq of the current match, -1 for none
	// count caches where the current match is among all of them.
	count struct {
		query     string
		match, at int
		next, n   int
	}
}

func newTranscript(c *common) *transcriptPane {
	return &transcriptPane{c: c, feed: newFeed(maxTranscript), match: -1}
}

func (p *transcriptPane) setSize(w, h int) { p.feed.setSize(w, h) }

// shownTurn is a turn as the panes show it, live or stored: its number,
// who played it, the command, the game's answer and where it left the
// game, and the critic's verdicts on the proposals.
type shownTurn struct {
	turn         int
	actor        engine.Actor
	action, text string
	loc          env.Location
	score, moves int
	verdicts     []engine.Verdict
}

// liveTurn is a turn the engine played.
func liveTurn(ev engine.TurnResult) shownTurn {
	o := ev.Observation
	return shownTurn{turn: ev.Turn, actor: ev.Actor, action: ev.Action, text: o.Text, loc: o.Location, score: o.Score, moves: o.Moves, verdicts: ev.Verdicts}
}

// storedTurn is a turn of lantern.db.
func storedTurn(t rundb.Turn) shownTurn {
	return shownTurn{turn: t.Turn, actor: engine.Actor(t.Actor), action: t.Action, text: t.Response,
		loc: env.Location{ID: t.LocationID, Name: t.Location}, score: t.Score, moves: t.Moves}
}

func (p *transcriptPane) addTurn(t shownTurn, episode int) {
	it := &turnItem{episode: episode, turn: t.turn, actor: t.actor, action: oneLine(t.action), text: t.text}
	if t.turn > 0 {
		it.meta = fmt.Sprintf("score %d · moves %d · L%d %s", t.score, t.moves, t.loc.ID, oneLine(t.loc.Name))
	}
	p.feed.add(it)
}

// bindings are the Transcript's own keys: esc clears a search.
func (p *transcriptPane) bindings() []binding {
	return []binding{{key: described(p.c.keys.Back, "clear the search"), run: do(p.clearSearch),
		active: func() bool { return p.query != "" }}}
}

// hints are the Transcript's footer: the game's keys, the search and the
// pages, the pane and the episodes.
func (p *transcriptPane) hints(g gameKeys) []binding {
	return append(append([]binding(nil), g.game...), g.search, g.pages, g.next, g.episodes)
}

func (p *transcriptPane) addNote(text string, st styleID) {
	p.feed.add(&noteItem{text: text, st: st})
}

func (p *transcriptPane) view() []string {
	return p.feed.render(p.c, p.query)
}

func (p *transcriptPane) info() string {
	switch {
	case p.query != "" && p.match < 0:
		return fmt.Sprintf("no match for %q", p.query)
	case p.query != "":
		at, n := p.matchCount()
		return fmt.Sprintf("match %q · %d of %d", p.query, at, n)
	case !p.feed.atBottom():
		return fmt.Sprintf("↑ %d lines · End to follow", p.feed.offset)
	}
	return ""
}

func (p *transcriptPane) scroll(n int) { p.feed.scroll(n) }

// search finds the next match of q, going back in time (older) or forward.
func (p *transcriptPane) search(q string, older bool) bool {
	if q != p.query {
		p.query, p.match = q, -1
	}
	if q == "" {
		return false
	}
	seq := p.feed.find(q, p.match, older)
	if seq < 0 && p.match >= 0 {
		// Wrap around.
		seq = p.feed.find(q, -1, older)
	}
	p.match = seq
	if seq < 0 {
		return false
	}
	p.feed.show(seq)
	return true
}

// cutFrom drops the items from sequence seq on (a rewound episode's).
func (p *transcriptPane) cutFrom(seq int) {
	p.feed.cutFrom(seq)
	p.clearSearch()
}

func (p *transcriptPane) clearSearch() { p.query, p.match = "", -1 }

// matchCount is the current match's place among the turns that match the
// search (counted from the oldest), and how many match.
func (p *transcriptPane) matchCount() (at, n int) {
	c := &p.count
	if c.query == p.query && c.match == p.match && c.next == p.feed.next {
		return c.at, c.n
	}
	q := strings.ToLower(p.query)
	for _, e := range p.feed.entries {
		if strings.Contains(strings.ToLower(e.it.plain()), q) {
			n++
			if e.seq <= p.match {
				at = n
			}
		}
	}
	c.query, c.match, c.next, c.at, c.n = p.query, p.match, p.feed.next, at, n
	return at, n
}
