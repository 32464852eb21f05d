package memory

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lantern-if/lantern/domain"
)

// FirstVisit is the agent's location memory for a place it knows nothing
// about.
const FirstVisit = "First visit - no prior experiences"

// Budget bounds what the agent's context shows of one location (by
// default at most 5 successes and 5 failures, 200-500 tokens). A zero field takes
// the default.
type Budget struct {
	MaxSuccesses int // SUCCESS memories shown, the most recent (5)
	MaxFailures  int // FAILURE memories shown, the most recent (5)
	MaxOthers    int // memories shown of each other category: DANGER, DISCOVERY, NOTE (5)
	MaxItems     int // ITEM entries shown (what was found or left here), the most recent (10)
	MaxTokens    int // the whole text, estimated at 4 bytes a token (500)
	MaxTextChars int // one memory's text; longer text is cut (400)
}

// DefaultBudget is the default configuration: 5 of each category, 10
// ITEM entries (short, and a room can hold many), 500 tokens in all, 400
// characters a memory.
func DefaultBudget() Budget {
	return Budget{MaxSuccesses: 5, MaxFailures: 5, MaxOthers: 5, MaxItems: 10, MaxTokens: 500, MaxTextChars: 400}
}

func (b Budget) withDefaults() Budget {
	d := DefaultBudget()
	b.MaxSuccesses = domain.PositiveOr(b.MaxSuccesses, d.MaxSuccesses)
	b.MaxFailures = domain.PositiveOr(b.MaxFailures, d.MaxFailures)
	b.MaxOthers = domain.PositiveOr(b.MaxOthers, d.MaxOthers)
	b.MaxItems = domain.PositiveOr(b.MaxItems, d.MaxItems)
	b.MaxTokens = domain.PositiveOr(b.MaxTokens, d.MaxTokens)
	b.MaxTextChars = domain.PositiveOr(b.MaxTextChars, d.MaxTextChars)
	return b
}

func (b Budget) limit(c Category) int {
	switch c {
	case CategorySuccess:
		return b.MaxSuccesses
	case CategoryFailure:
		return b.MaxFailures
	case CategoryItem:
		return b.MaxItems
	}
	return b.MaxOthers
}

// EstimateTokens is the token estimate the budget uses: 4 bytes a token.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// RenderLocationMemory is RenderLocationMemoryIn outside an episode:
// every level is shown (a person's view, `memories show`).
func RenderLocationMemory(sec Section, b Budget) string { return RenderLocationMemoryIn(sec, b, 0) }

// RenderLocationMemoryIn is the text for the agent's context about one
// location in an episode, in this form:
//
//	Location Memory for Living Room (Location 23):
//
//	You've been here 5 times across 4 episodes.
//
//	[SUCCESS] Acquire brass lantern (Ep1, T45, +5)
//	Brass lantern is takeable and provides light source. ...
//
// Superseded memories are never shown; tentative ones carry their status
// ("[NOTE - TENTATIVE] ..."). The levels (Persistence) decide the rest:
// CORE memories come first, all of them, whatever the budget; EPHEMERAL
// ones of another episode than this one are not shown (episode 0: all
// are); the others (PERMANENT, the default) follow in file order. Of each
// category only the most recent of those are shown (Budget); a memory
// written by hand, without metadata, counts as the most recent. When the
// text would pass MaxTokens, memories are left out, the least important
// first (NOTE, ITEM, DISCOVERY, SUCCESS, FAILURE, DANGER; tentative before
// active; older before newer), and a last line says how many are not
// shown. A location without memories to show gives FirstVisit, unless it
// was visited before (more than one visit), which is said instead.
func RenderLocationMemoryIn(sec Section, b Budget, episode int) string {
	b = b.withDefaults()
	type cand struct {
		idx int
		m   Memory
	}
	var core []cand
	var byCat [numCategories][]cand
	for i, m := range sec.Memories {
		if !m.ShownIn(episode) {
			continue
		}
		if m.Persistence == PersistenceCore {
			core = append(core, cand{i, m})
			continue
		}
		r := categoryRank(m.Category)
		byCat[r] = append(byCat[r], cand{i, m})
	}
	hidden := 0
	var shown []cand
	for r := range byCat {
		cs := byCat[r]
		if len(cs) == 0 {
			continue
		}
		slices.SortStableFunc(cs, func(x, y cand) int { return compareRecency(y.idx, y.m, x.idx, x.m) })
		n := min(len(cs), b.limit(cs[0].m.Category))
		hidden += len(cs) - n
		shown = append(shown, cs[:n]...)
	}
	if len(core)+len(shown) == 0 {
		if sec.Visits <= 1 {
			return FirstVisit
		}
		return renderHead(sec) + "\nNothing is remembered about this place yet."
	}
	slices.SortFunc(shown, func(x, y cand) int { return x.idx - y.idx })
	render := func() string {
		var sb strings.Builder
		size := 128 + len(sec.Name)
		for _, c := range slices.Concat(core, shown) {
			size += 48 + len(c.m.Title) + min(len(c.m.Text), b.MaxTextChars)
		}
		sb.Grow(size)
		sb.WriteString(renderHead(sec))
		for _, c := range slices.Concat(core, shown) {
			sb.WriteString("\n")
			renderMemory(&sb, c.m, b.MaxTextChars)
		}
		if hidden > 0 {
			sb.WriteString("\n(")
			sb.WriteString(strconv.Itoa(hidden))
			if hidden == 1 {
				sb.WriteString(" more memory here is not shown.)\n")
			} else {
				sb.WriteString(" more memories here are not shown.)\n")
			}
		}
		return strings.TrimRight(sb.String(), "\n")
	}
	out := render()
	// CORE memories are never left out; the others, least important first.
	for EstimateTokens(out) > b.MaxTokens && len(shown) > 0 && len(core)+len(shown) > 1 {
		drop := 0
		for i := 1; i < len(shown); i++ {
			if lessImportant(shown[i].idx, shown[i].m, shown[drop].idx, shown[drop].m) {
				drop = i
			}
		}
		shown = slices.Delete(shown, drop, drop+1)
		hidden++
		out = render()
	}
	return out
}

