package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/memory/rundb"
)

// fakeBranches is a run database's branch side: whole transcripts by
// branch, the branch rows of one tree (root 1). It records what it was
// asked and fails on a branch it does not hold.
type fakeBranches struct {
	turns map[int64][]rundb.Turn
	rows  []BranchRow
	mu    sync.Mutex
	asked []string
}

func (f *fakeBranches) ask(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, s)
}

func (f *fakeBranches) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.asked)
}

func (f *fakeBranches) BranchTurns(_ context.Context, id int64) ([]rundb.Turn, error) {
	f.ask(fmt.Sprintf("BranchTurns(%d)", id))
	ts, ok := f.turns[id]
	if !ok {
		return nil, fmt.Errorf("no branch %d", id)
	}
	return slices.Clone(ts), nil
}

func (f *fakeBranches) Branches(_ context.Context, root int64) ([]BranchRow, error) {
	f.ask(fmt.Sprintf("Branches(%d)", root))
	if root != 1 {
		return nil, fmt.Errorf("no episode tree at %d", root)
	}
	return slices.Clone(f.rows), nil
}

func (f *fakeBranches) Root(_ context.Context, id int64) (int64, error) {
	f.ask(fmt.Sprintf("Root(%d)", id))
	if _, ok := f.turns[id]; !ok {
		return 0, fmt.Errorf("no branch %d", id)
	}
	return 1, nil
}

// sampleBranches is an episode of two branches: main (row 1, 8 turns: a
// climb for 5 points, an apple for 5, a fall to death in the well by the
// person's edited command, a resurrection) and #3, rewound from main after
// turn 5 and played two turns on (a kitchen for 5 points, the person's
// command).
func sampleBranches() (*fakeBranches, fakeEpisodes) {
	// t: a turn of episode ep, number n, in room loc (place) with score.
	type at struct {
		loc   int
		place string
		score int
	}
	t := func(ep int64, n int, actor, action, resp string, where at) rundb.Turn {
		return rundb.Turn{Episode: ep, Turn: n, Actor: actor, Action: action, Response: resp, LocationID: where.loc, Location: where.place, Score: where.score, Moves: n}
	}
	main := []rundb.Turn{
		t(1, 1, "agent", "north", "Orchard\nGnarled apple trees lean together here.", at{4, "Orchard", 0}),
		t(1, 2, "human", "climb tree", "Up the Apple Tree\nYou are about ten feet above the ground.", at{5, "Up the Apple Tree", 5}),
		t(1, 3, "agent", "take apple", "Taken.", at{5, "Up the Apple Tree", 10}),
		t(1, 4, "agent", "down", "Orchard", at{4, "Orchard", 10}),
		t(1, 5, "agent", "south", "Muddy Lane\nA muddy lane ends at a crooked cottage.", at{3, "Muddy Lane", 10}),
		t(1, 6, "human-edited", "enter well", "You climb into the well and lose your grip.\n\n**** You have died ****", at{6, "Old Well", 0}),
		t(1, 7, "agent", "look", "Muddy Lane\nA voice says: you are given another chance.", at{3, "Muddy Lane", 0}),
		t(1, 8, "agent", "north", "Orchard", at{4, "Orchard", 0}),
	}
	main[0].Reasoning = "An orchard rustles to the north; exploring it first."
	main[5].Reasoning = "The well may hide a way down."
	branch := append(slices.Clone(main[:5]),
		t(3, 6, "agent", "west", "Kitchen\nA cold kitchen; an oven stands open.", at{7, "Kitchen", 15}),
		t(3, 7, "human", "open oven", "It is already open.", at{7, "Kitchen", 15}))
	br := &fakeBranches{turns: map[int64][]rundb.Turn{1: main, 3: branch}, rows: []BranchRow{
		{ID: 1, Turns: 8, Score: 0, Moves: 8},
		{ID: 3, Parent: 1, ForkTurn: 5, Turns: 7, Score: 15, Moves: 7, Active: true},
	}}
	eps := fakeEpisodes{turns: map[int64][]rundb.Turn{1: main}, reviews: map[int64][]rundb.Review{
		1: {{Turn: 6, Proposal: "north", Decision: "edit", Command: "enter well"}},
	}}
	return br, eps
}

