package tui

import (
	"fmt"
	"log/slog"
	"strings"

	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory"
)

// memForm is the memory form: title, text, category and status, for adding,
// editing or superseding a memory. Saving gives the engine commands.
type memForm struct {
	c       *common
	h       host
	ft      *footer
	src     MemorySource // read only from the check command
	log     *slog.Logger
	op      engine.MemoryOp
	loc     int
	locName string
	orig    memory.Memory
	title   textinput.Model
	text    textarea.Model
	cat     int // index into formCategories
	status  int // index into formStatuses
	focus   int // 0 title, 1 text, 2 category, 3 status
	err     string
	w       int
	// outside is the memory as Memories.md now has it, when it changed
	// outside since the form opened (gone: removed there); the person
	// chooses reload, overwrite or merge before anything is saved.
	outside  *memory.Memory
	gone     bool
	resolved bool
	res      formResult // what the key being handled did
}

// formCategories and formStatuses are the form's choices, in order.
func formCategories() []memory.Category {
	return []memory.Category{memory.CategorySuccess, memory.CategoryFailure, memory.CategoryDiscovery, memory.CategoryDanger, memory.CategoryNote,
		memory.CategoryItem}
}

func formStatuses() []memory.Status {
	return []memory.Status{memory.StatusActive, memory.StatusTentative, memory.StatusSuperseded}
}

const formFields = 4

// formPlace is where a memory form edits: the location and, for an edit
// or a supersession, the memory as the form found it.
type formPlace struct {
	loc  int
	name string
	orig memory.Memory
}

func newMemForm(p *memoryPane, op engine.MemoryOp, at formPlace) *memForm {
	f := &memForm{c: p.c, h: p.host, ft: p.ft, src: p.src, log: p.log, op: op, loc: at.loc, locName: at.name, orig: at.orig}
	orig := at.orig
	f.title = textinput.New()
	f.title.Prompt = ""
	f.title.Placeholder = "a short title"
	f.title.CharLimit = 120
	f.text = textarea.New()
	f.text.ShowLineNumbers = false
	f.text.Prompt = ""
	f.text.Placeholder = "what was learned here"
	f.text.CharLimit = 2000
	f.setStyles()
	f.cat = 4 // NOTE
	switch op {
	case engine.MemoryEditText, engine.MemorySupersede:
		f.title.SetValue(orig.Title)
		f.text.SetValue(orig.Text)
		for i, c := range formCategories() {
			if c == orig.Category {
				f.cat = i
			}
		}
		if op == engine.MemoryEditText {
			for i, s := range formStatuses() {
				if s == orig.Status {
					f.status = i
				}
			}
		}
	}
	return f
}

func (f *memForm) setStyles() {
	s := f.c.styles
	f.c.styleInput(&f.title)
	ta := textarea.DefaultDarkStyles()
	for _, st := range []*textarea.StyleState{&ta.Focused, &ta.Blurred} {
		st.Base = lipgloss.NewStyle()
		st.Text = s.InputText
		st.CursorLine = s.InputText
		st.Placeholder = s.Placeholder
		st.Prompt = s.Muted
		st.EndOfBuffer = s.Subtle
	}
	ta.Blurred.Text, ta.Blurred.CursorLine = s.Muted, s.Muted
	ta.Cursor.Color = s.ProgressFull
	f.text.SetStyles(ta)
}

// focusField moves the keyboard to a field.
func (f *memForm) focusField(i int) tea.Cmd {
	f.focus = (i + formFields) % formFields
	f.title.Blur()
	f.text.Blur()
	switch f.focus {
	case 0:
		return f.title.Focus()
	case 1:
		return f.text.Focus()
	}
	return nil
}

func (f *memForm) setWidth(w int) {
	f.w = w
	// The dialog's inner width is w-4; labels take 12 cells, the text's
	// indent 4.
	f.title.SetWidth(max(w-18, 10))
	f.text.SetWidth(max(w-10, 10))
	f.text.SetHeight(5)
}

