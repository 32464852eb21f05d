package bench

import (
	"bytes"
	"strings"
	"testing"
)

// The report gives the objectives' quality against the design's targets,
// per episode and for the run.
func TestObjectiveQualityRows(t *testing.T) {
	r := &Report{Episodes: []Episode{
		{Episode: 1, Objectives: &ObjectiveQuality{Objectives: 10, CiteLocation: 9, CiteKnowledge: 5}},
		{Episode: 2},
		{Episode: 3, Objectives: &ObjectiveQuality{Objectives: 10, CiteLocation: 7, CiteKnowledge: 8}},
	}}
	rows := ObjectiveRows(r)
	want := [][]string{
		{"objectives", "set", "cite a location ID", "cite knowledge or memories"},
		{"episode 1", "10", "90.0% ✓ > 80%", "50.0% ✗ > 60%"},
		{"episode 3", "10", "70.0% ✗ > 80%", "80.0% ✓ > 60%"},
		{"all", "20", "80.0% ✗ > 80%", "65.0% ✓ > 60%"},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows = %q", rows)
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %q, want %q", i, rows[i], want[i])
		}
	}
	var b bytes.Buffer
	printObjectiveQuality(&b, r)
	if !strings.Contains(b.String(), "Objective quality") {
		t.Errorf("printed:\n%s", b.String())
	}
	if ObjectiveRows(&Report{Episodes: []Episode{{Episode: 1}}}) != nil {
		t.Error("rows for a run without objectives")
	}
}
