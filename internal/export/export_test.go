package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fakeSource is a run database in memory; it fails the test on an episode
// it does not have.
type fakeSource struct {
	t       *testing.T
	sums    []rundb.EpisodeSummary
	turns   map[int64][]rundb.Turn
	reviews map[int64][]rundb.Review
	tree    []rundb.BranchInfo // every branch of the one episode tree
	err     error
}

func (f *fakeSource) BranchTurns(ctx context.Context, id int64) ([]rundb.Turn, error) {
	return f.Turns(ctx, id)
}

func (f *fakeSource) BranchReviews(ctx context.Context, id int64) ([]rundb.Review, error) {
	return f.Reviews(ctx, id)
}

func (f *fakeSource) Branches(context.Context, int64) ([]rundb.BranchInfo, error) { return f.tree, nil }

func (f *fakeSource) EpisodeSummaries(context.Context) ([]rundb.EpisodeSummary, error) {
	return f.sums, f.err
}

func (f *fakeSource) Turns(_ context.Context, id int64) ([]rundb.Turn, error) {
	if _, ok := f.turns[id]; !ok {
		f.t.Errorf("turns of unknown episode %d asked", id)
	}
	return f.turns[id], nil
}

func (f *fakeSource) Reviews(_ context.Context, id int64) ([]rundb.Review, error) {
	return f.reviews[id], nil
}

func sample(t *testing.T) *fakeSource {
	started := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	v := func(vs ...Verdict) string { b, _ := json.Marshal(vs); return string(b) }
	return &fakeSource{t: t,
		sums: []rundb.EpisodeSummary{
			{Episode: 2, ID: 2, Started: started.Add(time.Hour), Reason: "", Score: 0, Moves: 1, Turns: 1},
			{Episode: 1, ID: 1, Started: started, Reason: "victory", Score: 15, Moves: 5, Turns: 5},
		},
		turns: map[int64][]rundb.Turn{
			1: {
				{Episode: 1, Turn: 1, Actor: "agent", Action: "north", Response: "Orchard\nGnarled apple trees <lean> & gossip.", Reasoning: "Explore north first.",
					Verdicts: v(Verdict{Action: "north", Stage: "model", Score: 0.8, Accepted: true, Justification: "a new room"}), LocationID: 4, Location: "Orchard", Moves: 1, LLM: 1200 * time.Millisecond, Duration: 1500 * time.Millisecond},
				{Episode: 1, Turn: 2, Actor: "agent", Action: "take apple", Response: "Taken.", Score: 5, Moves: 2, LocationID: 4, Location: "Orchard",
					Verdicts: v(Verdict{Action: "eat tree", Stage: "ground-truth", Score: -1, Accepted: false, Justification: "no such verb"}, Verdict{Action: "take apple", Stage: "model", Score: 0.6, Accepted: true})},
				{Episode: 1, Turn: 3, Actor: "human", Action: "south", Response: "Muddy Lane", Score: 5, Moves: 3, LocationID: 3, Location: "Muddy Lane", Verdicts: "null"},
				{Episode: 1, Turn: 4, Actor: "agent", Action: "east", Response: "Cottage", Score: 10, Moves: 4, LocationID: 5, Location: "Cottage", Verdicts: "[]"},
				{Episode: 1, Turn: 5, Actor: "agent", Action: "up", Response: "Attic. *Victory*", Score: 15, Moves: 5, LocationID: 6, Location: "Attic"},
			},
			2: {{Episode: 2, Turn: 1, Actor: "agent", Action: "look", Response: "Muddy Lane", LocationID: 3, Location: "Muddy Lane", Moves: 1}},
		},
		reviews: map[int64][]rundb.Review{1: {
			{Turn: 4, Proposal: "west", Decision: "reject", Reason: "the well is a dead end"},
			{Turn: 4, Proposal: "east", Decision: "accept"},
		}},
	}
}

func load(t *testing.T, id int64) Episode {
	t.Helper()
	ep, err := Load(context.Background(), sample(t), id)
	if err != nil {
		t.Fatal(err)
	}
	ep.Story = "demo"
	ep.Exported = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	return ep
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	sharedtest.Golden(t, filepath.Join("testdata", name), got, *update)
}

