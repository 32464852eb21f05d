package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/memory/rundb"
)

// fakeEngine records the commands it is sent; tests push events by calling
// Update with eventsMsg directly.
type fakeEngine struct {
	ch   chan engine.Event
	mu   sync.Mutex
	sent []engine.Command
}

func newFakeEngine() *fakeEngine { return &fakeEngine{ch: make(chan engine.Event, 16)} }

func (f *fakeEngine) Events() <-chan engine.Event { return f.ch }

func (f *fakeEngine) Send(_ context.Context, c engine.Command) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, c)
	return nil
}

func (f *fakeEngine) commands() []engine.Command {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]engine.Command(nil), f.sent...)
}

// fakeMemories is a memory store's read side.
type fakeMemories struct {
	mu          sync.Mutex
	secs        []memory.Section
	undoPending int
}

func (f *fakeMemories) Sections() []memory.Section {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]memory.Section(nil), f.secs...)
}

func (f *fakeMemories) Refresh() (bool, error) { return false, nil }

func (f *fakeMemories) Stats() memory.Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return memory.Stats{UndoPending: f.undoPending}
}

// fakeModels is a model server.
type fakeModels struct {
	host    string
	api     string // "": Ollama's
	err     error  // Version and CheckRole fail with it
	models  []llm.ModelSummary
	pullErr error
}

func (f *fakeModels) Host() string { return f.host }

func (f *fakeModels) API() string { return f.api }

func (f *fakeModels) Loopback() bool { return !strings.HasPrefix(f.host, "gpu-box") }

func (f *fakeModels) Version(context.Context) (string, error) {
	if errorsIsUnreachable(f.err) {
		return "", f.err
	}
	return "0.17.4", nil
}

func (f *fakeModels) CheckRole(context.Context, string, ...string) error { return f.err }

func (f *fakeModels) Models(context.Context) ([]llm.ModelSummary, error) { return f.models, nil }

func (f *fakeModels) Pull(_ context.Context, _ string, progress func(llm.PullProgress)) error {
	for i := int64(1); i <= 4; i++ {
		progress(llm.PullProgress{Status: "pulling layer", Completed: 100 * i, Total: 400})
	}
	return f.pullErr
}

func (f *fakeModels) Role(name string) (config.Role, bool) {
	r, ok := config.DefaultRoles()[name]
	r.Model = "qwen3:4b"
	return r, ok
}

func errorsIsUnreachable(err error) bool {
	return err != nil && strings.Contains(err.Error(), llm.ErrUnreachable.Error())
}

func unreachable(host string) error {
	return &llm.Error{Role: "agent", Model: "qwen3:4b", Host: host, Attempts: 1, Err: fmt.Errorf("%w: dial tcp %s: connection refused", llm.ErrUnreachable, host)}
}

type harness struct {
	t   *testing.T
	m   *Model
	eng *fakeEngine
	mem *fakeMemories
}

// newHarness makes a model w×h in a theme, with a fake engine and store.
func newHarness(t *testing.T, w, h int, theme string) *harness {
	t.Helper()
	eng := newFakeEngine()
	mem := &fakeMemories{}
	m := New(context.Background(), Options{Engine: eng, Memories: mem, Story: "demo", MaxScore: 100, Theme: theme, RefreshEvery: -1})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return &harness{t: t, m: m, eng: eng, mem: mem}
}

// events gives the model engine events.
func (h *harness) events(evs ...engine.Event) tea.Cmd {
	_, cmd := h.m.Update(eventsMsg{evs: evs})
	return cmd
}

// key presses keys by name ("space", "enter", "ctrl+s", "M", "a").
func (h *harness) key(names ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, n := range names {
		_, cmd = h.m.Update(keyMsg(n))
	}
	return cmd
}

// typeText types text into whatever has the keyboard.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyMsg(n string) tea.KeyPressMsg {
	special := map[string]rune{
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "space": tea.KeySpace,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd,
		"backspace": tea.KeyBackspace,
	}
	var mod tea.KeyMod
	name := n
	if rest, ok := strings.CutPrefix(n, "ctrl+"); ok {
		mod, name = tea.ModCtrl, rest
	}
	if rest, ok := strings.CutPrefix(n, "shift+"); ok {
		mod, name = tea.ModShift, rest
	}
	if r, ok := special[name]; ok {
		k := tea.KeyPressMsg{Code: r, Mod: mod}
		if r == tea.KeySpace && mod == 0 {
			k.Text = " "
		}
		return k
	}
	r := []rune(name)[0]
	if mod != 0 {
		return tea.KeyPressMsg{Code: r, Mod: mod}
	}
	return tea.KeyPressMsg{Code: r, Text: name}
}

// screen is the rendered screen without colours.
func (h *harness) screen() string { return ansi.Strip(h.m.Render()) }

