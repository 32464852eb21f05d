package tui

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/memory/rundb"
)

// goid is the calling goroutine's ID (from its stack's header).
func goid() int64 {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.ParseInt(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return id
}

// ioGuard records every call of the TUI's outside world (stores, run
// database, model server, engine, user configuration) and which of them
// came from the goroutine that runs Update.
type ioGuard struct {
	update int64 // the goroutine that calls Update
	mu     sync.Mutex
	calls  map[string]int
	bad    []string
}

func (g *ioGuard) call(what string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls[what]++
	if goid() == g.update {
		g.bad = append(g.bad, what)
	}
}

type (
	guardedMemories struct {
		g *ioGuard
		fakeMemories
	}
	guardedObjectives struct{ g *ioGuard }
	guardedEpisodes   struct {
		g *ioGuard
		fakeEpisodes
	}
	guardedNotes struct {
		g     *ioGuard
		mu    sync.Mutex
		notes []rundb.Note
	}
	guardedModels struct {
		g *ioGuard
		fakeModels
	}
	guardedEngine struct {
		g *ioGuard
		*fakeEngine
	}
	guardedBranches struct {
		g *ioGuard
		*fakeBranches
	}
)

func (f guardedBranches) BranchTurns(ctx context.Context, id int64) ([]rundb.Turn, error) {
	f.g.call("Branches.BranchTurns")
	return f.fakeBranches.BranchTurns(ctx, id)
}

func (f guardedBranches) Branches(ctx context.Context, root int64) ([]BranchRow, error) {
	f.g.call("Branches.Branches")
	return f.fakeBranches.Branches(ctx, root)
}

func (f guardedBranches) Root(ctx context.Context, id int64) (int64, error) {
	f.g.call("Branches.Root")
	return f.fakeBranches.Root(ctx, id)
}

func (f *guardedMemories) Sections() []memory.Section {
	f.g.call("Memories.Sections")
	return f.fakeMemories.Sections()
}
func (f *guardedMemories) Refresh() (bool, error) { f.g.call("Memories.Refresh"); return true, nil }
func (f *guardedMemories) Stats() memory.Stats {
	f.g.call("Memories.Stats")
	return f.fakeMemories.Stats()
}

func (f guardedObjectives) Objectives() ([]string, []string) {
	f.g.call("Objectives.Objectives")
	return []string{"Find the lamp"}, []string{"Explore the lane"}
}

func (f guardedEpisodes) EpisodeSummaries(ctx context.Context) ([]rundb.EpisodeSummary, error) {
	f.g.call("Episodes.EpisodeSummaries")
	return f.fakeEpisodes.EpisodeSummaries(ctx)
}

func (f guardedEpisodes) Turns(ctx context.Context, ep int64) ([]rundb.Turn, error) {
	f.g.call("Episodes.Turns")
	return f.fakeEpisodes.Turns(ctx, ep)
}

func (f guardedEpisodes) Reviews(ctx context.Context, ep int64) ([]rundb.Review, error) {
	f.g.call("Episodes.Reviews")
	return f.fakeEpisodes.Reviews(ctx, ep)
}

func (f *guardedNotes) Notes(context.Context) ([]rundb.Note, error) {
	f.g.call("Notes.Notes")
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]rundb.Note(nil), f.notes...), nil
}

func (f *guardedNotes) EditNote(_ context.Context, id int64, content string, _ int) error {
	f.g.call("Notes.EditNote")
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.notes {
		if f.notes[i].ID == id {
			f.notes[i].Content = content
		}
	}
	return nil
}

func (f *guardedNotes) DeleteNote(_ context.Context, id int64) error {
	f.g.call("Notes.DeleteNote")
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.notes {
		if f.notes[i].ID == id {
			f.notes = append(f.notes[:i], f.notes[i+1:]...)
			break
		}
	}
	return nil
}

func (f *guardedModels) Version(ctx context.Context) (string, error) {
	f.g.call("Models.Version")
	return f.fakeModels.Version(ctx)
}

func (f *guardedModels) CheckRole(ctx context.Context, role string, needs ...string) error {
	f.g.call("Models.CheckRole")
	return f.fakeModels.CheckRole(ctx, role, needs...)
}

