package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/managers/knowledge"
)

// viewer shows Markdown (a memory, the knowledge base) rendered by glamour
// in the theme's colours, in the command that loads it; after a resize a
// command renders it again (the lines drawn at the old width show
// meanwhile), so a view never waits for glamour.
type viewer struct {
	c       *common
	h       host
	id      int
	title   string
	md      string   // the source
	want    mdAt     // where it should be drawn
	at      mdAt     // where lines were drawn
	lines   []string // shared with the cache: read only
	offset  int
	loading bool
	err     string
}

type viewerMsg struct {
	id    int
	md    string
	lines []string
	at    mdAt
	err   error
}

// set takes a rendering; one made for another width or theme than the
// viewer now wants shows until the one it asks for comes.
func (v *viewer) set(msg viewerMsg) tea.Cmd {
	v.loading = false
	if msg.err != nil {
		v.err = msg.err.Error()
		return nil
	}
	v.md = msg.md
	if msg.at == v.want || v.lines == nil {
		v.lines, v.at = msg.lines, msg.at
	}
	if v.at != v.want {
		return renderViewer(v.c.md, v.id, v.md, v.want)
	}
	return nil
}

// resized follows a new panes area areaW cells wide: the rendering for
// the new width comes from the cache, or from a command.
func (v *viewer) resized(areaW, _ int) tea.Cmd {
	want := mdAt{viewerWidth(areaW), v.c.theme.Palette}
	if want == v.want {
		return nil
	}
	v.want = want
	if v.loading || v.err != "" {
		return nil // the load in flight renders where the viewer wants
	}
	if lines, ok := v.c.md.cached(v.md, want); ok {
		v.lines, v.at = lines, want
		return nil
	}
	return renderViewer(v.c.md, v.id, v.md, want)
}

func (v *viewer) frame() frame { return frame{title: v.title, wide: true, keys: closeKeys()} }

func (v *viewer) view(_, h int) []string {
	c := v.c
	switch {
	case v.loading:
		return []string{c.styles.Muted.Render("rendering…")}
	case v.err != "":
		return []string{c.styles.Error.Render(v.err)}
	}
	if pal := c.theme.Palette; pal != v.at.pal {
		// Another theme (the terminal's background answered while the
		// viewer was open; keys cannot change it here): drawn again at
		// once, as every pane is.
		v.want.pal = pal
		v.at = v.want
		v.lines = v.c.md.lines(v.md, v.at)
	}
	h = max(h-1, 1)
	v.offset = min(max(v.offset, 0), max(len(v.lines)-h, 0))
	end := min(v.offset+h, len(v.lines))
	out := append([]string(nil), v.lines[v.offset:end]...)
	more := ""
	if end < len(v.lines) {
		more = fmt.Sprintf(" · %d more lines", len(v.lines)-end)
	}
	return append(out, c.styles.HelpDesc.Render("↑/↓ pgup/pgdn scroll · esc closes"+more))
}

// renderViewer renders md at at, off the Update goroutine.
func renderViewer(cache *mdCache, id int, md string, at mdAt) tea.Cmd {
	return func() tea.Msg {
		return viewerMsg{id: id, md: md, lines: cache.lines(md, at), at: at}
	}
}

// viewerWidth is the width of a viewer's text in a panes area w cells
// wide (a wide dialog's box, inside its border and padding).
func viewerWidth(w int) int { return min(max(w-4, 20), 100) - 4 }

// openViewer shows the viewer and returns the command that fills it.
func (m *Model) openViewer(title string, load func(at mdAt, id int) tea.Cmd) tea.Cmd {
	m.viewers++
	id := m.viewers
	at := mdAt{viewerWidth(m.lay.area.w), m.c.theme.Palette}
	m.open(&viewer{c: m.c, h: m, id: id, title: title, loading: true, want: at})
	return load(at, id)
}

// resizer is a dialog that follows a new size with a command: the panes
// area's width and an overlay's (a narrow one's).
type resizer interface {
	resized(areaW, dialogW int) tea.Cmd
}

// resizeDialogs tells the open dialogs the new widths.
func (m *Model) resizeDialogs() tea.Cmd {
	var cmds []tea.Cmd
	for _, d := range m.dialogs {
		if r, ok := d.(resizer); ok {
			cmds = append(cmds, r.resized(m.lay.area.w, m.dialogWidth()))
		}
	}
	return tea.Batch(cmds...)
}

// openMemory shows the selected memory as Markdown.
func (m *Model) openMemory() tea.Cmd {
	sel, ok := m.memory.selected()
	if !ok {
		return nil
	}
	loc, name := m.memory.location()
	var b strings.Builder
	fmt.Fprintf(&b, "## [%s] %s\n\n", sel.Category, sel.Title)
	fmt.Fprintf(&b, "*L%d %s · %s%s*\n\n", loc, name, strings.ToLower(string(sel.Status)), meta(sel))
	if !sel.Superseded.IsZero() {
		fmt.Fprintf(&b, "> %s\n\n", supersededBy(sel))
	}
	b.WriteString(sel.Text)
	b.WriteString("\n")
	md := b.String()
	return m.openViewer("Memory", func(at mdAt, id int) tea.Cmd {
		return renderViewer(m.c.md, id, md, at)
	})
}

// openKnowledge shows knowledgebase.md.
func (m *Model) openKnowledge() tea.Cmd {
	path := m.opts.KnowledgePath
	if path == "" {
		return m.setFlash("no knowledge base for this story", true)
	}
	cache := m.c.md
	return m.openViewer("Knowledge base", func(at mdAt, id int) tea.Cmd {
		return func() tea.Msg {
			data, err := atomicfile.ReadRegular(path, knowledge.MaxFileBytes)
			if errors.Is(err, fs.ErrNotExist) {
				data, err = []byte("*The knowledge base is written after the first episodes; there is none yet.*\n\n`"+path+"`"), nil
			}
			if err != nil {
				return viewerMsg{id: id, err: err}
			}
			return renderViewer(cache, id, string(data), at)()
		}
	})
}

func (v *viewer) update(msg tea.Msg) (dialog, tea.Cmd) {
	switch msg := msg.(type) {
	case viewerMsg:
		if msg.id == v.id {
			return v, v.set(msg)
		}
		return v, nil
	case tea.KeyPressMsg:
		return v.key(msg)
	}
	return v, nil
}

func (v *viewer) key(k tea.KeyPressMsg) (dialog, tea.Cmd) {
	page := max(v.h.areaHeight()-4, 1)
	switch k.String() {
	case "esc", "q", "enter", "K":
		return nil, nil
	case "up", "k":
		v.offset--
	case "down", "j":
		v.offset++
	case "pgup", "ctrl+u":
		v.offset -= page
	case "pgdown", "ctrl+d", "space":
		v.offset += page
	case "home", "g":
		v.offset = 0
	case "end", "G":
		v.offset = len(v.lines)
	}
	return v, nil
}
