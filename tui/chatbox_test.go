package tui

import (
	"context"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/memory/rundb"
)

// lastRow is the screen's footer line.
func (h *harness) lastRow() string {
	rows := strings.Split(h.screen(), "\n")
	return strings.TrimRight(rows[len(rows)-1], " ")
}

// The footer ends with the help key at every width and offers the focused
// pane's keys, or the replay's.
func TestFooterFollowsThePaneAndEndsWithHelp(t *testing.T) {
	for _, w := range []int{80, 120} {
		h := newHarness(t, w, 30, "dark")
		h.events(opening(), engine.Idle{Mode: engine.Paused})
		seen := map[string]bool{}
		for _, pane := range []string{"1", "2", "3", "4", "5"} {
			h.key(pane)
			row := h.lastRow()
			if !strings.HasSuffix(row, "? help") {
				t.Fatalf("%d columns, pane %s: footer %q does not end with the help key", w, pane, row)
			}
			seen[row] = true
		}
		if len(seen) < 4 {
			t.Errorf("%d columns: the footer changed with the pane only %d times", w, len(seen))
		}
		h.key("3")
		if row := h.lastRow(); !strings.Contains(row, "e edit") {
			t.Errorf("memory pane footer %q lacks e edit", row)
		}
	}
}

// A key that does nothing where it is pressed says so.
func TestKeyThatDoesNothingSaysSo(t *testing.T) {
	h := newHarness(t, 120, 30, "dark")
	h.events(opening(), engine.Idle{Mode: engine.Paused})
	h.key("e")
	h.mustSee("e works in the Memory pane (m)")
	h.key("c")
	h.mustSee("c works in the Objectives pane (o)")
	h.key("z")
	h.mustSee("z does nothing here")
}

// n pressed three times while paused plays three turns: one step at a
// time, the others queued and shown until the engine is idle again.
func TestQueuedStepsPlayOneAfterAnother(t *testing.T) {
	h := newHarness(t, 120, 30, "dark")
	h.events(opening(), engine.Idle{Mode: engine.Paused})
	h.key("n", "n", "n")
	if got := h.pending(); !reflect.DeepEqual(got, []engine.Command{engine.Step{}}) {
		t.Fatalf("three n sent %#v, want one step (the others queued)", got)
	}
	h.mustSee("stepping · 2 queued")
	h.flush()
	for i := 1; i <= 3; i++ {
		h.events(engine.TurnStarted{Turn: i, Actor: engine.ActorAgent}, turn(i, engine.ActorAgent, "wait", "Time passes.", 3, "Muddy Lane"),
			engine.Idle{Turn: i, Mode: engine.Paused})
		want := 1
		if i == 3 {
			want = 0
		}
		if got := len(h.pending()); got != want {
			t.Fatalf("after turn %d: %d steps sent, want %d", i, got, want)
		}
		h.flush()
	}
	h.mustSee("paused", "Turn: 3")
	if h.m.game.stepping || h.m.game.queuedSteps != 0 {
		t.Fatal("the steps are not all played")
	}
}

// The command input is a chat box: sending follows the transcript, the
// transcript scrolls while typing, ctrl+c clears the line before it quits,
// a multi-line paste plays line by line, a long paste says it was cut.
func TestInputBehavesLikeAChatBox(t *testing.T) {
	h := newHarness(t, 120, 30, "dark")
	h.events(opening(), engine.Idle{Mode: engine.Paused})
	for i := 1; i <= 30; i++ {
		h.events(turn(i, engine.ActorAgent, "wait", "Time passes.\nStill.", 3, "Muddy Lane"))
	}
	h.key("1", "pgup", "pgup")
	if h.m.panes.transcript.feed.atBottom() {
		t.Fatal("the transcript did not scroll up")
	}
	h.key("i")
	h.key("pgdown", "pgdown", "pgdown")
	if !h.m.panes.transcript.feed.atBottom() {
		t.Fatal("pgdn does not scroll the transcript while typing")
	}
	h.key("pgup")
	h.typeText("score")
	h.key("enter")
	if !h.m.panes.transcript.feed.atBottom() {
		t.Fatal("sending did not follow the transcript")
	}
	h.typeText("look")
	h.key("ctrl+c")
	if h.m.game.quitting || h.m.cmdline.input.Value() != "" || !h.m.dialogs.typing() {
		t.Fatalf("ctrl+c on a typed line: quitting %v, line %q", h.m.game.quitting, h.m.cmdline.input.Value())
	}
	h.mustSee("line cleared")
	h.flush()
	h.m.Update(tea.PasteMsg{Content: "north\r\n\nopen door\rtake lamp\n"})
	want := []engine.Command{engine.Override{Text: "north"}, engine.Override{Text: "open door"}, engine.Override{Text: "take lamp"}}
	if got := h.pending(); !reflect.DeepEqual(got, want) {
		t.Fatalf("multi-line paste sent %#v", got)
	}
	h.mustSee("pasted 3 lines")
	h.flush()
	h.m.Update(tea.PasteMsg{Content: strings.Repeat("x", 5410)})
	if n := len(h.m.cmdline.input.Value()); n != 200 {
		t.Fatalf("a long paste left %d characters", n)
	}
	h.mustSee("paste cut to 200 of 5410 characters")
	h.key("ctrl+c", "ctrl+c")
	if !h.m.game.quitting {
		t.Fatal("ctrl+c on an empty line does not quit")
	}
}

