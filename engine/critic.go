package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/sanitize"
)

// CriticReply is the critic model's judgement. The score is an integer
// from -10 to 10 (read as -1.0 to 1.0): grammar-constrained decoding
// enforces integer ranges, not ranges of real numbers.
type CriticReply struct {
	Score         int    `json:"score" minimum:"-10" maximum:"10" desc:"-10 useless or harmful, 10 clearly useful"`
	Justification string `json:"justification" maxLength:"300"`
}

// Critic judges proposals in stages: a ground-truth check that costs
// microseconds (words the story knows, objects in scope, actions that
// already failed here) refuses what the game refuses; then, unless the
// mode is always, what the game's world model confirms is accepted (a
// known exit, a known verb on an object in scope, an action in the
// valid-action set); the model scores the rest.
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
// (the default configuration uses -0.2).
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

// scope is what the ground-truth stage knows about the present.
type scope struct {
	Location   int
	Dictionary map[string]bool // the story's words, as the story spells them
	WordLen    int             // dictionary word length (6 in v1–3, 9 later)
	// Knows looks a word up as the story's tokeniser does (preferred to
	// Dictionary and WordLen when set).
	Knows    func(word string) bool
	AllNouns map[string]bool // nouns of every object in the story
	InScope  map[string]bool // nouns of objects in scope
	// Refused maps an action that did nothing at a location (key) to the
	// world hash it left; WorldHash is the world now. An action counts as
	// already failed only while the world is as its failure left it, and
	// while playing it would still do nothing but let time pass.
	Refused   map[string]refusal
	WorldHash string
	// Idle asks whether the action, played now, would do nothing but let
	// time pass and get the same reply as when it failed (Env.Idle); nil:
	// a recorded failure is enough.
	Idle func(action, reply string) bool
	// Refuses asks the parser whether a word of the action names nothing
	// here (Env.Refuses); nil: words outside InScope are refused.
	Refuses func(action, word string) bool
	// RefusesUnknown asks the parser whether it refuses a word its
	// dictionary lacks (Env.RefusesUnknown); nil: unknown words are refused.
	RefusesUnknown func(action, word string) bool
	// Mode says when the critic model is asked ("" is CriticAlways).
	Mode CriticMode
	// Game is the game's world model for the confirming stage; nil:
	// nothing is confirmed without the model.
	Game Game
	// KnownExits are this room's exits on the map: direction → room.
	KnownExits map[string]int
}

// CriticMode says when the critic asks its model (config critic_mode).
type CriticMode string

// The critic's modes.
const (
	// CriticAlways: the model judges every proposal the ground-truth
	// stage lets through (an engine's zero Config; the configuration's
	// default is CriticUncertain).
	CriticAlways CriticMode = "always"
	// CriticUncertain: what the game's world model confirms is accepted
	// without the model; the model judges the rest.
	CriticUncertain CriticMode = "uncertain"
	// CriticNever: the ground-truth stage alone decides.
	CriticNever CriticMode = "never"
)

// Game is what the game's world model says can be done here (env.Env
// implements it; what it probes is cached per state of the world).
type Game interface {
	// Try probes one action: whether it changes the world or moves the
	// player, and whether the player dies.
	Try(action string) env.Tried
	// KnowsVerb reports whether the story knows word as a verb.
	KnowsVerb(word string) bool
	// ExitsHere and ValidActionSet are every exit that leads elsewhere
	// and every action that changes the world here (for the agent's
	// prompt; the critic tries one action instead).
	ExitsHere() map[string]int
	ValidActionSet() map[string]bool
}

// canDo lists what the game lets the player do here, for the agent's
// prompt: the exits that lead somewhere, in compass order, then the valid
// actions in alphabetical order.
func canDo(g Game) []string {
	var out []string
	exits := g.ExitsHere()
	for _, d := range env.Directions() {
		if _, ok := exits[d]; ok {
			out = append(out, d)
		}
	}
	actions := g.ValidActionSet()
	start := len(out)
	for a := range actions {
		out = append(out, a)
	}
	slices.Sort(out[start:])
	return out
}