// newBranchHarness is a model w×h with the sample branches' run database.
func newBranchHarness(t *testing.T, w, h int) (*harness, *fakeBranches) {
	t.Helper()
	br, eps := sampleBranches()
	eng := newFakeEngine()
	m := New(context.Background(), Options{Engine: eng, Episodes: eps, Branches: br, Story: "demo", MaxScore: 100, Theme: "dark", RefreshEvery: -1})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return &harness{t: t, m: m, eng: eng}, br
}

// settle runs a command and what it returns, feeding the messages back.
func (h *harness) settle(cmd tea.Cmd) {
	for _, msg := range run(cmd) {
		h.settle(func() tea.Cmd { _, c := h.m.Update(msg); return c }())
	}
}

// resumeAt announces a resumed episode 1 standing after a branch's turn.
func resumeAt(br engine.Branch, turn int, rewound bool, place string, loc int) engine.EpisodeStarted {
	return engine.EpisodeStarted{Episode: 1, Resumed: true, Rewound: rewound, Turn: turn, Branch: br,
		Observation: env.Observation{Text: place, Location: env.Location{ID: loc, Name: place}, Moves: turn}}
}

var (
	mainBranch = engine.Branch{ID: 1}
	sideBranch = engine.Branch{ID: 3, Parent: 1, ForkTurn: 5}
)

func TestTurnMarks(t *testing.T) {
	cases := []struct {
		name     string
		turn     rundb.Turn
		prev     int
		reviewed bool
		want     string
	}{
		{"nothing", rundb.Turn{Actor: "agent", Response: "Taken.", Score: 5}, 5, false, ""},
		{"points", rundb.Turn{Actor: "agent", Response: "Taken.", Score: 15}, 5, false, "+10"},
		{"points lost", rundb.Turn{Actor: "agent", Response: "Oops.", Score: 0}, 10, false, "-10"},
		{"zork death", rundb.Turn{Actor: "agent", Response: "The troll hits you.\n\n    ****  You have died  ****\n", Score: 0}, 10, false, "-10 died"},
		{"plain death", rundb.Turn{Actor: "agent", Response: "You are dead.", Score: 3}, 3, false, "died"},
		{"person typed", rundb.Turn{Actor: "human", Response: "Ok.", Score: 0}, 0, false, "you"},
		{"person edited, reviewed", rundb.Turn{Actor: "human-edited", Response: "Ok.", Score: 0}, 0, true, "you reviewed"},
		{"agent reviewed", rundb.Turn{Actor: "agent", Response: "Ok.", Score: 1}, 0, true, "+1 reviewed"},
		{"no death in a word", rundb.Turn{Actor: "agent", Response: "The diet of the troll is dire.", Score: 0}, 0, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := marksText(turnMarks(c.turn, c.prev, c.reviewed)); got != c.want {
				t.Errorf("marks %q, want %q", got, c.want)
			}
		})
	}
}

