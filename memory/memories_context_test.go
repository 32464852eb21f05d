package memory

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// seed003Context is the design's example of retrieved context, word for
// word.
const seed003Context = `Location Memory for Living Room (Location 23):

You've been here 5 times across 4 episodes.

[SUCCESS] Acquire brass lantern (Ep1, T45, +5)
Brass lantern is takeable and provides light source. CRITICAL item for dark areas - always take before exploring.

[SUCCESS] Light lantern (Ep1, T46, +0)
Lantern can be lit with simple command. Enables safe navigation of dark rooms.

[FAILURE] Take sword (Ep1, T47)
Ornamental sword is securely mounted and cannot be taken directly. Likely requires puzzle solution.

[NOTE] Navigation options (Ep1, T50, +0)
West exit leads to Kitchen. Room serves as central hub with multiple exits.`

func TestLocationMemorySeedExample(t *testing.T) {
	s, _ := tempStore(t, fixture(t, "seed003_example.md"))
	if got := s.LocationMemory(23); got != seed003Context {
		t.Errorf("got:\n%s\nwant:\n%s", got, seed003Context)
	}
	if got := s.LocationMemory(99); got != FirstVisit {
		t.Errorf("unknown location: %q", got)
	}
}

func mem(c Category, st Status, title string, ep, turn int, text string) Memory {
	return Memory{Category: c, Status: st, Title: title, Episode: ep, Turn: turn, Text: text}
}

func TestRenderLocationMemory(t *testing.T) {
	troll := Section{ID: 152, Name: "Troll Room", Visits: 2, Episodes: []int{1}}
	many := Section{ID: 7, Name: "Maze", Visits: 1, Episodes: []int{1, 2}}
	for i := 1; i <= 7; i++ {
		many.Memories = append(many.Memories, mem(CategorySuccess, StatusActive, fmt.Sprintf("Success %d", i), 1, i, "s"))
	}
	for i := 1; i <= 6; i++ {
		many.Memories = append(many.Memories, mem(CategoryFailure, StatusActive, fmt.Sprintf("Failure %d", i), 2, i, "f"))
	}
	long := strings.Repeat("word ", 200)
	cases := []struct {
		name   string
		sec    Section
		budget Budget
		want   []string // substrings, in order
		not    []string // absent substrings
		exact  string
	}{
		{name: "no memories, first visit", sec: Section{ID: 3, Name: "Attic", Visits: 1}, exact: FirstVisit},
		{name: "no memories, never counted", sec: Section{ID: 3, Name: "Attic"}, exact: FirstVisit},
		{
			name:  "visited before, nothing remembered",
			sec:   Section{ID: 3, Name: "Attic", Visits: 3, Episodes: []int{1, 2}},
			exact: "Location Memory for Attic (Location 3):\n\nYou've been here 3 times across 2 episodes.\n\nNothing is remembered about this place yet.",
		},
		{
			name: "superseded memories are hidden, tentative ones marked",
			sec: func() Section {
				s := troll
				s.Memories = []Memory{
					{Category: CategoryDanger, Status: StatusActive, Title: "Troll attacks after accepting gift", Episode: 1, Turn: 13, HasScore: true, Text: "Gift strategy fails."},
					{Category: CategoryNote, Status: StatusSuperseded, Title: "Troll accepts lunch gift", Episode: 1, Turn: 12, Text: "Unclear."},
					{Category: CategoryNote, Status: StatusTentative, Title: "Troll dislikes light", Episode: 1, Turn: 14, Text: "Maybe."},
				}
				return s
			}(),
			exact: "Location Memory for Troll Room (Location 152):\n\nYou've been here 2 times across 1 episode.\n\n" +
				"[DANGER] Troll attacks after accepting gift (Ep1, T13, +0)\nGift strategy fails.\n\n" +
				"[NOTE - TENTATIVE] Troll dislikes light (Ep1, T14)\nMaybe.",
		},
		{
			name: "only superseded memories, first visit",
			sec: Section{ID: 4, Name: "Cave", Visits: 1, Memories: []Memory{
				mem(CategoryNote, StatusSuperseded, "Old", 1, 1, "x")}},
			exact: FirstVisit,
		},
		{
			name: "at most 5 successes and 5 failures, the most recent",
			sec:  many,
			want: []string{"You've been here 1 time across 2 episodes.", "[SUCCESS] Success 3", "[SUCCESS] Success 7", "[FAILURE] Failure 2", "[FAILURE] Failure 6",
				"(3 more memories here are not shown.)"},
			not: []string{"Success 1 ", "Success 2 ", "Failure 1 "},
		},
		{
			name: "a memory without metadata counts as the most recent",
			sec: Section{ID: 8, Name: "Study", Memories: append(append([]Memory{}, many.Memories[:7]...),
				Memory{Category: CategorySuccess, Status: StatusActive, Title: "By hand", Text: "h"})},
			budget: Budget{MaxSuccesses: 2},
			want:   []string{"[SUCCESS] Success 7 (Ep1, T7)", "[SUCCESS] By hand\nh", "(6 more memories here are not shown.)"},
			not:    []string{"Success 6", "You've been here"},
		},
		{
			name: "over the token budget the least important go first",
			sec: Section{ID: 9, Name: "Dome", Memories: []Memory{
				mem(CategoryDanger, StatusActive, "Fall", 1, 1, strings.Repeat("d", 100)),
				mem(CategoryNote, StatusActive, "View", 1, 9, strings.Repeat("n", 100)),
				mem(CategorySuccess, StatusTentative, "Rope maybe", 1, 3, strings.Repeat("t", 100)),
				mem(CategorySuccess, StatusActive, "Rope", 1, 2, strings.Repeat("s", 100)),
				mem(CategoryDiscovery, StatusActive, "Railing", 1, 4, strings.Repeat("r", 100)),
			}},
			budget: Budget{MaxTokens: 100},
			want:   []string{"[DANGER] Fall", "[SUCCESS] Rope (Ep1, T2)", "(3 more memories here are not shown.)"},
			not:    []string{"View", "Railing", "Rope maybe"},
		},
		{
			name:   "long text is cut",
			sec:    Section{ID: 10, Name: "Library", Memories: []Memory{mem(CategoryNote, StatusActive, "Books", 1, 1, long)}},
			budget: Budget{MaxTextChars: 50, MaxTokens: 1000},
			want:   []string{"[NOTE] Books (Ep1, T1)\nword word word word word word word word word...", ""},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := RenderLocationMemory(c.sec, c.budget)
			if c.exact != "" {
				if got != c.exact {
					t.Errorf("got:\n%s\nwant:\n%s", got, c.exact)
				}
				return
			}
			rest := got
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("%q missing (or out of order) in:\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range c.not {
				if strings.Contains(got, n) {
					t.Errorf("%q shown in:\n%s", n, got)
				}
			}
			b := c.budget.withDefaults()
			if EstimateTokens(got) > b.MaxTokens {
				t.Errorf("%d tokens, budget %d", EstimateTokens(got), b.MaxTokens)
			}
		})
	}
}