// A resumed session shows the episode's earlier turns by actor, the
// engine's map and says where it resumed.
func TestResumeRestoresTranscriptMapAndActors(t *testing.T) {
	src := fakeEpisodes{turns: map[int64][]rundb.Turn{
		1: {{Episode: 1, Turn: 1, Actor: "agent", Action: "north", Response: "Orchard", LocationID: 4, Location: "Orchard", Moves: 1, Reasoning: "Explore north."},
			{Episode: 1, Turn: 2, Actor: "human", Action: "south", Response: "Muddy Lane", LocationID: 3, Location: "Muddy Lane", Moves: 2}},
	}}
	snap := mapper.Snapshot{Names: map[int]string{3: "Muddy Lane", 4: "Orchard", 5: "Cottage"},
		Conns:   map[int]map[string]int{3: {"north": 4, "east": 5}, 4: {"south": 3}, 5: {"west": 3}},
		Visited: map[int]int{3: 2, 4: 1, 5: 1}, Current: 3}
	eng := newFakeEngine()
	m := New(context.Background(), Options{Engine: eng, Episodes: src, RefreshEvery: -1, Theme: "dark"})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	h := &harness{t: t, m: m, eng: eng}
	res := turn(2, "", "", "Muddy Lane", 3, "Muddy Lane")
	resumed := engine.EpisodeStarted{Episode: 1, Resumed: true, Turn: 2, Observation: res.Observation}
	for _, msg := range run(h.events(resumed, engine.MapChanged{Rooms: 3, Connections: 4, Map: snap}, engine.Idle{Turn: 2, Mode: engine.Paused})) {
		m.Update(msg)
	}
	h.mustSee("T1 agent › north", "T2 human › south", "Resumed 1/main after turn 2", "3 rooms · 4 links", "║────│Cottage", "L5", "Explore north.")
	if s := ansi.Strip(m.panes.reasoning.view()[0]); strings.Contains(s, "agent") && strings.Contains(s, "south") {
		t.Errorf("the person's command is labelled the agent's: %q", s)
	}
}

// The model picker starts on the model each role uses, says plainly when
// there is no server, and a choice is saved for next time.
func TestModelPickerStartsOnTheModelInUseAndSaves(t *testing.T) {
	eng := newFakeEngine()
	models := &fakeModels{host: "127.0.0.1:11434", models: []llm.ModelSummary{{Name: "lantern-tiny"}, {Name: "llama3"}, {Name: "qwen3:4b"}}}
	var saved []map[string]string
	m := New(context.Background(), Options{Engine: eng, Models: models, RefreshEvery: -1, Theme: "dark",
		SavePrefs: func(theme string, ms map[string]string) error { saved = append(saved, ms); return nil }})
	h := &harness{t: t, m: m, eng: eng}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for _, msg := range run(h.key("ctrl+l")) {
		m.Update(msg)
	}
	picker := func() *modelPicker {
		t.Helper()
		p, ok := topIs[*modelPicker](&m.dialogs)
		if !ok {
			t.Fatalf("the picker is not open: %T", m.dialogs.top())
		}
		return p
	}
	if picker().sel != 2 {
		t.Fatalf("the picker starts on row %d, want 2 (qwen3:4b, in use)", picker().sel)
	}
	h.key("up", "right")
	if picker().sel != 2 {
		t.Fatalf("another role starts on row %d, want its model's (2)", picker().sel)
	}
	h.key("up")
	for _, msg := range run(h.key("enter")) {
		m.Update(msg)
	}
	// One Enter uses the model for this session; nothing is written until
	// the person says so.
	if len(saved) != 0 {
		t.Fatalf("one Enter saved %v", saved)
	}
	if got := eng.commands(); len(got) != 1 || got[0] != (engine.SetModel{Role: "critic", Model: "llama3"}) {
		t.Fatalf("enter sent %#v", got)
	}
	h.mustSee("s keeps it for next time")
	for _, msg := range run(h.key("s")) {
		m.Update(msg)
	}
	if len(saved) != 1 || saved[0]["critic"] != "llama3" {
		t.Fatalf("saved %v", saved)
	}
	picker().setModels(nil, unreachable("127.0.0.1:9"))
	h.mustSee("No model server answers at 127.0.0.1:9")
	h.mustNotSee("dial tcp")
}

