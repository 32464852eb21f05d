package memsynth

import (
	"github.com/lantern-if/lantern/internal/domain"
	"slices"
	"strings"
	"testing"
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
