package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/mapper"
)

// CriticReply is the critic model's judgement. The score is an integer
// from -10 to 10 (read as -1.0 to 1.0): grammar-constrained decoding
// enforces integer ranges, not ranges of real numbers.
type CriticReply struct {
	Score         int    `json:"score" minimum:"-10" maximum:"10" desc:"-10 useless or harmful, 10 clearly useful"`
	Justification string `json:"justification" maxLength:"300"`
}

// Verdict is the critic's decision on one proposal.
type Verdict struct {
	Action        string
	Score         float64
	Justification string
	Accepted      bool
	Stage         string // "ground-truth", "model", "insist", "advisory"
}

// Critic judges proposals in two stages: a ground-truth check that costs
// microseconds (words the story knows, objects in scope, actions that
// already failed here) and then, if that passes, a model score.
type Critic struct {
	client    *llm.Client // nil: ground truth only
	threshold float64
	// Overridden rejections: a rejected action that later succeeded where
	// it was rejected. When that happens often the critic is trusted less.
	rejected  map[string]bool // location|action
	overrides int
	rejects   int
}

// NewCritic makes a critic; threshold is the lowest acceptable score
// (DESIGN.md: -0.2).
func NewCritic(client *llm.Client, threshold float64) *Critic {
	return &Critic{client: client, threshold: threshold, rejected: map[string]bool{}}
}

// OverrideRate is the share of rejections later shown wrong.
func (c *Critic) OverrideRate() float64 {
	if c.rejects == 0 {
		return 0
	}
	return float64(c.overrides) / float64(c.rejects)
}

// Threshold is the effective threshold: lowered as rejections turn out
// wrong (after five of them), so the critic stops blocking good moves.
func (c *Critic) Threshold() float64 {
	if c.rejects < 5 {
		return c.threshold
	}
	return c.threshold - 0.5*c.OverrideRate()
}

func key(loc int, action string) string {
	return fmt.Sprint(loc) + "|" + mapper.NormalizeAction(action)
}

// Observe learns from a played action: a rejected action that succeeded
// counts against the critic.
func (c *Critic) Observe(loc int, action string, succeeded bool) {
	k := key(loc, action)
	if c.rejected[k] {
		delete(c.rejected, k)
		if succeeded {
			c.overrides++
		}
	}
}

// Scope is what the ground-truth stage knows about the present.
type Scope struct {
	Location   int
	Dictionary map[string]bool // the story's words, as the story spells them
	WordLen    int             // dictionary word length (6 in v1–3, 9 later)
	AllNouns   map[string]bool // nouns of every object in the story
	InScope    map[string]bool // nouns of objects in scope
	Failed     map[string]bool // location|action pairs that failed before
}

// groundTruth checks what the machine can tell; "" means nothing wrong.
func (s Scope) groundTruth(action string) string {
	words := strings.Fields(strings.ToLower(action))
	for i, w := range words {
		w = strings.Trim(w, ".,!?\"'")
		if w == "" || strings.ContainsAny(w, "0123456789") {
			continue
		}
		look := w
		if s.WordLen > 0 && len(look) > s.WordLen {
			look = look[:s.WordLen]
		}
		if len(s.Dictionary) > 0 && !s.Dictionary[look] {
			return fmt.Sprintf("the game does not know the word %q", w)
		}
		// The verb (first word) and directions name no object.
		if i > 0 && s.AllNouns[w] && !s.InScope[w] && !isCommonWord(w) && !mapper.IsDirection(mapper.NormalizeAction(w)) {
			return fmt.Sprintf("there is no %s here", w)
		}
	}
	if s.Failed[key(s.Location, action)] {
		return "this exact action already failed here"
	}
	return ""
}

func isCommonWord(w string) bool {
	switch w {
	case "all", "it", "them", "me", "self", "myself", "everything", "door", "wall", "walls", "floor", "ground":
		return true
	}
	return false
}

// Evaluate judges one proposal. insisted means the agent proposed the same
// action again after a model rejection in this turn: it is let through once.
func (c *Critic) Evaluate(ctx context.Context, s Scope, prompt string, action string, turn int, advisory, insisted bool) (Verdict, error) {
	if why := s.groundTruth(action); why != "" {
		v := Verdict{Action: action, Score: -1, Justification: why, Stage: "ground-truth", Accepted: advisory}
		c.reject(s.Location, action, v)
		return v, nil
	}
	if c.client == nil {
		return Verdict{Action: action, Score: 0, Justification: "no critic model", Accepted: true, Stage: "ground-truth"}, nil
	}
	msgs := []llm.Message{
		llm.System("You judge a proposed command in a text adventure. Score it from -10 (pointless, impossible or dangerous) to 10 (clearly useful). Reply with JSON: score, justification."),
		llm.User(prompt + "\n\nProposed command: " + action),
	}
	r, _, err := llm.Structured[CriticReply](ctx, c.client, llm.Request{Role: config.RoleCritic, Messages: msgs, Turn: turn})
	if err != nil {
		return Verdict{}, err
	}
	score := float64(r.Score) / 10
	v := Verdict{Action: action, Score: score, Justification: r.Justification, Stage: "model"}
	v.Accepted = score >= c.Threshold()
	switch {
	case !v.Accepted && advisory:
		v.Accepted, v.Stage = true, "advisory"
		c.reject(s.Location, action, v)
	case !v.Accepted && insisted:
		v.Accepted, v.Stage = true, "insist"
		c.reject(s.Location, action, v)
	case !v.Accepted:
		c.reject(s.Location, action, v)
	}
	return v, nil
}

func (c *Critic) reject(loc int, action string, v Verdict) {
	if v.Score >= c.Threshold() {
		return
	}
	c.rejects++
	c.rejected[key(loc, action)] = true
}
