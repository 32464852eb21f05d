package supervisor

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// GroundTruth is what the machine says is so when the agent reasoned.
type GroundTruth struct {
	Inventory  []string       // items held (before and after the action: a claim about either holds)
	LocationID int            // where the agent was when it reasoned
	Location   string         // that room's name
	Score      int            // the score when it reasoned
	Known      map[int]string // rooms on the map: ID → name
}

// Finding is a claim of the agent checked against the ground truth.
type Finding struct {
	Kind         string `json:"kind"` // "inventory", "location", "visited", "score"
	Claim        string `json:"claim"`
	Contradicted bool   `json:"contradicted"`
	Detail       string `json:"detail"`
}

func (f Finding) String() string {
	verdict := "confirmed"
	if f.Contradicted {
		verdict = "CONTRADICTED"
	}
	return fmt.Sprintf("%s: the agent said %q; %s", verdict, f.Claim, f.Detail)
}

// The claims the checker understands. Each pattern's last group is the
// claimed thing; the phrase stops at punctuation or a joining word.
var (
	stop    = `(?:[,.;:!?()]|\s(?:and|so|which|that|to|but|because|while|then|in order|for|from|into|with|now|here|already|right|before|earlier|again|too|yet|once)\b|$)`
	carryRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:i am|i'm|im)\s+(?:now\s+|still\s+|already\s+)?(?:carrying|holding)\s+(.+?)` + stop)
	})
	haveRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bi\s+(?:already\s+|still\s+)?(?:have|hold|carry|possess)\s+(?:the|my)\s+(.+?)` + stop)
	})
	inventoryRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bmy\s+inventory\s+(?:contains|has|includes|holds)\s+(.+?)` + stop)
	})
	hereRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:i am|i'm|im)\s+(?:now\s+|currently\s+|still\s+)?(?:in|at)\s+(?:the\s+)?(location\s*#?\s*\d+|l\d+\b|[a-z][a-z' -]{2,40}?)` + stop)
	})
	visitedRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bi(?:'ve|\s+have)\s+(?:already\s+)?(?:visited|seen|explored|been\s+(?:to|in))\s+(?:the\s+)?(location\s*#?\s*\d+|l\d+\b|[a-z][a-z' -]{2,40}?)` + stop)
	})
	scoreRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:my\s+|the\s+)?score\s+(?:is|of)\s+(\d+)|\bi\s+have\s+(\d+)\s+points\b`)
	})
	idRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^(?:location\s*#?\s*|l)(\d+)$`) })
)

// hypothetical words before a claim make it a plan, not a claim.
var hypothetical = []string{"then", "will", "once", "when", "after", "if", "until", "would", "could", "might", "should", "before", "unless"}

// vague phrases are not claims about particular items.
var vague = map[string]bool{"nothing": true, "anything": true, "something": true, "it": true, "them": true, "everything": true,
	"all": true, "some": true, "items": true, "things": true, "stuff": true, "no": true, "none": true}

// CheckClaims finds the agent's claims about its inventory, its location,
// the rooms it has seen and its score, and checks each against the ground
// truth. Claims it cannot decide (a room it does not know by that name) are
// left out.
func CheckClaims(reasoning string, gt GroundTruth) []Finding {
	var out []Finding
	for _, re := range []*regexp.Regexp{carryRe(), haveRe(), inventoryRe()} {
		for _, m := range re.FindAllStringSubmatchIndex(reasoning, -1) {
			if planned(reasoning, m[0]) {
				continue
			}
			if f, ok := checkItem(reasoning[m[0]:m[3]], reasoning[m[2]:m[3]], gt); ok {
				out = append(out, f)
			}
		}
	}
	for _, m := range hereRe().FindAllStringSubmatchIndex(reasoning, -1) {
		if planned(reasoning, m[0]) {
			continue
		}
		if f, ok := checkHere(strings.TrimSpace(reasoning[m[0]:m[3]]), reasoning[m[2]:m[3]], gt); ok {
			out = append(out, f)
		}
	}
	for _, m := range visitedRe().FindAllStringSubmatchIndex(reasoning, -1) {
		if f, ok := checkVisited(strings.TrimSpace(reasoning[m[0]:m[3]]), reasoning[m[2]:m[3]], gt); ok {
			out = append(out, f)
		}
	}
	for _, m := range scoreRe().FindAllStringSubmatch(reasoning, -1) {
		num := m[1]
		if num == "" {
			num = m[2]
		}
		v, err := strconv.Atoi(num)
		if err != nil {
			continue
		}
		f := Finding{Kind: "score", Claim: strings.TrimSpace(m[0])}
		if v != gt.Score {
			f.Contradicted, f.Detail = true, fmt.Sprintf("the score is %d", gt.Score)
		} else {
			f.Detail = fmt.Sprintf("the score is %d", gt.Score)
		}
		out = append(out, f)
	}
	return out
}

