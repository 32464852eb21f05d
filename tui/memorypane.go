package tui

import (
	"fmt"
	"log/slog"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/memory"
)

// MemorySource is the memory store as the TUI sees it (*memory.Store): a
// read-only view. Every method may wait on the store's file lock, so the
// TUI calls them only from commands, never in Update (TestNoIOInUpdate
// holds it to that); every change the person makes goes to the session as
// an engine.MemoryEdit command.
type MemorySource interface {
	Sections() []memory.Section
	// Refresh takes the file on disk when it changed (an edit made in an
	// editor) and reports whether it did.
	Refresh() (bool, error)
	// Stats counts what the store holds (UndoPending: the deletions this
	// session can undo).
	Stats() memory.Stats
}

// memoryNotices is what a store may also tell (memory.Store does): the
// entries it could not read, with their lines, and the memories its guard
// put back after a save by hand that lacked them. Read in commands only.
type memoryNotices interface {
	Problems() []memory.Problem
	TakeKept() []memory.Kept
}

// headerRepairs is what a store may also tell (memory.Store does): the
// mistyped location headers it repaired when it wrote for their rooms.
type headerRepairs interface {
	TakeRepaired() []memory.Problem
}

// memoryPane shows the memories at the current location, styled by
// category and status, and a browser over every location.
type memoryPane struct {
	c        *common
	host     host
	ft       *footer
	src      MemorySource // read only from commands
	log      *slog.Logger
	has      bool // a store is attached
	loaded   bool
	secs     []memory.Section
	problems []memory.Problem // entries Memories.md holds that could not be read
	here     env.Location
	loc      int // the location shown (here unless browsing another)
	browsing bool
	bsel     int
	sel      int
	offset   int
	w, h     int
	err      string
	// undoArmed is the flash that offered to bring back a deletion by
	// hand: u while it shows does.
	undoArmed int
}

func newMemoryPane(c *common, h host, ft *footer, src MemorySource, log *slog.Logger) *memoryPane {
	return &memoryPane{c: c, host: h, ft: ft, src: src, log: log, has: src != nil}
}

func (p *memoryPane) setSize(w, h int) { p.w, p.h = w, h }

// setSections takes a new snapshot of the store.
func (p *memoryPane) setSections(secs []memory.Section) {
	p.secs, p.loaded = secs, true
	p.clamp()
}

// setProblems keeps the entries Memories.md holds that could not be read:
// they are shown where they stand, never dropped from view.
func (p *memoryPane) setProblems(ps []memory.Problem) { p.problems = ps }

// problemLines are the unreadable entries at a location (0: before the
// first location), as the file has them.
func (p *memoryPane) problemLines(loc int, name string) []line {
	var out []line
	for _, pr := range p.problems {
		// A mistyped header that gives no number is this room's when it
		// names it.
		byName := pr.Header && pr.Location == 0 && name != "" && strings.EqualFold(strings.TrimSpace(pr.Name), strings.TrimSpace(name))
		if pr.Location != loc && !byName {
			continue
		}
		out = append(out, p.problemLine(pr)...)
	}
	return out
}

// problemLine is one problem of Memories.md as the pane says it: the line
// and what is wrong, the text as it is, and for a mistyped header what
// hides behind it and how it is repaired.
func (p *memoryPane) problemLine(pr memory.Problem) []line {
	out := wrap(fmt.Sprintf("⚠ Memories.md line %d: %s", pr.Line, pr.Msg), p.w, stError, "")
	if t := strings.TrimSpace(pr.Text); t != "" {
		out = append(out, wrap(t, p.w, stMuted, "  ")...)
	}
	if pr.Header {
		out = append(out, wrap("Repair: lantern memories fmt --repair -w, or Lantern's next write for this room.", p.w, stMuted, "  ")...)
	}
	return out
}

// moved follows the player to a new location.
func (p *memoryPane) moved(loc env.Location) {
	following := p.loc == p.here.ID
	p.here = loc
	if following || p.loc == 0 {
		if p.loc != loc.ID {
			p.sel, p.offset = 0, 0
		}
		p.loc = loc.ID
	}
}

func (p *memoryPane) section(id int) (memory.Section, bool) {
	for _, s := range p.secs {
		if s.ID == id {
			return s, true
		}
	}
	return memory.Section{}, false
}

// memories lists the shown location's memories.
func (p *memoryPane) memories() []memory.Memory {
	s, _ := p.section(p.loc)
	return s.Memories
}

// selected is the memory under the cursor.
func (p *memoryPane) selected() (memory.Memory, bool) {
	ms := p.memories()
	if p.browsing || p.sel < 0 || p.sel >= len(ms) {
		return memory.Memory{}, false
	}
	return ms[p.sel], true
}