// confirmed says why the game's world model confirms the action ("" when
// it does not): a known exit from here on the map; else, tried on a copy
// of the game (one probe) and not fatal there, a direction that leads
// somewhere, a verb the story knows on an object in scope, or an action
// that changes the world (what makes an action valid).
func (s scope) confirmed(action string) string {
	norm := mapper.NormalizeAction(action)
	if norm == "" {
		return ""
	}
	if _, ok := s.KnownExits[norm]; ok && mapper.IsDirection(norm) {
		return fmt.Sprintf("%s is a known exit from here", norm)
	}
	if s.Game == nil {
		return ""
	}
	t := s.Game.Try(norm)
	if !t.Played || t.Dies {
		return ""
	}
	if mapper.IsDirection(norm) {
		if t.Moves {
			return fmt.Sprintf("the game leads %s somewhere", norm)
		}
		return ""
	}
	words := strings.Fields(norm)
	if s.Game.KnowsVerb(words[0]) {
		for _, w := range words[1:] {
			if w = strings.Trim(w, ".,!?\"'"); s.InScope[w] {
				return fmt.Sprintf("the game knows the verb %q and the %s is here", words[0], w)
			}
		}
	}
	if t.Changes {
		return fmt.Sprintf("%q is a valid action here: it changes the world", norm)
	}
	return ""
}

func (s scope) knows(w string) bool {
	if s.Knows != nil {
		return s.Knows(w)
	}
	look := w
	if s.WordLen > 0 && len(look) > s.WordLen {
		look = look[:s.WordLen]
	}
	return len(s.Dictionary) == 0 || s.Dictionary[look]
}

// groundTruth checks what the machine can tell; "" means nothing wrong.
func (s scope) groundTruth(action string) string {
	words := strings.Fields(strings.ToLower(action))
	for i, w := range words {
		w = strings.Trim(w, ".,!?\"'")
		if w == "" {
			continue
		}
		if !s.knows(w) {
			if isNumber(w) {
				continue // the parser reads numbers itself ("turn dial to 4")
			}
			if s.RefusesUnknown == nil || s.RefusesUnknown(action, w) {
				return fmt.Sprintf("the game does not know the word %q", w)
			}
			continue
		}
		// The verb (first word) and directions name no object.
		if i > 0 && s.AllNouns[w] && !s.InScope[w] && !isCommonWord(w) && !mapper.IsDirection(mapper.NormalizeAction(w)) {
			if s.Refuses == nil || s.Refuses(action, w) {
				return fmt.Sprintf("there is no %s here", w)
			}
		}
	}
	if r, ok := s.Refused[key(s.Location, action)]; ok && r.World == s.WorldHash && (s.Idle == nil || s.Idle(action, r.Reply)) {
		return "this exact action already failed here, and nothing has changed since"
	}
	return ""
}

// isNumber reports whether a word is one a story's parser reads as a
// number without its dictionary: digits, at most one leading minus sign,
// and the colon of a time ("10:30"). A word that mixes digits with
// letters or other symbols is no number and must be in the dictionary.
func isNumber(w string) bool {
	w = strings.TrimPrefix(w, "-")
	if w == "" || w[0] == ':' || w[len(w)-1] == ':' || strings.Count(w, ":") > 1 {
		return false
	}
	for _, r := range w {
		if (r < '0' || r > '9') && r != ':' {
			return false
		}
	}
	return true
}

func isCommonWord(w string) bool {
	switch w {
	case "all", "it", "them", "me", "self", "myself", "everything", "door", "wall", "walls", "floor", "ground":
		return true
	}
	return false
}

