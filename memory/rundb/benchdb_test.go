package rundb

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestBenchRunsStored(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lantern.db")
	db, err := OpenRunDB(path, "md5-a")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if id, err := db.LastEpisodeID(ctx); err != nil || id != 0 {
		t.Fatalf("last episode of an empty database: %d, %v", id, err)
	}
	ep, err := db.StartEpisode(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := db.LastEpisodeID(ctx); id != ep {
		t.Fatalf("last episode %d, want %d", id, ep)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	id, err := db.SaveBenchRun(ctx, BenchRun{Label: "tiny", Agent: "llm", Model: "lantern-tiny", Episodes: 1, FirstEpisode: ep, LastEpisode: ep,
		Score: 12.5, Complete: true, Started: start, Ended: start.Add(time.Minute), Report: []byte(`{"x":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.BenchRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Label != "tiny" || got.Model != "lantern-tiny" || got.Score != 12.5 || !got.Complete || string(got.Report) != `{"x":1}` ||
		!got.Started.Equal(start) || got.FirstEpisode != ep {
		t.Errorf("read back %+v", got)
	}
	list, err := db.BenchRuns(ctx)
	if err != nil || len(list) != 1 || list[0].ID != id || list[0].Report != nil {
		t.Errorf("list %+v, %v", list, err)
	}
	if _, err := db.BenchRun(ctx, id+1); !errors.Is(err, ErrNoBenchRun) {
		t.Errorf("missing run: %v", err)
	}
	// Runs belong to their story.
	other, err := OpenRunDB(path, "md5-b")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.BenchRun(ctx, id); !errors.Is(err, ErrNoBenchRun) {
		t.Errorf("another story's run: %v", err)
	}
}
