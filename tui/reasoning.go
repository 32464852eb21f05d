package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/lantern-if/lantern/engine"
)

const (
	maxReasoningTurns = 200  // turns of reasoning kept
	maxStreamText     = 8000 // bytes of one streamed part kept (the tail)
)

type rkind uint8

const (
	rkThinking rkind = iota // streamed thinking
	rkStream                // streamed reply (raw, until the proposal is parsed)
	rkReasoning
	rkProposal
	rkVerdict
	rkPlayed
	rkError
	rkSupervisor
	rkCancelled // the person cancelled the model call (esc esc)
)

type rpart struct {
	kind    rkind
	attempt int
	text    string
	ok      bool
}

// reasonItem is one turn's reasoning: what streamed, the proposals, the
// critic's verdicts, what was played.
type reasonItem struct {
	turn  int
	actor engine.Actor
	parts []rpart
	c     *common // the theme its Markdown is drawn in
}

func (r *reasonItem) plain() string {
	var b strings.Builder
	for _, p := range r.parts {
		b.WriteString(p.text)
		b.WriteByte('\n')
	}
	return b.String()
}

func (r *reasonItem) layout(w int) []line {
	label, st := "agent", stAgent
	if r.actor == engine.ActorHuman {
		label, st = "human", stHuman
	}
	out := []line{mkLine(seg{fmt.Sprintf("Turn %d", r.turn), stEpisode}, seg{" · ", stMeta}, seg{label, st})}
	for _, p := range r.parts {
		switch p.kind {
		case rkThinking:
			out = append(out, wrap(p.text, w, stThinking, "  ┊ ")...)
		case rkStream:
			// Only the reply's memory and reasoning, as they stream; never
			// its raw JSON. The memory (the last turn's, when the agent
			// answers its question) comes first in the reply.
			if m := streamedField(p.text, "memory_text"); m != "" {
				out = append(out, wrap("remembering: "+m, w, stMeta, "  ✎ ")...)
			}
			if r := streamedReasoning(p.text); r != "" {
				out = append(out, wrap(r, w, stThinking, "  ")...)
			}
		case rkReasoning:
			out = append(out, wrap(p.text, w, stReasoning, "  ")...)
		case rkProposal:
			out = append(out, mkLine(seg{fmt.Sprintf("  → proposal %d: ", p.attempt), stMeta}, seg{p.text, stProposal}))
		case rkVerdict:
			s := stRejected
			if p.ok {
				s = stAccepted
			}
			out = append(out, wrap(p.text, w, s, "  ")...)
		case rkPlayed:
			out = append(out, playedLines(p.text, w)...)
		case rkError:
			out = append(out, wrap(p.text, w, stError, "  ")...)
		case rkSupervisor:
			// Written by a model: Markdown, in the info colour.
			pal := r.c.theme.Palette
			pal.Text = pal.Info
			out = append(out, r.c.md.feed(p.text, mdAt{w, pal})...)
		case rkCancelled:
			out = append(out, wrap(p.text, w, stWarning, "  ")...)
		}
	}
	return append(out, line{})
}

// reasoningPane streams the agent's reasoning and thinking as they arrive,
// and shows the critic's verdicts.
type reasoningPane struct {
	c      *common
	feed   *feed
	cur    *reasonItem
	legend bool // the supervisor's gauges were explained
	gen    int  // the style generation the feed was laid out in
}

func newReasoning(c *common) *reasoningPane {
	return &reasoningPane{c: c, feed: newFeed(maxReasoningTurns)}
}

func (p *reasoningPane) setSize(w, h int) { p.feed.setSize(w, h) }

func (p *reasoningPane) view() []string {
	if p.gen != p.c.gen {
		// Markdown is laid out in the theme's colours: again after a change.
		p.gen = p.c.gen
		p.feed.invalidate()
	}
	return p.feed.render(p.c, "")
}

func (p *reasoningPane) info() string {
	if !p.feed.atBottom() {
		return fmt.Sprintf("%d lines below · End follows", p.feed.offset)
	}
	return ""
}

func (p *reasoningPane) scroll(n int) { p.feed.scroll(n) }

// cutFrom drops the turns' blocks from sequence seq on (a rewound
// episode's); the next turn starts a block of its own.
func (p *reasoningPane) cutFrom(seq int) {
	p.feed.cutFrom(seq)
	p.cur = nil
}

