package objectives

import (
	"context"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/memory"
)

// A discovery is shown the memories of the episode being played: an
// EPHEMERAL one of an earlier episode is left out, a permanent one and
// this episode's ephemeral one are there.
func TestDiscoveryMemoriesOfThisEpisode(t *testing.T) {
	src := memSource{79: {
		{Category: memory.CategoryNote, Persistence: memory.PersistenceEphemeral, Status: memory.StatusActive, Title: "Window left open", Episode: 1, Turn: 3},
		{Category: memory.CategoryNote, Persistence: memory.PersistenceEphemeral, Status: memory.StatusActive, Title: "Sack dropped here", Episode: 2, Turn: 4},
		{Category: memory.CategorySuccess, Status: memory.StatusActive, Title: "Enter by the window", Episode: 1, Turn: 5},
	}}
	m := New(Deps{Memories: src, Map: house()}, Config{})
	if _, err := m.ProcessTurn(context.Background(), domain.Turn{Episode: 2, Turn: 7, Action: "look", FromID: 79, ToID: 79}); err != nil {
		t.Fatal(err)
	}
	got := m.MemoriesWithAdjacent(79)
	for _, tc := range []struct {
		title string
		shown bool
	}{{"Window left open", false}, {"Sack dropped here", true}, {"Enter by the window", true}} {
		if strings.Contains(got, tc.title) != tc.shown {
			t.Errorf("%q shown %v, want %v:\n%s", tc.title, !tc.shown, tc.shown, got)
		}
	}
}
