package tui

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/memory/rundb"
)

// opening is an episode of the demo starting (numbered by the TUI).
func opening() engine.EpisodeStarted {
	return engine.EpisodeStarted{Observation: turn(0, "", "", "THE KEEPER'S LANTERN\n\nMuddy Lane\nA muddy lane ends here.", 3, "Muddy Lane").Observation}
}

func TestEveryPaneAndTheStatusBarAt120x40(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(opening(), engine.Idle{Mode: engine.Paused})
	h.mustSee("Transcript", "Reasoning", "Memory", "Objectives", "Map", "Turn: 0", "paused", "L3 Muddy Lane", "Score 0/100", "demo")
	for i, l := range strings.Split(h.m.Render(), "\n") {
		if w := ansi.StringWidth(l); w != 120 {
			t.Errorf("row %d is %d wide, want 120: %q", i, w, ansi.Strip(l))
		}
	}
	if n := len(strings.Split(h.m.Render(), "\n")); n != 40 {
		t.Errorf("%d rows, want 40", n)
	}
}

func TestLayouts(t *testing.T) {
	for _, tc := range []struct {
		w, h    int
		tabs    bool
		columns int
	}{{80, 24, true, 1}, {120, 40, false, 2}, {200, 60, false, 3}, {99, 50, true, 1}, {160, 30, false, 3}} {
		l := computeLayout(tc.w, tc.h-2, 0, pTranscript)
		if l.tabs != tc.tabs {
			t.Errorf("%dx%d: tabs %v, want %v", tc.w, tc.h, l.tabs, tc.tabs)
		}
		xs := map[int]bool{}
		area := 0
		for _, r := range l.panes {
			if !r.empty() {
				xs[r.x] = true
				area += r.w * r.h
			}
		}
		if len(xs) != tc.columns {
			t.Errorf("%dx%d: %d columns, want %d", tc.w, tc.h, len(xs), tc.columns)
		}
		want := tc.w * (tc.h - 2)
		if tc.tabs {
			want = tc.w * (tc.h - 3)
		}
		if area != want {
			t.Errorf("%dx%d: panes cover %d cells, want %d", tc.w, tc.h, area, want)
		}
	}
}

func TestTabsAt80x24(t *testing.T) {
	h := newHarness(t, 80, 24, "dark")
	h.events(opening())
	h.mustSee("1 Transcript", "2 Reasoning", "3 Memory", "4 Objectives", "5 Map", "Muddy Lane")
	h.key("tab")
	h.mustSee("╭─ Reasoning")
	h.key("m")
	h.mustSee("╭─ Memory")
	h.key("5")
	h.mustSee("╭─ Map", "▣ L3 Muddy Lane")
	// A click on a tab shows it.
	x := h.m.lay.tabAt[pTranscript][0]
	h.m.Update(tea.MouseClickMsg{X: x + 1, Y: h.m.lay.tabBar.y, Button: tea.MouseLeft})
	h.mustSee("╭─ Transcript")
}

func TestPauseResumeStep(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(opening(), engine.Idle{Mode: engine.Paused})
	h.key("space")
	h.mustSee("running")
	h.key("space")
	h.mustSee("paused")
	h.key("n")
	h.mustSee("stepping")
	want := []engine.Command{engine.Unpause{}, engine.Pause{}, engine.Step{}}
	if got := h.pending(); !reflect.DeepEqual(got, want) {
		t.Fatalf("queued %#v, want %#v", got, want)
	}
	h.flush()
	if got := h.eng.commands(); !reflect.DeepEqual(got, want) {
		t.Fatalf("sent %#v, want %#v", got, want)
	}
	h.events(engine.TurnStarted{Turn: 1, Actor: engine.ActorAgent})
	h.mustSee("Reasoning · thinking…")
	h.events(turn(1, engine.ActorAgent, "north", "Orchard\nApple trees.", 4, "Orchard"), engine.Idle{Turn: 1, Mode: engine.Paused})
	h.mustSee("Turn: 1", "paused", "T1 agent › north", "L4 Orchard")
}

