package rundb

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

func TestDecisionsAreKept(t *testing.T) {
	ctx := context.Background()
	db, err := OpenRunDB(filepath.Join(t.TempDir(), "lantern.db"), "s")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := []Decision{
		{Episode: 1, Turn: 3, LocationID: 15, Triggers: []string{"inventory +lamp", "score +5"}, Remember: true, Category: "SUCCESS",
			Title: "Take the lamp", Text: "It lights the way.", Status: "ACTIVE", Reasoning: "an item worth knowing", Outcome: "stored"},
		{Episode: 1, Turn: 4, LocationID: 15, Triggers: []string{"movement"}, Reasoning: "nothing new here", Outcome: "not remembered"},
		{Episode: 2, Turn: 1, LocationID: 16, Triggers: []string{"death"}, Remember: true, Supersedes: []string{"a", "b"}, Outcome: "superseded 2"},
	}
	for _, d := range want {
		if err := db.RecordDecision(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Decisions(ctx, 1)
	if err != nil || len(got) != 2 {
		t.Fatalf("episode 1 decisions = %+v, %v", got, err)
	}
	if got[1].Remember || got[1].Reasoning != "nothing new here" || got[1].Outcome != "not remembered" || !slices.Equal(got[0].Triggers, want[0].Triggers) {
		t.Errorf("decisions read back = %+v", got)
	}
	all, err := db.Decisions(ctx, 0)
	if err != nil || len(all) != 3 || !slices.Equal(all[2].Supersedes, []string{"a", "b"}) {
		t.Fatalf("all decisions = %+v, %v", all, err)
	}
}

func TestMapIsStoredPerStory(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lantern.db")
	a, err := OpenRunDB(path, "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.LoadMap(ctx); ok || err != nil {
		t.Fatalf("map of a new story: ok %v, %v", ok, err)
	}
	for _, m := range []string{`{"v":1}`, `{"v":2}`} {
		if err := a.SaveMap(ctx, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	a, _ = OpenRunDB(path, "a")
	defer a.Close()
	if data, ok, err := a.LoadMap(ctx); !ok || err != nil || string(data) != `{"v":2}` {
		t.Fatalf("map after reopening = %q, %v, %v", data, ok, err)
	}
	b, _ := OpenRunDB(path, "b")
	defer b.Close()
	if _, ok, _ := b.LoadMap(ctx); ok {
		t.Fatal("another story sees the map")
	}
}

func TestNotesAreScopedBySession(t *testing.T) {
	ctx := context.Background()
	db, err := OpenRunDB(filepath.Join(t.TempDir(), "lantern.db"), "s")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, n := range []Note{
		{Session: "1", Turn: 40, Content: "the troll wants food", Importance: 900},
		{Session: "2", Turn: 2, Content: "the mailbox has a leaflet", Importance: 100},
		// The same text in a new session is that session's note too.
		{Session: "2", Turn: 3, Content: "the troll wants food", Importance: 50},
	} {
		if _, _, err := db.Remember(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	top, err := db.TopNotesIn(ctx, "2", 10)
	if err != nil || len(top) != 2 || top[0].Content != "the mailbox has a leaflet" || top[1].Turn != 3 {
		t.Fatalf("session 2's notes = %+v, %v", top, err)
	}
	if one, _ := db.TopNotesIn(ctx, "1", 10); len(one) != 1 || one[0].Turn != 40 {
		t.Fatalf("session 1's notes = %+v", one)
	}
	all, err := db.AllNotes(ctx)
	if err != nil || len(all) != 3 || all[0].Session != "1" {
		t.Fatalf("every note = %+v, %v", all, err)
	}
}