func (f *guardedModels) Models(ctx context.Context) ([]llm.ModelSummary, error) {
	f.g.call("Models.Models")
	return f.fakeModels.Models(ctx)
}

func (f *guardedModels) Pull(ctx context.Context, model string, progress func(llm.PullProgress)) error {
	f.g.call("Models.Pull")
	return f.fakeModels.Pull(ctx, model, progress)
}

func (f guardedEngine) Send(ctx context.Context, c engine.Command) error {
	f.g.call("Engine.Send")
	return f.fakeEngine.Send(ctx, c)
}

// ioDriver plays messages into the model on the test's goroutine and runs
// the commands Update returns on others, feeding their messages back, as
// Bubble Tea does.
type ioDriver struct {
	t *testing.T
	m *Model
}

func (d *ioDriver) feed(msg tea.Msg) {
	_, cmd := d.m.Update(msg)
	for _, out := range runQuick(cmd) {
		d.feed(out)
	}
}

func (d *ioDriver) keys(names ...string) {
	for _, n := range names {
		d.feed(keyMsg(n))
	}
}

func (d *ioDriver) text(s string) {
	for _, r := range s {
		d.feed(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// runQuick runs a command and the commands of its batches, all at once,
// and collects the messages that come within a moment; ticks and the event
// reader, which wait, are left behind.
func runQuick(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	ch := make(chan tea.Msg, 64)
	var wg sync.WaitGroup
	var start func(c tea.Cmd)
	start = func(c tea.Cmd) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := c()
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					if c != nil {
						start(c)
					}
				}
				return
			}
			if msg != nil {
				ch <- msg
			}
		}()
	}
	start(cmd)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var out []tea.Msg
	deadline := time.After(50 * time.Millisecond)
	for {
		select {
		case msg := <-ch:
			out = append(out, msg)
		case <-done:
			for {
				select {
				case msg := <-ch:
					out = append(out, msg)
				default:
					return out
				}
			}
		case <-deadline:
			return out
		}
	}
}

// TestNoIOInUpdate: no Update path touches the stores, the run database,
// the model server, the engine or the user's configuration itself: every
// key of every pane and dialog, and every event, is played into the model,
// and each outside call is checked to come from a command's goroutine,
// never from the one that runs Update. Every outside call is also checked
// to have been made, so the paths that read and write are covered.
func TestNoIOInUpdate(t *testing.T) {
	g, eng, d := guardedModel(t)
	playPanesAndDialogs(d)
	playTheGame(d)
	g.mu.Lock()
	defer g.mu.Unlock()
	checkNoIO(t, g)
	checkEditsSent(t, eng)
}

// guardedModel is a model whose every outside call the guard checks,
// opened, sized and given an episode's first events.
func guardedModel(t *testing.T) (*ioGuard, guardedEngine, *ioDriver) {
	t.Helper()
	g := &ioGuard{update: goid(), calls: map[string]int{}}
	mem := &guardedMemories{g: g}
	mem.secs = sampleSections()
	eps := guardedEpisodes{g: g, fakeEpisodes: sampleEpisodes()}
	eps.reviews = map[int64][]rundb.Review{1: {{Turn: 1, Proposal: "east", Decision: "reject", Reason: "boarded"}}}
	notes := &guardedNotes{g: g, notes: []rundb.Note{{ID: 1, Content: "The well rope is frayed.", Importance: 40}, {ID: 2, Content: "Apples.", Importance: 10}}}
	models := &guardedModels{g: g, fakeModels: fakeModels{host: "127.0.0.1:11434",
		models: []llm.ModelSummary{{Name: "qwen3:4b"}, {Name: "llama3"}}, err: &llm.Error{Model: "qwen3:4b", Err: llm.ErrModelNotFound}}}
	eng := guardedEngine{g: g, fakeEngine: newFakeEngine()}
	fb, _ := sampleBranches()
	m := New(context.Background(), Options{Engine: eng, Models: models, Memories: mem, Objectives: guardedObjectives{g: g},
		Episodes: eps, Branches: guardedBranches{g: g, fakeBranches: fb}, Notes: notes, Story: "demo", MaxScore: 100, Theme: "dark", RefreshEvery: -1,
		KnowledgePath: filepath.Join(t.TempDir(), "knowledgebase.md"),
		SavePrefs: func(string, map[string]string) error {
			g.call("SavePrefs")
			return nil
		}})
	d := &ioDriver{t: t, m: m}
	for _, msg := range runQuick(m.Init()) {
		d.feed(msg)
	}
	d.feed(tea.WindowSizeMsg{Width: 120, Height: 40})
	em := newEngineMap()
	d.feed(eventsMsg{evs: []engine.Event{opening(), em.opened(3, "Muddy Lane"), engine.Idle{Mode: engine.Paused},
		engine.MemoryChanged{Location: 3}, engine.ObjectivesChanged{Active: []string{"Find the lamp"}},
		engine.SupervisorChanged{Turn: 1, Round: 1, Trust: 0.2, Feedback: "Explore."}}})
	for _, msg := range runQuick(loadMemories(m.opts.Memories, true)) {
		d.feed(msg)
	}

	return g, eng, d
}

