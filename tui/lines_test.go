package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory/rundb"
)

// transcriptText is the live transcript's items as plain text, one a
// line, whatever the pane's width wraps.
func (h *harness) transcriptText() string {
	var out []string
	for _, e := range h.m.panes.transcript.feed.entries {
		out = append(out, e.it.plain())
	}
	return strings.Join(out, "\n")
}

// mustSay fails unless the live transcript holds each text.
func (h *harness) mustSay(texts ...string) {
	h.t.Helper()
	got := h.transcriptText()
	for _, s := range texts {
		if !strings.Contains(got, s) {
			h.t.Fatalf("the transcript lacks %q:\n%s", s, got)
		}
	}
}

// statusRow is the status bar, without colours.
func (h *harness) statusRow() string {
	rows := strings.Split(h.screen(), "\n")
	return rows[len(rows)-2]
}

// The status bar names the line being played in its written form, the
// text `lantern run --from` takes, at every width: the other parts go
// (or shorten) first; only a name too long for the screen is cut.
func TestStatusNamesTheLine(t *testing.T) {
	long := strings.Repeat("x", domain.MaxBranchName)
	cases := []struct {
		name    string
		episode int
		line    engine.Branch
		want    string
	}{
		{"main line", 1, engine.Branch{Episode: 1, ID: 1}, "Ep 1/main │"},
		{"main before its first turn", 2, engine.Branch{}, "Ep 2/main │"},
		{"named branch", 1, engine.Branch{Episode: 1, ID: 2, Name: "no-bar", Parent: 1, ForkTurn: 10}, "Ep 1/no-bar │"},
		{"unnamed branch", 1, engine.Branch{Episode: 1, ID: 4, Parent: 2, ForkTurn: 10}, "Ep 1/#4 │"},
		{"branch, episode unsaid", 3, engine.Branch{ID: 7, Parent: 3, ForkTurn: 2}, "Ep 3/#7 │"},
		{"long name", 1, engine.Branch{Episode: 1, ID: 5, Name: long, Parent: 1, ForkTurn: 3}, "Ep 1/" + long + " │"},
	}
	for _, w := range []int{80, 120, 200} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s at %d", c.name, w), func(t *testing.T) {
				h := newHarness(t, w, 30, "dark")
				scene(h)
				h.m.game.episode, h.m.game.branch = c.episode, c.line
				status := h.statusRow()
				if ansi.StringWidth(status) != w {
					t.Errorf("status is %d cells wide, not %d: %q", ansi.StringWidth(status), w, status)
				}
				want := c.want
				if c.name == "long name" && w == 80 {
					want = "Ep 1/xxxxxxxxxxxxxxx" // cut, its start kept
				}
				for _, part := range []string{want, "Turn: 4", "Score 0/100", "running · thinking"} {
					if !strings.Contains(status, part) {
						t.Errorf("status %q lacks %q", status, part)
					}
				}
			})
		}
	}
}

// Each turn names its own line: the status bar follows the turn's line,
// not the one an earlier EpisodeStarted named; a turn of an engine that
// knows no lines leaves it as it was.
func TestTurnNamesItsLine(t *testing.T) {
	h := newHarness(t, 120, 30, "dark")
	h.events(engine.EpisodeStarted{Episode: 1, Branch: engine.Branch{Episode: 1}, Observation: opening().Observation})
	h.mustSee("Ep 1/main │ Turn: 0")
	alt := engine.Branch{Episode: 1, ID: 4, Name: "alt", Parent: 1, ForkTurn: 10}
	ev := turn(11, engine.ActorAgent, "north", "Orchard", 4, "Orchard")
	ev.Line = alt
	h.events(ev)
	h.mustSee("Ep 1/alt │ Turn: 11")
	h.events(engine.TurnCompleted{Result: ev})
	h.events(turn(12, engine.ActorAgent, "south", "Muddy Lane", 3, "Muddy Lane"))
	h.mustSee("Ep 1/alt │ Turn: 12")
	ended := engine.EpisodeEnded{Episode: 1, Line: alt, Reason: "death", Score: 5, Moves: 12, Turns: 12}
	h.events(ended)
	h.mustSay("1/alt ended (death): score 5 in 12 moves, 12 turns.")
	ended.Line = engine.Branch{Episode: 1, ID: 1}
	h.events(ended)
	h.mustSay("Episode 1 ended (death)")
}

