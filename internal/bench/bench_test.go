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
	for _, turn := range []int{1, 1, 2, 3, 3, 1} { // turn 2 never played; then a new episode's turn 1
		q.Add(llm.CallMetrics{Turn: turn, Latency: time.Duration(turn) * time.Millisecond})
	}
	calls, dropped := q.Take(1)
	if len(calls) != 2 || len(dropped) != 0 {
		t.Errorf("turn 1: %d calls, %d dropped", len(calls), len(dropped))
	}
	calls, dropped = q.Take(3)
	if len(calls) != 2 || len(dropped) != 1 || dropped[0].Turn != 2 {
		t.Errorf("turn 3: %d calls, dropped %+v", len(calls), dropped)
	}
	if calls, _ := q.Take(4); calls != nil {
		t.Errorf("a turn without calls took %v", calls)
	}
	if calls, _ := q.Take(1); len(calls) != 1 {
		t.Errorf("the next episode's turn 1: %d calls", len(calls))
	}
	if len(q.Rest()) != 0 {
		t.Error("calls left")
	}
}

func TestScoreChart(t *testing.T) {
	var b strings.Builder
	ScoreChart(&b, []ChartSeries{{mark: '1', label: "episode 1", scores: []float64{0, 0, 5, 5, 10, 10}},
		{mark: '2', label: "episode 2", scores: []float64{0, 0, 0, 5}}}, 60, 3)
	// The drawing itself is internal/benchview's (golden tests there).
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