// playPanesAndDialogs plays the panes' keys and opens every dialog.
func playPanesAndDialogs(d *ioDriver) {
	// The memory pane: read, browse, edit (the form compares with the file),
	// supersede, add, delete, undo twice.
	d.keys("m", "down", "v", "esc", "b", "b")
	d.keys("e", "ctrl+u")
	d.text("Door is boarded up")
	d.keys("ctrl+s")
	d.keys("s", "esc", "a")
	d.text("Well rope")
	d.keys("ctrl+s", "d", "u", "u")
	// The objectives: add, edit, complete, drop, undo.
	d.keys("o", "a")
	d.text("Light the lamp")
	d.keys("enter", "e", "enter", "c", "d", "u")

	// The dialogs: help, model picker (enter, then s saves), episodes and
	// a replay, notes (edit, delete), the knowledge base.
	d.keys("?", "pgdown", "/", "o", "enter", "esc", "esc")
	d.keys("ctrl+l", "down", "enter", "s", "esc")
	d.keys("E", "enter", "right", "left", "esc")
	d.keys("N", "e", "ctrl+u")
	d.text("The rope is frayed.")
	d.keys("enter", "d", "d", "esc", "K", "esc")
}

// playTheGame plays the game's keys, a review and a rewind.
func playTheGame(d *ioDriver) {
	// The game: type a command, paste a long block (asked, then played),
	// search, review, steps, theme, copy, pull, retry, end, quit.
	d.keys("i")
	d.text("look")
	d.keys("enter")
	d.feed(tea.PasteMsg{Content: strings.Repeat("wait\n", 8)})
	d.keys("y", "esc", "/")
	d.text("lane")
	d.keys("enter", "esc", "v")
	d.feed(eventsMsg{evs: []engine.Event{engine.ReviewRequested{Turn: 1, Attempt: 1, Action: "north"}}})
	d.keys("x")
	d.text("not yet")
	d.keys("enter")
	d.feed(eventsMsg{evs: []engine.Event{engine.ReviewRequested{Turn: 1, Attempt: 2, Action: "east"}}})
	d.keys("enter", "v", "n", "space", "space", "t", "y", "P", "r")
	// The timeline: a turn's screen, the question, the branches, a
	// switch; then the engine's answer, a rewound episode.
	d.keys("T", "up", "enter", "n", "b", "down", "enter")
	d.feed(eventsMsg{evs: []engine.Event{engine.EpisodeStarted{Episode: 1, Resumed: true, Rewound: true, Turn: 5,
		Branch: engine.Branch{ID: 3, Parent: 1, ForkTurn: 5}}}})
	d.keys("X", "X", "q")

}