// What a rewound EpisodeStarted is said to have done: the lines by their
// written form, the line the turn was picked on as the one the later
// turns stay on (a replayed one included), the memories withdrawn counted
// after a rewind with u, 0 included, and nothing of memories without.
func TestRewoundOutcome(t *testing.T) {
	main := domain.Line{Episode: 1, ID: 1}
	noBar := domain.Line{Episode: 1, ID: 2, Name: "no-bar", Parent: 1, ForkTurn: 20}
	fresh := domain.Line{Episode: 1, ID: 4, Parent: 2, ForkTurn: 10}
	side := domain.Line{Episode: 1, ID: 3, Parent: 1, ForkTurn: 5}
	rewound := func(turn int, undone bool, n int) engine.EpisodeStarted {
		return engine.EpisodeStarted{Episode: 1, Resumed: true, Rewound: true, Turn: turn, Undone: undone, Withdrawn: n}
	}
	cases := []struct {
		name        string
		ev          engine.EpisodeStarted
		to          domain.Line
		ask         *rewindAsk
		left        domain.Line
		note, flash string
	}{
		{"rewind from the replay of another line", rewound(10, false, 0), fresh, &rewindAsk{from: noBar, turn: 10}, main,
			"Rewound to 1/no-bar:10: play goes on, paused, on the new branch 1/#4; the turns after 10 stay on 1/no-bar.",
			"rewound to 1/no-bar:10"},
		{"rewind with u, none withdrawn", rewound(10, true, 0), fresh, &rewindAsk{from: noBar, turn: 10, undo: true}, noBar,
			"Rewound to 1/no-bar:10: play goes on, paused, on the new branch 1/#4; the turns after 10 stay on 1/no-bar. " +
				"0 memories withdrawn (the agent's, written after turn 10; kept in Memories.md as superseded).",
			"rewound to 1/no-bar:10 · 0 memories withdrawn"},
		{"rewind with u, one withdrawn", rewound(5, true, 1), side, &rewindAsk{from: main, turn: 5, undo: true}, main,
			"the turns after 5 stay on 1/main. 1 memory withdrawn", "rewound to 1/main:5 · 1 memory withdrawn"},
		{"rewind with u, three withdrawn", rewound(5, true, 3), side, &rewindAsk{from: main, turn: 5, undo: true}, main,
			"3 memories withdrawn (the agent's", "rewound to 1/main:5 · 3 memories withdrawn"},
		{"switch", rewound(7, false, 0), side, &rewindAsk{from: side, turn: 7, switching: true}, main,
			"Switched to 1/#3 at turn 7; 1/main stays as it was.", "switched to 1/#3 at turn 7"},
		{"a replayed line's last turn: play goes on on it", rewound(30, false, 0), noBar, &rewindAsk{from: noBar, turn: 30}, main,
			"Switched to 1/no-bar at turn 30; 1/main stays as it was.", "switched to 1/no-bar at turn 30"},
		{"not asked here, from the line played", rewound(5, false, 0), side, nil, main,
			"Rewound to 1/main:5: play goes on, paused, on the new branch 1/#3; the turns after 5 stay on 1/main.", "rewound to 1/main:5"},
		{"not asked here, from a line not known", rewound(10, false, 0), fresh, nil, main,
			"Rewound to #2:10: play goes on, paused, on the new branch 1/#4; the turns after 10 stay on #2.", "rewound to #2:10"},
		{"not asked here, a switch", rewound(8, false, 0), main, nil, side,
			"Switched to 1/main at turn 8; 1/#3 stays as it was.", "switched to 1/main at turn 8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			note, flash := rewoundOutcome(c.ev, c.to, c.ask, c.left)
			if !strings.Contains(note, c.note) {
				t.Errorf("note %q lacks %q", note, c.note)
			}
			if flash != c.flash {
				t.Errorf("flash %q, want %q", flash, c.flash)
			}
			if !c.ev.Undone && strings.Contains(note+flash, "memor") {
				t.Errorf("a rewind without u speaks of memories: %q / %q", note, flash)
			}
		})
	}
}

