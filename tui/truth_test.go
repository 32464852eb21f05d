package tui

import (
	"context"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
)

// What the screen says is true at 80 columns: the outside-edit question,
// the model picker and the undo hint show whole; b in the Memory pane does
// not claim to do nothing.
func TestDialogsShowEveryAnswerAt80Columns(t *testing.T) {
	h := newHarness(t, 80, 24, "dark")
	h.events(opening())
	h.mem.secs = sampleSections()
	h.m.Update(memoriesMsg{secs: sampleSections()})
	h.key("m", "b")
	h.mustNotSee("does nothing")
	h.key("b", "down", "e")
	h.mem.mu.Lock()
	secs := sampleSections()
	secs[0].Memories[1].Text = "Changed in an editor."
	h.mem.secs = secs
	h.mem.mu.Unlock()
	h.do("ctrl+s")
	h.mustSee("r reload theirs", "o overwrite with yours", "m merge", "esc cancel")
	h.key("esc")

	h.do("u")
	h.mustSee("u again undoes the last hand deletion")

	models := &fakeModels{host: "127.0.0.1:11434", models: []llm.ModelSummary{{Name: "qwen3:latest"}, {Name: "llama3"}}}
	eng := newFakeEngine()
	m := New(context.Background(), Options{Engine: eng, Models: models, RefreshEvery: -1, Theme: "dark"})
	m.game.roleModels["agent"] = "qwen3" // Ollama reads a name without a tag as :latest
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	p := &harness{t: t, m: m, eng: eng}
	p.do("ctrl+l")
	p.mustSee("agent", "critic", "supervisor", "retriever", "enter use it")
	if d, ok := topIs[*modelPicker](&m.dialogs); !ok || d.sel != 0 {
		t.Fatalf("the picker does not start on the model in use: %T %+v", m.dialogs.top(), d)
	}
	m.picker().setModels(nil, unreachable("127.0.0.1:9"))
	p.mustSee("r checks again")
}

func (m *Model) picker() *modelPicker {
	p, _ := topIs[*modelPicker](&m.dialogs)
	return p
}

// A search says how many turns match and which one is shown, and that it
// searches the transcript.
func TestSearchCountsMatches(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	scene(h)
	h.key("/")
	h.mustSee("search the transcript")
	h.typeText("lane")
	h.key("enter")
	h.mustSee(`match "lane" · 2 of 2`)
	h.key("enter")
	h.mustSee(`match "lane" · 1 of 2`)
	h.key("ctrl+u")
	h.typeText("zzz")
	h.key("enter")
	h.mustSee(`no match for "zzz"`)
}

// A long paste asks before it plays one turn per line; a short one plays.
func TestLongPasteAsksFirst(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.key("i")
	h.m.Update(tea.PasteMsg{Content: strings.Repeat("wait\n", 150)})
	if len(h.pending()) != 0 {
		t.Fatalf("a 150-line paste played at once: %d commands", len(h.pending()))
	}
	h.mustSee("Play the 150 pasted lines as 150 turns?")
	h.key("n")
	if len(h.pending()) != 0 {
		t.Fatal("n played the paste")
	}
	h.mustSee("was not played")
	h.m.Update(tea.PasteMsg{Content: strings.Repeat("wait\n", 150)})
	h.key("y")
	if n := len(h.pending()); n != 150 {
		t.Fatalf("y played %d commands, want 150", n)
	}
	h.flush()
	h.m.Update(tea.PasteMsg{Content: "north\nsouth\n"})
	if got := h.pending(); !reflect.DeepEqual(got, []engine.Command{engine.Override{Text: "north"}, engine.Override{Text: "south"}}) {
		t.Fatalf("a 2-line paste queued %#v", got)
	}
	if !h.m.dialogs.typing() {
		t.Fatal("the command line closed")
	}
}

