package rundb

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestEpisodeSummaries: newest first, with the start date; an ended
// episode reports its recorded end, an unfinished one its last turn.
func TestEpisodeSummaries(t *testing.T) {
	ctx := context.Background()
	db, err := OpenRunDB(filepath.Join(t.TempDir(), "lantern.db"), "abc")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	first, err := db.StartEpisode(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.EndEpisode(ctx, first, "death", 10, 12, 13); err != nil {
		t.Fatal(err)
	}
	second, err := db.StartEpisode(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, score := range []int{0, 5} {
		if err := db.RecordTurn(ctx, Turn{Episode: second, Turn: i + 1, Actor: "agent", Action: "north", Verdicts: "[]", Score: score, Moves: i + 1}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.EpisodeSummaries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != second || got[1].ID != first {
		t.Fatalf("episodes %+v, want %d then %d", got, second, first)
	}
	if g := got[0]; g.Reason != "" || g.Score != 5 || g.Moves != 2 || g.Turns != 2 {
		t.Errorf("unfinished episode %+v, want no reason, score 5, 2 moves, 2 turns", g)
	}
	if g := got[1]; g.Reason != "death" || g.Score != 10 || g.Moves != 12 || g.Turns != 13 {
		t.Errorf("ended episode %+v, want death, 10, 12, 13", g)
	}
	for _, g := range got {
		if time.Since(g.Started) > time.Minute || g.Started.IsZero() {
			t.Errorf("episode %d started %v, want now", g.ID, g.Started)
		}
	}
}