// heading names what the form does.
func (f *memForm) heading() string {
	switch f.op {
	case engine.MemoryEditText:
		return fmt.Sprintf("Edit memory at L%d %s", f.loc, f.locName)
	case engine.MemorySupersede:
		return fmt.Sprintf("Supersede %q at L%d", f.orig.Title, f.loc)
	}
	return fmt.Sprintf("New memory at L%d %s", f.loc, f.locName)
}

// formResult is what a key did to the form.
type formResult int

const (
	formOpen formResult = iota
	formCancel
	formSave
)

// formCheckMsg is Memories.md as it is now, read when the person saves,
// to compare with the memory as the form found it.
type formCheckMsg struct {
	secs []memory.Section
	err  error
}

func (f *memForm) frame() frame { return frame{title: "Memory"} }

// bindings are the form's keys: the fields', or the answers to the
// question about a change outside; the inputs type the others.
func (f *memForm) bindings() []binding {
	if f.outside != nil || f.gone {
		return f.answers()
	}
	return f.fieldKeys()
}

// fieldKeys are the keys of the form's fields.
func (f *memForm) fieldKeys() []binding {
	k := f.c.keys
	to := func(res formResult) func(tea.KeyPressMsg) tea.Cmd { return do(func() { f.res = res }) }
	move := func(by int) func(tea.KeyPressMsg) tea.Cmd {
		return act(func() tea.Cmd { return f.focusField(f.focus + by) })
	}
	choosing := func() bool { return f.focus >= 2 }
	return []binding{
		footed(keyOf("tab", "next field"), move(1)),
		bind(keyOf("shift+tab", "previous field"), "", move(-1)),
		{key: keyOf("←/→", "choose"), row: "choose"},
		{key: alias(keyOf("←", "", "left", "h"), "", k.Up), run: do(func() { f.cycle(-1) }), active: choosing},
		{key: alias(keyOf("→", "", "right", "l", "space"), "", k.Down), run: do(func() { f.cycle(1) }), active: choosing},
		{key: described(k.Accept, "next field"), run: move(1), active: func() bool { return f.focus == 0 }},
		{key: described(k.Accept, "save"), run: to(formSave), active: choosing},
		footed(keyOf("ctrl+s", "save"), to(formSave)),
		footed(described(k.Back, "cancel"), to(formCancel)),
	}
}

// cycle moves the choice of the category or the status field by one.
func (f *memForm) cycle(by int) {
	n := len(formCategories())
	cur := &f.cat
	if f.focus == 3 {
		n, cur = len(formStatuses()), &f.status
		if f.op == engine.MemorySupersede || f.op == engine.MemoryAdd {
			n = 2 // a new memory is active or tentative
		}
	}
	*cur = (*cur + by + n) % n
}

// answers are the keys that answer the question about a change outside.
func (f *memForm) answers() []binding {
	to := func(res formResult, run func()) func(tea.KeyPressMsg) tea.Cmd {
		return do(func() { run(); f.res = res })
	}
	theirs := func() string {
		if f.outside == nil {
			return "the memory is gone from Memories.md"
		}
		return ""
	}
	over := "overwrite with yours"
	if f.gone {
		over = "save yours anyway"
	}
	bs := []binding{
		{key: keyOf("r", "reload theirs"), row: "reload theirs", run: to(formOpen, f.reload), disabled: theirs},
		shown(keyOf("o", over), to(formSave, f.overwrite)),
		{key: keyOf("m", "merge (your changed fields win)"), row: "merge (your changed fields win)", run: to(formSave, f.merge), disabled: theirs},
		footed(described(f.c.keys.Back, "cancel"), to(formCancel, func() {})),
	}
	if f.gone {
		bs[0].row, bs[2].row = "", ""
	}
	return bs
}

func (f *memForm) footerLine(int) string {
	return " " + keyRows(f.c, 1<<20, hints(f.bindings())...)[0]
}

func (f *memForm) view(int, int) []string { return f.body() }

