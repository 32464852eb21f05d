package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/zmachine"
)

// driver runs a model as Bubble Tea would: every command in its own
// goroutine, every message through Update, one at a time.
type driver struct {
	t    *testing.T
	h    *harness
	msgs chan tea.Msg
	done chan struct{}
	quit bool
	once sync.Once
}

func newDriver(t *testing.T, h *harness) *driver {
	d := &driver{t: t, h: h, msgs: make(chan tea.Msg, 256), done: make(chan struct{})}
	t.Cleanup(func() { d.once.Do(func() { close(d.done) }) })
	return d
}

func (d *driver) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				d.exec(c)
			}
			return
		}
		if msg == nil {
			return
		}
		select {
		case d.msgs <- msg:
		case <-d.done:
		}
	}()
}

func (d *driver) update(msg tea.Msg) {
	if _, ok := msg.(tea.QuitMsg); ok {
		d.quit = true
		return
	}
	_, cmd := d.h.m.Update(msg)
	d.exec(cmd)
}

func (d *driver) key(names ...string) {
	for _, n := range names {
		d.update(keyMsg(n))
	}
}

func (d *driver) typeText(s string) {
	for _, r := range s {
		d.update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// until handles messages until cond holds.
func (d *driver) until(what string, cond func() bool) {
	d.t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case msg := <-d.msgs:
			d.update(msg)
		case <-deadline:
			d.t.Fatalf("timed out waiting for %s; screen:\n%s", what, d.h.screen())
		}
	}
}

func (d *driver) see(parts ...string) {
	d.t.Helper()
	d.until(strings.Join(parts, " + "), func() bool {
		s := d.h.screen()
		for _, p := range parts {
			if !strings.Contains(s, p) {
				return false
			}
		}
		return true
	})
}

// TestEndToEndWithTheEngine drives the TUI over a real session on the demo
// with a scripted model: step a turn, type a command, add, edit and
// supersede memories (through the engine, into Memories.md), quit.
func TestEndToEndWithTheEngine(t *testing.T) {
	d, sess, stopped := startEndToEnd(t)
	d.see("Transcript", "Reasoning", "Memory", "Objectives", "Map", "Turn: 0", "paused", "L3 Muddy Lane", "lantern-fake")

	// One agent turn.
	d.key("n")
	d.see("Turn: 1", "T1 agent › north", "L4 Orchard", "⇒ played: north", "paused")
	// Its memory landed at the source location, the lane.
	d.key("m", "b")
	d.see("All locations", "L3    Muddy Lane")

	// A command typed by hand.
	d.key("esc", "i")
	d.typeText("inventory")
	d.key("enter", "esc")
	d.see("T2 human › inventory", "Turn: 2", "manual")

	endToEndMemoryEdits(t, d)
	file := endToEndMemoriesFile(t, sess)

	// A hand edit in an editor shows in the pane at the next refresh.
	edited := strings.Replace(file, "**[DISCOVERY] Lunch is edible**", "**[DISCOVERY] Lunch is tasty**", 1)
	if err := os.WriteFile(filepath.Join(sess.Dir, "Memories.md"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	d.update(memTickMsg{})
	d.see("[DISCOVERY] Lunch is tasty")

	// Replay the episode so far from lantern.db, read-only.
	d.key("E")
	d.see("Episodes", "1/main  #1")
	d.key("enter")
	d.see("Replay of 1/main", "T1 agent › north", "replay 1/2")
	d.key("right")
	d.see("T2 human › inventory", "replay 2/2")
	d.key("space")
	d.see("a replay is read-only")
	d.key("esc")
	d.see("back to the live game", "Turn: 2")

	// Quit: the engine stops, then the TUI.
	d.key("q")
	d.until("quit", func() bool { return d.quit })
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("engine: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the engine did not stop")
	}
}

// startEndToEnd opens a session of the demo story on a fake model server,
// runs its engine and starts a TUI on it, 160×50.
func startEndToEnd(t *testing.T) (*driver, *session.Session, chan error) {
	t.Helper()
	story, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		t.Fatal(err)
	}
	fake := llmtest.New(t)
	scriptDemo(fake, 1, 0)
	roles := config.DefaultRoles()
	for k, r := range roles {
		r.Model, r.Timeout = fakeModel, 10*time.Second
		roles[k] = r
	}
	client, err := llm.New(llm.Options{Host: fake.Host(), Roles: roles})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := session.Open(session.Options{Story: story, Name: demo.FileName, WorkDir: t.TempDir(), Client: client,
		Engine: engine.Config{StartPaused: true, CriticThreshold: -0.2}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	stopped := make(chan error, 1)
	go func() { stopped <- sess.Engine.Run(ctx) }()

	m := New(ctx, Options{Engine: sess.Engine, Models: client, Memories: sess.Memories, Episodes: sess.DB, Story: "demo", MaxScore: 100, Theme: "dark", RefreshEvery: time.Hour})
	d := newDriver(t, &harness{t: t, m: m})
	d.update(tea.WindowSizeMsg{Width: 160, Height: 50})
	d.exec(m.Init())
	return d, sess, stopped
}

// endToEndMemoryEdits edits the agent's memory at the lane, then adds a
// memory at the orchard and supersedes it.
func endToEndMemoryEdits(t *testing.T, d *driver) {
	t.Helper()
	h := d.h
	d.key("m", "b")
	d.see("All locations")
	d.key("g")
	for i := 0; h.m.panes.memory.secs[h.m.panes.memory.bsel].ID != 3; i++ {
		if i > len(h.m.panes.memory.secs) {
			t.Fatalf("no L3 in the browser:\n%s", h.screen())
		}
		d.key("down")
	}
	d.key("enter")
	d.see("[SUCCESS] Orchard lies north")
	d.key("e", "ctrl+u")
	d.typeText("The orchard is north of the lane")
	d.key("ctrl+s")
	d.see("[SUCCESS] The orchard is north of the lane")

	// Add a memory here, then supersede it.
	d.key("esc")
	d.see("L4 Orchard")
	d.key("a")
	d.typeText("Lunch in the grass")
	d.key("tab")
	d.typeText("A packed lunch lies in the grass.")
	d.key("tab", "left", "left") // NOTE → DANGER → DISCOVERY
	d.key("ctrl+s")
	d.see("[DISCOVERY] Lunch in the grass")
	d.key("s", "ctrl+u")
	d.typeText("Lunch is edible")
	d.key("ctrl+s")
	d.see("[DISCOVERY] Lunch is edible", "superseded at T2 by human")
}

// endToEndMemoriesFile is Memories.md after the edits, checked.
func endToEndMemoriesFile(t *testing.T, sess *session.Session) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sess.Dir, "Memories.md"))
	if err != nil {
		t.Fatal(err)
	}
	file := string(data)
	for _, want := range []string{"The orchard is north of the lane", "**[DISCOVERY - SUPERSEDED] Lunch in the grass**", `by human: "Lunch is edible"`, "**[DISCOVERY] Lunch is edible**"} {
		if !strings.Contains(file, want) {
			t.Errorf("Memories.md lacks %q:\n%s", want, file)
		}
	}
	return file
}
