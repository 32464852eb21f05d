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
	switch k.String() {
	case "enter", "y":
		m.pending = nil
		return bt.Batch(m.send(engine.ReviewDecision{Decision: engine.DecisionAccept}), m.setFlash(fmt.Sprintf("accepted %q", p.Action), false)), true
	case "e":
		m.reviewOp = engine.DecisionEdit
		m.reviewRemember = false
		m.reviewInput.Prompt = "edit › "
		m.reviewInput.SetValue(p.Action)
		m.reviewInput.CursorEnd()
	case "x", "r":
		m.reviewOp = engine.DecisionReject
		m.reviewRemember = k.String() == "r"
		m.reviewInput.Prompt = "why not? › "
		if m.reviewRemember {
			m.reviewInput.Prompt = "why not? (remembered here) › "
		}
		m.reviewInput.Reset()
	default:
		return nil, false
	}
	m.state = stReviewInput
	return m.reviewInput.Focus(), true
}

// reviewInputKey types the edited command or the rejection's reason.
func (m *Model) reviewInputKey(k bt.KeyPressMsg) bt.Cmd {
	switch k.String() {
	case "esc":
		m.state = stNormal
		m.reviewInput.Blur()
		return m.setFlash("back to the proposal: enter play · e edit · x reject · r reject and remember", false)
	case "enter":
		text := oneLine(m.reviewInput.Value())
		if m.reviewOp == engine.DecisionEdit && text == "" {
			return m.setFlash("type the command to play instead, or esc", true)
		}
		p := m.pending
		m.state, m.pending = stNormal, nil
		m.reviewInput.Blur()
		d := engine.ReviewDecision{Decision: m.reviewOp, Command: text, Reason: text, Remember: m.reviewRemember}
		word := fmt.Sprintf("playing %q instead of %q", text, p.Action)
		if m.reviewOp == engine.DecisionReject {
			d.Command = ""
			word = fmt.Sprintf("rejected %q; the agent proposes again", p.Action)
			if m.reviewRemember {
				word += " (the reason is remembered here)"
			}
		} else {
			d.Reason = ""
		}
		m.transcript.feed.toBottom()
		return bt.Batch(m.send(d), m.setFlash(word, false))
	}
	var cmd bt.Cmd
	m.reviewInput, cmd = m.reviewInput.Update(k)
	return cmd
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
