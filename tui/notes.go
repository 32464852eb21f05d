package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/memory/rundb"
)

// NoteSource is the agent's flagged notes in the run database
// (*rundb.RunDB): the Notes view lists, edits and deletes them. It is used
// only from commands.
type NoteSource interface {
	Notes(ctx context.Context) ([]rundb.Note, error)
	EditNote(ctx context.Context, id int64, content string, importance int) error
	DeleteNote(ctx context.Context, id int64) error
}

// notesMsg is the notes as read after opening the view or a change; flash
// says what the change was.
type notesMsg struct {
	notes []rundb.Note
	err   error
	flash string
}

// listNotes reads the notes, after change (nil: none) has run, and
// renders their Markdown at the width and in the palette of at (so that
// choosing a note renders nothing).
func listNotes(ctx context.Context, src NoteSource, change func() error, done string, cache *mdCache, at mdAt) tea.Cmd {
	return func() tea.Msg {
		if change != nil {
			if err := change(); err != nil {
				return notesMsg{err: err}
			}
		}
		ns, err := src.Notes(ctx)
		renderNotes(cache, ns, at)
		return notesMsg{notes: ns, err: err, flash: done}
	}
}

// renderNotes renders the notes' Markdown into the cache.
func renderNotes(cache *mdCache, ns []rundb.Note, at mdAt) {
	for _, n := range ns {
		cache.lines(n.Content, at)
	}
}

// notesRenderedMsg: the notes were rendered for a new width (the view
// reads them from the cache).
type notesRenderedMsg struct{}

// resized renders the notes for a new dialog width, off the Update
// goroutine; the view shows them plain meanwhile.
func (v *notesView) resized(_, dialogW int) tea.Cmd {
	at := mdAt{dialogW - 4, v.c.theme.Palette} // inside the box's border and padding
	if at == v.at() {
		return nil
	}
	ns, cache := v.notes, v.c.md
	return func() tea.Msg {
		renderNotes(cache, ns, at)
		return notesRenderedMsg{}
	}
}

// maxNoteLines bounds the selected note's Markdown under the list.
const maxNoteLines = 10

// notesView is the Notes dialog: the notes, most important first, one
// selected; e edits its text in place, d twice deletes it.
type notesView struct {
	c        *common
	h        host
	ctx      context.Context
	src      NoteSource // used only from commands
	notes    []rundb.Note
	sel      int
	loaded   bool
	err      string
	editing  bool
	input    textinput.Model
	delArmed bool
	closed   bool
	w        int // the width the view was drawn at
}

// at is where the notes' Markdown is drawn now.
func (v *notesView) at() mdAt { return mdAt{v.w, v.c.theme.Palette} }

// noteLines is the selected note's Markdown from the cache, or its text
// wrapped as it is (until the rendering for this width comes).
func (v *notesView) noteLines(n rundb.Note) []string {
	if lines, ok := v.c.md.cached(n.Content, v.at()); ok {
		return lines
	}
	var out []string
	for _, l := range wrap(n.Content, max(v.w-mdMargin, 10), stText, "") {
		out = append(out, v.c.render(line{segs: append([]seg{{strings.Repeat(" ", mdMargin), stText}}, l.segs...), width: mdMargin + l.width}, v.w, "", false))
	}
	return out
}

func (v *notesView) selected() (rundb.Note, bool) {
	if v.sel < 0 || v.sel >= len(v.notes) {
		return rundb.Note{}, false
	}
	return v.notes[v.sel], true
}

func (v *notesView) frame() frame { return frame{title: "Notes"} }

func (v *notesView) bindings() []binding { return v.keys(v.delArmed) }

// keys are the notes' keys: while a note is edited, save and cancel
// (the input types the rest); else choose, edit, delete (armed: the
// second press deletes) and close.
func (v *notesView) keys(armed bool) []binding {
	k := v.c.keys
	if v.editing {
		return []binding{shown(described(k.Accept, "save"), act(v.save)), footed(described(k.Back, "cancel"), do(v.stopEditing))}
	}
	page := func() int { return max(v.h.areaHeight()/3, 1) }
	bs := choosing(k, &v.sel, func() int { return len(v.notes) }, page)
	bs = append(bs, shown(alias(k.Edit, "edit", k.Accept), act(v.edit)),
		shown(twice(k.Delete, "delete"), act(func() tea.Cmd { return v.delete(armed) })))
	return append(bs, closing(k, k.Notes, &v.closed)...)
}

