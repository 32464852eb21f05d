package objectives

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/managers/knowledge"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/memory"
)

func fakeClient(t *testing.T) (*llm.Client, *llmtest.Server) {
	t.Helper()
	return llmtest.NewClient(t, "fake")
}

// memSource is an in-memory MemorySource.
type memSource map[int][]memory.Memory

func (s memSource) List(loc int) []memory.Memory { return s[loc] }

func mem(cat memory.Category, title, text string, st memory.Status) memory.Memory {
	return memory.Memory{Category: cat, Status: st, Title: title, Text: text, Episode: 1, Turn: 3}
}

// house is a small map: West of House (64) ↔ North of House (80) → Behind
// House (79) → enter window → Kitchen (62); South of House (81) → Behind
// House (an incoming connection only).
func house() *mapper.Map {
	m := mapper.New()
	m.Visit(64, "West of House")
	m.ProcessTurn(64, "north", 80, "North of House")
	m.ProcessTurn(80, "south", 64, "West of House")
	m.ProcessTurn(80, "east", 79, "Behind House")
	m.ProcessTurn(79, "enter window", 62, "Kitchen")
	m.ProcessTurn(62, "out", 79, "Behind House")
	m.AddExit(81, "northeast", 79, "")
	m.Visit(81, "South of House")
	m.ProcessTurn(81, "northeast", 79, "Behind House")
	return m
}

// at puts the manager's current location at loc.
func at(m *Manager, id int, name string) { m.SetLocation(id, name) }

func TestFullKnowledgeLoadsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), knowledge.FileName)
	body := "# Knowledge base: zork1\n\n## Strategy\n\n- The troll at L152 needs a sword.\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	m := New(Deps{Knowledge: knowledge.New(nil, knowledge.Config{Path: path})}, Config{})
	if got := m.FullKnowledge(); got != body {
		t.Errorf("full knowledge %q, want the whole file %q", got, body)
	}
}

func TestFullKnowledgeHandlesMissingFile(t *testing.T) {
	k := knowledge.New(nil, knowledge.Config{Path: filepath.Join(t.TempDir(), "nothing-here", knowledge.FileName)})
	if got := New(Deps{Knowledge: k}, Config{}).FullKnowledge(); got != NoKnowledge {
		t.Errorf("missing file: %q, want %q", got, NoKnowledge)
	}
	if got := New(Deps{}, Config{}).FullKnowledge(); got != NoKnowledge {
		t.Errorf("no knowledge manager: %q, want %q", got, NoKnowledge)
	}
}

func TestAdjacentRoomIDsOutgoing(t *testing.T) {
	m := New(Deps{Map: house()}, Config{})
	got := m.AdjacentIDs(79)
	if !contains(got, 62) {
		t.Errorf("adjacent to L79: %v, want the kitchen (62) reached by enter window", got)
	}
}

func TestAdjacentRoomIDsIncoming(t *testing.T) {
	m := New(Deps{Map: house()}, Config{})
	got := m.AdjacentIDs(79)
	for _, want := range []int{80, 81} {
		if !contains(got, want) {
			t.Errorf("adjacent to L79: %v, want L%d, which leads here", got, want)
		}
	}
	if contains(got, 79) || contains(got, 64) {
		t.Errorf("adjacent to L79: %v holds itself or a room two hops away", got)
	}
}

func TestAdjacentRoomIDsWithoutMap(t *testing.T) {
	m := New(Deps{}, Config{})
	if got := m.AdjacentIDs(79); len(got) != 0 {
		t.Errorf("no map: adjacent %v, want none", got)
	}
	if got := m.MapContext(); got != NoMapData {
		t.Errorf("no map: map context %q", got)
	}
	if got := m.RoutingSummary(79); got != NoRoutingData {
		t.Errorf("no map: routing %q", got)
	}
	at(m, 79, "Behind House")
	src := memSource{79: {mem(memory.CategorySuccess, "Window entry", "Open the window, then enter window.", memory.StatusActive)}}
	m.deps.Memories = src
	if got := m.MemoriesWithAdjacent(79); !strings.Contains(got, "Current Location 79 (Behind House)") || strings.Contains(got, "Adjacent") {
		t.Errorf("no map: memories %q", got)
	}
}

