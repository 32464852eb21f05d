package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/memsynth"
	"github.com/lantern-if/lantern/sanitize"
)

// Proposal is what the agent wants to do, with its reasons.
type Proposal struct {
	Reasoning          string `json:"reasoning" maxLength:"600" desc:"brief reasoning"`
	Action             string `json:"action" maxLength:"80" desc:"one command for the game"`
	Remember           string `json:"remember" maxLength:"200" desc:"a fact worth keeping, or empty"`
	RememberImportance int    `json:"remember_importance" minimum:"0" maximum:"1000"`
	Thinking           string `json:"-"`
}

// thinkingProposal is the reply asked of a model that thinks first: its
// reasoning is the thinking stream, so the JSON does not repeat it.
type thinkingProposal struct {
	Action             string `json:"action" maxLength:"80" desc:"one command for the game"`
	Remember           string `json:"remember" maxLength:"200" desc:"a fact worth keeping, or empty"`
	RememberImportance int    `json:"remember_importance" minimum:"0" maximum:"1000"`
}

// proposal is the reply as a Proposal (its reasoning still to come from
// the thinking).
func (t thinkingProposal) proposal() Proposal {
	return Proposal{Action: t.Action, Remember: t.Remember, RememberImportance: t.RememberImportance}
}

// Agent proposes actions.
type Agent interface {
	// Propose chooses the next action; rejected lists the actions the critic
	// turned down this turn, with its reasons.
	Propose(ctx context.Context, prompt []llm.Message, rejected []string, turn int, onDelta func(llm.Delta)) (Proposal, error)
	// Scripted reports whether the actions come from a plan (the critic is
	// then advisory only).
	Scripted() bool
}

// ResearchPrompt opens the research phase: the tools the memory-tool plan
// has the agent call before every decision (Ollama cannot force a tool
// call, so it is asked for).
const ResearchPrompt = "Before you decide, research with the tools: get_full_summary for the episode so far, get_recent_turns with n = 5, " +
	"get_top_memories with limit 0 for your most important notes; query_memories with a question when you need something specific, " +
	"get_location_memories when you are back somewhere. Then say in three or four sentences what you found: loops, failures, what to try next."

// LLMAgent asks the agent role's model. With research tools it may first
// look things up, for at most ResearchRounds tool rounds.
type LLMAgent struct {
	Client         *llm.Client
	Tools          []llm.Tool
	ResearchRounds int
}

// Propose implements Agent.
func (a LLMAgent) Propose(ctx context.Context, prompt []llm.Message, rejected []string, turn int, onDelta func(llm.Delta)) (Proposal, error) {
	p, _, err := a.propose(ctx, prompt, rejected, turn, onDelta, "")
	return p, err
}

// ProposeRemembering implements MemoryProposer: question follows the
// prompt, and the reply's memory field answers it.
func (a LLMAgent) ProposeRemembering(ctx context.Context, prompt []llm.Message, question string, turn int, onDelta func(llm.Delta)) (Proposal, memsynth.Note, error) {
	return a.propose(ctx, prompt, nil, turn, onDelta, question)
}

// rememberingProposal and thinkingRememberingProposal are the replies
// asked when the agent also answers the last turn's memory question: the
// memory first (what the last turn taught), then the next command. A reply
// whose memory is missing or malformed still proposes (the question then
// goes to the memory role: ErrNoMemoryAnswer).
type rememberingProposal struct {
	Memory *memsynth.Note `json:"memory" optional:"true"`
	Proposal
}

type thinkingRememberingProposal struct {
	Memory *memsynth.Note `json:"memory" optional:"true"`
	thinkingProposal
}