// Within the default budget even a location with a hundred memories stays
// near the budget's 500 tokens.
// lessonCategories are the categories of what a model or a person
// remembers, least important first (ITEM, ground truth, left out).
var lessonCategories = []Category{CategoryNote, CategoryDiscovery, CategorySuccess, CategoryFailure, CategoryDanger}

func TestLocationMemoryBudget(t *testing.T) {
	s, _ := tempStore(t, "")
	for i := range 100 {
		cat := lessonCategories[i%len(lessonCategories)]
		m := mem(cat, StatusActive, fmt.Sprintf("Memory %d", i), 1+i/10, i+1, strings.Repeat("Some long observation about the room. ", 3))
		if err := s.Add(12, "Big Room", m); err != nil {
			t.Fatal(err)
		}
	}
	got := s.LocationMemory(12)
	if n := EstimateTokens(got); n > DefaultBudget().MaxTokens {
		t.Errorf("%d tokens:\n%s", n, got)
	}
	if !strings.Contains(got, "[DANGER] Memory 99") || !strings.Contains(got, "more memories here are not shown") {
		t.Errorf("most recent danger or the count missing:\n%s", got)
	}
}

func TestShowAgentContextOfSeed(t *testing.T) {
	var b strings.Builder
	if err := Show(&b, filepath.Join("testdata", "seed003_example.md"), 23); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), seed003Context+"\n") {
		t.Errorf("show:\n%s", b.String())
	}
}