// update handles a key (or the check of Memories.md a save asked for).
func (f *memForm) update(msg tea.Msg) (dialog, tea.Cmd) {
	if msg, ok := msg.(formCheckMsg); ok {
		if msg.err != nil {
			f.log.Warn("memories", "err", msg.err)
		}
		if f.outsideChange(msg.secs) {
			return f, nil // the form asks: reload, overwrite or merge
		}
		return f.commit()
	}
	res, cmd := f.handle(msg)
	switch res {
	case formCancel:
		return nil, nil
	case formSave:
		if f.src != nil && !f.resolved && f.op != engine.MemoryAdd {
			// Compare with the file as it is now, read off the Update
			// goroutine; the answer comes back as a formCheckMsg.
			src := f.src
			return f, func() tea.Msg {
				_, err := src.Refresh()
				return formCheckMsg{secs: src.Sections(), err: err}
			}
		}
		return f.commit()
	}
	return f, cmd
}

// commit sends the form's edit to the session and closes the form.
func (f *memForm) commit() (dialog, tea.Cmd) {
	cmds, err := f.commands()
	if err != nil {
		f.err = err.Error()
		return f, nil
	}
	what := map[engine.MemoryOp]string{engine.MemoryAdd: "added", engine.MemoryEditText: "edited", engine.MemorySupersede: "superseded"}[f.op]
	f.log.Info("memory edit", "op", f.op, "location", f.loc)
	return nil, tea.Batch(f.h.send(cmds...), f.ft.set("memory "+what, false))
}

func (f *memForm) handle(msg tea.Msg) (formResult, tea.Cmd) {
	f.res = formOpen
	var cmd tea.Cmd
	took := false
	if k, isKey := msg.(tea.KeyPressMsg); isKey {
		if cmd, took = dispatch(f.bindings(), k, nil); took || f.outside != nil || f.gone || f.focus >= 2 {
			return f.res, cmd
		}
	}
	switch f.focus {
	case 0:
		f.title, cmd = f.title.Update(msg)
	case 1:
		f.text, cmd = f.text.Update(msg)
	}
	return formOpen, cmd
}

// outsideChange reports whether the memory being edited changed in
// Memories.md (secs, read just now) since the form opened (an edit in an
// editor); the form then asks what to do. New memories never conflict.
func (f *memForm) outsideChange(secs []memory.Section) bool {
	if f.resolved || f.op == engine.MemoryAdd {
		return false
	}
	found := false
	for _, sec := range secs {
		if sec.ID != f.loc {
			continue
		}
		found = true
		for _, m := range sec.Memories {
			if strings.EqualFold(oneLine(m.Title), oneLine(f.orig.Title)) {
				if m.Text == f.orig.Text && m.Category == f.orig.Category && m.Status == f.orig.Status {
					return false
				}
				disk := m
				f.outside = &disk
				f.err = "Memories.md changed outside since this form opened: " + rowText(f.answers())
				return true
			}
		}
	}
	if !found {
		return false // the location is not in the file: nothing to compare
	}
	f.gone = true
	f.err = "This memory was removed from Memories.md outside: " + rowText(f.answers())
	return true
}

// overwrite saves the form over the change outside (a memory removed
// outside is added again).
func (f *memForm) overwrite() {
	if f.gone {
		f.op = engine.MemoryAdd // it is no longer there to edit
	}
	f.outside, f.gone, f.resolved, f.err = nil, false, true, ""
}

// reload takes the memory as Memories.md has it now.
func (f *memForm) reload() {
	disk := f.outside
	f.orig = *disk
	f.title.SetValue(disk.Title)
	f.text.SetValue(disk.Text)
	f.setChoices(disk.Category, disk.Status)
	f.outside, f.err = nil, ""
}

// merge keeps the fields the person changed and takes the others from
// Memories.md, then saves.
func (f *memForm) merge() {
	disk := f.outside
	title, text := f.title.Value(), f.text.Value()
	cat, st := formCategories()[f.cat], formStatuses()[f.status]
	if title == f.orig.Title {
		title = disk.Title
	}
	if text == f.orig.Text {
		text = disk.Text
	}
	if cat == f.orig.Category {
		cat = disk.Category
	}
	if st == f.orig.Status {
		st = disk.Status
	}
	f.orig = *disk
	f.title.SetValue(title)
	f.text.SetValue(text)
	f.setChoices(cat, st)
	f.outside, f.resolved, f.err = nil, true, ""
}