// namedBranches is the sample episode with its branch named no-bar, row
// #2 (as `lantern episodes` lists it), and the episode list to match.
func namedBranches() (*fakeBranches, branchedEpisodes) {
	br, eps := sampleBranches()
	br.turns[2] = br.turns[3]
	delete(br.turns, 3)
	br.rows = []BranchRow{
		{Episode: 1, ID: 1, Turns: 8, Moves: 8},
		{Episode: 1, ID: 2, Name: "no-bar", Parent: 1, ForkTurn: 5, Turns: 7, Score: 15, Moves: 7, Active: true},
	}
	return br, branchedEpisodes{fakeEpisodes: eps, br: br, sums: []rundb.EpisodeSummary{
		{Episode: 1, ID: 2, Branch: "no-bar", Turns: 7, Score: 15, Moves: 7, Parent: 1, ForkTurn: 5},
		{Episode: 1, ID: 1, Turns: 8, Moves: 8},
	}}
}

// Issue 37, point 2: replaying 1/no-bar (row #2) and rewinding it to
// turn 5 names 1/no-bar as the line the later turns stay on, in the
// question, the footer and the note, never "episode 2" nor main.
func TestRewindFromAReplayNamesTheLineLeft(t *testing.T) {
	br, src := namedBranches()
	eng := newFakeEngine()
	m := New(context.Background(), Options{Engine: eng, Episodes: src, Branches: br, RefreshEvery: -1, Theme: "dark", MaxScore: 100, Story: "demo"})
	h := &harness{t: t, m: m, eng: eng}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.settle(h.events(resumeAt(engine.Branch{Episode: 1, ID: 1}, 8, false, "Orchard", 4)))
	h.settle(h.key("E"))
	h.mustSee("1/no-bar  #2  1/main:5")
	h.settle(h.key("enter"))
	h.mustSee("Transcript · replay of 1/no-bar", "Ep 1/no-bar │")
	h.key("end", "left", "left")
	h.settle(h.key("T"))
	h.mustSee("Timeline · 1/no-bar", "▸ T5")
	h.key("enter")
	h.mustSee("Rewind to turn 5 of 1/no-bar (1/no-bar:5)?", "stay on 1/no-bar.", "The line being played now stays as it is")
	h.mustNotSee("episode 2", "(episode")
	h.key("y")
	if got, want := fmt.Sprint(h.pending()), fmt.Sprint([]engine.Command{engine.Rewind{Branch: 2, Turn: 5}}); got != want {
		t.Fatalf("sent %v, want %v", got, want)
	}
	h.mustSee("rewinding to 1/no-bar:5…")
	br.turns[4] = br.turns[2][:5]
	h.settle(h.events(resumeAt(engine.Branch{Episode: 1, ID: 4, Parent: 2, ForkTurn: 5}, 5, true, "Muddy Lane", 3)))
	h.mustSay("Rewound to 1/no-bar:5: play goes on, paused, on the new branch 1/#4; the turns after 5 stay on 1/no-bar.")
	if strings.Contains(h.transcriptText(), "stay on 1/main") {
		t.Errorf("the note names main as the line left:\n%s", h.transcriptText())
	}
	h.mustSee("rewound to 1/no-bar:5", "Ep 1/#4 │")
	h.mustNotSee("rewinding")
}