// T opens the timeline at the turn play stands at; enter on an earlier
// turn asks first (saying memories are not rewound), n goes back without
// a command, y sends the rewind to that turn of the branch being played.
func TestTimelineRewindsToTheChosenTurn(t *testing.T) {
	h, br := newBranchHarness(t, 120, 40)
	h.settle(h.events(resumeAt(mainBranch, 8, false, "Orchard", 4), engine.Idle{Turn: 8, Mode: engine.Paused}))
	h.settle(h.key("T"))
	h.mustSee("Timeline · 1/main", "1/main · turns 1–8 · play stands at turn 8", "▸ T8", "-10 died you reviewed", "+5 you")
	h.key("enter")
	h.mustSee("play stands at turn 8: pick an earlier turn")
	if got := h.pending(); len(got) != 0 {
		t.Fatalf("enter on the turn play stands at sent %v", got)
	}
	h.key("up", "up", "up")
	h.mustSee("▸ T5", "A muddy lane ends at a crooked cottage.")
	h.key("up", "up", "up", "up")
	h.mustSee("▸ T1", "An orchard rustles to the north")
	h.key("down", "down", "down", "down", "enter")
	h.mustSee("Rewind to turn 5 of 1/main (1/main:5)?", "on a new branch", "the turns after 5", "stay on 1/main.", "Memories are not rewound")
	h.key("n")
	h.mustNotSee("Rewind to turn 5")
	if got := h.pending(); len(got) != 0 {
		t.Fatalf("n sent %v", got)
	}
	h.key("enter", "y")
	want := []engine.Command{engine.Rewind{Branch: 1, Turn: 5}}
	if got := h.pending(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
	h.mustNotSee("Timeline ·")
	h.mustSee("rewinding to 1/main:5…")
	if got, want := strings.Join(br.requests(), " "), "BranchTurns(1)"; !strings.Contains(got, want) {
		t.Errorf("the timeline asked %v, want %s", got, want)
	}
	h.flush()
	// u rewinds as y does, and asks for the agent's later memories to be
	// withdrawn.
	h.settle(h.key("T"))
	h.key("up", "up", "enter")
	h.mustSee("u rewind, withdraw the agent's later memories")
	h.key("u")
	want = []engine.Command{engine.Rewind{Branch: 1, Turn: 6, UndoMemories: true}}
	if got := h.pending(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("u sent %v, want %v", got, want)
	}
	h.mustSee("rewinding to 1/main:6, withdrawing memories…")
}

// r at the question names the new branch: typed text, backspace, a name
// refused as the command line's --branch refuses it (said, kept for
// editing), esc leaving the name as it was; y sends the rewind with it.
func TestTimelineNamesTheNewBranch(t *testing.T) {
	h, _ := newBranchHarness(t, 120, 40)
	h.settle(h.events(resumeAt(mainBranch, 8, false, "Orchard", 4), engine.Idle{Turn: 8, Mode: engine.Paused}))
	h.settle(h.key("T"))
	h.key("up", "up", "enter")
	h.mustSee("r name the branch")
	h.key("r")
	h.typeText("main")
	h.mustSee("New branch's name: main")
	h.key("enter")
	h.mustSee(`"main" names an episode's first line`)
	h.key("backspace", "backspace", "backspace", "backspace")
	h.typeText("try yq")
	h.key("backspace")
	h.typeText("the window")
	h.mustSee("New branch's name: try ythe window")
	h.key("ctrl+u")
	h.typeText("  east of the house ")
	h.key("enter")
	h.mustSee("The new branch will be named east of the house")
	if got := h.pending(); len(got) != 0 {
		t.Fatalf("naming sent %v", got)
	}
	// esc while naming keeps the name kept before.
	h.key("r")
	h.typeText("!")
	h.key("esc")
	h.mustSee("The new branch will be named east of the house")
	h.key("y")
	want := []engine.Command{engine.Rewind{Branch: 1, Turn: 6, Name: "east of the house"}}
	if got := h.pending(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
}

// b lists the branches (the one being played marked); enter on another
// switches to it: a rewind to its last turn.
func TestTimelineSwitchesBranch(t *testing.T) {
	h, _ := newBranchHarness(t, 80, 24)
	h.settle(h.events(resumeAt(mainBranch, 8, false, "Orchard", 4)))
	h.settle(h.key("T"))
	h.key("b")
	h.mustSee("The lines of play of this episode", "line    id  from      turns  score  moves  ending",
		"● 1/main  #1  —             8      0      8  unfinished", "  1/#3    #3  1/main:5      7     15      7  unfinished")
	h.key("enter")
	h.mustSee("this is the branch being played")
	if got := h.pending(); len(got) != 0 {
		t.Fatalf("enter on the branch being played sent %v", got)
	}
	h.key("down", "enter")
	want := []engine.Command{engine.Rewind{Branch: 3, Turn: 7}}
	if got := h.pending(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
	h.mustSee("switching to 1/#3 at turn 7…")
}

// A rewound EpisodeStarted clears the episode's transcript and reasoning
// and shows the new branch's turns up to the turn play goes on from, with
// a note; the status bar names the branch. Switching back shows the
// first branch whole again.
func TestRewoundRebuildsTranscriptAndNamesBranch(t *testing.T) {
	h, br := newBranchHarness(t, 160, 50)
	h.settle(h.events(resumeAt(mainBranch, 8, false, "Orchard", 4), engine.Idle{Turn: 8, Mode: engine.Paused}))
	h.mustSee("T8 agent › north", "T6 human-edited › enter well", "Resumed 1/main after turn 8", "The well may hide")
	h.mustSee("Ep 1/main │")
	// Rewound to turn 5: branch #3 holds turns 6 and 7 as well (as after a
	// switch to it), which are after the turn and not shown.
	rw := resumeAt(sideBranch, 5, true, "Muddy Lane", 3)
	h.settle(h.events(rw, engine.Idle{Turn: 5, Mode: engine.Paused}))
	h.mustSee("T5 agent › south", "Ep 1/#3 │", "Turn: 5", "T1 agent › north", "An orchard rustles to the north")
	h.mustSay("Rewound to 1/main:5: play goes on, paused, on the new branch 1/#3; the turns after 5 stay on 1/main.")
	h.mustNotSee("T6 ", "T8 ", "Resumed 1/main", "The well may hide", "withdrawn")
	if n := strings.Count(h.screen(), "T1 agent › north"); n != 1 {
		t.Errorf("turn 1 is shown %d times", n)
	}
	// Back to main at its last turn.
	h.settle(h.events(resumeAt(mainBranch, 8, true, "Orchard", 4), engine.Idle{Turn: 8, Mode: engine.Paused}))
	h.mustSee("T8 agent › north", "Ep 1/main")
	h.mustSay("Switched to 1/main at turn 8; 1/#3 stays as it was.")
	h.mustNotSee("Rewound to turn 5", "T7 human › open oven")
	asked := strings.Join(br.requests(), " ")
	for _, want := range []string{"BranchTurns(3)", "BranchTurns(1)"} {
		if !strings.Contains(asked, want) {
			t.Errorf("never asked %s (asked %s)", want, asked)
		}
	}
}

// A rewind's turns read after a later rewind was announced are dropped:
// only the later branch is shown.
func TestStaleRewindReadIsDropped(t *testing.T) {
	h, _ := newBranchHarness(t, 160, 50)
	h.settle(h.events(resumeAt(mainBranch, 8, false, "Orchard", 4)))
	first := h.events(resumeAt(sideBranch, 5, true, "Muddy Lane", 3))
	h.settle(h.events(resumeAt(mainBranch, 8, true, "Orchard", 4)))
	h.settle(first)
	if n := strings.Count(h.screen(), "T1 agent › north"); n != 1 {
		t.Errorf("turn 1 is shown %d times:\n%s", n, h.screen())
	}
	h.mustNotSee("Rewound to turn 5")
}

// Without branches in the run database the timeline lists the episode's
// turns and says b has nothing to show.
func TestTimelineWithoutBranches(t *testing.T) {
	_, eps := sampleBranches()
	eng := newFakeEngine()
	m := New(context.Background(), Options{Engine: eng, Episodes: eps, Theme: "dark", RefreshEvery: -1})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h := &harness{t: t, m: m, eng: eng}
	h.settle(h.events(resumeAt(engine.Branch{}, 8, false, "Orchard", 4)))
	h.settle(h.key("T"))
	h.mustSee("Timeline · 1/main", "▸ T8", "-10 died")
	h.key("b")
	h.mustSee("keeps no branches")
	h.key("up", "up", "enter", "y")
	want := []engine.Command{engine.Rewind{Branch: 1, Turn: 6}}
	if got := h.pending(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
}

func TestGoldenTimeline(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		name := fmt.Sprintf("timeline_%dx%d", size[0], size[1])
		t.Run(name, func(t *testing.T) {
			h, _ := newBranchHarness(t, size[0], size[1])
			h.settle(h.events(resumeAt(mainBranch, 8, false, "Orchard", 4), engine.Idle{Turn: 8, Mode: engine.Paused}))
			h.settle(h.key("T"))
			h.key("up", "up")
			golden(t, name, h.m.Render())
			if size[0] == 80 {
				h.key("b")
				golden(t, "timeline_branches_80x24", h.m.Render())
			}
		})
	}
}

// cutFrom drops the items from a sequence number on, whatever the cap
// dropped before, and follows the newest again.
func TestFeedCutFrom(t *testing.T) {
	cases := []struct {
		name      string
		max, adds int
		from      int
		want      []string
	}{
		{"middle", 0, 5, 2, []string{"0", "1"}},
		{"nothing added since", 0, 3, 3, []string{"0", "1", "2"}},
		{"all", 0, 3, 0, nil},
		{"mark dropped by the cap", 4, 9, 1, nil},
		{"after the cap", 4, 9, 7, []string{"4", "5", "6"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFeed(c.max)
			f.setSize(20, 3)
			for i := 0; i < c.adds; i++ {
				f.add(&noteItem{text: fmt.Sprint(i)})
			}
			f.scroll(2)
			f.cutFrom(c.from)
			var got []string
			for _, e := range f.entries {
				got = append(got, e.it.plain())
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) || !f.atBottom() {
				t.Errorf("kept %v (at bottom %v), want %v", got, f.atBottom(), c.want)
			}
		})
	}
}

// branchedEpisodes is a run database whose episodes are a tree: the
// episode list names branch #3, and a replay follows its whole line.
type branchedEpisodes struct {
	fakeEpisodes
	br   *fakeBranches
	sums []rundb.EpisodeSummary // nil: main and #3
}

func (b branchedEpisodes) EpisodeSummaries(ctx context.Context) ([]rundb.EpisodeSummary, error) {
	if b.sums != nil {
		return slices.Clone(b.sums), nil
	}
	return []rundb.EpisodeSummary{
		{Episode: 1, ID: 3, Turns: 7, Score: 15, Moves: 7, Parent: 1, ForkTurn: 5},
		{Episode: 1, ID: 1, Turns: 8, Moves: 8, Reason: "death"},
	}, nil
}

func (b branchedEpisodes) BranchTurns(ctx context.Context, ep int64) ([]rundb.Turn, error) {
	return b.br.BranchTurns(ctx, ep)
}

func (b branchedEpisodes) BranchReviews(_ context.Context, ep int64) ([]rundb.Review, error) {
	return b.reviews[1], nil // the branch inherits main's turns 1–5 only: none reviewed
}

// The episode browser lists a branch with where it forked, and its replay
// plays its whole line: main's turns up to the fork, then its own.
func TestReplayFollowsABranch(t *testing.T) {
	br, eps := sampleBranches()
	src := branchedEpisodes{fakeEpisodes: eps, br: br}
	eng := newFakeEngine()
	m := New(context.Background(), Options{Engine: eng, Episodes: src, Branches: br, RefreshEvery: -1, Theme: "dark", MaxScore: 100})
	h := &harness{t: t, m: m, eng: eng}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	h.events(opening())
	for _, msg := range run(h.key("E")) {
		m.Update(msg)
	}
	h.mustSee("1/#3    #3  1/main:5      7     15      7  unfinished", "1/main  #1  —             8      0      8  death")
	for _, msg := range run(h.key("enter")) {
		m.Update(msg)
	}
	h.mustSee("Transcript · replay of 1/#3", "Replay of 1/#3 (7 turns)", "T1 agent › north", "replay 1/7", "Ep 1/#3 │")
	h.key("end")
	h.mustSee("T7 human › open oven", "replay 7/7")
	h.key("left", "left")
	h.mustSee("T5 agent › south", "replay 5/7")
	// T rewinds the live game to the replayed turn: any turn of a stored
	// branch may be picked.
	h.settle(h.key("T"))
	h.mustSee("Timeline · 1/#3", "1/#3 · turns 1–7, replayed", "▸ T5")
	h.key("enter", "y")
	want := []engine.Command{engine.Rewind{Branch: 3, Turn: 5}}
	if got := h.pending(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
	h.settle(h.events(resumeAt(engine.Branch{ID: 9, Parent: 3, ForkTurn: 5}, 5, true, "Muddy Lane", 3)))
	h.mustNotSee("Transcript · replay of")
	h.mustSay("Rewound to 1/#3:5: play goes on, paused, on the new branch 1/#9; the turns after 5 stay on 1/#3.")
}
