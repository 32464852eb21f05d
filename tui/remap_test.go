package tui

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory/rundb"
)

// remappedHarness loads a lantern.toml with [keys] the way the app does
// (config.Load, then Options.Keys = cfg.Keys, as internal/cli/tui.go
// passes them) and opens a TUI with it.
func remappedHarness(t *testing.T, keys string) *harness {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lantern.toml")
	if err := os.WriteFile(path, []byte("[keys]\n"+keys), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{ProjectFile: path, ProjectRequired: true})
	if err != nil {
		t.Fatal(err)
	}
	eng := newFakeEngine()
	mem := &fakeMemories{secs: sampleSections()}
	m := New(context.Background(), Options{Engine: eng, Memories: mem, Story: "demo", Theme: "dark", RefreshEvery: -1, Keys: cfg.Keys})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	h := &harness{t: t, m: m, eng: eng, mem: mem}
	h.events(opening(), engine.Idle{Mode: engine.Paused})
	h.m.Update(memoriesMsg{secs: sampleSections()})
	return h
}

// helpSays reports whether the help, searched for desc, lists it under
// the key named keyName.
func (h *harness) helpSays(keyName, desc string) bool {
	h.t.Helper()
	h.key("?")
	h.key("/")
	h.typeText(desc)
	h.key("enter")
	defer h.key("esc", "esc")
	for _, row := range strings.Split(h.screen(), "\n") {
		if f := strings.Fields(strings.Trim(row, " │")); len(f) > 1 && f[0] == keyName && strings.Contains(row, desc) {
			return true
		}
	}
	return false
}

// A key remapped in lantern.toml is remapped everywhere: the help lists
// it, the footer offers it, pressing it acts, and the old key no longer
// does.
func TestKeyRemappedInConfigIsRemappedEverywhere(t *testing.T) {
	h := remappedHarness(t, "step = \".\"\nedit = \"w\"\n")
	// The game's key: step.
	if !h.helpSays(".", "step one turn") || h.helpSays("n", "step one turn") {
		t.Errorf("the help does not list . (and only .) for step:\n%s", h.screen())
	}
	if row := h.lastRow(); !strings.Contains(row, ". step") || strings.Contains(row, "n step") {
		t.Errorf("footer %q does not offer . step", row)
	}
	h.key("n")
	if got := h.pending(); len(got) != 0 {
		t.Fatalf("the old key n still steps: %#v", got)
	}
	h.mustSee("n does nothing here")
	h.key(".")
	if got, want := h.pending(), []engine.Command{engine.Step{}}; !reflect.DeepEqual(got, want) {
		t.Fatalf(". queued %#v, want %#v", got, want)
	}

	// A pane's key: edit, in the Memory pane.
	h.key("m")
	h.m.Update(flashDoneMsg{id: h.m.foot.id})
	if row := h.lastRow(); !strings.Contains(row, "w edit") || strings.Contains(row, "e edit") {
		t.Errorf("Memory pane footer %q does not offer w edit", row)
	}
	if !h.helpSays("w", "edit memory") || h.helpSays("e", "edit memory") {
		t.Errorf("the help does not list w for edit memory:\n%s", h.screen())
	}
	h.key("e")
	if h.m.dialogs.top() != nil {
		t.Fatalf("the old key e opened %T", h.m.dialogs.top())
	}
	h.key("w")
	if _, ok := topIs[*memForm](&h.m.dialogs); !ok {
		t.Fatalf("w opened %T, want the memory form", h.m.dialogs.top())
	}
	h.mustSee("Edit memory at L3 Muddy Lane")
}

// Keys remapped in lantern.toml's [keys] take the place of the defaults,
// in the keys' effect and in the help footer.
func TestRemappedKeys(t *testing.T) {
	eng := newFakeEngine()
	m := New(context.Background(), Options{Engine: eng, Memories: &fakeMemories{}, Story: "demo", Theme: "dark", RefreshEvery: -1,
		Keys: map[string]string{"pause": "p", "step": "x", "quit": "ctrl+q"}})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	h := &harness{t: t, m: m, eng: eng}
	h.events(opening(), engine.Idle{Mode: engine.Paused})
	h.mustSee("p run/pause", "x step", "ctrl+q quit")
	h.key("space")
	h.key("n")
	if got := h.pending(); len(got) != 0 {
		t.Fatalf("the old keys still act: %#v", got)
	}
	h.key("p")
	h.key("x")
	if got, want := h.pending(), []engine.Command{engine.Unpause{}, engine.Step{}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("queued %#v, want %#v", got, want)
	}
}

// A key remapped in lantern.toml is remapped in the dialogs too: in the
// Notes view the new down key moves the selection and the old one does
// not (the arrow still does), the new delete key deletes and its row of
// keys says so, and the help names the new keys.
func TestKeyRemappedInConfigReachesTheDialogs(t *testing.T) {
	h := remappedHarness(t, "down = \"x\"\ndelete = \"z\"\n")
	db := sampleNotes(t)
	h.m.opts.Notes = db
	h.doRendering("N")
	v, ok := topIs[*notesView](&h.m.dialogs)
	if !ok {
		t.Fatalf("N opened %T, want the notes", h.m.dialogs.top())
	}
	h.mustSee("z z delete")
	h.mustNotSee("d d delete")
	h.do("j")
	if v.sel != 0 {
		t.Fatalf("the old key j still moves the notes' selection (to %d)", v.sel)
	}
	h.do("x")
	if v.sel != 1 {
		t.Fatalf("the new key x did not move the notes' selection (at %d)", v.sel)
	}
	h.do("down")
	if v.sel != 2 {
		t.Fatalf("↓ no longer moves the notes' selection (at %d)", v.sel)
	}
	h.do("d", "d")
	if ns, _ := db.Notes(context.Background()); len(ns) != 3 {
		t.Fatalf("the old key d d deleted a note: %d left", len(ns))
	}
	h.do("z")
	h.mustSee("z again deletes the note")
	h.do("z")
	if ns, _ := db.Notes(context.Background()); len(ns) != 2 {
		t.Fatalf("z z did not delete the note: %d left", len(ns))
	}
	h.do("esc")

	// The timeline takes the same keys.
	tl := &timeline{c: h.m.c, h: h.m, turns: make([]rundb.Turn, 4), loaded: true}
	h.m.open(tl)
	h.do("x", "x", "j")
	if tl.sel != 2 {
		t.Fatalf("x x j moved the timeline's selection to %d, want 2", tl.sel)
	}
	h.do("esc")

	if !h.helpSays("↓/x", "down") || h.helpSays("↓/j", "down") {
		t.Errorf("the help does not list ↓/x (and only it) for down:\n%s", h.screen())
	}
}
