package objectives

import (
	"context"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/memory"
)

func TestObjectiveCitesLocation(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Use window entry procedure from Location 79 memory to access Location 62 (Kitchen)", true},
		{"Explore north to L81 to investigate", true},
		{"Secure brass lantern before dark areas", false},
		{"Get 10 items", false},
	} {
		if got := CitesLocation(tc.text); got != tc.want {
			t.Errorf("CitesLocation(%q) = %v", tc.text, got)
		}
	}
}

// A citation is real: it names a source the discovery was given (the
// knowledge base when it held anything; a memory when memories were shown,
// of a location named, if any, whose memories were shown) or quotes a
// memory's title; the words "strategy", "lessons" or "procedure" are none.
func TestObjectiveCitationsAreReal(t *testing.T) {
	shown := map[int][]memory.Memory{79: {{Category: memory.CategorySuccess, Title: "Open and enter window"}, {Category: memory.CategoryNote, Title: "Hub"}}}
	full := sourcesOf(true, shown)
	noKnowledge := sourcesOf(false, shown)
	none := sourcesOf(false, nil)
	for _, tc := range []struct {
		text string
		src  Sources
		want bool
	}{
		{"Use the window entry procedure from Location 79 memory to reach Location 62", full, true},
		{"Use the window entry procedure from Location 79 memory to reach Location 62", none, false},
		{"Avoid the troll at Location 152 per knowledge base warning", full, true},
		{"Avoid the troll at Location 152 per knowledge base warning", noKnowledge, false},
		{"Explore L81: a lamp is mentioned in memory", full, false}, // L81's memories were not shown
		{"Go back to L79 and open and enter window to reach the kitchen", noKnowledge, true},
		{"Follow the strategy: apply lessons and the procedure at L79", full, false},
		{"Visit the hub at L79", full, false}, // a one-word title is no quotation
		{"Use what was remembered here", noKnowledge, true},
		{"Explore the house", full, false},
	} {
		if got := tc.src.Cites(tc.text); got != tc.want {
			t.Errorf("Cites(%q) with %+v = %v, want %v", tc.text, tc.src, got, tc.want)
		}
	}
}

// The manager measures the model's objectives as it sets them, against
// what the discovery showed it; the person's are not counted.
func TestQualityIsMeasured(t *testing.T) {
	client, fake := llmtest.NewClient(t, "fake")
	fake.On("discover", llmtest.Role(config.RoleObjectives), llmtest.Reply{Content: `{"objectives": [
		"Use the window procedure from the memory at Location 79",
		"Explore north to L81 per the memory there",
		"Follow the strategy and its lessons at L79",
		"Look around more"], "reasoning": "scripted"}`})
	src := memSource{79: {{Category: memory.CategorySuccess, Status: memory.StatusActive, Title: "Open and enter window", Text: "It opens."}}}
	m := New(Deps{Client: client, Memories: src, Map: mapper.New()}, Config{UpdateInterval: 1})
	if _, err := m.ProcessTurn(context.Background(), domain.Turn{Episode: 1, Turn: 1, Action: "look", FromID: 79, ToID: 79}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Edit("add", "Find the person's treasure at L5 from memory"); err != nil {
		t.Fatal(err)
	}
	q := m.Quality()
	if q != (Quality{Objectives: 4, CiteLocation: 3, CiteKnowledge: 1}) {
		t.Fatalf("quality = %+v", q)
	}
	loc, know := q.Rates()
	if loc != 0.75 || know != 0.25 {
		t.Errorf("rates %.2f %.2f", loc, know)
	}
}