// block returns the turn's block, starting one when needed.
func (p *reasoningPane) block(turn int, actor engine.Actor) *reasonItem {
	if p.cur == nil || p.cur.turn != turn {
		p.cur = &reasonItem{turn: turn, actor: actor, c: p.c}
		p.feed.add(p.cur)
	}
	return p.cur
}

func (p *reasoningPane) add(turn int, part rpart) {
	b := p.block(turn, engine.ActorAgent)
	b.parts = append(b.parts, part)
	p.touch(b)
}

// touch re-lays the block out when it is the newest one.
func (p *reasoningPane) touch(b *reasonItem) {
	if p.feed.last() == item(b) {
		p.feed.touchLast()
	}
}

// bindings: the Reasoning pane has no keys of its own (it scrolls).
func (p *reasoningPane) bindings() []binding { return nil }

// hints are the Reasoning pane's footer: the game's keys, scrolling, the
// pane key.
func (p *reasoningPane) hints(g gameKeys) []binding {
	return append(append([]binding(nil), g.game...), g.arrows, g.next)
}

// started opens a turn's block.
func (p *reasoningPane) started(turn int, actor engine.Actor) {
	p.block(turn, actor)
}

func (p *reasoningPane) delta(ev engine.ReasoningDelta) {
	b := p.block(ev.Turn, engine.ActorAgent)
	kind := rkStream
	if ev.Thinking {
		kind = rkThinking
	}
	if n := len(b.parts); n > 0 && b.parts[n-1].kind == kind {
		t := b.parts[n-1].text + ev.Text
		if len(t) > maxStreamText {
			t = "…" + t[len(t)-maxStreamText:]
		}
		b.parts[n-1].text = t
	} else {
		b.parts = append(b.parts, rpart{kind: kind, text: ev.Text})
	}
	p.touch(b)
}

// proposal replaces the raw streamed reply with the parsed reasoning.
func (p *reasoningPane) proposal(turn int, pr proposed) {
	b := p.block(turn, engine.ActorAgent)
	kept := b.parts[:0]
	hadThinking := false
	for _, pt := range b.parts {
		if pt.kind == rkStream {
			continue
		}
		hadThinking = hadThinking || pt.kind == rkThinking
		kept = append(kept, pt)
	}
	b.parts = kept
	if !hadThinking && strings.TrimSpace(pr.thinking) != "" {
		b.parts = append(b.parts, rpart{kind: rkThinking, text: strings.TrimSpace(pr.thinking)})
	}
	if r := strings.TrimSpace(pr.reasoning); r != "" && !repeats(pr.thinking, r) {
		b.parts = append(b.parts, rpart{kind: rkReasoning, text: r})
	}
	// Proposals are numbered across the turn: a retry after the person's
	// rejection goes on counting.
	n := 1
	for _, pt := range b.parts {
		if pt.kind == rkProposal {
			n++
		}
	}
	b.parts = append(b.parts, rpart{kind: rkProposal, attempt: n, text: oneLine(pr.action)})
	p.touch(b)
}

// proposed is an action the agent proposed, with why.
type proposed struct{ action, reasoning, thinking string }

// verdict shows the critic's verdict on a proposal.
func (p *reasoningPane) verdict(turn int, v engine.Verdict) {
	mark := "✗ rejected"
	if v.Accepted {
		mark = "✓ accepted"
	}
	text := fmt.Sprintf("%s by the critic (%s, %+.1f)", mark, v.Stage, v.Score)
	if j := oneLine(v.Justification); j != "" {
		text += ": " + j
	}
	p.add(turn, rpart{kind: rkVerdict, text: text, ok: v.Accepted})
}

// played ends a turn's block with what was played.
func (p *reasoningPane) played(t shownTurn) {
	if t.turn == 0 {
		return
	}
	b := p.block(t.turn, t.actor)
	b.actor = t.actor
	text := oneLine(t.action)
	if t := engine.Tally(t.verdicts); t.Proposals > 1 || t.Overridden > 0 {
		text += fmt.Sprintf("  (critic: %d proposals, %d rejected by ground truth, %d by the model, %d overridden)",
			t.Proposals, t.Rejected[engine.StageGroundTruth], t.Rejected[engine.StageModel]+t.Rejected[engine.StageInsist], t.Overridden)
	}
	b.parts = append(b.parts, rpart{kind: rkPlayed, text: text})
	p.touch(b)
}