func renderHead(sec Section) string {
	var sb strings.Builder
	sb.WriteString("Location Memory for ")
	sb.WriteString(sec.Name)
	sb.WriteString(" (Location ")
	sb.WriteString(strconv.Itoa(sec.ID))
	sb.WriteString("):\n")
	if sec.Visits > 0 {
		sb.WriteString("\nYou've been here ")
		sb.WriteString(plural(sec.Visits, "time", "times"))
		if n := len(sec.Episodes); n > 0 {
			sb.WriteString(" across ")
			sb.WriteString(plural(n, "episode", "episodes"))
		}
		sb.WriteString(".\n")
	}
	return sb.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func renderMemory(sb *strings.Builder, m Memory, maxText int) {
	sb.WriteString("[")
	sb.WriteString(label(m))
	sb.WriteString("] ")
	sb.WriteString(m.Title)
	if md := meta(m); md != "" {
		sb.WriteString(" (")
		sb.WriteString(md)
		sb.WriteString(")")
	}
	sb.WriteString("\n")
	if m.Text != "" {
		sb.WriteString(truncate(m.Text, maxText))
		sb.WriteString("\n")
	}
}

// truncate cuts s to at most n bytes, at a word boundary when there is one,
// marking the cut with "...".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexAny(s[:cut], " \n"); sp > cut/2 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " \n") + "..."
}

// numCategories is how many categories there are (Categories).
const numCategories = 6

// categoryRank orders categories by importance (Categories), 0 the least.
func categoryRank(c Category) int {
	switch c {
	case CategoryNote:
		return 0
	case CategoryItem:
		return 1
	case CategoryDiscovery:
		return 2
	case CategorySuccess:
		return 3
	case CategoryFailure:
		return 4
	}
	return 5
}

// recencyKey orders memories by when they were made; a memory without
// metadata (written by hand) is the most recent, and file order breaks
// ties.
func recencyKey(idx int, m Memory) [3]int {
	if m.Episode == 0 && m.Turn == 0 {
		return [3]int{math.MaxInt, math.MaxInt, idx}
	}
	return [3]int{m.Episode, m.LastTurn(), idx}
}

func compareRecency(i int, a Memory, j int, b Memory) int {
	ka, kb := recencyKey(i, a), recencyKey(j, b)
	return slices.Compare(ka[:], kb[:])
}

// lessImportant reports whether a goes before b when memories are left out.
func lessImportant(i int, a Memory, j int, b Memory) bool {
	if ra, rb := categoryRank(a.Category), categoryRank(b.Category); ra != rb {
		return ra < rb
	}
	ta, tb := a.Status == StatusTentative, b.Status == StatusTentative
	if ta != tb {
		return ta
	}
	return compareRecency(i, a, j, b) < 0
}
