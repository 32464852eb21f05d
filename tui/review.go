package tui

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	bt "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
)

// Review mode: the person is the last critic. The engine sends each
// proposal that the critic let through as a ReviewRequested and waits; the
// footer shows it with its keys: enter plays it, e edits it (the input
// opens with the proposal), x rejects it with a reason, r rejects it and
// remembers the reason at this location. v switches review mode on and off.

// reviewTickMsg counts down an auto-accept.
type reviewTickMsg struct{ id int }

func reviewTick(id int) bt.Cmd {
	return bt.Tick(time.Second, func(time.Time) bt.Msg { return reviewTickMsg{id: id} })
}

// toggleReview switches review mode.
func (m *Model) toggleReview() bt.Cmd {
	on := !m.reviewOn
	m.reviewOn = on
	word := "review mode off: the agent's moves are played as the critic allows"
	if on {
		word = "review mode on: each proposal waits for you (enter play · e edit · x reject · r reject and remember)"
	}
	return bt.Batch(m.send(engine.SetReview{On: on, AutoAccept: m.opts.AutoAccept}), m.setFlash(word, false))
}

// reviewRequested shows a proposal waiting for the person.
func (m *Model) reviewRequested(ev engine.ReviewRequested) bt.Cmd {
	m.pending = &ev
	m.reviewOn = true
	m.thinking = false
	m.reasoning.add(ev.Turn, rpart{kind: rkVerdict, text: fmt.Sprintf("waiting for you: %q (enter play · e edit · x reject · r reject and remember)", ev.Action), ok: true})
	if !ev.Deadline.IsZero() {
		m.reviewTickID++
		return reviewTick(m.reviewTickID)
	}
	return nil
}

// reviewKey handles the keys of a proposal waiting for the person; ok is
// false for keys that are not review keys (they act as usual).
func (m *Model) reviewKey(k bt.KeyPressMsg) (bt.Cmd, bool) {
	p := m.pending
	d := &reviewPrompt{m: m, ti: m.newInput("edit › ", "")}
	switch k.String() {
	case "enter", "y":
		m.pending = nil
		m.reasoning.add(p.Turn, rpart{kind: rkVerdict, text: reviewText(engine.DecisionAccept, p.Action, "", "", false), ok: true})
		return bt.Batch(m.send(engine.ReviewDecision{Decision: engine.DecisionAccept}), m.setFlash(fmt.Sprintf("accepted %q", p.Action), false)), true
	case "e":
		d.op = engine.DecisionEdit
		d.ti.SetValue(p.Action)
		d.ti.CursorEnd()
	case "x", "r":
		d.op = engine.DecisionReject
		d.remember = k.String() == "r"
		d.ti.Prompt = "why not? › "
		if d.remember {
			d.ti.Prompt = "why not? (remembered here) › "
		}
	default:
		return nil, false
	}
	m.open(d)
	return d.ti.Focus(), true
}

// reviewText is a decision of the person's as the Reasoning pane shows
// it, live and in a replay.
func reviewText(d engine.Decision, proposal, command, reason string, remembered bool) string {
	var text string
	switch d {
	case engine.DecisionAccept:
		text = fmt.Sprintf("✓ accepted by you: %q", proposal)
	case engine.DecisionEdit:
		text = fmt.Sprintf("✎ edited by you: %q → %q", proposal, command)
	default:
		text = fmt.Sprintf("✗ rejected by you: %q", proposal)
		if reason != "" {
			text += ": " + reason
		}
	}
	if remembered {
		text += " (remembered)"
	}
	return text
}

// update types the edited command or the rejection's reason.
func (d *reviewPrompt) update(msg bt.Msg) (dialog, bt.Cmd) {
	m := d.m
	k, ok := msg.(bt.KeyPressMsg)
	if !ok {
		var cmd bt.Cmd
		d.ti, cmd = d.ti.Update(msg)
		return d, cmd
	}
	switch k.String() {
	case "esc":
		return nil, m.setFlash("back to the proposal: enter play · e edit · x reject · r reject and remember", false)
	case "enter":
		text := oneLine(d.ti.Value())
		if d.op == engine.DecisionEdit && text == "" {
			return d, m.setFlash("type the command to play instead, or esc", true)
		}
		p := m.pending
		if p == nil {
			return nil, m.setFlash("the proposal is no longer waiting", true)
		}
		m.pending = nil
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
		m.reasoning.add(p.Turn, rpart{kind: rkVerdict, text: reviewText(d.op, p.Action, dec.Command, dec.Reason, d.remember), ok: d.op != engine.DecisionReject})
		m.transcript.feed.toBottom()
		return nil, bt.Batch(m.send(dec), m.setFlash(word, false))
	}
	var cmd bt.Cmd
	d.ti, cmd = d.ti.Update(k)
	return d, cmd
}

// reviewLine is the footer while a proposal waits for the person.
func (m *Model) reviewLine(w int) string {
	s := m.c.styles
	p := m.pending
	msg := fmt.Sprintf(" T%d: %q", p.Turn, p.Action)
	if p.Verdict.Stage != "" {
		msg += fmt.Sprintf(" (critic %s %+.1f)", p.Verdict.Stage, p.Verdict.Score)
	}
	if !p.Deadline.IsZero() {
		msg += fmt.Sprintf(" · auto in %ds", max(int(time.Until(p.Deadline).Round(time.Second).Seconds()), 0))
	}
	keys := m.c.help.ShortHelpView(reviewKeys())
	return m.withHelpKey(s.Notice.Render(msg)+"  "+keys, w)
}

// reviewKeys are the review's keys for the footer and the help.
func reviewKeys() []key.Binding {
	lit := func(keys, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, desc))
	}
	return []key.Binding{lit("enter", "play"), lit("e", "edit"), lit("x", "reject"), lit("r", "reject+remember")}
}