// gaugeLegend explains the supervisor's gauges on the status bar.
const gaugeLegend = "The supervisor's gauges (status bar, -1 to +1): trust: the agent's claims match the game; " +
	"work: progress (score, new rooms, objectives met); comfort: the agent follows your commands rather than undoing them."

// supervised shows the supervisor's feedback (what the agent reads next).
func (p *reasoningPane) supervised(ev engine.SupervisorChanged) {
	if strings.TrimSpace(ev.Feedback) == "" && len(ev.Contradicted) == 0 {
		return
	}
	head := fmt.Sprintf("supervisor (round %d", ev.Round)
	if ev.Mood != "" {
		head += ", " + oneLine(ev.Mood)
	}
	text := supervisorMarkdown(head+"):", ev.Feedback, ev.Contradicted)
	p.add(ev.Turn, rpart{kind: rkSupervisor, text: text})
	if !p.legend {
		// The status bar's gauges, explained the first time they move.
		p.legend = true
		p.add(ev.Turn, rpart{kind: rkSupervisor, text: gaugeLegend})
	}
}

// cancelled marks the turn in flight as cancelled by the person: what
// streamed of it stays, cut where the call was.
func (p *reasoningPane) cancelled() {
	if p.cur == nil {
		return
	}
	p.cur.parts = append(p.cur.parts, rpart{kind: rkCancelled, text: "— cancelled (esc esc): the model call was stopped here; the turn was not played"})
	p.touch(p.cur)
}

func (p *reasoningPane) failed(turn int, msg string) {
	if turn <= 0 && p.cur != nil {
		turn = p.cur.turn
	}
	p.add(turn, rpart{kind: rkError, text: oneLine(msg)})
}

// playedLines is what was played, with the critic's account when the
// agent proposed more than once: on one line when it fits, else wrapped
// under the command (never cut).
func playedLines(text string, w int) []line {
	const head = "  ⇒ played: "
	hw := ansi.StringWidth(head)
	if hw+ansi.StringWidth(text) <= w || w-hw < 8 {
		return []line{mkLine(seg{head, stMeta}, seg{text, stCommand})}
	}
	ls := wrap(text, w-hw, stCommand, "")
	out := make([]line, 0, len(ls))
	for i, l := range ls {
		pre := strings.Repeat(" ", hw)
		if i == 0 {
			pre = head
		}
		out = append(out, line{segs: append([]seg{{pre, stMeta}}, l.segs...), width: hw + l.width})
	}
	return out
}

// repeats reports whether the reasoning only repeats the thinking (a
// thinking model's reasoning is its thinking on one line, maybe clipped).
func repeats(thinking, reasoning string) bool {
	t, r := oneLine(thinking), strings.TrimSuffix(oneLine(reasoning), "…")
	return t != "" && r != "" && strings.HasPrefix(t, r)
}

// streamedReasoning is the "reasoning" field's text of a JSON reply still
// streaming ("" until the field starts): the person reads the agent's
// reasons as they come, not the reply's syntax.
func streamedReasoning(raw string) string { return streamedField(raw, "reasoning") }

// streamedField is a string field's text in a JSON reply still streaming
// ("" until the field starts).
func streamedField(raw, key string) string {
	k := `"` + key + `"`
	i := strings.Index(raw, k)
	if i < 0 {
		return ""
	}
	rest := strings.TrimLeft(raw[i+len(k):], " \t\r\n")
	if !strings.HasPrefix(rest, ":") {
		return ""
	}
	rest = strings.TrimLeft(rest[1:], " \t\r\n")
	if !strings.HasPrefix(rest, `"`) {
		return ""
	}
	var b strings.Builder
	rs := []rune(rest[1:])
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '"':
			return b.String()
		case r != '\\':
			b.WriteRune(r)
		case i+1 < len(rs):
			i++
			switch rs[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte(' ')
			case 'u':
				if i+4 < len(rs) {
					if v, err := strconv.ParseUint(string(rs[i+1:i+5]), 16, 32); err == nil {
						b.WriteRune(rune(v))
					}
				}
				i += 4 // a \uXXXX still streaming is left out
			default:
				b.WriteRune(rs[i])
			}
		}
	}
	return b.String()
}