// d in the Objectives pane can be undone.
func TestObjectiveDropUndo(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.m.Update(objectivesMsg{active: []string{"Find the lamp"}})
	h.key("o", "d")
	h.mustSee(`dropped "Find the lamp" · u brings it back`)
	h.key("u")
	want := []engine.Command{engine.ObjectiveEdit{Op: engine.ObjectiveDrop, Text: "Find the lamp"}, engine.ObjectiveEdit{Op: engine.ObjectiveAdd, Text: "Find the lamp"}}
	if got := h.pending(); !reflect.DeepEqual(got, want) {
		t.Fatalf("d u queued %#v", got)
	}
	h.key("u")
	h.mustSee("nothing dropped here")
}

// The no-Ollama notice gives its rows back on esc (r brings it back while
// the server is still away); the supervisor's gauges are explained once.
func TestNoticeHidesAndGaugesExplained(t *testing.T) {
	h := newHarness(t, 80, 24, "dark")
	h.m.opts.Models = &fakeModels{host: "127.0.0.1:9"}
	h.m.server.models = h.m.opts.Models
	scene(h)
	h.m.Update(ollamaMsg{err: unreachable("127.0.0.1:9")})
	h.events(engine.Idle{Mode: engine.Paused})
	h.mustSee("Ollama is not reachable")
	h.key("esc")
	h.mustNotSee("Ollama is not reachable")
	h.mustSee("notice hidden")
	h.m.Update(ollamaMsg{err: unreachable("127.0.0.1:9")})
	h.mustSee("Ollama is not reachable")

	r := newHarness(t, 80, 24, "dark")
	r.events(engine.SupervisorChanged{Turn: 1, Round: 1, Trust: 0.2, Feedback: "Explore."},
		engine.SupervisorChanged{Turn: 2, Round: 2, Trust: 0.1, Feedback: "Go on."})
	r.key("2")
	if n := strings.Count(r.screen(), "supervisor's gauges"); n != 1 {
		t.Fatalf("the gauges are explained %d times:\n%s", n, r.screen())
	}
}

// The live Reasoning pane shows what a replay shows: the person's
// decisions, proposals numbered across a retry after a rejection, and the
// critic's account of a move played after rejections, whole at any width;
// a thinking model's reasoning, which repeats its thinking, shows once.
func TestReasoningShowsThePersonsDecisionsLive(t *testing.T) {
	for _, w := range []int{80, 120} {
		h := newHarness(t, w, 40, "dark")
		h.events(opening(), engine.TurnStarted{Turn: 1, Actor: engine.ActorAgent},
			engine.ProposalMade{Turn: 1, Attempt: 1, Action: "east", Reasoning: "The cottage is east and worth a look.", Thinking: "The cottage is east\nand worth a look."},
			engine.ReviewRequested{Turn: 1, Attempt: 1, Action: "east"})
		h.key("x")
		h.typeText("boarded")
		h.key("enter")
		h.events(engine.ProposalMade{Turn: 1, Attempt: 1, Action: "north", Reasoning: "The orchard."},
			engine.ReviewRequested{Turn: 1, Attempt: 1, Action: "north"})
		h.key("enter")
		played := turn(1, engine.ActorAgent, "tie rope to railing", "Done.", 3, "Muddy Lane")
		played.Verdicts = []engine.Verdict{{Action: "a", Stage: engine.StageGroundTruth}, {Action: "b", Stage: engine.StageModel}, {Action: "tie rope to railing", Accepted: true}}
		h.events(played)
		var b strings.Builder
		for _, e := range h.m.panes.reasoning.feed.entries {
			for _, l := range e.it.layout(h.m.panes.reasoning.feed.w) {
				if l.width > h.m.panes.reasoning.feed.w {
					t.Errorf("%d columns: a line is cut: %q", w, l.plain())
				}
				b.WriteString(l.plain() + "\n")
			}
		}
		s := b.String()
		for _, want := range []string{`✗ rejected by you: "east": boarded`, "→ proposal 2: north", `✓ accepted by you: "north"`, "overridden)"} {
			if !strings.Contains(s, want) {
				t.Fatalf("%d columns: the Reasoning pane lacks %q:\n%s", w, want, s)
			}
		}
		if n := strings.Count(s, "worth a look"); n != 1 {
			t.Errorf("%d columns: the thinking shows %d times", w, n)
		}
	}
}