// location is the shown location's ID and name.
func (p *memoryPane) location() (int, string) {
	if s, ok := p.section(p.loc); ok {
		return s.ID, s.Name
	}
	if p.loc == p.here.ID {
		return p.here.ID, p.here.Name
	}
	return p.loc, fmt.Sprintf("Location %d", p.loc)
}

func (p *memoryPane) clamp() {
	n := len(p.memories())
	if p.browsing {
		n = len(p.secs)
		p.bsel = min(max(p.bsel, 0), max(n-1, 0))
		return
	}
	p.sel = min(max(p.sel, 0), max(n-1, 0))
}

func (p *memoryPane) move(n int) {
	if p.browsing {
		p.bsel += n
	} else {
		p.sel += n
	}
	p.clamp()
}

func (p *memoryPane) toggleBrowser() {
	p.browsing = !p.browsing
	if p.browsing {
		for i, s := range p.secs {
			if s.ID == p.loc {
				p.bsel = i
			}
		}
	}
	p.offset = 0
	p.clamp()
}

// open shows the location selected in the browser.
func (p *memoryPane) open() {
	if !p.browsing || p.bsel >= len(p.secs) {
		return
	}
	p.loc = p.secs[p.bsel].ID
	p.browsing, p.sel, p.offset = false, 0, 0
}

// back leaves the browser, or returns to the current location; it reports
// whether there was anything to leave.
func (p *memoryPane) back() bool {
	switch {
	case p.browsing:
		p.browsing = false
	case p.loc != p.here.ID:
		p.loc, p.sel, p.offset = p.here.ID, 0, 0
	default:
		return false
	}
	p.clamp()
	return true
}

func (p *memoryPane) info() string {
	switch {
	case p.browsing:
		return fmt.Sprintf("%d locations", len(p.secs))
	case p.loc != p.here.ID:
		return "browsing · esc: back"
	}
	if n := len(p.memories()); n > 0 {
		return fmt.Sprintf("%d/%d", p.sel+1, n)
	}
	return ""
}

func categoryStyle(c memory.Category) styleID {
	switch c {
	case memory.CategorySuccess:
		return stSuccess
	case memory.CategoryFailure:
		return stFailure
	case memory.CategoryDiscovery:
		return stDiscovery
	case memory.CategoryDanger:
		return stDanger
	case memory.CategoryItem: // ground truth: where an item was found
		return stDiscovery
	}
	return stNote
}