func TestMemoriesWithAdjacentCurrentOnly(t *testing.T) {
	src := memSource{79: {
		mem(memory.CategorySuccess, "Window entry sequence", "To enter the kitchen: open window, then enter window.", memory.StatusActive),
		mem(memory.CategoryDanger, "Grue in the dark", "Do not walk in the dark.", memory.StatusTentative),
	}}
	m := New(Deps{Memories: src, Map: house()}, Config{})
	got := m.MemoriesWithAdjacent(79)
	for _, want := range []string{
		"## Memories for Current Location 79 (Behind House):",
		"  - [SUCCESS] Window entry sequence\n    To enter the kitchen: open window, then enter window.",
		"  - [DANGER] Grue in the dark [TENTATIVE]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("memories lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Adjacent Locations") {
		t.Errorf("no adjacent room has memories, yet:\n%s", got)
	}
	if got := New(Deps{Memories: memSource{}, Map: house()}, Config{}).MemoriesWithAdjacent(79); got != NoMemories {
		t.Errorf("no memories anywhere: %q", got)
	}
	if got := New(Deps{Map: house()}, Config{}).MemoriesWithAdjacent(79); got != NoMemoryData {
		t.Errorf("no memory source: %q", got)
	}
}

func TestMemoriesWithAdjacentIncludesNeighbors(t *testing.T) {
	var kitchen []memory.Memory
	for i := 1; i <= 4; i++ {
		kitchen = append(kitchen, mem(memory.CategoryDiscovery, fmt.Sprintf("Kitchen fact %d", i), "Something about the kitchen.", memory.StatusActive))
	}
	src := memSource{
		79: {mem(memory.CategorySuccess, "Window entry", "Open the window, then enter window.", memory.StatusActive)},
		62: kitchen,
		81: {mem(memory.CategoryNote, "Old path", "A path, once.", memory.StatusSuperseded), mem(memory.CategoryNote, "Garden path", "Leads northeast.", memory.StatusActive)},
	}
	got := New(Deps{Memories: src, Map: house()}, Config{}).MemoriesWithAdjacent(79)
	for _, want := range []string{"## Memories for Adjacent Locations:", "**Location 62 (Kitchen):**", "Kitchen fact 3", "**Location 81 (South of House):**"} {
		if !strings.Contains(got, want) {
			t.Errorf("memories lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Kitchen fact 4") {
		t.Errorf("an adjacent location shows more than its top 3 memories:\n%s", got)
	}
	if i, j := strings.Index(got, "Garden path"), strings.Index(got, "Old path"); i < 0 || j < 0 || i > j {
		t.Errorf("active memories come before superseded ones:\n%s", got)
	}
	if strings.Contains(got, "Location 64") {
		t.Errorf("a room two hops away is not adjacent:\n%s", got)
	}
}

func TestMemoriesWithAdjacentLimitsCount(t *testing.T) {
	g := mapper.New()
	g.Visit(1, "Hub")
	src := memSource{}
	for id := 2; id <= 8; id++ {
		g.ProcessTurn(1, fmt.Sprintf("door %d", id), id, fmt.Sprintf("Room %d", id))
		g.ProcessTurn(id, "out", 1, "Hub")
		src[id] = []memory.Memory{mem(memory.CategoryNote, fmt.Sprintf("Note in room %d", id), "Text.", memory.StatusActive)}
	}
	got := New(Deps{Memories: src, Map: g}, Config{}).MemoriesWithAdjacent(1)
	if n := strings.Count(got, "**Location "); n != MaxAdjacent {
		t.Errorf("%d adjacent locations shown, want %d:\n%s", n, MaxAdjacent, got)
	}
	if strings.Contains(got, "Room 7") || strings.Contains(got, "Room 8") {
		t.Errorf("the lowest 5 IDs are kept (the IDs are sorted):\n%s", got)
	}
}

func TestMapContextIncludesMermaid(t *testing.T) {
	m := New(Deps{Map: house()}, Config{})
	at(m, 79, "Behind House")
	got := m.MapContext()
	for _, want := range []string{
		"## Map Visualization (Mermaid Format)", "graph TD", `L79["Behind House"]`, "L79 -->|enter window| L62",
		"Note: Node IDs match location IDs in memories (L180 = Location 180)", "**Current location**: L79",
		"## Current Location: 79 (Behind House)", "## Exploration Statistics", "- Rooms discovered: 5",
		"- Current location: Behind House (ID: 79)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("map context lacks %q:\n%s", want, got)
		}
	}
}

func TestRoutingSummaryCurrentLocation(t *testing.T) {
	got := New(Deps{Map: house()}, Config{}).RoutingSummary(79)
	for _, want := range []string{"## Current Location: 79 (Behind House)", "**Available Exits:**", "  - enter window → Location 62 (Kitchen)"} {
		if !strings.Contains(got, want) {
			t.Errorf("routing summary lacks %q:\n%s", want, got)
		}
	}
	if got := New(Deps{Map: house()}, Config{}).RoutingSummary(999); !strings.Contains(got, "No mapped exits") {
		t.Errorf("an unmapped room: %q", got)
	}
}

func TestRoutingSummaryAdjacentLocations(t *testing.T) {
	got := New(Deps{Map: house()}, Config{}).RoutingSummary(79)
	for _, want := range []string{"## Adjacent Locations (1 hop away):", "**Location 62 (Kitchen):**",
		"  - out → Location 79 (Behind House) [back to current]", "**Location 80 (North of House):**", "**Location 81 (South of House):**"} {
		if !strings.Contains(got, want) {
			t.Errorf("routing summary lacks %q:\n%s", want, got)
		}
	}
}

func TestFormatMemoriesShowsStatus(t *testing.T) {
	got := FormatMemories([]memory.Memory{
		mem(memory.CategorySuccess, "Works", "It works.", memory.StatusActive),
		mem(memory.CategoryNote, "Maybe", "Not sure yet.", memory.StatusTentative),
		mem(memory.CategoryFailure, "Wrong", "Was wrong.", memory.StatusSuperseded),
	})
	for _, want := range []string{"  - [SUCCESS] Works\n    It works.", "  - [NOTE] Maybe [TENTATIVE]\n    Not sure yet.", "  - [FAILURE] Wrong [SUPERSEDED]"} {
		if !strings.Contains(got, want) {
			t.Errorf("formatted memories lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "[ACTIVE]") {
		t.Errorf("ACTIVE memories carry no marker:\n%s", got)
	}
	if got := FormatMemories(nil); got != "  (No memories)" {
		t.Errorf("no memories: %q", got)
	}
	var many []memory.Memory
	for i := 0; i < 8; i++ {
		many = append(many, mem(memory.CategoryNote, fmt.Sprintf("M%d", i), "x", memory.StatusActive))
	}
	if n := strings.Count(FormatMemories(many), "  - ["); n != MemoriesShown {
		t.Errorf("%d memories formatted, want the top %d", n, MemoriesShown)
	}
}

func TestAchievedFromGroundTruth(t *testing.T) {
	move := domain.Turn{FromID: 79, FromName: "Behind House", ToID: 62, ToName: "Kitchen"}
	take := domain.Turn{FromID: 75, ToID: 75, InvBefore: []string{"leaflet"}, InvAfter: []string{"leaflet", "brass lantern"}}
	score := domain.Turn{FromID: 75, ToID: 75, ScoreBefore: 10, ScoreAfter: 15}
	cases := []struct {
		text string
		turn domain.Turn
		want bool
	}{
		{"Use the window entry procedure from Location 79 memory to access Location 62 (Kitchen)", move, true},
		{"Go to L62 and search the kitchen", move, true},
		{"Explore unexplored exits from Location 79", move, false},
		{"Avoid Location 62 until holding a lamp", move, false},
		{"Enter Location 80", move, false},
		{"Secure the brass lantern from Location 75", take, true},
		{"Take the lamp before going down", take, false}, // the item is a lantern: the model decides
		{"Get the sword", take, false},
		{"Put a treasure in the trophy case to gain points", score, true},
		{"Read the leaflet", score, false},
	}
	for _, c := range cases {
		if got := Achieved(c.text, c.turn) != ""; got != c.want {
			t.Errorf("%q after %+v: achieved=%v, want %v", c.text, c.turn, got, c.want)
		}
	}
}

func TestPersonEdits(t *testing.T) {
	m := New(Deps{}, Config{})
	for _, text := range []string{"Find the lamp", "Open the trap door at L75"} {
		if ch, err := m.Edit("add", text); err != nil || !ch {
			t.Fatalf("add %q: %v %v", text, ch, err)
		}
	}
	if _, err := m.Edit("add", "find the LAMP!"); err == nil {
		t.Error("adding the same objective twice succeeds")
	}
	if _, err := m.Edit("complete", "find the lamp"); err != nil {
		t.Fatalf("complete by text: %v", err)
	}
	if _, err := m.Edit("drop", "#2"); err != nil {
		t.Fatalf("drop by ID: %v", err)
	}
	if _, err := m.Edit("drop", "nothing like this"); err == nil {
		t.Error("dropping an unknown objective succeeds")
	}
	if _, err := m.Edit("rename", "x"); err == nil {
		t.Error("an unknown operation succeeds")
	}
	active, completed := m.Objectives()
	if len(active) != 0 || len(completed) != 1 || completed[0] != "Find the lamp" {
		t.Errorf("active %q, completed %q", active, completed)
	}
	m.Edit("add", "Keep the lamp lit")
	m.mu.Lock()
	m.objs = append(m.objs, Objective{ID: 99, Text: "A model objective", Source: ByModel, State: Active})
	m.mu.Unlock()
	if p := m.Prompt(); len(p) != 2 || p[0] != "(from the person) Keep the lamp lit" || p[1] != "A model objective" {
		t.Errorf("prompt %q: the person's objectives come first and say so", p)
	}
	m.Reset()
	if active, completed := m.Objectives(); len(active) != 1 || active[0] != "Keep the lamp lit" || len(completed) != 0 {
		t.Errorf("after reset: active %q, completed %q; the person's active objectives survive episodes", active, completed)
	}
}

const knowledgeText = "## Strategy\n\n- A grue lurks in dark places: carry a lit lantern.\n"

// planning builds a manager over the house with memories and knowledge.
func planning(t *testing.T, client *llm.Client, cfg Config) *Manager {
	t.Helper()
	path := filepath.Join(t.TempDir(), knowledge.FileName)
	if err := os.WriteFile(path, []byte(knowledgeText), 0o644); err != nil {
		t.Fatal(err)
	}
	src := memSource{79: {mem(memory.CategorySuccess, "Window entry sequence", "Open the window, then enter window.", memory.StatusActive)},
		62: {mem(memory.CategoryDiscovery, "Lantern upstairs", "The living room west of here has a lantern.", memory.StatusActive)}}
	return New(Deps{Client: client, Knowledge: knowledge.New(nil, knowledge.Config{Path: path}), Memories: src, Map: house()}, cfg)
}

func walk(turn int) domain.Turn {
	return domain.Turn{Episode: 1, Turn: turn, Actor: "agent", Action: "open window", Reasoning: "The window might open.",
		Response: "With great effort, you open the window far enough to allow entry.", FromID: 79, FromName: "Behind House",
		ToID: 79, ToName: "Behind House", ScoreBefore: 5, ScoreAfter: 5, InvAfter: []string{"leaflet"}}
}

func TestDiscoveryUsesTheEnhancedContext(t *testing.T) {
	client, fake := fakeClient(t)
	fake.On("discovery", llmtest.PromptContains("discover objectives"), llmtest.Reply{Content: `{"objectives": [
		"Use the window entry procedure at Location 79 to reach Location 62 (Kitchen)",
		"Secure the lantern from the living room before dark places"], "reasoning": "memory and knowledge"}`})
	m := planning(t, client, Config{UpdateInterval: 3})
	ctx := context.Background()
	for turn := 1; turn <= 3; turn++ {
		changed, err := m.ProcessTurn(ctx, walk(turn))
		if err != nil {
			t.Fatal(err)
		}
		if changed != (turn == 1) {
			t.Errorf("turn %d: changed=%v; discovery runs on the episode's first turn (no objective yet), then every 3 turns", turn, changed)
		}
	}
	reqs := fake.ChatRequests()
	if len(reqs) != 1 || reqs[0].Role != config.RoleObjectives {
		t.Fatalf("%d calls, want one discovery for the objectives role", len(reqs))
	}
	p := reqs[0].Prompt()
	for _, want := range []string{
		"=== STRATEGIC KNOWLEDGE (General Wisdom) ===", "A grue lurks in dark places",
		"=== LOCATION-SPECIFIC MEMORIES ===", "## Memories for Current Location 79 (Behind House):", "Window entry sequence",
		"**Location 62 (Kitchen):**", "Lantern upstairs",
		"=== MAP & ROUTING INFORMATION ===", "graph TD", "L79 -->|enter window| L62", "## Current Location: 79 (Behind House)",
		"=== RECENT GAMEPLAY ===", "T1 at L79 Behind House: open window", "The window might open.",
		"- Score: 5", "- Location: Behind House (ID: 79)", "- Inventory: leaflet",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("discovery prompt lacks %q", want)
		}
	}
	if sch := reqs[0].Chat.Format; !strings.Contains(string(sch), `"objectives"`) || !strings.Contains(string(sch), `"maxLength"`) {
		t.Errorf("the schema is not sent in format: %s", sch)
	}
	active, _ := m.Objectives()
	if len(active) != 2 || !strings.Contains(active[0], "Location 62") {
		t.Errorf("objectives %q", active)
	}
}

func TestDiscoveryPlainLeavesOutTheEnhancedContext(t *testing.T) {
	client, fake := fakeClient(t)
	fake.On("discovery", llmtest.Role(config.RoleObjectives), llmtest.Reply{Content: `{"objectives": ["Explore Location 80"], "reasoning": "r"}`})
	m := planning(t, client, Config{UpdateInterval: 1, Plain: true})
	if _, err := m.ProcessTurn(context.Background(), walk(1)); err != nil {
		t.Fatal(err)
	}
	p := fake.ChatRequests()[0].Prompt()
	if strings.Contains(p, "STRATEGIC KNOWLEDGE") || strings.Contains(p, "graph TD") || !strings.Contains(p, "RECENT GAMEPLAY") {
		t.Errorf("plain discovery prompt:\n%s", p)
	}
}

func TestCompletionFromGroundTruthAndModel(t *testing.T) {
	client, fake := fakeClient(t)
	fake.On("discovery", llmtest.PromptContains("discover objectives"),
		llmtest.Reply{Content: `{"objectives": ["Go to Location 62 (Kitchen)", "Open the sack in the kitchen", "Read the leaflet"], "reasoning": "r"}`},
		llmtest.Reply{Content: `{"objectives": ["Open the sack in the kitchen"], "reasoning": "a repeat"}`})
	fake.On("completion", llmtest.PromptContains("Which of the current objectives"),
		llmtest.Reply{Content: `{"completed": [{"id": 2}, {"id": 77}], "reasoning": "the sack is open"}`})
	m := planning(t, client, Config{UpdateInterval: 2})
	ctx := context.Background()
	m.ProcessTurn(ctx, walk(1))
	if _, err := m.ProcessTurn(ctx, walk(2)); err != nil {
		t.Fatal(err)
	}
	enter := walk(3)
	enter.Action, enter.ToID, enter.ToName = "enter window", 62, "Kitchen"
	if ch, err := m.ProcessTurn(ctx, enter); err != nil || !ch {
		t.Fatalf("entering the kitchen: changed=%v, %v", ch, err)
	}
	byText := map[string]Objective{}
	for _, o := range m.List() {
		byText[o.Text] = o
	}
	if o := byText["Go to Location 62 (Kitchen)"]; o.State != Completed || !strings.HasPrefix(o.How, "ground truth: reached L62") {
		t.Errorf("the kitchen objective: %+v", o)
	}
	if _, err := m.ProcessTurn(ctx, walk(4)); err != nil {
		t.Fatal(err)
	}
	if o := byText["Open the sack in the kitchen"]; m.List()[1].State != Completed || o.ID != 2 {
		t.Errorf("objective 2 after the model's check: %+v", m.List()[1])
	}
	active, completed := m.Objectives()
	if len(active) != 1 || active[0] != "Read the leaflet" || len(completed) != 2 {
		t.Errorf("active %q completed %q: the repeat is not added again, unknown IDs are ignored", active, completed)
	}
}

func TestRefinementWhenObjectivesPileUp(t *testing.T) {
	client, fake := fakeClient(t)
	var many []string
	for i := 1; i <= 16; i++ {
		many = append(many, fmt.Sprintf(`"Objective number %d about Location %d"`, i, 100+i))
	}
	fake.On("discovery", llmtest.PromptContains("discover objectives"), llmtest.Reply{Content: `{"objectives": [` + strings.Join(many[:5], ",") + `], "reasoning": "r"}`})
	fake.Always("completion", llmtest.PromptContains("Which of the current objectives"), llmtest.Reply{Content: `{"completed": [], "reasoning": "none"}`})
	fake.On("refinement", llmtest.PromptContains("Refine this list"), llmtest.Reply{Content: `{"refined_objectives": [` +
		strings.Join([]string{many[0], many[2], `"A merged objective about Location 120"`}, ",") + `], "reasoning": "the best"}`})
	m := planning(t, client, Config{UpdateInterval: 1, MaxBeforeRefine: 15, RefineTarget: 8, RefineInterval: 1000})
	m.Edit("add", "The person's own objective")
	m.mu.Lock()
	for i := 6; i <= 16; i++ {
		m.addLocked(fmt.Sprintf("Objective number %d about Location %d", i, 100+i), ByModel)
	}
	m.mu.Unlock()
	if _, err := m.ProcessTurn(context.Background(), walk(1)); err != nil {
		t.Fatal(err)
	}
	active, _ := m.Objectives()
	want := []string{"The person's own objective", "Objective number 1 about Location 101", "Objective number 3 about Location 103", "A merged objective about Location 120"}
	if strings.Join(active, "|") != strings.Join(want, "|") {
		t.Errorf("after refinement: %q, want %q", active, want)
	}
	if st := m.Status(); st.Dropped != 14 || st.LastRefine != 1 {
		t.Errorf("status %+v", st)
	}
}

func TestModelFailureIsReported(t *testing.T) {
	client, fake := fakeClient(t)
	bad := llmtest.Reply{Content: "I think you should explore."}
	fake.On("discovery", llmtest.PromptContains("discover objectives"), bad, bad, bad)
	m := planning(t, client, Config{UpdateInterval: 1})
	_, err := m.ProcessTurn(context.Background(), walk(1))
	if err == nil || !strings.Contains(err.Error(), "objective discovery") {
		t.Fatalf("error %v", err)
	}
	if st := m.Status(); st.LastError == "" {
		t.Errorf("status keeps no error: %+v", st)
	}
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// The cadence: discovery on an episode's first turn when it has no
// objective (once), then every UpdateInterval turns; refinement every
// RefineInterval turns on its own, not only inside an update.
func TestCadenceOfUpdatesAndRefinement(t *testing.T) {
	client, fake := fakeClient(t)
	var many []string
	for i := 1; i <= 25; i++ {
		many = append(many, fmt.Sprintf(`"Objective number %d about Location %d"`, i, 100+i))
	}
	var found []llmtest.Reply
	for i := 0; i < 5; i++ {
		found = append(found, llmtest.Reply{Content: `{"objectives": [` + strings.Join(many[5*i:5*i+5], ",") + `], "reasoning": "r"}`})
	}
	fake.On("discovery", llmtest.PromptContains("discover objectives"), found...)
	fake.Always("completion", llmtest.PromptContains("Which of the current objectives"), llmtest.Reply{Content: `{"completed": [], "reasoning": "none"}`})
	fake.Always("refinement", llmtest.PromptContains("Refine this list"), llmtest.Reply{Content: `{"refined_objectives": [` + strings.Join(many[:9], ",") + `], "reasoning": "keep"}`})
	m := planning(t, client, Config{UpdateInterval: 20, RefineInterval: 50, RefineTarget: 8, MaxBeforeRefine: 100})
	var updates, refines []int
	for turn := 1; turn <= 100; turn++ {
		before := len(fake.ChatRequests())
		if _, err := m.ProcessTurn(context.Background(), walk(turn)); err != nil {
			t.Fatal(err)
		}
		for _, r := range fake.ChatRequests()[before:] {
			switch p := r.Prompt(); {
			case strings.Contains(p, "discover objectives"):
				updates = append(updates, turn)
			case strings.Contains(p, "Refine this list"):
				refines = append(refines, turn)
			}
		}
	}
	if want := []int{1, 21, 41, 61, 81}; !slices.Equal(updates, want) {
		t.Errorf("discovery at turns %v, want %v", updates, want)
	}
	if want := []int{50, 100}; !slices.Equal(refines, want) {
		t.Errorf("refinement at turns %v, want %v (every 50 turns on its own)", refines, want)
	}
}
