package objectives

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/lantern-if/lantern/domain"
)

// Achieved says how the ground truth of a turn shows an objective achieved,
// or "" when it does not:
//   - a location reached: the objective names a place to go to (its last
//     "Location N" or "LN" not introduced by "from", with a verb of
//     movement) and the turn moved the player there;
//   - an item taken: the objective asks to take, get, find... something and
//     an item whose name ends in that word came into the inventory;
//   - points scored: the objective is about score or points and the score
//     rose.
//
// Objectives about avoiding something are never achieved this way.
func Achieved(text string, t domain.Turn) string {
	low := strings.ToLower(text)
	words := wordSet(low)
	for _, w := range avoidWords {
		if strings.Contains(low, w) {
			return ""
		}
	}
	if target, ok := targetLocation(text); ok && hasAny(words, moveVerbs) && t.ToID == target && t.FromID != t.ToID {
		return fmt.Sprintf("reached L%d %s", t.ToID, t.ToName)
	}
	if hasAny(words, takeVerbs) {
		for _, item := range gained(t.InvBefore, t.InvAfter) {
			if noun := headNoun(item); noun != "" && (words[noun] || words[noun+"s"] || words[strings.TrimSuffix(noun, "s")]) {
				return "holding " + item
			}
		}
	}
	if (words["score"] || words["points"] || words["point"]) && t.ScoreAfter > t.ScoreBefore {
		return fmt.Sprintf("score %d → %d", t.ScoreBefore, t.ScoreAfter)
	}
	return ""
}

var avoidWords = []string{"avoid", "don't", "do not", "never", "stay away", "beware", "not enter", "not go"}

var moveVerbs = []string{"go", "head", "reach", "enter", "visit", "return", "travel", "walk", "move", "climb", "descend",
	"ascend", "access", "explore", "navigate", "proceed", "cross", "arrive"}

var takeVerbs = []string{"take", "get", "grab", "pick", "obtain", "acquire", "collect", "secure", "retrieve", "find", "fetch"}

var locRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\blocation\s*#?\s*(\d+)\b|\bL(\d+)\b`) })

// targetLocation is the place an objective sends the player to: the last
// location it names that is not introduced by "from".
func targetLocation(text string) (int, bool) {
	target, found := 0, false
	for _, m := range locRef().FindAllStringSubmatchIndex(text, -1) {
		before := strings.ToLower(text[max(0, m[0]-8):m[0]])
		if strings.Contains(before, "from ") {
			continue
		}
		num := ""
		if m[2] >= 0 {
			num = text[m[2]:m[3]]
		} else {
			num = text[m[4]:m[5]]
		}
		if v, err := strconv.Atoi(num); err == nil {
			target, found = v, true
		}
	}
	return target, found
}

// gained lists the items in after that were not in before.
func gained(before, after []string) []string {
	had := map[string]int{}
	for _, b := range before {
		had[strings.ToLower(b)]++
	}
	var out []string
	for _, a := range after {
		k := strings.ToLower(a)
		if had[k] > 0 {
			had[k]--
			continue
		}
		out = append(out, a)
	}
	return out
}

// headNoun is the last word of an item's name ("brass lantern" → lantern).
func headNoun(name string) string {
	f := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
	for i := len(f) - 1; i >= 0; i-- {
		if len(f[i]) >= 3 {
			return f[i]
		}
	}
	return ""
}

func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'') }) {
		set[w] = true
	}
	return set
}

func hasAny(words map[string]bool, list []string) bool {
	for _, w := range list {
		if words[w] {
			return true
		}
	}
	return false
}

// norm folds case, spacing and punctuation.
func norm(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}), " ")
}

// similar reports whether two objectives say the same: equal after
// folding, or (for longer ones) sharing at least 80% of their words.
func similar(a, b string) bool {
	na, nb := norm(a), norm(b)
	if na == nb {
		return true
	}
	wa, wb := strings.Fields(na), strings.Fields(nb)
	if len(wa) < 4 || len(wb) < 4 {
		return false
	}
	set := map[string]bool{}
	for _, w := range wa {
		set[w] = true
	}
	union := map[string]bool{}
	inter := 0
	for _, w := range wb {
		if set[w] && !union[w] {
			inter++
		}
		union[w] = true
	}
	for w := range set {
		union[w] = true
	}
	return float64(inter)/float64(len(union)) >= 0.8
}