// planned reports whether the claim at i follows a word that makes it a
// plan ("then I am in the cellar").
func planned(text string, i int) bool {
	before := strings.Fields(strings.ToLower(text[max(0, i-24):i]))
	if len(before) == 0 {
		return false
	}
	last := strings.Trim(before[len(before)-1], ",.;:")
	for _, w := range hypothetical {
		if last == w {
			return true
		}
	}
	return false
}

func checkItem(claim, phrase string, gt GroundTruth) (Finding, bool) {
	words := contentWords(phrase)
	if len(words) == 0 {
		return Finding{}, false
	}
	for _, w := range words {
		if vague[w] {
			return Finding{}, false
		}
	}
	f := Finding{Kind: "inventory", Claim: strings.TrimSpace(claim)}
	for _, item := range gt.Inventory {
		iw := map[string]bool{}
		for _, w := range contentWords(item) {
			alike(iw, w)
		}
		for _, w := range words {
			if iw[w] || iw[strings.TrimSuffix(w, "s")] {
				f.Detail = "it holds the " + item
				return f, true
			}
		}
	}
	f.Contradicted = true
	if len(gt.Inventory) == 0 {
		f.Detail = "its inventory is empty"
	} else {
		f.Detail = "it holds only: " + strings.Join(gt.Inventory, ", ")
	}
	return f, true
}

func checkHere(claim, place string, gt GroundTruth) (Finding, bool) {
	f := Finding{Kind: "location", Claim: claim}
	where := fmt.Sprintf("it is at L%d %s", gt.LocationID, gt.Location)
	if m := idRe().FindStringSubmatch(strings.TrimSpace(place)); m != nil {
		id, _ := strconv.Atoi(m[1])
		f.Contradicted, f.Detail = id != gt.LocationID, where
		return f, true
	}
	name := fold(place)
	if name == fold(gt.Location) {
		f.Detail = where
		return f, true
	}
	for _, n := range gt.Known {
		if fold(n) == name {
			f.Contradicted, f.Detail = true, where
			return f, true
		}
	}
	return Finding{}, false
}

func checkVisited(claim, place string, gt GroundTruth) (Finding, bool) {
	f := Finding{Kind: "visited", Claim: claim}
	if m := idRe().FindStringSubmatch(strings.TrimSpace(place)); m != nil {
		id, _ := strconv.Atoi(m[1])
		if name, ok := gt.Known[id]; ok || id == gt.LocationID {
			f.Detail = fmt.Sprintf("L%d %s is on the map", id, name)
		} else {
			f.Contradicted, f.Detail = true, fmt.Sprintf("L%d has never been visited", id)
		}
		return f, true
	}
	name := fold(place)
	for id, n := range gt.Known {
		if fold(n) == name {
			f.Detail = fmt.Sprintf("L%d %s is on the map", id, n)
			return f, true
		}
	}
	return Finding{}, false
}

var fillers = map[string]bool{"the": true, "a": true, "an": true, "my": true, "of": true, "lit": true, "unlit": true}

// synonyms are words stories use for the same thing ("lamp" for the brass
// lantern): a claim with one is supported by an item with another.
var synonyms = [][]string{{"lamp", "lantern", "light", "torch"}, {"sword", "blade"}, {"knife", "dagger"},
	{"bottle", "flask"}, {"sack", "bag"}, {"coin", "coins"}, {"book", "tome"}, {"rope", "cord"}}

// alike adds a word's synonyms to set.
func alike(set map[string]bool, w string) {
	set[w], set[strings.TrimSuffix(w, "s")] = true, true
	for _, g := range synonyms {
		for _, x := range g {
			if x == w {
				for _, y := range g {
					set[y] = true
				}
			}
		}
	}
}

// contentWords are a phrase's lower-case words without articles.
func contentWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		if !fillers[w] && len(w) >= 2 {
			out = append(out, w)
		}
	}
	return out
}

func fold(s string) string { return strings.Join(contentWords(s), " ") }
