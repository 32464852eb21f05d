package memsynth

import (
	"slices"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/domain"
)

func TestTriggers(t *testing.T) {
	long := strings.Repeat("The thief grabs your bag and runs. ", 4)
	for _, tc := range []struct {
		name string
		turn domain.Turn
		want []string
	}{
		{"nothing happened", domain.Turn{FromID: 1, ToID: 1, Response: "Nothing happens."}, nil},
		{"a move to a known room", domain.Turn{FromID: 1, ToID: 2, Response: long}, nil},
		{"a take", domain.Turn{FromID: 1, ToID: 1, InvBefore: nil, InvAfter: []string{"lamp"}, Response: "Taken."}, nil},
		{"a first visit", domain.Turn{FromID: 1, ToID: 2, NewRoom: true, Response: long}, []string{"first visit"}},
		{"a first visit to a room showing only its name", domain.Turn{FromID: 1, ToID: 2, ToName: "Attic", NewRoom: true, Response: "Attic\n"}, nil},
		{"points", domain.Turn{FromID: 1, ToID: 1, ScoreBefore: 5, ScoreAfter: 15, Response: "Taken."}, []string{"score +10"}},
		{"a death", domain.Turn{FromID: 1, ToID: 1, Died: true}, []string{"death"}},
		{"a long answer in place", domain.Turn{FromID: 1, ToID: 1, Response: long}, []string{"long response"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Triggers(tc.turn); !slices.Equal(got, tc.want) {
				t.Errorf("Triggers = %q, want %q", got, tc.want)
			}
		})
	}
}

// The seed triggers add movement and inventory changes to the lean ones:
// "take lamp → Taken." calls the memory model, as the design lists.
func TestSeedTriggers(t *testing.T) {
	long := strings.Repeat("The thief grabs your bag and runs. ", 4)
	for _, tc := range []struct {
		name string
		turn domain.Turn
		want []string
	}{
		{"a take", domain.Turn{FromID: 1, ToID: 1, InvAfter: []string{"lamp"}, Response: "Taken."}, []string{"inventory +lamp"}},
		{"a drop", domain.Turn{FromID: 1, ToID: 1, InvBefore: []string{"sword", "lamp"}, InvAfter: []string{"lamp"}, Response: "Dropped."}, []string{"inventory -sword"}},
		{"a move to a known room", domain.Turn{FromID: 1, ToID: 2, Response: "Kitchen"}, []string{"movement to L2"}},
		{"a first visit", domain.Turn{FromID: 1, ToID: 2, NewRoom: true, Response: long}, []string{"first visit", "movement to L2"}},
		{"a bare first visit: the move alone", domain.Turn{FromID: 1, ToID: 2, ToName: "Attic", NewRoom: true, Response: "Attic"}, []string{"movement to L2"}},
		{"the same items", domain.Turn{FromID: 1, ToID: 1, InvBefore: []string{"a", "b"}, InvAfter: []string{"b", "a"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SeedTriggers().Why(tc.turn); !slices.Equal(got, tc.want) {
				t.Errorf("Why = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseTriggers(t *testing.T) {
	ts, err := ParseTriggers([]string{"score", "Death", "first_visit", "long_response", "movement", "inventory"})
	if err != nil || ts != SeedTriggers() {
		t.Fatalf("every name = %+v, %v", ts, err)
	}
	if got := LeanTriggers().Names(); !slices.Equal(got, []string{"score", "death", "first_visit", "long_response"}) {
		t.Errorf("lean names = %q", got)
	}
	if _, err := ParseTriggers([]string{"smell"}); err == nil || !strings.Contains(err.Error(), "movement") {
		t.Errorf("an unknown trigger: %v", err)
	}
}
