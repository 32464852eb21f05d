package memsynth

import (
	"context"
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/sanitize"
)

// Memory synthesis in the agent's own call. With one server slot a separate
// memory call is a second full reply the person waits for on every turn that
// triggers it; instead the agent's next request carries the question (the
// turn that triggered, the recent turns, the memories kept where its action
// was taken) and its reply answers it in a memory field beside the command.
// The answer is stored exactly as the memory role's would be, with the
// decision's own reasoning (the note's why), never the agent's reasoning
// for its next command. A turn whose question no agent reply answers (the
// person plays the next turn, the episode ends, the call fails) gets the
// memory role's own call, with the memory role's settings.

// Note is the memory part of the agent's reply: the memory role's answer,
// its reasoning kept to a sentence (why) so the reply stays short.
type Note struct {
	Why                    string   `json:"why" maxLength:"160" desc:"why this is or is not worth keeping, in one sentence"`
	ShouldRemember         bool     `json:"should_remember" desc:"true when the last turn taught something worth keeping"`
	Category               string   `json:"category" enum:"SUCCESS,FAILURE,DISCOVERY,DANGER,NOTE"`
	MemoryTitle            string   `json:"memory_title" maxLength:"80"`
	MemoryText             string   `json:"memory_text" maxLength:"400"`
	Status                 string   `json:"status" enum:"ACTIVE,TENTATIVE"`
	Persistence            string   `json:"persistence" enum:"PERMANENT,CORE,EPHEMERAL" optional:"true"`
	FirstTurn              int      `json:"first_turn" minimum:"0" maximum:"1000000" optional:"true"`
	SupersedesMemoryTitles []string `json:"supersedes_memory_titles" maxItems:"3" maxLength:"80"`
}

// NoReason is the reasoning recorded for a note that gave none: the
// decision's record says so rather than borrow another text.
const NoReason = "(the answer gave no reason)"

// reply is the note as the memory role's answer, its why the reasoning.
func (n Note) reply() Reply {
	why := strings.TrimSpace(n.Why)
	if why == "" {
		why = NoReason
	}
	return Reply{ShouldRemember: n.ShouldRemember, Category: n.Category, MemoryTitle: n.MemoryTitle, MemoryText: n.MemoryText,
		Status: n.Status, Persistence: n.Persistence, FirstTurn: n.FirstTurn, SupersedesMemoryTitles: n.SupersedesMemoryTitles,
		Reasoning: sanitize.ClipRunes(why, 300)}
}

// Why lists why the turn deserves a memory under the synthesizer's
// triggers; none means it does not.
func (s *Synthesizer) Why(t domain.Turn) []string { return s.triggers.Why(t) }

// CanAskAgent reports whether the agent's call may answer the memory
// question: there is a model, and the memory role runs on the agent's
// (a memory role set to another model keeps its own calls).
func (s *Synthesizer) CanAskAgent() bool { return s.client != nil && s.onAgentModel() }

// QuestionHeader opens the memory question in the agent's prompt.
const QuestionHeader = "## Memory of your last turn"

// Question is the memory question for the agent's next request: the turn
// that triggered, the turns before it in the memory history window, the
// design's guidance on procedures and later consequences, and the memories
// already kept where its action was taken. The agent's prompt holds the
// game's response, so the question does not repeat it. recent are the
// turns before t, oldest first (the engine's history: the synthesizer's own
// may lag behind the back office); the window keeps the last of them. It
// reads only the memory store (safe beside the back office's work).
func (s *Synthesizer) Question(t domain.Turn, why []string, recent []Step) string {
	var b strings.Builder
	b.WriteString(QuestionHeader + "\n")
	fmt.Fprintf(&b, "Before you choose, decide in the memory field whether the last turn taught something worth keeping at L%d %s, where its action was taken; say why in a sentence.\n", t.FromID, t.FromName)
	fmt.Fprintf(&b, "Turn %d, %s: %s. What changed: %s.\n", t.Turn, t.Actor, t.Action, strings.Join(why, ", "))
	if t.ToID != t.FromID && t.ToID != 0 {
		fmt.Fprintf(&b, "Now at: L%d %s\n", t.ToID, t.ToName)
	}
	fmt.Fprintf(&b, "Score %d → %d. Inventory: %s → %s.\n", t.ScoreBefore, t.ScoreAfter, list(t.InvBefore), list(t.InvAfter))
	s.listRecent(&b, recent)
	b.WriteString(categoryGuide + "\n" + statusGuide + "\n" + levelGuide + "\n" + stepsGuide + "\n" + spanGuide + "\n")
	b.WriteString("Supersede an earlier memory by its exact title when this corrects it; do not repeat one that says the same.\n")
	b.WriteString("Memories already kept there:\n")
	s.listKept(&b, t.FromID, t.Episode)
	return b.String()
}

// Answer stores the agent's answer to the turn's memory question, as
// ProcessTurnAfter stores the memory role's, and records the decision
// with the note's own reasoning. Like ProcessTurnAfter it adds the turn to
// the history.
func (s *Synthesizer) Answer(ctx context.Context, t domain.Turn, n Note) (Result, error) {
	defer s.remember(t)
	rep := n.reply()
	res, err := s.store1(t, rep)
	s.decided(ctx, t, append(s.Why(t), AnsweredInReply), rep, outcome(rep, res, err))
	return res, err
}

// Unanswered records a turn's memory question that no one answered (the
// line of play was left): no memory, no model call, the reason kept.
func (s *Synthesizer) Unanswered(ctx context.Context, t domain.Turn, why string) {
	s.decided(ctx, t, s.Why(t), Reply{Reasoning: why}, Unanswered+": "+why)
}

// How a decision record says who answered: AnsweredInReply among its
// triggers (the agent's reply), an outcome that starts with Unanswered
// (nobody: the line was left); otherwise the memory role's own call.
const (
	AnsweredInReply = "answered in the " + config.RoleAgent + "'s reply"
	Unanswered      = "unanswered"
)