// checkNoIO: no outside call came from Update, and every kind was made.
func checkNoIO(t *testing.T, g *ioGuard) {
	t.Helper()
	if len(g.bad) > 0 {
		t.Errorf("Update did I/O itself (call it from a tea.Cmd): %v", g.bad)
	}
	var missing []string
	for _, want := range []string{"Memories.Sections", "Memories.Refresh", "Memories.Stats", "Objectives.Objectives",
		"Episodes.EpisodeSummaries", "Episodes.Turns", "Episodes.Reviews", "Notes.Notes", "Notes.EditNote", "Notes.DeleteNote",
		"Models.Version", "Models.CheckRole", "Models.Models", "Models.Pull", "Engine.Send", "SavePrefs",
		"Branches.BranchTurns", "Branches.Branches", "Branches.Root"} {
		if g.calls[want] == 0 {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the scenario never reached %v (calls: %v)", missing, g.calls)
	}
}

// checkEditsSent: the person's edits reached the engine as commands.
func checkEditsSent(t *testing.T, eng guardedEngine) {
	t.Helper()
	// The person's edits reached the engine as commands.
	var kinds []string
	for _, c := range eng.commands() {
		switch c := c.(type) {
		case engine.MemoryEdit:
			kinds = append(kinds, "memory "+string(c.Op))
		case engine.ObjectiveEdit:
			kinds = append(kinds, "objective "+string(c.Op))
		}
	}
	got := strings.Join(kinds, ", ")
	for _, want := range []string{"memory edit", "memory add", "memory delete", "objective add", "objective complete", "objective drop"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s command reached the engine: %s", want, got)
		}
	}
}

// TestIOGuardCatches: the guard of TestNoIOInUpdate sees a store read made
// on the goroutine that runs Update.
func TestIOGuardCatches(t *testing.T) {
	g := &ioGuard{update: goid(), calls: map[string]int{}}
	mem := &guardedMemories{g: g}
	mem.Sections()
	done := make(chan struct{})
	go func() { mem.Stats(); close(done) }()
	<-done
	if fmt.Sprint(g.bad) != "[Memories.Sections]" {
		t.Fatalf("the guard recorded %v, want only the read on the Update goroutine", g.bad)
	}
}

// ioMethods are the methods of the TUI's outside world (MemorySource,
// ObjectiveSource, EpisodeSource, BranchSource, NoteSource, Models, Engine) that wait on
// files, the database, the network or the engine.
var ioMethods = map[string]bool{
	"Sections": true, "Refresh": true, "Stats": true, "Objectives": true,
	"EpisodeSummaries": true, "Turns": true, "Reviews": true,
	"Notes": true, "EditNote": true, "DeleteNote": true,
	"Version": true, "CheckRole": true, "Models": true, "Pull": true,
	"Send": true, "Run": true,
	"BranchTurns": true, "Branches": true, "Root": true,
}

// TestIOOnlyInCommands: in the tui package's code, every call of an
// outside-world method, of package os, or of a saving function the options
// give (SavePrefs), sits inside a function literal (a tea.Cmd, run off the
// Update goroutine), never directly in a function Update reaches.
func TestIOOnlyInCommands(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var bad []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			// Run and RunReadOnly start the program: they are not reached
			// from Update.
			if fn.Recv == nil && (fn.Name.Name == "Run" || fn.Name.Name == "RunReadOnly") {
				continue
			}
			inspectOutsideLits(fn.Body, func(call *ast.CallExpr) {
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return
				}
				pkg, _ := sel.X.(*ast.Ident)
				switch {
				case pkg != nil && (pkg.Name == "os" || pkg.Name == "ioutil"):
				case ioMethods[sel.Sel.Name]:
					if pkg != nil && pkg.Name == "p" && sel.Sel.Name == "Run" {
						return
					}
				case sel.Sel.Name == "SavePrefs":
				default:
					return
				}
				bad = append(bad, fmt.Sprintf("%s: %s calls %s outside a command", fset.Position(call.Pos()), fn.Name.Name, exprString(sel)))
			})
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// inspectOutsideLits calls fn for every call in n that is not inside a
// function literal.
func inspectOutsideLits(n ast.Node, fn func(*ast.CallExpr)) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			fn(n)
		}
		return true
	})
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.CallExpr:
		return exprString(e.Fun) + "()"
	}
	return fmt.Sprintf("%T", e)
}
