package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory/rundb"
)

// Review mode: the person is the last critic. The engine sends each
// proposal that the critic let through as a ReviewRequested and waits; the
// footer shows it with its keys: enter plays it, e edits it (the input
// opens with the proposal), x rejects it with a reason, r rejects it and
// remembers the reason at this location. v switches review mode on and off.

// reviewer is review mode's component: whether it is on, the proposal
// waiting for the person, its keys and its footer.
type reviewer struct {
	c          *common
	h          host
	ft         *footer
	panes      *paneSet
	on         bool
	pending    *engine.ReviewRequested
	tickID     int
	autoAccept time.Duration
}

// reviewTickMsg counts down an auto-accept.
type reviewTickMsg struct{ id int }

func reviewTick(id int) tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return reviewTickMsg{id: id} })
}

// ticked redraws the footer's countdown every second.
func (r *reviewer) ticked(msg reviewTickMsg) tea.Cmd {
	if msg.id == r.tickID && r.pending != nil && !r.pending.Deadline.IsZero() {
		return reviewTick(msg.id)
	}
	return nil
}

// toggle switches review mode.
func (r *reviewer) toggle() tea.Cmd {
	r.on = !r.on
	word := "review mode off: the agent's moves are played as the critic allows"
	if r.on {
		word = "review mode on: each proposal waits for you (enter play · e edit · x reject · r reject and remember)"
	}
	return tea.Batch(r.h.send(engine.SetReview{On: r.on, AutoAccept: r.autoAccept}), r.ft.set(word, false))
}

// requested shows a proposal waiting for the person.
func (r *reviewer) requested(ev engine.ReviewRequested) tea.Cmd {
	r.pending = &ev
	r.on = true
	r.panes.reasoning.add(ev.Turn, rpart{kind: rkVerdict, text: fmt.Sprintf("waiting for you: %q (%s)", ev.Action, rowText(r.bindings())), ok: true})
	if !ev.Deadline.IsZero() {
		r.tickID++
		return reviewTick(r.tickID)
	}
	return nil
}

// bindings are the keys of a proposal waiting for the person; the other
// keys act as usual.
func (r *reviewer) bindings() []binding {
	k := r.c.keys
	return []binding{
		{key: described(k.Accept, "play the proposal"), short: "play", row: "play", run: act(r.accept)},
		bind(keyOf("y", "play the proposal"), "", act(r.accept)),
		{key: described(k.Edit, "edit it, then "+k.Accept.Help().Key+" plays your command (recorded as human-edited)"), short: "edit", row: "edit",
			run: func(tea.KeyPressMsg) tea.Cmd { return r.ask(engine.DecisionEdit, false) }},
		{key: keyOf("x", "reject it with a reason: the agent proposes again with your reason"), short: "reject", row: "reject",
			run: func(tea.KeyPressMsg) tea.Cmd { return r.ask(engine.DecisionReject, false) }},
		{key: keyOf("r", "reject it and remember the reason here (a memory)"), short: "reject+remember", row: "reject and remember",
			run: func(tea.KeyPressMsg) tea.Cmd { return r.ask(engine.DecisionReject, true) }},
	}
}

// accept plays the proposal.
func (r *reviewer) accept() tea.Cmd {
	p := r.pending
	r.pending = nil
	r.decided(p.Turn, rundb.Review{Proposal: p.Action, Decision: string(engine.DecisionAccept)})
	return tea.Batch(r.h.send(engine.ReviewDecision{Decision: engine.DecisionAccept}), r.ft.set(fmt.Sprintf("accepted %q", p.Action), false))
}

// ask opens the line for the edited command or the reason.
func (r *reviewer) ask(op engine.Decision, remember bool) tea.Cmd {
	d := &reviewPrompt{r: r, ti: r.c.newInput("edit › ", ""), op: op, remember: remember}
	switch {
	case op == engine.DecisionEdit:
		d.ti.SetValue(r.pending.Action)
		d.ti.CursorEnd()
	case remember:
		d.ti.Prompt = "why not? (remembered here) › "
	default:
		d.ti.Prompt = "why not? › "
	}
	r.h.open(d)
	return d.ti.Focus()
}

// decided shows the person's decision in the Reasoning pane.
func (r *reviewer) decided(turn int, rv rundb.Review) {
	r.panes.reasoning.add(turn, rpart{kind: rkVerdict, text: reviewLine(rv), ok: rv.Decision != string(engine.DecisionReject)})
}

// reviewLine is a decision of the person's as the Reasoning pane shows it,
// live and in a replay: a mark and who decided, then the decision as
// lantern.db's reviews write it (rundb.Review.Text).
func reviewLine(rv rundb.Review) string {
	head := "✗ rejected"
	switch engine.Decision(rv.Decision) {
	case engine.DecisionAccept:
		head = "✓ accepted"
	case engine.DecisionEdit:
		head = "✎ edited"
	}
	return head + " by you: " + strings.TrimPrefix(rv.Text(), rv.Decision+" ")
}

// update types the edited command or the rejection's reason.
func (d *reviewPrompt) update(msg tea.Msg) (dialog, tea.Cmd) {
	return typedInto(d, &d.closed, msg, &d.ti)
}

// send sends the person's decision.
func (d *reviewPrompt) send() tea.Cmd {
	r := d.r
	text := oneLine(d.ti.Value())
	if d.op == engine.DecisionEdit && text == "" {
		return r.ft.set("type the command to play instead, or "+r.c.keys.Back.Help().Key, true)
	}
	d.closed = true
	p := r.pending
	if p == nil {
		return r.ft.set("the proposal is no longer waiting", true)
	}
	r.pending = nil
	dec := engine.ReviewDecision{Decision: d.op, Command: text, Reason: text, Remember: d.remember}
	word := fmt.Sprintf("playing %q instead of %q", text, p.Action)
	if d.op == engine.DecisionReject {
		dec.Command = ""
		word = fmt.Sprintf("rejected %q; the agent proposes again", p.Action)
		if d.remember {
			word += " (the reason is remembered here)"
		}
	} else {
		dec.Reason = ""
	}
	r.decided(p.Turn, rundb.Review{Proposal: p.Action, Decision: string(d.op), Command: dec.Command, Reason: dec.Reason, Remembered: d.remember})
	r.panes.transcript.feed.toBottom()
	return tea.Batch(r.h.send(dec), r.ft.set(word, false))
}

// line is the footer while a proposal waits for the person.
func (r *reviewer) line(w int) string {
	s := r.c.styles
	p := r.pending
	msg := fmt.Sprintf(" T%d: %q", p.Turn, p.Action)
	if p.Verdict.Stage != "" {
		msg += fmt.Sprintf(" (critic %s %+.1f)", p.Verdict.Stage, p.Verdict.Score)
	}
	if !p.Deadline.IsZero() {
		msg += fmt.Sprintf(" · auto in %ds", max(int(time.Until(p.Deadline).Round(time.Second).Seconds()), 0))
	}
	keys := r.c.help.ShortHelpView(hints(r.bindings()))
	return r.ft.withTail(s.Notice.Render(msg)+"  "+keys, w, r.ft.tail())
}