// Acceptance 5 of issue 37, without tmux: at 80×24 the footer's progress
// message is held until the engine answers, then replaced by the outcome
// (the memories withdrawn counted, 0 included); a failure says so; the
// timeline's key stays in the footer throughout.
func TestRewindFooterShowsTheOutcomeAt80x24(t *testing.T) {
	h, br := newBranchHarness(t, 80, 24)
	br.turns[5] = br.turns[3][:6]
	h.settle(h.events(resumeAt(mainBranch, 8, false, "Orchard", 4), engine.Idle{Turn: 8, Mode: engine.Paused}))
	// A switch: the progress message, then its outcome.
	h.settle(h.key("T"))
	h.key("b", "down", "enter")
	footer := h.lastRow()
	if !strings.Contains(footer, "switching to 1/#3 at turn 7…") || !strings.HasSuffix(footer, "T timeline • q quit • ? help") {
		t.Fatalf("footer while switching: %q", footer)
	}
	h.settle(h.events(resumeAt(sideBranch, 7, true, "Kitchen", 7), engine.Idle{Turn: 7, Mode: engine.Paused}))
	if footer := h.lastRow(); !strings.Contains(footer, "switched to 1/#3 at turn 7") || !strings.HasSuffix(footer, "T timeline • q quit • ? help") {
		t.Errorf("footer after the switch: %q", footer)
	}
	h.mustSay("Switched to 1/#3 at turn 7; 1/main stays as it was.")
	rewindFailsThenWithdraws(t, h)
}

// rewindFailsThenWithdraws: a rewind that fails, then one with u whose
// footer keeps the progress message until the outcome.
func rewindFailsThenWithdraws(t *testing.T, h *harness) {
	t.Helper()
	// A rewind that fails: its outcome is the failure, and play stays.
	h.settle(h.key("T"))
	h.key("up", "up", "enter", "y")
	h.mustSee("rewinding to 1/#3:5…")
	h.events(engine.ErrorEvent{Turn: 7, Err: &engine.RewindError{Turn: 5, Err: errors.New("the state after it is corrupt")}})
	if footer := h.lastRow(); !strings.Contains(footer, "rewind failed: rewind to turn 5") {
		t.Errorf("footer after a failed rewind: %q", footer)
	}
	h.mustSay("The rewind failed; play stays on 1/#3 at turn 7: rewind to turn 5: the state after it is corrupt")
	if h.m.game.rewinding != nil {
		t.Error("the failed rewind is still awaited")
	}

	// A rewind with u: the progress message stays while the engine takes
	// its time, then the outcome counts the memories withdrawn.
	h.settle(h.key("T"))
	h.key("up", "enter", "u")
	footer := h.lastRow()
	if !strings.Contains(footer, "rewinding to 1/#3:6, withdrawing memories…") || !strings.HasSuffix(footer, "T timeline • q quit • ? help") {
		t.Fatalf("footer while rewinding: %q", footer)
	}
	h.m.Update(flashDoneMsg{id: h.m.foot.id})
	if got := h.lastRow(); got != footer {
		t.Fatalf("the progress message went before the outcome: %q", got)
	}
	rw := resumeAt(engine.Branch{Episode: 1, ID: 5, Parent: 3, ForkTurn: 6}, 6, true, "Kitchen", 7)
	rw.Undone = true
	h.settle(h.events(rw, engine.Idle{Turn: 6, Mode: engine.Paused}))
	footer = h.lastRow()
	for _, want := range []string{"rewound to 1/#3:6 · 0 memories withdrawn", "T timeline • q quit • ? help"} {
		if !strings.Contains(footer, want) {
			t.Errorf("footer after the rewind %q lacks %q", footer, want)
		}
	}
	if strings.Contains(footer, "rewinding") || strings.Contains(footer, "…") {
		t.Errorf("footer after the rewind still shows progress: %q", footer)
	}
	h.mustSay("Rewound to 1/#3:6: play goes on, paused, on the new branch 1/#5; the turns after 6 stay on 1/#3.",
		"0 memories withdrawn (the agent's, written after turn 6")
	h.mustSee("Ep 1/#5 │")
	h.m.Update(flashDoneMsg{id: h.m.foot.id})
	if footer := h.lastRow(); !strings.HasSuffix(footer, "T timeline • q quit • ? help") || strings.Contains(footer, "rewound") {
		t.Errorf("footer once the outcome went: %q", footer)
	}
}

