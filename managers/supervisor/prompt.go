package supervisor

import (
	"fmt"
	"math"
	"strings"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/sanitize"
)

const systemPrompt = `You supervise an agent that plays a text adventure, the way a person watching over its shoulder would. Each round you see what the agent reasoned and did, what happened, the ground truth read from the game, and your memory of earlier rounds. You keep three gauges, each from -10 to 10:
- trust_level: do the agent's claims match the ground truth (items it says it holds, rooms it says it saw, its score)? A contradicted claim costs trust.
- work_satisfaction: is it making progress (points, new rooms, objectives met) or wasting turns (repeated failures, loops, deaths)?
- relational_comfort: does it work well with the person, following their commands and hints, or does it undo them?
Move each gauge gradually from its current level unless the facts demand a jump. Reply with JSON.`

const feedbackPrompt = `Now give the agent your feedback for its next move: at most two short sentences, concrete (what to keep doing, what to change, a claim to correct). It reads this in its next prompt. Reply with JSON.`

const summaryPrompt = `You are the memory of a supervisor who watches an agent play a text adventure. Fold the rounds that leave your short-term memory into your long-term memory: keep patterns (recurring mistakes, false claims, progress, how the agent treats the person's commands), the trend of the gauges, and whatever you will need to judge later rounds. At most 600 characters. Reply with JSON.`

// scale shows a gauge on the model's -10..10 scale.
func scale(v float64) int { return int(math.Round(v * 10)) }

func (g Gauges) scaled() string {
	return fmt.Sprintf("trust_level %d, work_satisfaction %d, relational_comfort %d", scale(g.Trust), scale(g.Work), scale(g.Comfort))
}

