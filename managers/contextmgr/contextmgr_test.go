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
		Recent:         []HistoryEntry{{Turn: 9, Action: "n"}, {Turn: 10, Action: "e", Reasoning: "explore"}, {Turn: 11, Action: "examine window", Response: "ajar"}, {Turn: 12, Action: "open window"}},
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
	// Stable sections first, for Ollama's prompt cache; the turn's state last.
	order := []string{"## Objectives", "## Coach", "## Notes", "## Map", "## Memories at L85", "## Previous turns", "## Game state"}
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
	// The next turn's prompt shares everything before the moving sections.
	next := sample()
	next.Turn, next.Moves, next.LastText = 13, 12, "You open the window."
	u2 := Build(next)[1].Content
	stable := u[:strings.Index(u, "## Map")]
	if !strings.HasPrefix(u2, stable) {
		t.Errorf("the next turn's prompt does not start with this one's stable part:\n%s", stable)
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

func TestParseReadsWhatBuildWrites(t *testing.T) {
	in := sample()
	in.Recent[3].Actor = "human"
	in.Recent[2].Actor = "agent"
	in.Recent[2].Reasoning = "the window looked ajar"
	p := Parse(Build(in)[1].Content)
	if p.Turn != 12 {
		t.Errorf("turn %d, want 12", p.Turn)
	}
	want := []HistoryEntry{{Turn: 10, Action: "e"}, {Turn: 11, Actor: "agent", Action: "examine window"}, {Turn: 12, Actor: "human", Action: "open window"}}
	if len(p.Recent) != len(want) {
		t.Fatalf("recent %+v, want %+v", p.Recent, want)
	}
	for i, w := range want {
		if p.Recent[i].Turn != w.Turn || p.Recent[i].Action != w.Action || (w.Actor != "" && p.Recent[i].Actor != w.Actor) {
			t.Errorf("recent[%d] = %+v, want %+v", i, p.Recent[i], w)
		}
	}
}

func TestDescriptionAndScopeShown(t *testing.T) {
	in := sample()
	in.Description = "Behind House\nYou are behind the white house. In one corner of the house there is a small window which is slightly ajar."
	in.InScope = []string{"small window", "white house"}
	u := Build(in)[1].Content
	if !strings.Contains(u, "The room (look):") || !strings.Contains(u, "Objects in scope: small window, white house.") {
		t.Errorf("description or scope missing:\n%s", u)
	}
	in.LastText = in.Description
	if u := Build(in)[1].Content; strings.Contains(u, "The room (look):") {
		t.Errorf("the description is already in the game's text; shown twice:\n%s", u)
	}
	in.Thinking = true
	if m := Build(in); m[0].Content != SystemPromptThinking || strings.Contains(m[0].Content, "reasoning (") {
		t.Errorf("a thinking model must not be asked for its reasoning in the JSON")
	}
}

func TestThingsYouCanDoHere(t *testing.T) {
	tests := []struct {
		name  string
		canDo []string
		want  string // "" : no such line
	}{
		{"off", nil, ""},
		{"given", []string{"north", "open mailbox"}, "Things you can do here: north, open mailbox.\n"},
	}
	for _, tt := range tests {
		in := sample()
		in.CanDo = tt.canDo
		u := Build(in)[1].Content
		state := u[strings.Index(u, "## Game state"):]
		switch {
		case tt.want == "" && strings.Contains(u, "Things you can do here"):
			t.Errorf("%s: a line of things to do:\n%s", tt.name, u)
		case tt.want != "" && !strings.Contains(state, tt.want):
			t.Errorf("%s: the game state lacks %q:\n%s", tt.name, tt.want, state)
		}
	}
}