// The timeline's key stays in the panes' footer at every width and in
// every pane, the other keys cut first; a replay offers its own T.
func TestFooterKeepsTheTimelineKey(t *testing.T) {
	for _, w := range []int{80, 120, 200} {
		h := newHarness(t, w, 30, "dark")
		scene(h)
		h.events(engine.Idle{Mode: engine.Paused})
		for _, pane := range []string{"1", "2", "3", "4", "5"} {
			h.key(pane)
			row := h.lastRow()
			if !strings.HasSuffix(row, "T timeline • q quit • ? help") || ansi.StringWidth(h.screen()[strings.LastIndex(h.screen(), "\n")+1:]) != w {
				t.Errorf("%d columns, pane %s: footer %q", w, pane, row)
			}
		}
		// A word in the footer keeps it too, when the word fits beside it.
		h.m.setFlash("paused", false)
		if row := h.lastRow(); !strings.Contains(row, "paused") || !strings.HasSuffix(row, "T timeline • q quit • ? help") {
			t.Errorf("%d columns, a flash: footer %q", w, row)
		}
	}
	h := newHarness(t, 80, 24, "dark")
	h.m.opts.Episodes = sampleEpisodes()
	h.events(opening())
	h.settle(h.key("E"))
	h.settle(h.key("enter"))
	if row := h.lastRow(); !strings.Contains(row, "T rewind here") || strings.Contains(row, "T timeline") {
		t.Errorf("replay footer %q", row)
	}
}

// The timeline's keys and the question's show whole at 80 columns,
// wrapped between keys when they do not fit one row.
func TestTimelineKeysFitAt80Columns(t *testing.T) {
	h, _ := newBranchHarness(t, 80, 24)
	h.settle(h.events(resumeAt(mainBranch, 8, false, "Orchard", 4), engine.Idle{Turn: 8, Mode: engine.Paused}))
	h.settle(h.key("T"))
	h.mustSee("↑/↓ choose · enter rewind here · b branches · esc close")
	h.key("up", "enter")
	h.mustSee("y rewind · u rewind, withdraw the agent's later memories", "r name the branch · n/esc back")
	h.key("r")
	h.mustSee("enter keep it · esc back")
	h.typeText("main")
	h.key("enter")
	h.mustSee(`bad branch name: "main" names an episode's first line`)
	h.key("esc", "n", "b")
	h.mustSee("↑/↓ choose · enter switch to it · b turns · esc close")
	for _, row := range strings.Split(h.screen(), "\n") {
		if strings.Contains(row, "…") {
			t.Errorf("a row is cut: %q", row)
		}
	}
}

// esc esc cancels the agent's call: what streamed of its thought stays,
// marked as cancelled.
func TestCancelledThoughtIsMarked(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(opening(), engine.TurnStarted{Turn: 1, Actor: engine.ActorAgent},
		engine.ReasoningDelta{Turn: 1, Text: "The lane runs north; perhaps the orch", Thinking: true})
	h.key("2", "esc", "esc")
	text := paneText(h, pReasoning)
	for _, want := range []string{"The lane runs north; perhaps the orch", "— cancelled (esc esc)"} {
		if !strings.Contains(text, want) {
			t.Errorf("reasoning lacks %q:\n%s", want, text)
		}
	}
	if i, j := strings.Index(text, "perhaps the orch"), strings.Index(text, "— cancelled"); i > j {
		t.Errorf("the mark comes before the thought:\n%s", text)
	}
	// The next call of the same turn streams below the mark.
	h.events(engine.TurnStarted{Turn: 1, Actor: engine.ActorAgent}, engine.ReasoningDelta{Turn: 1, Text: "Again: north.", Thinking: true})
	text = paneText(h, pReasoning)
	if i, j := strings.Index(text, "— cancelled"), strings.Index(text, "Again: north."); j < i {
		t.Errorf("the new thought is not below the mark:\n%s", text)
	}
}

