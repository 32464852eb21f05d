package memsynth

import (
	"regexp"
	"strconv"
	"strings"
)

// Asked is what a memory question says of its turn, read back from its
// text (the agent's question or the memory role's prompt): for a stand-in
// model (the oracle) that answers from the game's ground truth, and for
// tests. The formats are this package's own, so the reader lives beside
// the writers.
type Asked struct {
	Turn                    int
	Actor, Action           string
	FromID                  int
	FromName                string
	ToID                    int // 0: the player did not move
	ToName                  string
	Changed                 []string // what changed (the triggers' reasons)
	ScoreBefore, ScoreAfter int
	InvBefore, InvAfter     []string
	Response                string // the game's response ("" in the agent's question: its prompt has it)
}

var (
	askedWhere   = regexp.MustCompile(`(?m)^(?:Location where the action was taken: L|Before you choose, .* at L)(\d+) (.*?)(?:, where its action was taken.*)?$`)
	askedAgent   = regexp.MustCompile(`(?m)^Turn (\d+), (\w+): (.*)\. What changed: (.*)\.$`)
	askedRole    = regexp.MustCompile(`(?m)^Turn (\d+), action \((\w+)\): (.*)$`)
	askedChanged = regexp.MustCompile(`(?m)^What changed: (.*)\.$`)
	askedNow     = regexp.MustCompile(`(?m)^Now at: L(\d+) (.*)$`)
	askedScore   = regexp.MustCompile(`(?m)^Score (-?\d+) → (-?\d+)\. Inventory: (.*) → (.*)\.$`)
	askedResp    = regexp.MustCompile(`(?s)\nResponse:\n(.*?)\n\nWhat changed: `)
)

// ParseAsked reads a memory question; ok is false when text holds none.
// Of several, the last is read (a request continues the agent's prompt).
func ParseAsked(text string) (a Asked, ok bool) {
	if i := strings.LastIndex(text, QuestionHeader); i >= 0 {
		text = text[i:]
	} else if i := strings.LastIndex(text, "Location where the action was taken: "); i >= 0 {
		text = text[i:]
	} else {
		return Asked{}, false
	}
	if m := askedWhere.FindStringSubmatch(text); m != nil {
		a.FromID, _ = strconv.Atoi(m[1])
		a.FromName = m[2]
	}
	switch m, r := askedAgent.FindStringSubmatch(text), askedRole.FindStringSubmatch(text); {
	case m != nil:
		a.Turn, _ = strconv.Atoi(m[1])
		a.Actor, a.Action, a.Changed = m[2], m[3], splitList(m[4], ", ")
	case r != nil:
		a.Turn, _ = strconv.Atoi(r[1])
		a.Actor, a.Action = r[2], r[3]
		if c := askedChanged.FindStringSubmatch(text); c != nil {
			a.Changed = splitList(c[1], ", ")
		}
	default:
		return Asked{}, false
	}
	if m := askedNow.FindStringSubmatch(text); m != nil {
		a.ToID, _ = strconv.Atoi(m[1])
		a.ToName = m[2]
	}
	if m := askedScore.FindStringSubmatch(text); m != nil {
		a.ScoreBefore, _ = strconv.Atoi(m[1])
		a.ScoreAfter, _ = strconv.Atoi(m[2])
		a.InvBefore, a.InvAfter = items(m[3]), items(m[4])
	}
	if m := askedResp.FindStringSubmatch(text); m != nil {
		a.Response = m[1]
	}
	return a, true
}

// Gained is what the inventory gained, counting duplicates.
func (a Asked) Gained() []string {
	g, _ := invDiff(a.InvBefore, a.InvAfter)
	return g
}

// Has reports whether what changed names the trigger's reason (as Why
// spells it: "death", "first visit", "score +5").
func (a Asked) Has(reason string) bool {
	for _, c := range a.Changed {
		if c == reason || strings.HasPrefix(c, reason+" ") {
			return true
		}
	}
	return false
}

func splitList(s, sep string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return strings.Split(s, sep)
}

// items reads an inventory as list writes it.
func items(s string) []string {
	if s == "nothing" {
		return nil
	}
	return splitList(s, ", ")
}
