package bench

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/llm"
)

func TestCallQueueAttribution(t *testing.T) {
	q := &CallQueue{}
	// The managers' calls of a turn finish beside the next turn's agent
	// call: turn 1's memory call comes after turn 2's agent call. Turn 4
	// was never played (its proposal abandoned).
	for _, turn := range []int{1, 2, 1, 3, 2, 4, 5, 6} {
		q.Add(llm.CallMetrics{Turn: turn, Latency: time.Duration(turn) * time.Millisecond})
	}
	for _, want := range []struct{ turn, calls, dropped int }{{1, 2, 0}, {2, 2, 0}, {3, 1, 0}, {5, 1, 1}} {
		calls, dropped := q.Take(want.turn)
		if len(calls) != want.calls || len(dropped) != want.dropped {
			t.Errorf("turn %d: %d calls, %d dropped; want %d and %d", want.turn, len(calls), len(dropped), want.calls, want.dropped)
		}
		for _, c := range calls {
			if c.Turn != want.turn {
				t.Errorf("turn %d took a call of turn %d", want.turn, c.Turn)
			}
		}
	}
	q.Add(llm.CallMetrics{Turn: 8})
	if calls, dropped := q.Take(7); calls != nil || len(dropped) != 1 || dropped[0].Turn != 6 {
		t.Errorf("a turn without calls took %v, dropped %v", calls, dropped)
	}
	if rest := q.Rest(); len(rest) != 1 || rest[0].Turn != 8 {
		t.Errorf("calls left %+v, want turn 8's", rest)
	}
}

func TestScoreChart(t *testing.T) {
	var b strings.Builder
	ScoreChart(&b, []ChartSeries{{mark: '1', label: "episode 1", scores: []float64{0, 0, 5, 5, 10, 10}},
		{mark: '2', label: "episode 2", scores: []float64{0, 0, 0, 5}}}, 60, 3)
	// The drawing itself is internal/bench/view's (golden tests there).
	want := "Score over turns\n" +
		"   10┤   11\n" +
		"    5┤ 122\n" +
		"    0┼222\n" +
		"     └┬┬─┬┬┬\n" +
		"      1  4 6\n" +
		"  turns 1 to 6; 1 episode 1, 2 episode 2 (drawn over the others where they meet)\n"
	if b.String() != want {
		t.Errorf("chart:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWithMemories(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "Memories.md")
	os.WriteFile(p, []byte("# Location Memories\n\n## Location 12: Hall\n**Visits:** 1 | **Episodes:** 1\n\n### Memories\n\n"+
		"**[SUCCESS] Open door** *(Ep1, T3, +0)*\nIt opens.\n\n---\n\n## Location 13: Attic\n**Visits:** 1 | **Episodes:** 1\n\n### Memories\n\n"+
		"**[NOTE - SUPERSEDED] Dusty** *(Ep1, T4)*\nDust.\n\n---\n"), 0o644)
	if got := WithMemories(p, []int{12, 13, 14}); !reflect.DeepEqual(got, []int{12}) {
		t.Errorf("locations with memories %v, want [12] (13's only memory is superseded, 14 has none)", got)
	}
	if got := WithMemories(filepath.Join(dir, "none.md"), []int{12}); got != nil {
		t.Errorf("no file: %v", got)
	}
}

func TestWaitRatioLeavesOutThePersonsTurns(t *testing.T) {
	tests := []struct {
		name            string
		wall, agent     []int64
		ratio, p50, p95 float64
		wallMS, agentMS float64
	}{
		{"none", nil, nil, 0, 0, 0, 0, 0},
		{"agent turns", []int64{3000, 2000, 4000}, []int64{1000, 1000, 1000}, 3, 3, 3, 3, 1},
		{"a person's turn", []int64{3000, 500, 1000}, []int64{1000, 0, 1000}, 2, 1, 1, 2, 1},
	}
	for _, tt := range tests {
		var m Metrics
		m.setWait(tt.wall, tt.agent)
		if m.WaitRatio != tt.ratio || m.WaitRatioP50 != tt.p50 || m.WaitRatioP95 != tt.p95 || m.WallPerTurnMS != tt.wallMS || m.AgentPerTurnMS != tt.agentMS {
			t.Errorf("%s: %+v", tt.name, m)
		}
	}
}