// propose asks for a proposal, with the memory question after the prompt
// when there is one.
func (a LLMAgent) propose(ctx context.Context, prompt []llm.Message, rejected []string, turn int, onDelta func(llm.Delta), question string) (Proposal, memsynth.Note, error) {
	msgs := prompt
	if len(a.Tools) > 0 && a.ResearchRounds > 0 && len(rejected) == 0 {
		research := append(append([]llm.Message(nil), prompt...), llm.User(ResearchPrompt))
		r, err := a.Client.RunTools(ctx, llm.Request{Role: config.RoleAgent, Messages: research, Turn: turn}, a.Tools, a.ResearchRounds)
		if err != nil && ctx.Err() != nil {
			return Proposal{}, memsynth.Note{}, err
		}
		if err == nil && strings.TrimSpace(r.Content) != "" {
			msgs = append(append([]llm.Message(nil), prompt...), llm.User("What your research found: "+r.Content))
		}
	}
	if len(rejected) > 0 {
		msgs = append(append([]llm.Message(nil), prompt...), llm.User("Not accepted: "+strings.Join(rejected, "; ")+". Choose a different command."))
	}
	if question != "" {
		msgs = append(append([]llm.Message(nil), msgs...), llm.User(question))
	}
	req := llm.Request{Role: config.RoleAgent, Messages: msgs, OnDelta: onDelta, Turn: turn}
	var p Proposal
	var memo *memsynth.Note
	var reply llm.Reply
	var err error
	thinks := a.Client.Thinks(ctx, config.RoleAgent)
	switch {
	case thinks && question != "":
		var r thinkingRememberingProposal
		r, reply, err = llm.Structured[thinkingRememberingProposal](ctx, a.Client, req)
		p, memo = r.thinkingProposal.proposal(), r.Memory
	case thinks:
		var r thinkingProposal
		r, reply, err = llm.Structured[thinkingProposal](ctx, a.Client, req)
		p = r.proposal()
	case question != "":
		var r rememberingProposal
		r, reply, err = llm.Structured[rememberingProposal](ctx, a.Client, req)
		p, memo = r.Proposal, r.Memory
	default:
		p, reply, err = llm.Structured[Proposal](ctx, a.Client, req)
	}
	if err != nil {
		return Proposal{}, memsynth.Note{}, err
	}
	p.Thinking = reply.Thinking
	if thinks { // the reasoning is the thinking stream
		p.Reasoning = sanitize.ClipRunes(sanitize.OneLine(reply.Thinking), 600)
		if p.Reasoning == "" {
			p.Reasoning = NoThinking
		}
	}
	p.Action = env.Sanitize(p.Action)
	switch {
	case p.Action == "":
		return Proposal{}, memsynth.Note{}, fmt.Errorf("agent: %w: empty action", llm.ErrInvalidReply)
	case question != "" && memo == nil:
		return p, memsynth.Note{}, ErrNoMemoryAnswer
	case memo != nil:
		return p, *memo, nil
	}
	return p, memsynth.Note{}, nil
}

// ErrNoMemoryAnswer: the agent's reply proposed a command but left the
// memory question unanswered. The proposal stands.
var ErrNoMemoryAnswer = errors.New("the agent's reply has no memory field")

// Scripted implements Agent.
func (LLMAgent) Scripted() bool { return false }

// ScriptAgent plays a fixed list of actions (a walkthrough), so the whole
// loop can be replayed with every manager running.
type ScriptAgent struct {
	actions []string
	next    int
}

// NewScriptAgent reads one action per line (blank lines and # comments
// skipped).
func NewScriptAgent(r io.Reader) (*ScriptAgent, error) {
	acts, err := domain.ReadScript(r)
	if err != nil {
		return nil, err
	}
	return &ScriptAgent{actions: acts}, nil
}

// NoThinking is the reasoning recorded for a thinking model's turn whose
// server sent no thinking: the record says so rather than stay blank.
const NoThinking = "(the server sent no thinking for this turn)"

// ErrScriptDone: the script has no more actions.
var ErrScriptDone = fmt.Errorf("script finished")

// Propose implements Agent.
func (s *ScriptAgent) Propose(ctx context.Context, _ []llm.Message, _ []string, _ int, onDelta func(llm.Delta)) (Proposal, error) {
	if s.next >= len(s.actions) {
		return Proposal{}, ErrScriptDone
	}
	a := s.actions[s.next]
	s.next++
	r := fmt.Sprintf("Step %d of the script.", s.next)
	if onDelta != nil {
		onDelta(llm.Delta{Content: r})
	}
	return Proposal{Action: a, Reasoning: r}, nil
}

// Scripted implements Agent.
func (*ScriptAgent) Scripted() bool { return true }

// Skip passes over the first n actions (a resumed episode played them).
func (s *ScriptAgent) Skip(n int) { s.next = min(max(n, 0), len(s.actions)) }

// Remaining is the number of actions left.
func (s *ScriptAgent) Remaining() int { return len(s.actions) - s.next }