// CriticSystemPrompt is the critic's standing instruction, sent after the
// agent's prompt: what it judges and a rubric with anchored scores.
const CriticSystemPrompt = `Do not play now: judge one proposed command for this text adventure, given the game state above and the player's reasoning. Judge the command, not the writing.
Score on this scale:
 10  makes clear progress: the obvious next step (takes a needed object, opens the way, solves the puzzle at hand)
  6  useful: explores an unexplored exit, examines or takes something new and relevant
  3  reasonable: gathers information (look, examine, read) or moves somewhere sensible
  0  harmless but unlikely to help
 -3  wasteful: repeats something that already failed with nothing changed, or wanders away from the goal
 -6  almost certainly useless: names something not here, or the game cannot understand it
-10  harmful: likely death, loss of an essential object, or undoing progress
Use the reasoning to understand the plan, but a good plan does not excuse a useless command. Reply with JSON: score (integer -10..10), justification (one sentence).`

func firstNonEmpty(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// judging is what the critic knows of a proposal's turn besides its scope.
type judging struct {
	// Prompt is the agent's prompt for the turn: the critic's request
	// continues it (the agent's messages, then the judging instruction,
	// the reasoning and the command), so it shows the critic the same
	// state and, sharing the agent's prompt as its prefix, is served from
	// the server's prompt cache, which the agent's next prompt then finds
	// warm up to the sections that changed.
	Prompt []llm.Message
	Turn   int
	// Advisory: the agent plays a script, a rejection is only noted.
	Advisory bool
	// Insisted: the agent proposed the same action again after a model
	// rejection in this turn; it is let through once.
	Insisted bool
}

// Evaluate judges one proposal.
func (c *Critic) Evaluate(ctx context.Context, s scope, p Proposal, j judging) (Verdict, error) {
	prompt, turn, advisory, insisted := j.Prompt, j.Turn, j.Advisory, j.Insisted
	action := p.Action
	if why := s.groundTruth(action); why != "" {
		v := Verdict{Action: action, Score: -1, Justification: why, Stage: StageGroundTruth, Accepted: advisory}
		c.reject(s.Location, action, v)
		return v, nil
	}
	if c.client == nil || s.Mode == CriticNever {
		why := "no critic model"
		if c.client != nil {
			why = "the critic model is not asked (critic_mode never)"
		}
		return Verdict{Action: action, Score: 0, Justification: why, Accepted: true, Stage: StageGroundTruth}, nil
	}
	if s.Mode == CriticUncertain {
		if why := s.confirmed(action); why != "" {
			return Verdict{Action: action, Score: 0, Justification: why, Accepted: true, Stage: StageGame}, nil
		}
	}
	user := CriticSystemPrompt
	if r := strings.TrimSpace(firstNonEmpty(p.Reasoning, p.Thinking)); r != "" {
		user += "\n\nThe agent's reasoning: " + sanitize.ClipRunes(sanitize.OneLine(r), 600)
	}
	user += "\n\nProposed command: " + action
	msgs := append(append([]llm.Message(nil), prompt...), llm.User(user))
	r, _, err := llm.Structured[CriticReply](ctx, c.client, llm.Request{Role: config.RoleCritic, Messages: msgs, Turn: turn})
	if err != nil {
		return Verdict{}, err
	}
	score := float64(r.Score) / 10
	v := Verdict{Action: action, Score: score, Justification: r.Justification, Stage: StageModel}
	v.Accepted = score >= c.Threshold()
	switch {
	case !v.Accepted && advisory:
		v.Accepted, v.Stage = true, StageAdvisory
		c.reject(s.Location, action, v)
	case !v.Accepted && insisted:
		v.Accepted, v.Stage = true, StageInsist
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

// refusal is an action that did nothing: the world hash it left and the
// story's reply.
type refusal struct {
	World string
	Reply string
}

// failedKey names an action that did nothing at a location in one state of
// the object tree (the repeated-failed-action metric).
func failedKey(loc int, action, hash string) string { return key(loc, action) + "|" + hash }
