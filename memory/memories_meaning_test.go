package memory

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

const itemsLevels = "testdata/items-levels.md"

// Ground-truth ITEM entries, with and without a level, pass the check,
// round-trip through fmt and read back as their own category.
func TestItemEntriesRoundTrip(t *testing.T) {
	var out bytes.Buffer
	if code := Check(&out, itemsLevels); code != 0 {
		t.Fatalf("memories check = %d:\n%s", code, out.String())
	}
	data := readFile(t, itemsLevels)
	var fmtd bytes.Buffer
	if err := Fmt(&fmtd, itemsLevels); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fmtd.Bytes(), data) {
		t.Fatalf("memories fmt changed the file:\n%s", fmtd.String())
	}
	sec, ok := Parse(data).Section(40)
	if !ok {
		t.Fatal("no section 40")
	}
	for _, tc := range []struct {
		title string
		cat   Category
		level Persistence
		truth bool
	}{
		{"Trap door under the rug", CategorySuccess, PersistenceCore, false},
		{"brass lantern", CategoryItem, PersistencePermanent, true},
		{"jewel-encrusted egg", CategoryItem, PersistenceEphemeral, true},
		{"Trophy case open", CategoryNote, PersistenceEphemeral, false},
	} {
		var got *Memory
		for i := range sec.Memories {
			if sec.Memories[i].Title == tc.title {
				got = &sec.Memories[i]
			}
		}
		if got == nil {
			t.Errorf("%q not read", tc.title)
			continue
		}
		if got.Category != tc.cat || got.Level() != tc.level || got.Category.GroundTruth() != tc.truth {
			t.Errorf("%q: %s %s (ground truth %v), want %s %s (%v)", tc.title, got.Category, got.Level(), got.Category.GroundTruth(), tc.cat, tc.level, tc.truth)
		}
	}
}

// The levels mean something in the agent's context: CORE first and never
// left out, EPHEMERAL only in its own episode, PERMANENT (or no level)
// always.
func TestRenderLevels(t *testing.T) {
	long := strings.Repeat("A long observation that fills the budget. ", 8)
	sec := Section{ID: 9, Name: "Hall", Visits: 3, Episodes: []int{1, 2}, Memories: []Memory{
		{Category: CategoryNote, Status: StatusActive, Title: "Plain lesson", Episode: 1, Turn: 2, Text: "Kept always."},
		{Category: CategoryNote, Persistence: PersistenceEphemeral, Status: StatusActive, Title: "Door left open", Episode: 1, Turn: 3, Text: "This time only."},
		{Category: CategoryDanger, Persistence: PersistenceCore, Status: StatusActive, Title: "Grue in the dark", Episode: 1, Turn: 4, Text: "Carry a light."},
		{Category: CategorySuccess, Persistence: PersistencePermanent, Status: StatusActive, Title: "Lamp lit", Episode: 2, Turn: 5, Text: "Light it here."},
	}}
	for _, tc := range []struct {
		name        string
		episode     int
		budget      Budget
		shown, gone []string
		first       string
	}{
		{"episode 1", 1, DefaultBudget(), []string{"Plain lesson", "Door left open", "Grue in the dark", "Lamp lit"}, nil, "Grue in the dark"},
		{"episode 2", 2, DefaultBudget(), []string{"Plain lesson", "Grue in the dark", "Lamp lit"}, []string{"Door left open"}, "Grue in the dark"},
		{"outside play", 0, DefaultBudget(), []string{"Door left open", "Grue in the dark"}, nil, "Grue in the dark"},
		{"tight budget", 2, Budget{MaxTokens: 60}, []string{"Grue in the dark"}, []string{"Door left open", "Plain lesson"}, "Grue in the dark"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sec
			if tc.name == "tight budget" {
				s.Memories = append([]Memory(nil), sec.Memories...)
				s.Memories[0].Text = long
			}
			got := RenderLocationMemoryIn(s, tc.budget, tc.episode)
			for _, w := range tc.shown {
				if !strings.Contains(got, "] "+w) {
					t.Errorf("%q not shown:\n%s", w, got)
				}
			}
			for _, w := range tc.gone {
				if strings.Contains(got, "] "+w) {
					t.Errorf("%q shown:\n%s", w, got)
				}
			}
			first := strings.Index(got, "\n[")
			if first < 0 || !strings.HasPrefix(got[first+1:], "[DANGER - CORE] "+tc.first) {
				t.Errorf("the CORE memory is not first:\n%s", got)
			}
		})
	}
}

