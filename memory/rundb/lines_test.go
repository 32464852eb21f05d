package rundb

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/domain"
)

// TestLinesAreNamedOnce: a line is found by every way it is written, a
// name another branch of the episode has (however written) is refused,
// and a bare number that is a branch names the line to write instead.
func TestLinesAreNamedOnce(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t)
	e, _ := db.StartEpisode(ctx, 1)
	record(t, db, e, 1, 30)
	side, err := db.Branch(ctx, e, 10, "side")
	if err != nil {
		t.Fatal(err)
	}
	unnamed, err := db.Branch(ctx, e, 20, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		written string
		want    int64
	}{{"1", e}, {"1/main", e}, {"1/side", side}, {"1/SIDE", side}, {"1/ｓｉｄｅ", side}, {"#2", side}, {"1/#3", unnamed}, {"#1", e}} {
		ref, err := domain.ParseLine(c.written)
		if err != nil {
			t.Fatal(err)
		}
		b, err := db.ResolveLine(ctx, ref)
		if err != nil || b.ID != c.want {
			t.Errorf("ResolveLine(%q) = #%d, %v; want #%d", c.written, b.ID, err, c.want)
		}
	}
	for _, c := range []struct{ written, says string }{
		{"2", "write 1/side or #2"},
		{"9", "episode 9"},
		{"1/nope", `no branch named "nope"`},
		{"2/#3", "not a branch of episode 2"},
		{"#99", "#99"},
	} {
		ref, _ := domain.ParseLine(c.written)
		if _, err := db.ResolveLine(ctx, ref); !errors.Is(err, ErrNoLine) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ResolveLine(%q) = %v; want ErrNoLine saying %q", c.written, err, c.says)
		}
	}
	for _, name := range []string{"side", "Side", "ｓｉｄｅ", " side "} {
		if _, err := db.Branch(ctx, e, 5, name); !errors.Is(err, domain.ErrBranchName) || !strings.Contains(err.Error(), `already has a branch named "side"`) {
			t.Errorf("Branch named %q beside side = %v; want ErrBranchName naming it", name, err)
		}
	}
	if _, err := db.Branch(ctx, e, 5, "\u202eniam"); !errors.Is(err, domain.ErrBranchName) {
		t.Errorf("the database took a bidi override as a name: %v", err)
	}
	// Another episode may use the name.
	f, _ := db.StartEpisode(ctx, 2)
	record(t, db, f, 1, 3)
	if _, err := db.Branch(ctx, f, 2, "side"); err != nil {
		t.Errorf("another episode's side: %v", err)
	}
}

// TestListingsFromTheLinesOwnState: a branch forked a moment ago is listed
// with the score and moves it forked at, in both listings.
func TestListingsFromTheLinesOwnState(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t)
	e, _ := db.StartEpisode(ctx, 1)
	for i := 1; i <= 12; i++ {
		cp := stateOf(e, i)
		if err := db.RecordTurn(ctx, Turn{Episode: e, Turn: i, Actor: "agent", Action: "wait", Verdicts: "[]", Score: 5 * (i / 4), Moves: i + 1, Checkpoint: &cp}); err != nil {
			t.Fatal(err)
		}
	}
	b, err := db.Branch(ctx, e, 10, "alt")
	if err != nil {
		t.Fatal(err)
	}
	sums, err := db.EpisodeSummaries(ctx)
	if err != nil || len(sums) != 2 || sums[0].ID != b || sums[0].Score != 10 || sums[0].Moves != 11 || sums[0].Turns != 10 || sums[0].Episode != e ||
		sums[0].Line().String() != "1/alt" {
		t.Errorf("EpisodeSummaries = %+v, %v; want the fresh branch 1/alt at score 10, moves 11, turn 10", sums, err)
	}
	tree, err := db.Branches(ctx, b)
	if err != nil || len(tree) != 2 || tree[1].Score != 10 || tree[1].Moves != 11 || tree[0].Moves != 13 || tree[1].Line().At(10) != "1/alt:10" {
		t.Errorf("Branches = %+v, %v", tree, err)
	}
}

// TestUnfinishedLinesAndReopen: starting an episode ends no other line;
// Unfinished lists them, played last first; a line its turn cap ended can
// be reopened.
func TestUnfinishedLinesAndReopen(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t)
	e, _ := db.StartEpisode(ctx, 1)
	record(t, db, e, 1, 15)
	side, err := db.Branch(ctx, e, 5, "side")
	if err != nil {
		t.Fatal(err)
	}
	record(t, db, side, 6, 8)
	if err := db.EndEpisode(ctx, side, "turn cap", 8, 8, 8); err != nil {
		t.Fatal(err)
	}
	open, err := db.Unfinished(ctx)
	if err != nil || len(open) != 1 || open[0].ID != e || open[0].Turns != 15 {
		t.Fatalf("Unfinished = %+v, %v; want main at turn 15 alone", open, err)
	}
	f, _ := db.StartEpisode(ctx, 2)
	record(t, db, f, 1, 2)
	if open, err = db.Unfinished(ctx); err != nil || len(open) != 2 || open[0].ID != f || open[1].ID != e {
		t.Errorf("after a new episode, Unfinished = %+v, %v; want #%d then #%d", open, err, f, e)
	}
	if err := db.Reopen(ctx, side); err != nil {
		t.Fatal(err)
	}
	if b, err := db.Line(ctx, side); err != nil || b.Ended || b.Turns != 8 {
		t.Errorf("reopened side = %+v, %v", b, err)
	}
	if err := db.Reopen(ctx, 99); !errors.Is(err, ErrNoEpisode) {
		t.Errorf("Reopen(99) = %v", err)
	}
}