func TestLoadReadsTurnsVerdictsReviewsAndMap(t *testing.T) {
	ep := load(t, 1)
	if ep.Reason != "victory" || ep.Score != 15 || len(ep.Turns) != 5 {
		t.Fatalf("episode %+v", ep)
	}
	if vs := ep.Turns[1].Verdicts; len(vs) != 2 || vs[0].Accepted || vs[0].Stage != "ground-truth" || !vs[1].Accepted {
		t.Errorf("turn 2's verdicts %+v", vs)
	}
	if len(ep.Turns[2].Verdicts) != 0 || len(ep.Turns[3].Reviews) != 2 || ep.Reviews.Rejected != 1 || ep.Reviews.Accepted != 1 {
		t.Errorf("turn 3/4: %+v %+v, summary %+v", ep.Turns[2].Verdicts, ep.Turns[3].Reviews, ep.Reviews)
	}
	m := ep.Map
	if len(m.Names) != 4 || m.Conns[4]["south"] != 3 || m.Conns[3]["east"] != 5 || m.Conns[5]["up"] != 6 || m.Current != 6 {
		t.Errorf("map %+v", m)
	}
	if ep.Turns[0].TurnMillis != 1500 || ep.Turns[0].LLMMillis != 1200 {
		t.Errorf("timings %+v", ep.Turns[0])
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(context.Background(), sample(t), 9); !errors.Is(err, ErrNoEpisode) {
		t.Errorf("episode 9: %v, want ErrNoEpisode", err)
	}
	src := sample(t)
	src.turns[1][0].Verdicts = "{broken"
	if _, err := Load(context.Background(), src, 1); err == nil || !strings.Contains(err.Error(), "turn 1: verdicts") {
		t.Errorf("broken verdicts: %v", err)
	}
	src = sample(t)
	boom := errors.New("disk gone")
	src.err = boom
	if _, err := Load(context.Background(), src, 1); !errors.Is(err, boom) {
		t.Errorf("a failing database: %v", err)
	}
	var b bytes.Buffer
	if err := Write(&b, load(t, 1), "pdf"); !errors.Is(err, ErrFormat) {
		t.Errorf("pdf: %v, want ErrFormat", err)
	}
}

func TestStoryMapJoinsEpisodesOldestFirst(t *testing.T) {
	m, err := StoryMap(context.Background(), sample(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Names) != 4 || m.Current != 3 || m.Conns[5]["up"] != 6 {
		t.Errorf("story map %+v", m)
	}
}

func TestWriteFormats(t *testing.T) {
	for _, f := range Formats() {
		t.Run(f, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, load(t, 1), f); err != nil {
				t.Fatal(err)
			}
			golden(t, "episode1."+f, b.Bytes())
		})
	}
	t.Run("json round-trips", func(t *testing.T) {
		var b bytes.Buffer
		ep := load(t, 1)
		if err := Write(&b, ep, "json"); err != nil {
			t.Fatal(err)
		}
		var back Episode
		if err := json.Unmarshal(b.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		if len(back.Turns) != 5 || back.Turns[1].Verdicts[0].Justification != "no such verb" || back.Map.Conns[3]["east"] != 5 {
			t.Errorf("round trip lost data: %+v", back)
		}
	})
}

// An episode a rewind branched: every export lists the tree, marks the
// branch exported and the turns it shares with its parent.
func TestExportShowsTheBranchTree(t *testing.T) {
	src := sample(t)
	main := src.turns[1]
	mine := append(slices.Clone(main[:2]), rundb.Turn{Episode: 3, Turn: 3, Actor: "human", Action: "west", Response: "Well", LocationID: 6, Location: "Well", Score: 5, Moves: 3, Verdicts: "[]"})
	src.turns[3] = mine
	src.sums = append(src.sums, rundb.EpisodeSummary{Episode: 1, ID: 3, Started: src.sums[0].Started, Score: 5, Moves: 3, Turns: 3, Parent: 1, ForkTurn: 2})
	src.tree = []rundb.BranchInfo{{Episode: 1, ID: 1, Turns: 5, Score: 15, Moves: 5, Ended: true, Reason: "victory"},
		{Episode: 1, ID: 3, Parent: 1, ForkTurn: 2, Turns: 3, Score: 5, Moves: 3, Active: true}}
	ep, err := Load(context.Background(), src, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"md": {"# Line 1/\\#3 (\\#3)", "## Branches", `- 1/main (\#1): 5 turns, score 15, moves 5, victory`,
			`  - 1/\#3 (\#3) from 1/main:2: 3 turns, score 5, moves 3, unfinished ← this export`, "*played on 1/main (#1)*", "### Turn 3 · human › west"},
		"json": {`"line":"1/#3"`, `"episode":1`, `"branches":[`, `"label":"1/#3"`, `"from":"1/main:2"`, `"this":true`, `"played_on":1`, `"played_on_line":"1/main"`},
		"html": {"<h2>Branches</h2>", "1/#3 (#3) from 1/main:2: 3 turns, score 5, moves 3, unfinished ← this export", "played on 1/main (#1)"},
	}
	for _, format := range Formats() {
		var b strings.Builder
		if err := Write(&b, ep, format); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if format == "json" {
			out = strings.ReplaceAll(strings.ReplaceAll(out, "\n", ""), " ", "")
		}
		for _, w := range want[format] {
			if format == "json" {
				w = strings.ReplaceAll(w, " ", "")
			}
			if !strings.Contains(out, w) {
				t.Errorf("%s export lacks %q:\n%s", format, w, out)
			}
		}
	}
	if single, err := Load(context.Background(), &fakeSource{t: t, sums: src.sums, turns: src.turns}, 1); err != nil || single.Branches != nil {
		t.Errorf("an episode of one line lists branches %v (%v)", single.Branches, err)
	}
}