// The lists lay lines of play out in columns at every width: the line's
// written form, #ID, where it forked, turns, score, moves, ending; the
// start date goes first when the width is short, then long names are
// cut.
func TestLineTable(t *testing.T) {
	main := domain.Line{Episode: 1, ID: 1}
	long := domain.Line{Episode: 1, ID: 12, Name: "east of the house by the boarded window", Parent: 1, ForkTurn: 96}
	lines := map[int64]domain.Line{1: main, 12: long}
	rows := []lineRow{
		{line: main, turns: 120, score: 35, moves: 140, ending: "death", started: "2026-11-21 09:30"},
		{line: long, from: forkedFrom(long, lines), turns: 130, score: 40, moves: 150, started: "2026-11-22 10:00"},
		{line: domain.Line{Episode: 1, ID: 13, Parent: 12, ForkTurn: 100}, from: forkedFrom(domain.Line{Parent: 12, ForkTurn: 100}, lines),
			turns: 100, score: 40, moves: 120, started: "2026-11-22 11:00"},
	}
	cases := []struct {
		w    int
		head string
		rows []string
	}{
		{200, "line                                       id   from                                           turns  score  moves  ending      started",
			[]string{"1/main                                     #1   —                                                120     35    140  death       2026-11-21 09:30",
				"1/east of the house by the boarded window  #12  1/main:96                                        130     40    150  unfinished  2026-11-22 10:00",
				"1/#13                                      #13  1/east of the house by the boarded window:100    100     40    120  unfinished  2026-11-22 11:00"}},
		{120, "line                                      id   from                                      turns  score  moves  ending",
			[]string{"1/main                                    #1   —                                           120     35    140  death",
				"1/east of the house by the boarded wind…  #12  1/main:96                                   130     40    150  unfinished"}},
		{80, "line                  id   from                  turns  score  moves  ending",
			[]string{"1/main                #1   —                       120     35    140  death",
				"1/east of the house…  #12  1/main:96               130     40    150  unfinished",
				"1/#13                 #13  1/east of the house…    100     40    120  unfinished"}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.w), func(t *testing.T) {
			head, got := lineTable(rows, c.w)
			if head != c.head {
				t.Errorf("head\n got %q\nwant %q", head, c.head)
			}
			for i, want := range c.rows {
				if got[i] != want {
					t.Errorf("row %d\n got %q\nwant %q", i, got[i], want)
				}
			}
			for _, r := range append(got, head) {
				if ansi.StringWidth(r) > c.w {
					t.Errorf("%q is wider than %d", r, c.w)
				}
			}
		})
	}
}

// The lists of lines, in both themes and at 80, 120 and 200 columns: the
// timeline's branch list and the episode list.
func TestGoldenLineLists(t *testing.T) {
	for _, theme := range []string{"dark", "light"} {
		for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
			suffix := fmt.Sprintf("%s_%dx%d", theme, size[0], size[1])
			t.Run(suffix, func(t *testing.T) {
				br, src := namedBranches()
				eng := newFakeEngine()
				m := New(context.Background(), Options{Engine: eng, Episodes: src, Branches: br, Story: "demo", MaxScore: 100, Theme: theme, RefreshEvery: -1})
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				h := &harness{t: t, m: m, eng: eng}
				h.settle(h.events(resumeAt(engine.Branch{Episode: 1, ID: 2, Name: "no-bar", Parent: 1, ForkTurn: 5}, 7, false, "Kitchen", 7)))
				h.settle(h.key("T"))
				h.key("b")
				golden(t, "lines_branches_"+suffix, m.Render())
				h.key("esc")
				h.settle(h.key("E"))
				golden(t, "lines_episodes_"+suffix, m.Render())
				h.key("esc")
				h.settle(h.key("T"))
				h.key("up", "up", "enter")
				golden(t, "lines_question_"+suffix, m.Render())
			})
		}
	}
}

// The episode list's lines come from the summaries' own rows.
func TestEpisodeRows(t *testing.T) {
	_, src := namedBranches()
	rows := episodeRows(src.sums)
	got := make([]string, len(rows))
	for i, r := range rows {
		got[i] = strings.Join(r.cells()[:7], " ")
	}
	want := []string{"1/no-bar #2 1/main:5 7 15 7 unfinished", "1/main #1 — 8 0 8 unfinished"}
	if !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
}
