package env

import (
	"reflect"
	"testing"
)

// validActionsOneByOne is ValidActions done the straightforward way: each
// candidate in a probe of its own, the state read afresh.
func validActionsOneByOne(e *Env) []ActionGroup {
	here := probeState{loc: e.location(), hash: e.worldHash()}
	here.score, _ = e.scoreMoves()
	actions := e.candidateActions(uint16(here.loc.ID))
	states := make([]probeState, len(actions))
	played := make([]bool, len(actions))
	for i, a := range actions {
		played[i] = e.probe(a, func(string) {
			states[i] = probeState{loc: e.location(), hash: e.worldHash()}
			states[i].score, _ = e.scoreMoves()
		})
	}
	return groupActions(actions, states, played, here)
}

// The fast ValidActions (one probe, hashes memoised, commands shared among
// probe copies of the machine) finds exactly the groups of the
// straightforward one, with one machine and with several, at positions
// along the Zork I walkthrough.
func TestValidActionsMatchOneByOne(t *testing.T) {
	cmds := walkthrough(t)
	e := startEnv(t, EnvOptions{Seed: 12})
	turn := 0
	for _, at := range []int{0, 30, 100, 200} {
		steps(t, e, cmds[turn:at]...)
		turn = at
		want := validActionsOneByOne(e)
		if len(want) == 0 {
			t.Fatalf("turn %d: no valid actions found one by one", at)
		}
		for _, workers := range []int{1, 3} {
			e.probeWorkers = workers
			got := e.ValidActions()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("turn %d, %d machine(s):\n got %v\nwant %v", at, workers, got, want)
			}
		}
		e.probeWorkers = 0
		if workers := len(e.probers); workers < 2 {
			t.Errorf("turn %d: %d probe copies after probing with 3 machines", at, workers)
		}
	}
}