func (v *notesView) view(w, h int) []string {
	v.w = w
	s := v.c.styles
	switch {
	case !v.loaded:
		return []string{s.Muted.Render("Reading lantern.db…")}
	case len(v.notes) == 0 && v.err == "":
		return append([]string{s.Muted.Render("No notes yet: the agent flags notes with its remember tool as it plays."), ""},
			keyRows(v.c, w, rowKeys(closing(v.c.keys, v.c.keys.Notes, &v.closed))...)...)
	}
	out := []string{s.Muted.Render("The agent's notes, most important first; it sees them every turn:"), ""}
	for i, n := range v.notes {
		edited := ""
		if !n.Edited.IsZero() {
			edited = " ✎"
		}
		row := fit(fmt.Sprintf(" #%-3d %4d  %s: %s%s", n.ID, n.Importance, n.Location, v.c.md.text(n.Content, v.at()), edited), max(w, 10))
		if i == v.sel {
			row = s.Selected.Render(row)
		} else {
			row = s.Text.Render(row)
		}
		out = append(out, row)
	}
	out = append(out, "")
	if v.err != "" {
		out = append(out, s.Error.Render(fit(v.err, max(w, 10))))
	}
	// The selected note as its Markdown, in the room the box has left
	// (the keys' line below it).
	if n, ok := v.selected(); ok && !v.editing {
		room := min(h-len(out)-3, maxNoteLines)
		if md := v.noteLines(n); room >= 2 && len(md) > 0 {
			if len(md) > room {
				md = append(md[:room-1:room-1], s.Muted.Render(fmt.Sprintf("  … %d more lines", len(md)-room+1)))
			}
			out = append(out, md...)
			out = append(out, "")
		}
	}
	switch {
	case v.editing:
		v.input.SetWidth(max(w-len(v.input.Prompt)-2, 10))
		out = append(append(out, fit(v.input.View(), w)), keyRows(v.c, w, rowKeys(v.bindings())...)...)
	case v.delArmed:
		out = append(out, s.Error.Render(v.c.keys.Delete.Help().Key+" again deletes the note; any other key keeps it"))
	default:
		out = append(out, keyRows(v.c, w, rowKeys(v.bindings())...)...)
	}
	return out
}

// openNotes shows the Notes view, a dialog w cells wide inside.
func openNotes(ctx context.Context, c *common, h host, ft *footer, src NoteSource, w int) tea.Cmd {
	if src == nil {
		return ft.set("no run database attached", true)
	}
	v := &notesView{c: c, h: h, ctx: ctx, src: src, input: c.newInput("note: ", ""), w: w}
	v.input.CharLimit = 2000
	h.open(v)
	return listNotes(ctx, src, nil, "", c.md, v.at())
}

// update takes the notes read and the keys.
func (v *notesView) update(msg tea.Msg) (dialog, tea.Cmd) {
	switch msg := msg.(type) {
	case notesMsg:
		return v, v.got(msg)
	case tea.KeyPressMsg:
		return v.key(msg)
	}
	if v.editing {
		var cmd tea.Cmd
		v.input, cmd = v.input.Update(msg)
		return v, cmd
	}
	return v, nil
}

func (v *notesView) got(msg notesMsg) tea.Cmd {
	v.loaded = true
	if msg.err != nil {
		v.err = msg.err.Error()
		return nil
	}
	v.err = ""
	v.notes = msg.notes
	v.sel = min(v.sel, max(len(v.notes)-1, 0))
	if msg.flash != "" {
		return v.h.setFlash(msg.flash, false)
	}
	return nil
}

// key runs the notes' binding for k; any key but the delete key disarms
// a delete.
func (v *notesView) key(k tea.KeyPressMsg) (dialog, tea.Cmd) {
	bs := v.keys(v.delArmed)
	v.delArmed = false
	cmd, ok := dispatch(bs, k, nil)
	if !ok && v.editing {
		v.input, cmd = v.input.Update(k)
	}
	if v.closed {
		return nil, cmd
	}
	return v, cmd
}

// stopEditing leaves the note as it was.
func (v *notesView) stopEditing() {
	v.editing = false
	v.input.Blur()
}

// save keeps the note edited.
func (v *notesView) save() tea.Cmd {
	src, ctx := v.src, v.ctx
	n, ok := v.selected()
	text := strings.TrimSpace(v.input.Value())
	v.stopEditing()
	if !ok {
		return nil
	}
	if text == "" {
		v.err = "a note needs some text (" + twice(v.c.keys.Delete, "").Help().Key + " deletes it)"
		return nil
	}
	return listNotes(ctx, src, func() error { return src.EditNote(ctx, n.ID, text, n.Importance) }, fmt.Sprintf("note %d edited", n.ID), v.c.md, v.at())
}

// edit puts the selected note in the input.
func (v *notesView) edit() tea.Cmd {
	n, ok := v.selected()
	if !ok {
		return nil
	}
	v.editing, v.err = true, ""
	v.input.SetValue(n.Content)
	v.input.CursorEnd()
	return v.input.Focus()
}

// delete arms the delete of the selected note, or (armed) deletes it.
func (v *notesView) delete(armed bool) tea.Cmd {
	src, ctx := v.src, v.ctx
	n, ok := v.selected()
	switch {
	case !ok:
		return nil
	case !armed:
		v.delArmed = true
		return nil
	}
	return listNotes(ctx, src, func() error { return src.DeleteNote(ctx, n.ID) }, fmt.Sprintf("note %d deleted", n.ID), v.c.md, v.at())
}