func (f *memForm) setChoices(cat memory.Category, st memory.Status) {
	for i, c := range formCategories() {
		if c == cat {
			f.cat = i
		}
	}
	for i, s := range formStatuses() {
		if s == st {
			f.status = i
		}
	}
}

// commands turns the form into engine commands; an error names what is
// missing.
func (f *memForm) commands() ([]engine.Command, error) {
	title := oneLine(f.title.Value())
	text := strings.TrimSpace(f.text.Value())
	if title == "" {
		return nil, fmt.Errorf("a memory needs a title")
	}
	cat := formCategories()[f.cat]
	st := formStatuses()[f.status]
	switch f.op {
	case engine.MemoryEditText:
		cmds := []engine.Command{engine.MemoryEdit{Op: engine.MemoryEditText, Location: f.loc, Title: f.orig.Title, NewTitle: title, Text: text, Category: cat}}
		if formStatuses()[f.status] != f.orig.Status {
			cmds = append(cmds, engine.MemoryEdit{Op: engine.MemorySetStatus, Location: f.loc, Title: title, Status: st})
		}
		return cmds, nil
	case engine.MemorySupersede:
		return []engine.Command{engine.MemoryEdit{Op: engine.MemorySupersede, Location: f.loc, Title: f.orig.Title, NewTitle: title, Text: text, Category: cat, Status: st}}, nil
	}
	return []engine.Command{engine.MemoryEdit{Op: engine.MemoryAdd, Location: f.loc, Title: title, NewTitle: title, Text: text, Category: cat, Status: st}}, nil
}

// body draws the form's body (the dialog frame is drawn around it).
func (f *memForm) body() []string {
	s := f.c.styles
	var cats, stats []string
	for _, c := range formCategories() {
		cats = append(cats, string(c))
	}
	nst := len(formStatuses())
	if f.op != engine.MemoryEditText {
		nst = 2
	}
	for _, st := range formStatuses()[:nst] {
		stats = append(stats, string(st))
	}
	catStyle := func(c string) lipgloss.Style { return f.c.byID[categoryStyle(memory.Category(c))] }
	statStyle := func(string) lipgloss.Style { return s.Info }
	out := []string{
		s.DialogTitle.Render(f.heading()),
		"",
		f.label(0, "Title    ") + " " + f.title.View(),
		f.label(1, "Text"),
	}
	for _, l := range strings.Split(f.text.View(), "\n") {
		out = append(out, "    "+l)
	}
	out = append(out,
		f.label(2, "Category ")+" "+f.choice(2, cats, f.cat, catStyle),
		f.label(3, "Status   ")+" "+f.choice(3, stats, f.status, statStyle),
		"",
	)
	if f.op == engine.MemorySupersede {
		out = append(out, s.Muted.Render(fmt.Sprintf("The old memory is kept, marked SUPERSEDED by human: %q.", oneLine(f.title.Value()))))
	}
	if f.err != "" {
		// Wrapped, never cut: every answer to the question shows.
		out = append(out, f.c.wrapStyled(f.err, f.w-4, stError)...)
	}
	return append(out, keyRows(f.c, 1<<20, rowKeys(f.fieldKeys())...)[0])
}

// label is a field's name, marked when the field has the keyboard.
func (f *memForm) label(i int, name string) string {
	if f.focus == i {
		return f.c.styles.FieldFocused.Render("› " + name)
	}
	return f.c.styles.Field.Render("  " + name)
}

// choice draws a field's options, the chosen one in brackets.
func (f *memForm) choice(i int, opts []string, cur int, st func(string) lipgloss.Style) string {
	var b strings.Builder
	for j, o := range opts {
		if j > 0 {
			b.WriteString(" ")
		}
		if j == cur {
			b.WriteString(st(o).Reverse(f.focus == i).Render("[" + o + "]"))
		} else {
			b.WriteString(f.c.styles.Subtle.Render(" " + o + " "))
		}
	}
	return b.String()
}
