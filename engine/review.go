package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/sanitize"
)

// Review mode puts the person in the critic's chair: after the critic, the
// agent's proposal waits for the person, who accepts it, edits it (played
// as ActorHumanEdited, the proposal kept) or rejects it with a reason. A
// rejection plays nothing: the agent proposes again for the same turn with
// the reason in its prompt, and the reason stays in its prompt for the rest
// of the episode (the last few, like the supervisor's coaching); when the
// person asks, it is also written to Memories.md at that location.

// MaxPersonFeedback is how many of the person's rejection reasons the
// agent's prompt keeps (the newest).
const MaxPersonFeedback = 5

// SetReview turns review mode on or off. AutoAccept, when above zero,
// accepts a proposal the person has not decided on within that time.
type SetReview struct {
	On         bool
	AutoAccept time.Duration
}

// ReviewDecision answers a ReviewRequested. Command is the edited command
// (DecisionEdit); Reason the rejection's reason (DecisionReject), which
// Remember also writes to Memories.md as a memory of Category (FAILURE by
// default, or NOTE), marked as the person's.
type ReviewDecision struct {
	Decision Decision
	Command  string
	Reason   string
	Remember bool
	Category memory.Category
}

func (SetReview) isCommand()      {}
func (ReviewDecision) isCommand() {}

// ParseDecision reads a decision typed as one line: "y" (accept), "e
// COMMAND" (edit), "n REASON" (reject), "n! REASON" (reject and remember).
func ParseDecision(line string) (ReviewDecision, error) {
	line = strings.TrimSpace(line)
	verb, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(verb) {
	case "y", "yes", "a", "accept", "":
		return ReviewDecision{Decision: DecisionAccept}, nil
	case "e", "edit":
		if env.Sanitize(rest) == "" {
			return ReviewDecision{}, fmt.Errorf("review: %q: an edit needs the command to play", line)
		}
		return ReviewDecision{Decision: DecisionEdit, Command: rest}, nil
	case "n", "no", "r", "reject":
		return ReviewDecision{Decision: DecisionReject, Reason: rest}, nil
	case "n!", "no!", "r!", "reject!":
		return ReviewDecision{Decision: DecisionReject, Reason: rest, Remember: true}, nil
	}
	return ReviewDecision{}, fmt.Errorf("review: %q: want y, e COMMAND, n REASON or n! REASON", line)
}

// review waits for the person's decision on a proposal, obeying every
// other command meanwhile. abandoned reports a command that drops the turn
// (cancel, quit, ending the episode).
func (e *Engine) review(ctx context.Context, turn, attempt int, p Proposal, v Verdict) (d ReviewDecision, auto, abandoned bool) {
	ev := ReviewRequested{Turn: turn, Attempt: attempt, Action: p.Action, Reasoning: p.Reasoning, Verdict: v}
	var timeout <-chan time.Time
	if e.autoAccept > 0 {
		ev.Deadline = time.Now().Add(e.autoAccept)
		t := time.NewTimer(e.autoAccept)
		defer t.Stop()
		timeout = t.C
	}
	// The person decides having seen where the last turn led, its
	// memories and plans included.
	e.settle(ctx)
	e.emit(ctx, ev)
	for {
		select {
		case <-e.ready():
			e.takeSettled(ctx)
		case c := <-e.cmds:
			switch c := c.(type) {
			case ReviewDecision:
				return c, false, false
			case SetReview:
				e.apply(ctx, c)
				if !e.reviewing {
					return ReviewDecision{Decision: DecisionAccept}, true, false
				}
			default:
				if e.apply(ctx, c) {
					return ReviewDecision{}, false, true
				}
			}
		case <-timeout:
			return ReviewDecision{Decision: DecisionAccept}, true, false
		case <-ctx.Done():
			return ReviewDecision{}, false, true
		}
	}
}

// reviewed puts a proposal the critic let through before the person and
// acts on the decision: accept or edit plays the turn; a rejection is kept
// with the turn and again reports that the agent must propose anew.
func (e *Engine) reviewed(ctx context.Context, t *turn, attempt int, p Proposal, v Verdict) (again bool, err error) {
	d, auto, abandoned := e.review(ctx, t.number, attempt, p, v)
	if abandoned {
		return false, nil
	}
	r := Review{Proposal: p.Action, Decision: d.Decision, Auto: auto}
	switch d.Decision {
	case DecisionEdit:
		r.Command = env.Sanitize(d.Command)
		t.reviews = append(t.reviews, r)
		return false, e.play(ctx, t.choose(ActorHumanEdited, r.Command, p))
	case DecisionReject:
		r.Reason, r.Remembered = strings.TrimSpace(d.Reason), d.Remember
		t.reviews = append(t.reviews, r)
		e.personRejected(ctx, t.number, p, d)
		return true, nil
	}
	t.reviews = append(t.reviews, r)
	return false, e.play(ctx, t.choose(ActorAgent, p.Action, p))
}

// personRejected keeps a rejection's reason for the agent's prompts and,
// when asked, writes it to Memories.md at the location, stamped with the
// turn it was given in.
func (e *Engine) personRejected(ctx context.Context, turn int, p Proposal, d ReviewDecision) {
	reason := strings.TrimSpace(d.Reason)
	if reason == "" {
		reason = "no reason given"
	}
	e.st.PersonFeedback = append(e.st.PersonFeedback, fmt.Sprintf("T%d: not %q: %s", turn, p.Action, reason))
	if n := len(e.st.PersonFeedback); n > MaxPersonFeedback {
		e.st.PersonFeedback = e.st.PersonFeedback[n-MaxPersonFeedback:]
	}
	if !d.Remember {
		return
	}
	cat := memory.CategoryFailure
	if d.Category == memory.CategoryNote {
		cat = memory.CategoryNote
	}
	loc := e.st.Obs.Location
	e.editAt(ctx, MemoryEdit{Op: MemoryAdd, Location: loc.ID, Category: cat,
		NewTitle: sanitize.ClipRunes("The person: "+reason, 80),
		Text:     fmt.Sprintf("The person rejected %q here: %s", p.Action, reason)}, turn)
}