func TestTypedCommandGoesToTheEngineAsOverride(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(opening(), engine.Idle{Mode: engine.Paused})
	h.key("i")
	h.mustSee("enter sends · tab completes · esc leaves", "manual")
	h.typeText("inventory")
	h.key("enter")
	if got, want := h.pending(), []engine.Command{engine.Override{Text: "inventory"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("queued %#v, want %#v", got, want)
	}
	// The input stays open for the next command (the footer says what was
	// sent); the history recalls it.
	h.mustSee(`sent "inventory"`)
	if !h.m.dialogs.typing() {
		t.Fatal("the input closed after sending")
	}
	h.key("up")
	if v := h.m.cmdline.input.Value(); v != "inventory" {
		t.Errorf("history gives %q", v)
	}
	h.key("esc")
	h.mustNotSee("enter sends")
	h.events(engine.TurnStarted{Turn: 1, Actor: engine.ActorHuman}, turn(1, engine.ActorHuman, "inventory", "You are empty-handed.", 3, "Muddy Lane"))
	h.mustSee("T1 human › inventory", "You are empty-handed.", "Turn: 1", "manual")
}

func TestReasoningStreamsThenShowsTheProposalAndVerdicts(t *testing.T) {
	h := newHarness(t, 200, 60, "dark")
	h.events(opening(), engine.TurnStarted{Turn: 1, Actor: engine.ActorAgent},
		engine.ReasoningDelta{Turn: 1, Text: "The lane ", Thinking: true},
		engine.ReasoningDelta{Turn: 1, Text: "ends; try north.", Thinking: true},
		engine.ReasoningDelta{Turn: 1, Text: `{"action":"D","remember":"",`})
	// The reply's raw JSON never shows; its reasoning field does, as it
	// streams.
	h.mustSee("The lane ends; try north.")
	h.mustNotSee(`"action"`, `{"`)
	h.events(engine.ReasoningDelta{Turn: 1, Text: `"reasoning": "explo\"re\" the`})
	h.mustSee(`explo"re" the`)
	h.mustNotSee(`"reasoning"`)
	h.events(engine.ProposalMade{Turn: 1, Attempt: 1, Action: "climb well", Reasoning: "Explore the well."},
		engine.CriticVerdict{Turn: 1, Attempt: 1, Action: "climb well", Score: -1, Justification: "no well here", Stage: "ground-truth"},
		engine.ProposalMade{Turn: 1, Attempt: 2, Action: "north", Reasoning: "The orchard is north."},
		engine.CriticVerdict{Turn: 1, Attempt: 2, Action: "north", Score: 0.4, Justification: "sensible", Accepted: true, Stage: "model"},
		turn(1, engine.ActorAgent, "north", "Orchard", 4, "Orchard"))
	h.mustNotSee(`{"reasoning"`)
	h.mustSee("→ proposal 1: climb well", "✗ rejected by the critic (ground-truth, -1.0): no well",
		"✓ accepted by the critic (model, +0.4): sensible", "⇒ played: north", "Explore the well.")
}

// A reply that answers the last turn's memory question streams the memory
// first: the pane shows what is being remembered, then the reasoning,
// never the JSON.
func TestReasoningStreamsTheMemoryBeingWritten(t *testing.T) {
	h := newHarness(t, 200, 60, "dark")
	h.events(opening(), engine.TurnStarted{Turn: 2, Actor: engine.ActorAgent},
		engine.ReasoningDelta{Turn: 2, Text: `{"memory": {"why": "the mailbox holds the leaflet", "should_remember": true, "category": "DISCOVERY", "memory_title": "Mailbox", `},
		engine.ReasoningDelta{Turn: 2, Text: `"memory_text": "The mailbox holds a leaf`})
	h.mustSee("✎ remembering: The mailbox holds a leaf")
	h.mustNotSee(`"memory`, `{"`)
	h.events(engine.ReasoningDelta{Turn: 2, Text: `let.", "status": "ACTIVE", "supersedes_memory_titles": []}, "reasoning": "Read it`})
	h.mustSee("remembering: The mailbox holds a leaflet.", "Read it")
	h.mustNotSee(`"status"`, `"reasoning"`)
}

func TestReasoningDeltasStayBounded(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(engine.TurnStarted{Turn: 1, Actor: engine.ActorAgent})
	chunk := strings.Repeat("x", 1000)
	for range 100 {
		h.events(engine.ReasoningDelta{Turn: 1, Text: chunk, Thinking: true})
	}
	if n := len(h.m.panes.reasoning.cur.parts[0].text); n > maxStreamText+10 {
		t.Errorf("streamed text kept %d bytes", n)
	}
	for i := 2; i < 3*maxReasoningTurns; i++ {
		h.events(engine.TurnStarted{Turn: i, Actor: engine.ActorAgent})
	}
	if n := h.m.panes.reasoning.feed.len(); n > maxReasoningTurns+maxReasoningTurns/4 {
		t.Errorf("reasoning keeps %d turns", n)
	}
}

func TestMemoryPaneStylesCategoriesAndStatuses(t *testing.T) {
	h := newHarness(t, 200, 60, "dark")
	h.events(opening())
	h.m.Update(memoriesMsg{secs: sampleSections()})
	h.mustSee("L3 Muddy Lane · 3 visits", "[SUCCESS] Orchard lies north (Ep1, T1)", "[FAILURE] Cottage door is boarded",
		"[DISCOVERY] Well may hide something tentative", `superseded at T4 by human: "Cottage door is boarded"`, "1/4")
	raw := h.m.Render()
	// DANGER is drawn in the danger colour, superseded titles struck through.
	if !strings.Contains(raw, h.m.c.paint(stSuperseded, "Door needs a key")) {
		t.Error("the superseded title is not styled as superseded")
	}
	// The browser lists every location; enter opens one; esc comes back.
	h.key("m", "b")
	h.mustSee("All locations (2)", "L3    Muddy Lane", "L4    Orchard", "1 memories")
	h.key("down", "enter")
	h.mustSee("L4 Orchard", "[DANGER] Falling from the tree (Ep1, T3, -5)", "browsing · esc: back")
	h.key("esc")
	h.mustSee("L3 Muddy Lane · 3 visits")
}

func TestMemoryEditSupersedeAddDeleteUndo(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(opening())
	h.m.Update(memoriesMsg{secs: sampleSections()})
	h.key("m", "down", "e")
	h.mustSee("Edit memory at L3 Muddy Lane", "ctrl+s save")
	// Replace the title.
	h.key("ctrl+u")
	h.typeText("Door is boarded up")
	h.key("tab", "tab", "right") // category → DISCOVERY
	h.do("ctrl+s")               // the form compares with Memories.md (read in a command), then saves
	want := []engine.Command{engine.MemoryEdit{Op: engine.MemoryEditText, Location: 3, Title: "Cottage door is boarded",
		NewTitle: "Door is boarded up", Text: "The front door will not open; it is boarded shut.", Category: "DISCOVERY"}}
	if got := h.pending(); !reflect.DeepEqual(got, want) {
		t.Fatalf("queued %#v\nwant %#v", got, want)
	}
	h.flush()
	h.mustSee("memory edited")

	// Supersede the first memory with a new one.
	h.key("up", "s")
	h.mustSee(`Supersede "Orchard lies north" at L3`)
	h.key("ctrl+u")
	h.typeText("North leads to the orchard")
	h.key("tab", "tab", "tab", "right")
	h.do("enter") // status → TENTATIVE, enter saves
	got := h.pending()
	if len(got) != 1 {
		t.Fatalf("queued %#v", got)
	}
	if e := got[0].(engine.MemoryEdit); e.Op != engine.MemorySupersede || e.Title != "Orchard lies north" || e.NewTitle != "North leads to the orchard" ||
		e.Category != "SUCCESS" || e.Status != "TENTATIVE" {
		t.Fatalf("supersede sent %#v", e)
	}
	h.flush()
	addDeleteUndoMemory(t, h)
}

// addDeleteUndoMemory adds a memory (refused without a title), deletes
// one and undoes it, leaves a form with esc, and reloads the pane on
// MemoryChanged.
func addDeleteUndoMemory(t *testing.T, h *harness) {
	t.Helper()
	// Add one; a missing title is refused in the form.
	h.key("a")
	h.mustSee("New memory at L3 Muddy Lane")
	h.key("ctrl+s")
	h.mustSee("a memory needs a title")
	h.typeText("Well rope")
	h.key("tab")
	h.typeText("A rope hangs in the well.")
	h.key("ctrl+s")
	if e := h.pending()[0].(engine.MemoryEdit); e.Op != engine.MemoryAdd || e.NewTitle != "Well rope" || e.Text != "A rope hangs in the well." || e.Status != "ACTIVE" || e.Category != "NOTE" {
		t.Fatalf("add sent %#v", e)
	}
	h.flush()

	// Delete the selected memory, then undo.
	h.key("d")
	h.mustSee(`deleted "Orchard lies north": u undoes`)
	h.mem.undoPending = 1 // the store counts the deletion (read in a command)
	h.do("u")
	want := []engine.Command{engine.MemoryEdit{Op: engine.MemoryDelete, Location: 3, Title: "Orchard lies north"}, engine.MemoryEdit{Op: engine.MemoryUndo}}
	if got := h.pending(); !reflect.DeepEqual(got, want) {
		t.Fatalf("queued %#v\nwant %#v", got, want)
	}
	// Esc leaves a form without sending anything.
	h.flush()
	h.key("e", "esc")
	if len(h.pending()) != 0 {
		t.Fatalf("esc sent %#v", h.pending())
	}
	// The engine's MemoryChanged makes the pane read the store again.
	h.mem.secs = sampleSections()[:1]
	_, cmd := h.m.Update(eventsMsg{evs: []engine.Event{engine.MemoryChanged{Location: 3, Title: "x"}}})
	found := false
	for _, msg := range run(cmd) {
		if mm, ok := msg.(memoriesMsg); ok {
			found = len(mm.secs) == 1
		}
	}
	if !found {
		t.Error("MemoryChanged did not reload the memories")
	}
}

func TestEditingTheStatusSendsSetStatus(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(opening())
	h.m.Update(memoriesMsg{secs: sampleSections()})
	h.key("m", "down", "down", "e", "tab", "tab", "tab", "left") // TENTATIVE → ACTIVE
	h.do("ctrl+s")
	got := h.pending()
	if len(got) != 2 || got[1] != (engine.MemoryEdit{Op: engine.MemorySetStatus, Location: 3, Title: "Well may hide something", Status: "ACTIVE"}) {
		t.Fatalf("queued %#v", got)
	}
}

func TestMemoryViewerRendersMarkdown(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(opening())
	h.m.Update(memoriesMsg{secs: sampleSections()})
	h.key("m")
	cmd := h.key("enter")
	msgs := run(cmd)
	if len(msgs) != 1 {
		t.Fatalf("viewer produced %v", msgs)
	}
	h.m.Update(msgs[0])
	h.mustSee("Memory", "[SUCCESS] Orchard lies north", "Going north from the lane reaches the orchard.")
	h.key("esc")
	h.mustSee("╭─ Transcript")
}

func TestOllamaUnreachableNoticeAndPlayingByHand(t *testing.T) {
	eng := newFakeEngine()
	models := &fakeModels{host: "127.0.0.1:9", err: unreachable("127.0.0.1:9")}
	m := New(context.Background(), Options{Engine: eng, Models: models, RefreshEvery: -1, Theme: "dark"})
	h := &harness{t: t, m: m, eng: eng}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.events(opening(), engine.Idle{Mode: engine.Paused})
	for _, msg := range run(checkOllama(context.Background(), models)) {
		m.Update(msg)
	}
	h.mustSee("Ollama is not reachable at 127.0.0.1:9", "ollama serve", "r retries")
	h.key("i")
	h.typeText("look")
	h.key("enter")
	if got := h.pending(); !reflect.DeepEqual(got, []engine.Command{engine.Override{Text: "look"}}) {
		t.Fatalf("queued %#v", got)
	}
	h.key("esc")
	// r asks again; once the server answers the notice goes.
	models.err = nil
	cmd := h.key("r")
	for _, msg := range run(cmd) {
		m.Update(msg)
	}
	h.mustNotSee("not reachable")
	// The engine's own failure to reach the server brings the notice back.
	h.events(engine.ErrorEvent{Turn: 1, Err: fmt.Errorf("agent: %w", unreachable("127.0.0.1:9"))})
	h.mustSee("Ollama is not reachable at 127.0.0.1:9")
	// An agent turn that was answered clears it.
	h.events(turn(1, engine.ActorAgent, "north", "Orchard", 4, "Orchard"))
	h.mustNotSee("not reachable")
}

func TestMissingModelIsPulledWithProgress(t *testing.T) {
	eng := newFakeEngine()
	missing := &llm.Error{Role: "agent", Model: "qwen3:4b", Host: "127.0.0.1:11434", Err: fmt.Errorf("%w: no such model", llm.ErrModelNotFound)}
	models := &fakeModels{host: "127.0.0.1:11434", err: missing}
	m := New(context.Background(), Options{Engine: eng, Models: models, RefreshEvery: -1, Theme: "dark"})
	h := &harness{t: t, m: m, eng: eng}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(ollamaMsg{err: missing})
	h.mustSee("does not have the model qwen3:4b", "P pulls it")
	cmd := h.key("P")
	if m.server.pull == nil {
		t.Fatal("P did not start a pull")
	}
	// Drive the pull: the runner sends progress and the end on the channel.
	models.err = nil
	go run(cmd)
	var last string
	for m.server.pull != nil {
		select {
		case msg := <-m.server.pull.ch:
			m.Update(msg)
			if m.server.pull != nil {
				last = h.screen()
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the pull never ended")
		}
	}
	if !strings.Contains(last, "Pulling qwen3:4b: pulling layer") || !strings.Contains(last, "%") {
		t.Errorf("no progress bar seen:\n%s", last)
	}
}

func TestEscEscCancelsTheModelCall(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	// Nothing in flight: esc says so and arms nothing.
	h.key("esc", "esc")
	h.mustSee("nothing to leave or cancel")
	if len(h.pending()) != 0 {
		t.Fatalf("esc esc with nothing in flight sent %#v", h.pending())
	}
	h.events(engine.TurnStarted{Turn: 1, Actor: engine.ActorAgent})
	// Esc leaving the input never arms the cancel.
	h.key("i", "esc", "esc")
	h.mustSee("esc again cancels")
	if len(h.pending()) != 0 {
		t.Fatalf("i, esc, esc sent %#v", h.pending())
	}
	h.m.Update(escDoneMsg{id: h.m.game.escID})
	h.key("esc")
	h.mustSee("esc again cancels")
	if len(h.pending()) != 0 {
		t.Fatal("one esc sent something")
	}
	h.key("esc")
	if got := h.pending(); !reflect.DeepEqual(got, []engine.Command{engine.CancelTurn{}}) {
		t.Fatalf("queued %#v", got)
	}
	// An esc that comes too late only arms again.
	h.flush()
	h.key("esc")
	h.m.Update(escDoneMsg{id: h.m.game.escID})
	h.key("esc")
	if len(h.pending()) != 0 {
		t.Fatalf("a late esc cancelled: %#v", h.pending())
	}
}

func TestQuitWaitsForTheEngine(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	cmd := h.key("q")
	if got := h.pending(); !reflect.DeepEqual(got, []engine.Command{engine.Quit{}}) {
		t.Fatalf("queued %#v", got)
	}
	if hasQuit(cmd) {
		t.Fatal("quit before the engine stopped")
	}
	h.mustSee("quitting")
	cmd = h.events(engine.Stopped{})
	if hasQuit(cmd) {
		t.Fatal("quit before the channel closed")
	}
	_, cmd = h.m.Update(eventsMsg{closed: true})
	if !hasQuit(cmd) {
		t.Fatal("no quit after the engine stopped")
	}
	// A stuck engine: the timeout quits anyway; a second ctrl+c at once.
	h2 := newHarness(t, 80, 24, "dark")
	h2.key("ctrl+c")
	if !hasQuit(h2.key("ctrl+c")) {
		t.Fatal("a second ctrl+c did not quit")
	}
	_, cmd = h2.m.Update(forceQuitMsg{})
	if !hasQuit(cmd) {
		t.Fatal("forceQuitMsg did not quit")
	}
}

func TestSearchAndScrollback(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(opening())
	for i := 1; i <= 200; i++ {
		text := fmt.Sprintf("Nothing happens (%d).", i)
		if i == 17 {
			text = "You find a brass LANTERN under the bench."
		}
		h.events(turn(i, engine.ActorAgent, fmt.Sprintf("wait %d", i), text, 3, "Muddy Lane"))
	}
	h.mustNotSee("brass LANTERN")
	h.key("/")
	h.typeText("lantern")
	h.key("enter")
	h.mustSee("brass LANTERN", `match "lantern"`, "T17 agent › wait 17")
	// The match is highlighted.
	if !strings.Contains(h.m.Render(), h.m.c.paint(stMatch, "LANTERN")) {
		t.Error("match not highlighted")
	}
	h.key("esc")
	h.mustNotSee(`match "lantern"`)
	// Scrollback: page up leaves the live view, End follows again.
	h.key("end")
	h.mustSee("T200 agent › wait 200")
	h.key("pgup")
	h.mustSee("End to follow")
	h.mustNotSee("T200 agent")
	// New turns do not move a scrolled view.
	before := paneText(h, pTranscript)
	h.events(turn(201, engine.ActorAgent, "wait 201", "Nothing.", 3, "Muddy Lane"))
	if after := paneText(h, pTranscript); before != after {
		t.Errorf("view moved while scrolled back")
	}
	h.key("G")
	h.mustSee("T201 agent › wait 201")
	h.key("g")
	h.mustSee("Episode 1 · the story begins")
	// The wheel scrolls the pane under the pointer.
	h.key("G")
	r := h.m.lay.panes[pTranscript]
	h.m.Update(tea.MouseWheelMsg{X: r.x + 2, Y: r.y + 2, Button: tea.MouseWheelUp})
	if h.m.panes.transcript.feed.offset != 3 {
		t.Errorf("wheel scrolled to %d", h.m.panes.transcript.feed.offset)
	}
}

// paneText is the text inside a pane's border.
func paneText(h *harness, p paneID) string {
	r := h.m.lay.panes[p]
	rows := strings.Split(h.screen(), "\n")
	var out []string
	for _, row := range rows[r.y+1 : r.y+r.h-1] {
		out = append(out, ansi.Cut(row, r.x+1, r.x+r.w-1))
	}
	return strings.Join(out, "\n")
}

func TestTranscriptMemoryStaysBounded(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	for i := 1; i <= 3*maxTranscript; i++ {
		h.m.panes.transcript.addTurn(liveTurn(turn(i, engine.ActorAgent, "wait", "Time passes.", 3, "Muddy Lane")), 1)
	}
	if n := h.m.panes.transcript.feed.len(); n > maxTranscript+maxTranscript/4 {
		t.Fatalf("transcript holds %d turns", n)
	}
	h.mustSee(fmt.Sprintf("T%d agent", 3*maxTranscript))
}

func TestMouseFocus(t *testing.T) {
	h := newHarness(t, 200, 60, "dark")
	r := h.m.lay.panes[pMap]
	h.m.Update(tea.MouseClickMsg{X: r.x + 3, Y: r.y + 1, Button: tea.MouseLeft})
	if h.m.focus != pMap {
		t.Fatalf("focus %v after a click on the map", h.m.focus)
	}
}

func TestObjectives(t *testing.T) {
	h := newHarness(t, 200, 60, "dark")
	h.key("o", "a")
	h.typeText("find the lighthouse key")
	h.key("enter")
	h.key("c")
	h.typeText("3")
	h.key("enter")
	want := []engine.Command{engine.ObjectiveEdit{Op: "add", Text: "find the lighthouse key"}, engine.ObjectiveEdit{Op: "complete", Text: "3"}}
	if got := h.pending(); !reflect.DeepEqual(got, want) {
		t.Fatalf("queued %#v", got)
	}
	h.m.Update(objectivesMsg{active: []string{"find the lighthouse key", "light the lamp"}, completed: []string{"leave the lane"}})
	h.mustSee("Current (2)", "• find the lighthouse key", "✓ leave the lane", "2 active · 1 done")
	h.flush()
	h.key("down", "d")
	if got := h.pending(); !reflect.DeepEqual(got, []engine.Command{engine.ObjectiveEdit{Op: "drop", Text: "light the lamp"}}) {
		t.Fatalf("queued %#v", got)
	}
	h.events(engine.ObjectivesChanged{Active: []string{"a", "b", "c", "d", "e"}, Completed: []string{"f", "g"}})
	h.mustSee("5 active · 2 done")
}

func TestHelpThemesAndBackground(t *testing.T) {
	eng := newFakeEngine()
	m := New(context.Background(), Options{Engine: eng, RefreshEvery: -1})
	h := &harness{t: t, m: m, eng: eng}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(tea.BackgroundColorMsg{Color: colorWhite{}})
	if m.c.theme.Name != "light" {
		t.Errorf("a light background gives theme %q", m.c.theme.Name)
	}
	h.key("?")
	h.mustSee("Keys", "pause/resume", "step one turn", "cancel the model call", "model per role", "of 92 · ↑/↓ pgup/pgdn scroll")
	h.key("/", "s", "u", "p", "e", "r", "enter")
	h.mustSee("Memory pane (m)", "supersede memory", "theme light")
	h.key("esc", "?")
	h.key("t")
	h.mustSee("theme: phosphor")
	if m.c.theme.Name != "phosphor" || m.c.styles.Background == nil {
		t.Errorf("t gave %q", m.c.theme.Name)
	}
	// Once chosen, the background no longer decides.
	m.Update(tea.BackgroundColorMsg{Color: colorWhite{}})
	if m.c.theme.Name != "phosphor" {
		t.Error("the background overrode the chosen theme")
	}
}

type colorWhite struct{}

func (colorWhite) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

func TestModelPicker(t *testing.T) {
	eng := newFakeEngine()
	models := &fakeModels{host: "127.0.0.1:11434", models: []llm.ModelSummary{{Name: "qwen3:4b", Parameters: "4B"}, {Name: "lantern-tiny", Parameters: "1M"}}}
	m := New(context.Background(), Options{Engine: eng, Models: models, RefreshEvery: -1, Theme: "dark"})
	h := &harness{t: t, m: m, eng: eng}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	cmd := h.key("ctrl+l")
	for _, msg := range run(cmd) {
		m.Update(msg)
	}
	h.mustSee("Model per role", "The agent role uses qwen3:4b", "lantern-tiny")
	h.key("right", "down", "enter")
	if got := h.pending(); !reflect.DeepEqual(got, []engine.Command{engine.SetModel{Role: "critic", Model: "lantern-tiny"}}) {
		t.Fatalf("queued %#v", got)
	}
	h.mustSee("The critic role uses lantern-tiny")
	h.key("esc")
	h.mustSee("╭─ Transcript")
}

func TestEngineErrorsAndStop(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(engine.ErrorEvent{Turn: 2, Err: errors.New("critic: schema mismatch")})
	h.mustSee("critic: schema mismatch")
	h.events(engine.Stopped{Err: errors.New("story halted")})
	h.mustSee("The engine stopped: story halted", "stopped")
	if !hasQuit(h.key("q")) {
		t.Error("q after the engine stopped should quit at once")
	}
}

func TestSendKeepsTheOrderOfCommands(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	var cmds []tea.Cmd
	for _, k := range []string{"space", "space", "n", "space"} {
		cmds = append(cmds, h.key(k))
	}
	// Run the send commands in reverse: the engine still gets them in order.
	for i := len(cmds) - 1; i >= 0; i-- {
		run(cmds[i])
	}
	want := []engine.Command{engine.Unpause{}, engine.Pause{}, engine.Step{}, engine.Unpause{}}
	if got := h.eng.commands(); !reflect.DeepEqual(got, want) {
		t.Fatalf("engine got %#v, want %#v", got, want)
	}
}

func TestRefreshPicksUpHandEdits(t *testing.T) {
	src := &refreshingMemories{fakeMemories: fakeMemories{secs: sampleSections()}}
	m := New(context.Background(), Options{Engine: newFakeEngine(), Memories: src, RefreshEvery: time.Hour})
	if msgs := run(loadMemories(m.opts.Memories, true)); len(msgs) != 0 {
		t.Fatalf("an unchanged file gave %v", msgs)
	}
	src.changed = true
	msgs := run(loadMemories(m.opts.Memories, true))
	if len(msgs) != 1 || len(msgs[0].(memoriesMsg).secs) != 2 {
		t.Fatalf("a changed file gave %v", msgs)
	}
}

type refreshingMemories struct {
	fakeMemories
	changed bool
}

func (r *refreshingMemories) Refresh() (bool, error) { return r.changed, nil }

var _ MemorySource = (*memory.Store)(nil)

func TestPaintMatchesLipgloss(t *testing.T) {
	for _, name := range []string{"dark", "light", "phosphor"} {
		h := newHarness(t, 80, 24, name)
		c := h.m.c
		for id := styleID(0); id < numStyles; id++ {
			if id == stSuperseded {
				// lipgloss strikes through rune by rune; paint draws the
				// same in one run.
				if p := c.paint(id, "ab"); !strings.Contains(p, ";9m") && !strings.Contains(p, "[9m") {
					t.Errorf("%s: superseded text is not struck through: %q", name, p)
				}
				continue
			}
			for _, text := range []string{"x", "Muddy Lane", "a b  c", "é ✓ →"} {
				if got, want := c.paint(id, text), c.byID[id].Render(text); got != want {
					t.Errorf("%s style %d: paint(%q) = %q, Render = %q", name, id, text, got, want)
				}
			}
		}
	}
}

func TestThinkingShowsHowLong(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(engine.TurnStarted{Turn: 1, Actor: engine.ActorAgent})
	h.m.Update(thinkTickMsg{id: h.m.game.thinkID})
	h.m.Update(thinkTickMsg{id: h.m.game.thinkID})
	h.mustSee("Reasoning · thinking… 2s")
	h.m.Update(thinkTickMsg{id: h.m.game.thinkID - 1}) // a stale tick is ignored
	h.mustSee("thinking… 2s")
	h.events(turn(1, engine.ActorAgent, "north", "Orchard", 4, "Orchard"))
	h.mustNotSee("thinking…")
}

func TestEpisodeReplay(t *testing.T) {
	src := fakeEpisodes{turns: map[int64][]rundb.Turn{
		1: {
			{Episode: 1, Turn: 1, Actor: "agent", Action: "north", Response: "Orchard", LocationID: 4, Location: "Orchard", Moves: 1,
				Reasoning: "Explore north.", Verdicts: `[{"Action":"north","Score":0.5,"Justification":"new room","Accepted":true,"Stage":"model"}]`},
			{Episode: 1, Turn: 2, Actor: "human", Action: "climb tree", Response: "Up the Apple Tree", LocationID: 5, Location: "Up the Apple Tree", Moves: 2, Score: 5},
		},
		2: {{Episode: 2, Turn: 1, Actor: "agent", Action: "south", Response: "Old Well", LocationID: 6, Location: "Old Well", Moves: 1}},
	}, reviews: map[int64][]rundb.Review{
		1: {{Turn: 1, Proposal: "east", Decision: "reject", Reason: "the door is boarded", Remembered: true}, {Turn: 1, Proposal: "north", Decision: "accept"}},
	}}
	eng := newFakeEngine()
	m := New(context.Background(), Options{Engine: eng, Episodes: src, RefreshEvery: -1, Theme: "dark", MaxScore: 100})
	h := &harness{t: t, m: m, eng: eng}
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	h.events(opening(), turn(1, engine.ActorAgent, "look", "Muddy Lane", 3, "Muddy Lane"))
	for _, msg := range run(h.key("E")) {
		m.Update(msg)
	}
	h.mustSee("Episodes", "2/main  #2", "1/main  #1")
	h.key("down")
	for _, msg := range run(h.key("enter")) {
		m.Update(msg)
	}
	h.mustSee("Transcript · replay of 1/main", "Replay of 1/main (2 turns)", "Ep 1/main │", "T1 agent › north", "Explore north.", "✓ accepted by the critic (model, +0.5): new room", "replay 1/2", "L4 Orchard",
		"←/→ step • home/end first/last • T rewind here • esc live game")
	h.mustNotSee("T1 agent › look")
	h.mustSee("You reviewed 2 proposals: 1 accepted (50%), 0 edited, 1 rejected. Reasons:",
		`✗ rejected by you: "east": the door is boarded`, `✓ accepted by you: "north"`)
	h.key("right")
	h.mustSee("T2 human › climb tree", "replay 2/2", "Score 5/100", "L5 Up the Apple Tree")
	h.key("left")
	h.mustNotSee("climb tree")
	// Live events keep going to the live panes meanwhile.
	h.events(turn(2, engine.ActorAgent, "wait", "Time passes.", 3, "Muddy Lane"))
	h.mustNotSee("T2 agent › wait")
	h.key("space")
	h.mustSee("a replay is read-only")
	if len(h.pending()) != 0 {
		t.Fatalf("a replay sent %#v", h.pending())
	}
	h.key("esc")
	h.mustSee("T2 agent › wait", "Turn: 2")
}

func TestSupervisorGaugesAndFeedback(t *testing.T) {
	h := newHarness(t, 200, 60, "dark")
	h.events(engine.TurnStarted{Turn: 3, Actor: engine.ActorAgent},
		engine.SupervisorChanged{Turn: 3, Round: 1, Trust: 0.3, Work: -0.2, Comfort: 0.5, Mood: "wary", Feedback: "You keep trying the door.", Contradicted: []string{"the door is open"}})
	h.mustSee("trust +0.3 work -0.2 comfort +0.5", "supervisor (round 1, wary): You keep trying", "the door is open")
}

// A resumed session says so, in the right episode, and shows where the
// story stands.
func TestResumedTurnIsAnnounced(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	res := scored(turn(67, engine.ActorAgent, "", "Dome Room\nYou are at the periphery of a large dome.", 11, "Dome Room"), 63)
	h.events(engine.EpisodeStarted{Episode: 3, Resumed: true, Turn: 67, Observation: res.Observation}, engine.Idle{Turn: 67, Mode: engine.Paused})
	h.mustSee("Resumed 3/main after turn 67", "periphery of a large dome", "Turn: 67", "Ep 3/main │", "L11 Dome Room")
}

// X twice ends the episode; X then another key does not.
func TestEndEpisodeNeedsTwoPresses(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(opening(), engine.Idle{Mode: engine.Paused})
	h.key("X")
	h.mustSee("press X again to end episode 1")
	h.key("j")
	h.key("X")
	if got := h.pending(); len(got) != 0 {
		t.Fatalf("queued %#v after X, j, X", got)
	}
	h.key("X")
	if got, want := h.pending(), []engine.Command{engine.EndEpisode{}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("queued %#v, want %#v", got, want)
	}
	h.mustSee("ending episode 1")
}

// A model server on another machine is announced in the transcript; a
// local one is not.
func TestRemoteOllamaIsAnnounced(t *testing.T) {
	for _, host := range []string{"gpu-box:11434", "127.0.0.1:11434"} {
		eng := newFakeEngine()
		m := New(context.Background(), Options{Engine: eng, Models: &fakeModels{host: host}, RefreshEvery: -1, Theme: "dark"})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
		h := &harness{t: t, m: m, eng: eng}
		h.events(opening(), engine.Idle{Mode: engine.Paused})
		if remote := host == "gpu-box:11434"; remote {
			h.mustSee("The Ollama server gpu-box:11434 is not on this machine")
		} else {
			h.mustNotSee("is not on this machine")
		}
	}
}
