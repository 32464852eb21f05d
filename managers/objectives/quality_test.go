package objectives

import (
	"context"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/managers/mapper"
)

func TestObjectiveCitations(t *testing.T) {
	for _, tc := range []struct {
		text                string
		location, knowledge bool
	}{
		{"Use window entry procedure from Location 79 memory to access Location 62 (Kitchen)", true, true},
		{"Avoid troll at Location 152 per knowledge base warning", true, true},
		{"Explore north to L81 to investigate", true, false},
		{"Secure brass lantern before dark areas (knowledge priority: light source critical)", false, true},
		{"Explore the house", false, false},
		{"Get 10 items", false, false},
	} {
		if got := CitesLocation(tc.text); got != tc.location {
			t.Errorf("CitesLocation(%q) = %v", tc.text, got)
		}
		if got := CitesKnowledge(tc.text); got != tc.knowledge {
			t.Errorf("CitesKnowledge(%q) = %v", tc.text, got)
		}
	}
}

// The manager measures the model's objectives as it sets them; the
// person's are not counted.
func TestQualityIsMeasured(t *testing.T) {
	client, fake := llmtest.NewClient(t, "fake")
	fake.On("discover", llmtest.Role(config.RoleObjectives), llmtest.Reply{Content: `{"objectives": [
		"Use the window procedure from the memory at Location 79",
		"Explore north to L81",
		"Look around more"], "reasoning": "scripted"}`})
	m := New(Deps{Client: client, Map: mapper.New()}, Config{UpdateInterval: 1})
	if _, err := m.ProcessTurn(context.Background(), domain.Turn{Episode: 1, Turn: 1, Action: "look", FromID: 79, ToID: 79}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Edit("add", "Find the person's treasure at L5 from memory"); err != nil {
		t.Fatal(err)
	}
	q := m.Quality()
	if q != (Quality{Objectives: 3, CiteLocation: 2, CiteKnowledge: 1}) {
		t.Fatalf("quality = %+v", q)
	}
	loc, know := q.Rates()
	if loc < 0.66 || loc > 0.67 || know < 0.33 || know > 0.34 {
		t.Errorf("rates %.2f %.2f", loc, know)
	}
}