// The store shows the memories of the episode a visit was last recorded
// for, and an EPHEMERAL lesson learned again in a later episode takes the
// place of the earlier one instead of being refused as its duplicate.
func TestStoreEpisodeLevels(t *testing.T) {
	s, _ := tempStore(t, "")
	eph := Memory{Category: CategoryNote, Persistence: PersistenceEphemeral, Status: StatusActive, Title: "Window open", Episode: 1, Turn: 4, Text: "Open now."}
	core := Memory{Category: CategoryDiscovery, Persistence: PersistenceCore, Status: StatusActive, Title: "Kitchen west", Episode: 1, Turn: 5, Text: "West is the kitchen."}
	if err := s.RecordVisit(79, "Behind House", 1); err != nil {
		t.Fatal(err)
	}
	for _, m := range []Memory{eph, core} {
		if err := s.Add(79, "Behind House", m); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.LocationMemory(79); !strings.Contains(got, "Window open") || !strings.Contains(got, "Kitchen west") {
		t.Fatalf("episode 1:\n%s", got)
	}
	if err := s.RecordVisit(79, "Behind House", 2); err != nil {
		t.Fatal(err)
	}
	if s.Episode() != 2 {
		t.Fatalf("episode %d after a visit in episode 2", s.Episode())
	}
	if got := s.LocationMemory(79); strings.Contains(got, "Window open") || !strings.Contains(got, "Kitchen west") {
		t.Fatalf("episode 2:\n%s", got)
	}
	again := eph
	again.Episode, again.Turn, again.Text = 2, 7, "Open again."
	if err := s.Add(79, "Behind House", again); err != nil {
		t.Fatalf("the same ephemeral lesson in episode 2: %v", err)
	}
	if err := s.Add(79, "Behind House", again); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("twice in one episode: %v, want ErrDuplicate", err)
	}
	mems := s.List(79)
	if len(mems) != 2 || mems[0].Episode != 2 || mems[0].Text != "Open again." {
		t.Fatalf("memories %+v", mems)
	}
	if got := s.LocationMemory(79); !strings.Contains(got, "Open again.") {
		t.Errorf("episode 2 after learning it again:\n%s", got)
	}
	// Learned again in episode 3, superseding another memory: it takes
	// the stale one's place too.
	if err := s.RecordVisit(79, "Behind House", 3); err != nil {
		t.Fatal(err)
	}
	third := eph
	third.Episode, third.Turn, third.Text = 3, 2, "Open a third time."
	if n, err := s.Supersede(79, "Behind House", third, []string{"Kitchen west"}, ByModel); err != nil || n != 1 {
		t.Fatalf("supersede in episode 3: %d, %v", n, err)
	}
	mems = s.List(79)
	if len(mems) != 2 || mems[0].Episode != 3 || mems[0].Text != "Open a third time." || mems[1].Visible() {
		t.Fatalf("memories after episode 3: %+v", mems)
	}
}

// `memories show` by level prints only the memories of that level (a
// memory without one is PERMANENT), in the file's form.
func TestShowByLevel(t *testing.T) {
	for _, tc := range []struct {
		level Persistence
		loc   int
		name  string
	}{
		{PersistenceCore, 0, "show-core"},
		{"permanent", 0, "show-permanent"},
		{PersistenceEphemeral, 40, "show-ephemeral-40"},
		{PersistenceCore, 0, "show-core-none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := itemsLevels
			if tc.name == "show-core-none" {
				path = filepath.Join("testdata", "seed003_example.md")
			}
			var out bytes.Buffer
			if err := ShowFiltered(&out, path, ShowFilter{Location: tc.loc, Level: tc.level}); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".txt", out.Bytes())
		})
	}
	if err := ShowFiltered(&bytes.Buffer{}, itemsLevels, ShowFilter{Level: "forever"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("an unknown level: %v, want ErrInvalid", err)
	}
	if err := ShowFiltered(&bytes.Buffer{}, itemsLevels, ShowFilter{Location: 3, Level: PersistenceCore}); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown location: %v, want ErrNotFound", err)
	}
}