func (h *harness) mustSee(parts ...string) {
	h.t.Helper()
	s := h.screen()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			h.t.Fatalf("screen lacks %q:\n%s", p, s)
		}
	}
}

func (h *harness) mustNotSee(parts ...string) {
	h.t.Helper()
	s := h.screen()
	for _, p := range parts {
		if strings.Contains(s, p) {
			h.t.Fatalf("screen shows %q:\n%s", p, s)
		}
	}
}

// pending is what the model queued for the engine.
// pending are the commands queued for the engine, leaving out the
// questions the command line asks by itself (SuggestActions).
func (h *harness) pending() []engine.Command {
	var out []engine.Command
	for _, c := range h.m.out.pending() {
		if _, ask := c.(engine.SuggestActions); !ask {
			out = append(out, c)
		}
	}
	return out
}

// flush sends the queued commands to the fake engine.
func (h *harness) flush() {
	h.m.out.flush(context.Background(), h.eng)()
}

// run executes a command and what it returns, recursively, collecting the
// messages; commands that do not finish within a moment (ticks, the event
// reader) are left behind.
func run(cmd tea.Cmd) []tea.Msg { return runWithin(cmd, 200*time.Millisecond) }

// runWithin is run with a longer wait, for a command known to end that
// does real work (a Markdown rendering under -race on a loaded machine).
func runWithin(cmd tea.Cmd, wait time.Duration) []tea.Msg {
	if cmd == nil {
		return nil
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-ch:
	case <-time.After(wait):
		return nil
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, runWithin(c, wait)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

func hasQuit(cmd tea.Cmd) bool {
	for _, m := range run(cmd) {
		if _, ok := m.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

// turn is a played turn for tests (score 0: scored sets one).
func turn(n int, actor engine.Actor, action, text string, loc int, name string) engine.TurnResult {
	return engine.TurnResult{Turn: n, Actor: actor, Action: action, Observation: env.Observation{
		Text: text, Location: env.Location{ID: loc, Name: name}, Moves: n,
	}}
}

// scored is a turn with a score.
func scored(ev engine.TurnResult, score int) engine.TurnResult {
	ev.Observation.Score = score
	return ev
}

// sampleSections is a Memories.md's worth of sections.
func sampleSections() []memory.Section {
	return []memory.Section{
		{ID: 3, Name: "Muddy Lane", Visits: 3, Episodes: []int{1}, Memories: []memory.Memory{
			{Category: memory.CategorySuccess, Status: memory.StatusActive, Title: "Orchard lies north", Episode: 1, Turn: 1, Text: "Going north from the lane reaches the orchard."},
			{Category: memory.CategoryFailure, Status: memory.StatusActive, Title: "Cottage door is boarded", Episode: 1, Turn: 4, Text: "The front door will not open; it is boarded shut."},
			{Category: memory.CategoryDiscovery, Status: memory.StatusTentative, Title: "Well may hide something", Episode: 1, Turn: 6, Text: "The old well to the south looks worth a closer look."},
			{Category: memory.CategoryNote, Status: memory.StatusSuperseded, Title: "Door needs a key", Episode: 1, Turn: 2, Text: "Perhaps a key opens the door.",
				Superseded: memory.Supersession{Turn: 4, By: "Cottage door is boarded", Human: true}},
		}},
		{ID: 4, Name: "Orchard", Visits: 1, Episodes: []int{1}, Memories: []memory.Memory{
			{Category: memory.CategoryDanger, Status: memory.StatusActive, Title: "Falling from the tree", Episode: 1, Turn: 3, HasScore: true, Score: -5, Text: "Climbing too high in the biggest tree ends badly."},
		}},
	}
}

// fakeEpisodes is a run database's read side: episodes by ID; the last
// one is unfinished, the others ended in a death.
type fakeEpisodes struct {
	turns   map[int64][]rundb.Turn
	reviews map[int64][]rundb.Review
}

func (f fakeEpisodes) Reviews(_ context.Context, ep int64) ([]rundb.Review, error) {
	return f.reviews[ep], nil
}

func (f fakeEpisodes) EpisodeSummaries(context.Context) ([]rundb.EpisodeSummary, error) {
	var out []rundb.EpisodeSummary
	for id := int64(len(f.turns)); id > 0; id-- {
		ts := f.turns[id]
		e := rundb.EpisodeSummary{ID: id, Started: time.Date(2026, 11, 20+int(id), 9, 30, 0, 0, time.Local), Reason: "death", Turns: len(ts)}
		if id == int64(len(f.turns)) {
			e.Reason = ""
		}
		if len(ts) > 0 {
			e.Score, e.Moves = ts[len(ts)-1].Score, ts[len(ts)-1].Moves
		}
		out = append(out, e)
	}
	return out, nil
}

func (f fakeEpisodes) Turns(_ context.Context, ep int64) ([]rundb.Turn, error) {
	return f.turns[ep], nil
}
