package contextmgr

import (
	"strings"
	"testing"
)

func sample() Input {
	return Input{
		Turn: 12, LocationID: 85, LocationName: "Behind House", Score: 0, Moves: 11,
		Inventory: []string{"leaflet"}, LastText: "The window is slightly ajar.",
		LocationMemory: "[SUCCESS] Window opens\n  open window, then enter window",
		Recent:         []Turn{{Turn: 9, Action: "n"}, {Turn: 10, Action: "e", Reasoning: "explore"}, {Turn: 11, Action: "examine window", Response: "ajar"}, {Turn: 12, Action: "open window"}},
		Objectives:     []string{"Get into the house"}, Map: "Known exits: north → L137.",
		Notes: []string{"The leaflet says welcome"}, Feedback: "Try the window.",
	}
}

func TestBuildOrderAndStablePrefix(t *testing.T) {
	msgs := Build(sample())
	if len(msgs) != 2 || msgs[0].Content != SystemPrompt {
		t.Fatalf("first message must be the fixed system prompt")
	}
	u := msgs[1].Content
	order := []string{"## Game state", "## Memories at L85", "## Previous turns", "## Objectives", "## Map", "## Notes", "## Coach"}
	last := -1
	for _, h := range order {
		i := strings.Index(u, h)
		if i < 0 || i < last {
			t.Fatalf("section %q missing or out of order:\n%s", h, u)
		}
		last = i
	}
	if strings.Contains(u, "T9 ") {
		t.Errorf("only the last 3 turns belong in the prompt:\n%s", u)
	}
}

func TestBudgetDropsLeastImportantFirst(t *testing.T) {
	in := sample()
	in.Map = strings.Repeat("exit ", 400)
	in.Budget = EstimateTokens(SystemPrompt) + 250
	u := Build(in)[1].Content
	if strings.Contains(u, "## Map") || strings.Contains(u, "## Notes") {
		t.Errorf("map and notes should go first when over budget:\n%s", u)
	}
	if !strings.Contains(u, "## Game state") || !strings.Contains(u, "## Memories at L85") {
		t.Errorf("state and memories must stay:\n%s", u)
	}
}
