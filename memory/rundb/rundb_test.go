package rundb

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

func TestRunDBTurnsAndEpisodes(t *testing.T) {
	ctx := context.Background()
	db, err := OpenRunDB(filepath.Join(t.TempDir(), "lantern.db"), "abc")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ep, err := db.StartEpisode(ctx, 12)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if err := db.RecordTurn(ctx, Turn{Episode: ep, Turn: i, Actor: "agent", Action: "north", Verdicts: "[]", Location: "Forest"}); err != nil {
			t.Fatal(err)
		}
	}
	// Recording a turn again (a resumed session) replaces it.
	if err := db.RecordTurn(ctx, Turn{Episode: ep, Turn: 3, Actor: "human", Action: "look", Verdicts: "[]"}); err != nil {
		t.Fatal(err)
	}
	turns, err := db.Turns(ctx, ep)
	if err != nil || len(turns) != 3 || turns[2].Action != "look" {
		t.Fatalf("turns %+v, %v", turns, err)
	}
	if err := db.EndEpisode(ctx, ep, "victory", 350, 394, 396); err != nil {
		t.Fatal(err)
	}
}

func TestRememberMergesNearDuplicates(t *testing.T) {
	ctx := context.Background()
	db, err := OpenRunDB(filepath.Join(t.TempDir(), "lantern.db"), "abc")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tests := []struct {
		text    string
		imp     int
		wantNew bool
	}{
		{"The troll guards the bridge north of the troll room", 500, true},
		{"the troll guards the bridge north of the troll room.", 800, false}, // contains the first at >80%
		{"Troll", 900, true}, // far shorter: not a duplicate
		{"The brass key opens the stone door", 300, true},
	}
	for _, tc := range tests {
		_, isNew, err := db.Remember(ctx, Note{Content: tc.text, Importance: tc.imp, LocationID: 1})
		if err != nil || isNew != tc.wantNew {
			t.Errorf("Remember(%q) new=%v err=%v, want new=%v", tc.text, isNew, err, tc.wantNew)
		}
	}
	top, err := db.TopNotes(ctx, 2)
	if err != nil || len(top) != 2 || top[0].Content != "Troll" || top[1].Importance != 800 {
		t.Fatalf("top notes %+v, %v", top, err)
	}
	if _, _, err := db.Remember(ctx, Note{Content: "  "}); !errors.Is(err, ErrEmptyNote) {
		t.Errorf("empty note: %v", err)
	}
	if n, _, _ := db.NoteStats(ctx); n != 3 {
		t.Errorf("%d notes, want 3", n)
	}
	other, err := OpenRunDB(filepath.Join(t.TempDir(), "x.db"), "other")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if notes, _ := other.TopNotes(ctx, 10); len(notes) != 0 {
		t.Errorf("notes leak across stories")
	}
}