// e in the Objectives pane edits the selected objective: the old text is
// dropped and the new one added.
func TestObjectiveEdit(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.m.Update(objectivesMsg{active: []string{"Find the lamp"}, completed: []string{"Explore the lane"}})
	h.key("o", "e")
	h.mustSee("objective: Find the lamp")
	h.key("ctrl+u")
	h.typeText("Light the lamp")
	h.key("enter")
	want := []engine.Command{engine.ObjectiveEdit{Op: "drop", Text: "Find the lamp"}, engine.ObjectiveEdit{Op: "add", Text: "Light the lamp"}}
	if got := h.pending(); !reflect.DeepEqual(got, want) {
		t.Fatalf("edit sent %#v", got)
	}
}

// y copies the focused pane's content; ctrl+o lets the terminal select.
func TestCopyAndMouseToggle(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	scene(h)
	h.key("1", "y")
	if !strings.Contains(h.m.clipboard, "T4 agent › south") {
		t.Fatalf("transcript copy %q", h.m.clipboard)
	}
	h.mustSee("copied the transcript shown")
	h.key("5", "y")
	if !strings.Contains(h.m.clipboard, "flowchart") && !strings.Contains(h.m.clipboard, "graph") {
		t.Fatalf("map copy %q", h.m.clipboard)
	}
	h.key("3", "down", "y")
	if !strings.Contains(h.m.clipboard, "\n") {
		t.Fatalf("memory copy %q", h.m.clipboard)
	}
	if h.m.View().MouseMode != tea.MouseModeCellMotion {
		t.Fatal("the mouse starts on")
	}
	h.key("ctrl+o")
	if h.m.View().MouseMode != tea.MouseModeNone {
		t.Fatal("ctrl+o does not give the terminal the mouse")
	}
}

// The cursor moves on past the active objectives to the completed ones, so
// a short pane shows them too.
func TestCompletedObjectivesReachable(t *testing.T) {
	h := newHarness(t, 120, 30, "dark")
	h.m.Update(objectivesMsg{active: []string{"One", "Two", "Three"}, completed: []string{"Zero done", "Minus one done"}})
	h.key("o")
	h.mustNotSee("Minus one done")
	h.key("down", "down", "down", "down", "down", "down")
	h.mustSee("Minus one done")
	if _, ok := h.m.panes.objectives.selected(); ok {
		t.Fatal("a completed objective is offered for editing")
	}
}

// Without a reachable server the agent's keys say why they do nothing.
func TestAgentKeysWithoutServer(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.m.opts.Models = &fakeModels{host: "127.0.0.1:9"}
	h.m.server.models = h.m.opts.Models
	h.m.Update(ollamaMsg{err: unreachable("127.0.0.1:9")})
	h.key("space")
	h.mustSee("the agent needs the model server")
	h.key("n")
	h.mustSee("n needs the model server")
	if len(h.pending()) != 0 {
		t.Fatalf("sent %#v", h.pending())
	}
}

// The command line asks the engine what the game lets the player do when
// it opens and after each turn while open; tab completes the typed word
// from that list (an answer about an older turn is ignored).
func TestTabCompletesFromTheGamesActions(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(opening(), engine.Idle{Mode: engine.Paused})
	h.key("i")
	if got := h.m.out.pending(); !reflect.DeepEqual(got, []engine.Command{engine.SuggestActions{}}) {
		t.Fatalf("opening the line sent %#v, want one SuggestActions", got)
	}
	h.key("i") // typed: one letter, no second question
	h.events(engine.ActionsSuggested{Turn: 0, Actions: []string{"north", "south", "open mailbox", "open window"}})
	h.key("backspace")
	h.typeText("op")
	h.key("tab")
	if got := h.m.cmdline.input.Value(); got != "open mailbox" {
		t.Fatalf("tab made %q, want open mailbox", got)
	}
	h.m.cmdline.input.Reset()
	h.flush()
	h.events(turn(1, engine.ActorHuman, "north", "North of House", 4, "North of House"))
	if got := h.m.out.pending(); !reflect.DeepEqual(got, []engine.Command{engine.SuggestActions{}}) {
		t.Fatalf("a turn while typing sent %#v, want one SuggestActions", got)
	}
	h.events(engine.ActionsSuggested{Turn: 0, Actions: []string{"open mailbox"}}) // about turn 0: too late
	h.typeText("op")
	h.key("tab")
	if got := h.m.cmdline.input.Value(); got != "op" {
		t.Fatalf("an old turn's list completed %q", got)
	}
	h.events(engine.ActionsSuggested{Turn: 1, Actions: []string{"east", "open window"}})
	h.key("tab")
	if got := h.m.cmdline.input.Value(); got != "open window" {
		t.Fatalf("tab made %q, want open window", got)
	}
}
