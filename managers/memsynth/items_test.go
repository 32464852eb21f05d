package memsynth

import (
	"bytes"
	"context"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// What was found where, from the inventory before and after each turn:
// finds are permanent entries where the item was taken, what is left
// somewhere is of its episode, taken back it is withdrawn, a death leaves
// nothing, and recording a turn again changes nothing. No model is asked
// (the synthesizer has none).
func TestRecordItems(t *testing.T) {
	store := openStore(t)
	var logBuf bytes.Buffer
	s := New(nil, store, 3)
	s.SetLogger(slog.New(slog.NewTextHandler(&logBuf, nil)))
	const (
		living, cellar, gallery = 40, 41, 42
	)
	names := map[int]string{living: "Living Room", cellar: "Cellar", gallery: "Gallery"}
	turn := func(ep, n, at int, action string, before, after []string, died bool) domain.Turn {
		return domain.Turn{Episode: ep, Line: "1/main", Turn: n, Action: action, FromID: at, FromName: names[at], ToID: at, ToName: names[at],
			InvBefore: before, InvAfter: after, Died: died}
	}
	lamp, sword, both := []string{"brass lantern"}, []string{"sword"}, []string{"brass lantern", "sword"}
	for _, tc := range []struct {
		t    domain.Turn
		want []ItemChange
	}{
		{turn(1, 13, living, "Get lamp", nil, lamp, false), []ItemChange{{living, "brass lantern", "found"}}},
		{turn(1, 13, living, "Get lamp", nil, lamp, false), nil}, // the same turn again (a resumed session's work)
		{turn(1, 22, living, "Get sword", lamp, both, false), []ItemChange{{living, "sword", "found"}}},
		{turn(1, 40, cellar, "Drop lamp", both, sword, false), []ItemChange{{cellar, "brass lantern", "left"}}},
		{turn(1, 40, cellar, "Drop lamp", both, sword, false), nil},
		{turn(1, 41, cellar, "Get lamp", sword, both, false), []ItemChange{{cellar, "brass lantern", "taken back"}}},
		{turn(1, 41, cellar, "Get lamp", sword, both, false), nil},
		{turn(1, 42, cellar, "Drop all", both, nil, false), []ItemChange{{cellar, "brass lantern", "left"}, {cellar, "sword", "left"}}},
		{turn(1, 43, cellar, "Get sword", nil, sword, false), []ItemChange{{cellar, "sword", "taken back"}}},
		{turn(1, 45, living, "Drop sword", sword, nil, false), nil}, // back where it was found
		{turn(1, 46, living, "Get sword", nil, sword, false), nil},
		{turn(1, 50, gallery, "North", sword, nil, true), nil}, // a death scatters the inventory
		{turn(2, 10, living, "Get lamp", nil, lamp, false), nil},
		{turn(2, 30, cellar, "Drop lamp", lamp, nil, false), []ItemChange{{cellar, "brass lantern", "left"}}},
		{turn(2, 31, cellar, "Get sword", nil, sword, false), []ItemChange{{cellar, "sword", "found"}}}, // left in episode 1, here now
	} {
		got, err := s.RecordItems(context.Background(), tc.t)
		if err != nil {
			t.Fatalf("T%d %s: %v", tc.t.Turn, tc.t.Action, err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Ep%d T%d %s: changes %+v, want %+v", tc.t.Episode, tc.t.Turn, tc.t.Action, got, tc.want)
		}
	}
	data, err := os.ReadFile(store.Path())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "items.md", data)
	if !strings.Contains(logBuf.String(), `msg="item recorded" line=1/main turn=13 location=40 item="brass lantern" event=found`) {
		t.Errorf("the find is not logged:\n%s", logBuf.String())
	}
	store.SetEpisode(2)
	ctx := store.LocationMemory(cellar)
	if !strings.Contains(ctx, "[ITEM - EPHEMERAL] brass lantern (Ep2, T30)") || !strings.Contains(ctx, "[ITEM] sword (Ep2, T31)") {
		t.Errorf("the agent's context at the cellar in episode 2:\n%s", ctx)
	}
}

// golden compares got with testdata/<name>, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	sharedtest.Golden(t, filepath.Join("testdata", name), got, *update)
}