// evaluationInput is stage 1's user message.
func (s *Supervisor) evaluationInput(r Round) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Round %d. Your gauges now: %s (%s).\n\n", r.Number, r.Previous.scaled(), r.Previous.Mood())
	b.WriteString("== Your memory ==\n")
	if r.Memory == "" {
		b.WriteString("(no earlier rounds)\n")
	} else {
		b.WriteString(r.Memory)
		b.WriteByte('\n')
	}
	if len(r.Turns) > 0 {
		fmt.Fprintf(&b, "\n== This round: turns %d-%d of episode %d ==\n", r.FirstTurn, r.LastTurn, r.Episode)
	}
	for _, t := range r.Turns {
		b.WriteString(turnText(t))
	}
	b.WriteString("\n== Ground truth checks of the agent's claims ==\n")
	if len(r.Findings) == 0 {
		b.WriteString("(no checkable claims)\n")
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	b.WriteString("\n== Facts ==\n")
	for _, f := range r.Facts {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	b.WriteString("\nSet the three gauges (-10 to 10) and say why.")
	return b.String()
}

// turnText is a turn for the prompts, whole: the supervisor judges what
// the agent actually reasoned and what the game actually said.
func turnText(t domain.Turn) string {
	var b strings.Builder
	actor := t.Actor
	if actor == "" {
		actor = "agent"
	}
	if actor == "human" {
		actor = "the person"
	}
	fmt.Fprintf(&b, "T%d (%s) at L%d %s\n", t.Turn, actor, t.FromID, t.FromName)
	if t.Reasoning != "" {
		fmt.Fprintf(&b, "  reasoning: %s\n", sanitize.OneLine(t.Reasoning))
	}
	fmt.Fprintf(&b, "  action: %s\n  outcome: %s\n", t.Action, sanitize.OneLine(t.Response))
	var gt []string
	if t.ScoreAfter != t.ScoreBefore {
		gt = append(gt, fmt.Sprintf("score %d → %d", t.ScoreBefore, t.ScoreAfter))
	}
	if t.ToID != t.FromID {
		room := fmt.Sprintf("moved to L%d %s", t.ToID, t.ToName)
		if t.NewRoom {
			room += " (a new room)"
		}
		gt = append(gt, room)
	}
	if t.Failed {
		gt = append(gt, "nothing changed")
	}
	if t.Died {
		gt = append(gt, "the player DIED")
	}
	inv := "nothing"
	if len(t.InvAfter) > 0 {
		inv = strings.Join(t.InvAfter, ", ")
	}
	gt = append(gt, "holding "+inv)
	fmt.Fprintf(&b, "  ground truth: %s\n", strings.Join(gt, "; "))
	return b.String()
}

// memoryLocked is the memory context: the long-term summary and the
// window's rounds.
func (s *Supervisor) memoryLocked() string {
	var b strings.Builder
	if s.summary != "" {
		fmt.Fprintf(&b, "Long-term memory (rounds 1-%d):\n%s\n", s.summarized, s.summary)
	}
	if len(s.window) > 0 {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("Recent rounds, oldest first:\n")
		for _, r := range s.window {
			b.WriteString(roundText(r))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// roundText is a past round for the memory context and the summary, whole.
func roundText(r Round) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Round %d (turns %d-%d):\n", r.Number, r.FirstTurn, r.LastTurn)
	for _, t := range r.Turns {
		fmt.Fprintf(&b, "  T%d %s: %s → %s", t.Turn, t.Actor, t.Action, sanitize.OneLine(t.Response))
		if t.Reasoning != "" {
			fmt.Fprintf(&b, " (reasoning: %s)", sanitize.OneLine(t.Reasoning))
		}
		b.WriteByte('\n')
	}
	for _, f := range r.Findings {
		if f.Contradicted {
			fmt.Fprintf(&b, "  %s\n", f)
		}
	}
	if r.Evaluation.Assessment != "" {
		fmt.Fprintf(&b, "  your assessment: %s\n", sanitize.OneLine(r.Evaluation.Assessment))
	}
	fmt.Fprintf(&b, "  gauges after: %s\n", r.State.scaled())
	if r.Feedback != "" {
		fmt.Fprintf(&b, "  feedback you gave: %q\n", r.Feedback)
	}
	return b.String()
}

// summaryInput asks to fold rounds into the long-term memory.
func summaryInput(summary string, rounds []Round) string {
	var b strings.Builder
	b.WriteString("Your long-term memory so far:\n")
	if summary == "" {
		b.WriteString("(empty)\n")
	} else {
		b.WriteString(summary)
		b.WriteByte('\n')
	}
	b.WriteString("\nRounds leaving your short-term memory:\n")
	for _, r := range rounds {
		b.WriteString(roundText(r))
	}
	b.WriteString("\nWrite the new long-term memory.")
	return b.String()
}

// groundTruth checks the agent's claims and gathers the round's facts:
// progress, and how the agent treated the person's commands.
func (s *Supervisor) groundTruth(turns []domain.Turn) ([]Finding, []string) {
	known := map[int]string{}
	if s.deps.Map != nil {
		for _, id := range s.deps.Map.Rooms() {
			known[id] = s.deps.Map.Name(id)
		}
	}
	var findings []Finding
	var facts []string
	score, rooms, deaths, failed, agent := 0, 0, 0, 0, 0
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range turns {
		score += t.ScoreAfter - t.ScoreBefore
		if t.NewRoom {
			rooms++
		}
		if t.Died {
			deaths++
		}
		if t.Actor == "human" {
			s.person = &personAt{turn: t.Turn, action: t.Action}
			facts = append(facts, fmt.Sprintf("The person played %q at T%d.", t.Action, t.Turn))
			continue
		}
		agent++
		if t.Failed {
			failed++
		}
		if t.Reasoning != "" {
			gt := GroundTruth{Inventory: union(t.InvBefore, t.InvAfter), LocationID: t.FromID, Location: t.FromName, Score: t.ScoreBefore, Known: known}
			findings = append(findings, CheckClaims(t.Reasoning, gt)...)
		}
		if p := s.person; p != nil && t.Turn-p.turn <= 5 && Undoes(p.action, t.Action) {
			facts = append(facts, fmt.Sprintf("The agent undid the person's %q (T%d) with %q at T%d.", p.action, p.turn, t.Action, t.Turn))
			s.person = nil
		}
	}
	facts = append(facts, fmt.Sprintf("Progress this round: score %+d, %d new room(s), %d death(s); %d of the agent's %d action(s) changed nothing.",
		score, rooms, deaths, failed, agent))
	if s.deps.Hints != nil {
		if h := s.deps.Hints(); len(h) > 0 {
			facts = append(facts, fmt.Sprintf("The person asked the agent to: %s.", strings.Join(h, "; ")))
		}
	}
	if s.deps.Completed != nil {
		n := s.deps.Completed()
		if d := n - s.done; d > 0 {
			facts = append(facts, fmt.Sprintf("Objectives completed this round: %d.", d))
		}
		s.done = n
	}
	return findings, facts
}

func union(a, b []string) []string {
	out := append([]string(nil), a...)
	seen := map[string]bool{}
	for _, x := range a {
		seen[x] = true
	}
	for _, x := range b {
		if !seen[x] {
			out = append(out, x)
			seen[x] = true
		}
	}
	return out
}

var inverseVerbs = map[string][]string{
	"open": {"close", "shut"}, "close": {"open"}, "shut": {"open"},
	"take": {"drop", "put down"}, "get": {"drop", "put down"}, "pick up": {"drop", "put down"}, "drop": {"take", "get", "pick up"},
	"lock": {"unlock"}, "unlock": {"lock"}, "light": {"extinguish", "turn off", "douse"}, "extinguish": {"light", "turn on"},
	"turn on": {"turn off", "extinguish"}, "turn off": {"turn on", "light"}, "wear": {"remove", "take off"},
	"remove": {"wear", "put on"}, "put on": {"take off", "remove"}, "take off": {"put on", "wear"},
}

var opposite = map[string]string{"north": "south", "south": "north", "east": "west", "west": "east", "northeast": "southwest",
	"southwest": "northeast", "northwest": "southeast", "southeast": "northwest", "up": "down", "down": "up", "in": "out", "out": "in"}

// Undoes reports whether action b reverses action a: the inverse verb on
// the same object ("open door" / "close door"), or the opposite direction.
func Undoes(a, b string) bool {
	na, nb := mapper.NormalizeAction(a), mapper.NormalizeAction(b)
	if mapper.IsDirection(na) && mapper.IsDirection(nb) {
		return opposite[na] == nb
	}
	va, oa := splitVerb(na)
	vb, ob := splitVerb(nb)
	if oa == "" || oa != ob {
		return false
	}
	for _, inv := range inverseVerbs[va] {
		if inv == vb {
			return true
		}
	}
	return false
}

// splitVerb splits an action into its verb (one or two words) and object
// (without articles).
func splitVerb(a string) (verb, object string) {
	f := strings.Fields(a)
	if len(f) == 0 {
		return "", ""
	}
	n := 1
	if len(f) > 1 {
		if _, ok := inverseVerbs[f[0]+" "+f[1]]; ok {
			n = 2
		}
	}
	var obj []string
	for _, w := range f[n:] {
		if w != "the" && w != "a" && w != "an" {
			obj = append(obj, w)
		}
	}
	return strings.Join(f[:n], " "), strings.Join(obj, " ")
}