// meta is a memory's "(Ep1, T5-6, +5)".
func meta(m memory.Memory) string {
	var parts []string
	if m.Episode > 0 {
		parts = append(parts, fmt.Sprintf("Ep%d", m.Episode))
	}
	if m.Turn > 0 {
		t := fmt.Sprintf("T%d", m.Turn)
		if m.TurnEnd > m.Turn {
			t += fmt.Sprintf("-%d", m.TurnEnd)
		}
		parts = append(parts, t)
	}
	if m.HasScore {
		parts = append(parts, fmt.Sprintf("%+d", m.Score))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func supersededBy(m memory.Memory) string {
	s := m.Superseded
	var b strings.Builder
	b.WriteString("superseded")
	if s.Turn > 0 {
		fmt.Fprintf(&b, " at T%d", s.Turn)
	}
	switch {
	case s.Human && s.By != "":
		fmt.Fprintf(&b, " by human: %q", s.By)
	case s.Human:
		b.WriteString(" by human")
	case s.By != "":
		fmt.Fprintf(&b, " by %q", s.By)
	}
	return b.String()
}

// lines lays the pane out; selFrom and selTo are the selected row's
// lines (-1 when none).
func (p *memoryPane) lines() (out []line, selFrom, selTo int) {
	switch {
	case !p.has:
		return wrap("No memory store is attached.", p.w, stMuted, ""), -1, -1
	case !p.loaded:
		return wrap("Reading Memories.md…", p.w, stMuted, ""), -1, -1
	case p.browsing:
		return p.browserLines()
	}
	return p.locationLines()
}

// browserLines are every location with its count of memories.
func (p *memoryPane) browserLines() (out []line, selFrom, selTo int) {
	selFrom, selTo = -1, -1
	out = append(out, mkLine(seg{fmt.Sprintf("All locations (%d)", len(p.secs)), stEpisode}, seg{" · enter opens", stMeta}))
	for i, s := range p.secs {
		vis := 0
		for _, m := range s.Memories {
			if m.Visible() {
				vis++
			}
		}
		right := fmt.Sprintf("%d memories", len(s.Memories))
		if hidden := len(s.Memories) - vis; hidden > 0 {
			right += fmt.Sprintf(" (%d superseded)", hidden)
		}
		l := mkLine(seg{fmt.Sprintf("L%-4d ", s.ID), stMeta}, seg{oneLine(s.Name), stText}, seg{"  " + right, stMuted})
		if i == p.bsel {
			selFrom, selTo = len(out), len(out)+1
		}
		out = append(out, l)
	}
	if len(p.secs) == 0 {
		out = append(out, wrap("Memories.md holds no locations yet.", p.w, stMuted, "")...)
	}
	for _, pr := range p.problems {
		if pr.Header { // a location header mistyped hides a whole room
			out = append(out, p.problemLine(pr)...)
		}
	}
	return out, selFrom, selTo
}

// locationLines are the shown location's memories.
func (p *memoryPane) locationLines() (out []line, selFrom, selTo int) {
	selFrom, selTo = -1, -1
	id, name := p.location()
	head := []seg{{fmt.Sprintf("L%d %s", id, oneLine(name)), stEpisode}}
	sec, ok := p.section(id)
	if ok && sec.Visits > 0 {
		head = append(head, seg{" · " + plural(sec.Visits, "visit", "visits"), stMeta})
	}
	out = append(out, mkLine(head...))
	out = append(out, p.problemLines(id, name)...)
	if len(sec.Memories) == 0 {
		out = append(out, wrap("No memories here yet. a adds one; b browses every location.", p.w, stMuted, "")...)
		return out, -1, -1
	}
	for i, m := range sec.Memories {
		start := len(out)
		out = append(out, p.memoryLines(m)...)
		if i == p.sel {
			selFrom, selTo = start, len(out)
		}
	}
	return out, selFrom, selTo
}

// memoryLines are one memory: its category, title, status and where it
// comes from, then its text.
func (p *memoryPane) memoryLines(m memory.Memory) []line {
	title, tag := stCommand, ""
	switch m.Status {
	case memory.StatusTentative:
		tag = " tentative"
	case memory.StatusSuperseded:
		title = stSuperseded
	}
	segs := []seg{{"[" + string(m.Category) + "]", categoryStyle(m.Category)}, {" ", stText}, {oneLine(m.Title), title}}
	if tag != "" {
		segs = append(segs, seg{tag, stTentative})
	}
	out := []line{mkLine(append(segs, seg{meta(m), stMeta})...)}
	if m.Status == memory.StatusSuperseded {
		out = append(out, wrap(supersededBy(m), p.w, stSuperseded, "  ")...)
	}
	if strings.TrimSpace(m.Text) != "" {
		out = append(out, wrap(m.Text, p.w, stMemoryText, "  ")...)
	}
	return out
}

func (p *memoryPane) view() []string {
	if p.w <= 0 || p.h <= 0 {
		return nil
	}
	ls, from, to := p.lines()
	// Keep the selection on screen.
	if from >= 0 {
		if from < p.offset {
			p.offset = from
		}
		if to > p.offset+p.h {
			p.offset = min(to-p.h, from)
		}
	}
	p.offset = min(p.offset, max(len(ls)-p.h, 0))
	out := make([]string, 0, p.h)
	for i := p.offset; i < len(ls) && len(out) < p.h; i++ {
		sel := from >= 0 && i >= from && i < to && i == from
		out = append(out, p.c.render(ls[i], p.w, "", sel))
	}
	for len(out) < p.h {
		out = append(out, strings.Repeat(" ", p.w))
	}
	return out
}

// scroll moves the selection (the list scrolls with it).
func (p *memoryPane) scroll(n int) { p.move(-n) }

// bindings are the Memory pane's keys.
func (p *memoryPane) bindings() []binding {
	k := p.c.keys
	return []binding{
		bind(described(k.View, "read memory (in the list of locations: open one)"), "read", act(p.read)),
		bind(described(k.Edit, "edit memory"), "edit", func(tea.KeyPressMsg) tea.Cmd { return p.openForm(engine.MemoryEditText) }),
		bind(described(k.Add, "add memory"), "add", func(tea.KeyPressMsg) tea.Cmd { return p.openForm(engine.MemoryAdd) }),
		bind(k.Supersede, "supersede", func(tea.KeyPressMsg) tea.Cmd { return p.openForm(engine.MemorySupersede) }),
		bind(described(k.Delete, "delete memory"), "delete", act(p.deleteMemory)),
		bind(k.Browse, "browse", do(p.toggleBrowser)),
		bind(k.Undo, "undo", act(p.undo)),
		{key: described(k.Back, "back (from the list, or another location)"), run: do(func() { p.back() }), active: p.canGoBack},
	}
}

// hints are the Memory pane's footer: its own keys, then the pane key.
func (p *memoryPane) hints(g gameKeys) []binding { return append(p.bindings(), g.next) }

// canGoBack reports whether esc has something to leave.
func (p *memoryPane) canGoBack() bool { return p.browsing || p.loc != p.here.ID }

// read opens the memory selected as Markdown, or the location selected
// in the list of locations.
func (p *memoryPane) read() tea.Cmd {
	if p.browsing {
		p.open()
		return nil
	}
	sel, ok := p.selected()
	if !ok {
		return nil
	}
	loc, name := p.location()
	var b strings.Builder
	fmt.Fprintf(&b, "## [%s] %s\n\n", sel.Category, sel.Title)
	fmt.Fprintf(&b, "*L%d %s · %s%s*\n\n", loc, name, strings.ToLower(string(sel.Status)), meta(sel))
	if !sel.Superseded.IsZero() {
		fmt.Fprintf(&b, "> %s\n\n", supersededBy(sel))
	}
	b.WriteString(sel.Text)
	b.WriteString("\n")
	md, cache := b.String(), p.c.md
	return p.host.openViewer("Memory", func(at mdAt, id int) tea.Cmd {
		return renderViewer(cache, id, md, at)
	})
}

// openForm opens the memory form for the selected memory (or a new one).
func (p *memoryPane) openForm(op engine.MemoryOp) tea.Cmd {
	loc, name := p.location()
	if loc <= 0 {
		return p.ft.set("no location yet", true)
	}
	sel, ok := p.selected()
	if op != engine.MemoryAdd && !ok {
		return p.ft.set("no memory selected here (a adds one)", true)
	}
	f := newMemForm(p, op, formPlace{loc: loc, name: name, orig: sel})
	f.setWidth(p.host.dialogWidth())
	p.host.open(f)
	return f.focusField(0)
}

func (p *memoryPane) deleteMemory() tea.Cmd {
	sel, ok := p.selected()
	if !ok {
		return p.ft.set("no memory selected", true)
	}
	loc, _ := p.location()
	p.log.Info("memory delete", "location", loc, "title", sel.Title)
	return tea.Batch(p.host.send(engine.MemoryEdit{Op: engine.MemoryDelete, Location: loc, Title: sel.Title}),
		p.ft.set(fmt.Sprintf("deleted %q: u undoes", sel.Title), false))
}

// undoCheckMsg says whether a deletion made in this session can be undone.
type undoCheckMsg struct{ pending int }

// undo is u: a deletion made here comes back first; with none, u asks,
// and u again brings back the memories the last deletion by hand removed
// (as `lantern memories undo` does). Both go to the session as commands.
func (p *memoryPane) undo() tea.Cmd {
	src := p.src
	if src == nil {
		return p.undoSessionDelete()
	}
	if p.ft.showing(p.undoArmed) {
		p.undoArmed = 0
		p.log.Info("memory restore generation")
		return tea.Batch(p.host.send(engine.MemoryEdit{Op: engine.MemoryRestoreHand}),
			p.ft.set("undo: the memories last deleted by hand come back", false))
	}
	// The store is asked off the update loop: it may be busy saving.
	return func() tea.Msg { return undoCheckMsg{pending: src.Stats().UndoPending} }
}

func (p *memoryPane) undoSessionDelete() tea.Cmd {
	return tea.Batch(p.host.send(engine.MemoryEdit{Op: engine.MemoryUndo}), p.ft.set("undo: the last deleted memory comes back", false))
}

// undoChecked acts on the answer of undo's check.
func (p *memoryPane) undoChecked(msg undoCheckMsg) tea.Cmd {
	if msg.pending > 0 {
		return p.undoSessionDelete()
	}
	cmd := p.ft.set("no deletion here · u again undoes the last hand deletion", false)
	p.undoArmed = p.ft.id
	return cmd
}

// loaded takes the store's sections read by a command, and says what the
// store put back or repaired.
func (p *memoryPane) take(msg memoriesMsg) tea.Cmd {
	if msg.err != nil {
		p.log.Warn("memories", "err", msg.err)
		return p.ft.set("Memories.md: "+msg.err.Error(), true)
	}
	p.setSections(msg.secs)
	p.setProblems(msg.problems)
	var notes []string
	for _, k := range msg.kept {
		// The guard put back an agent's memory the editor could not have
		// seen: say so, so a second deletion is a choice.
		notes = append(notes, k.String())
	}
	for _, r := range msg.repaired {
		notes = append(notes, fmt.Sprintf("Memories.md line %d: the header was repaired as %q; its memories reach the agent again", r.Line, r.Fix))
	}
	if len(notes) > 0 {
		return p.ft.set(strings.Join(notes, "; "), false)
	}
	return nil
}
