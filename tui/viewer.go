package tui

import (
	"errors"
	"fmt"
	"io/fs"

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
	closed  bool
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

func (v *viewer) frame() frame { return frame{title: v.title, wide: true} }

// bindings are the viewer's keys: the keyMap's scroll keys, and close
// (esc, or the keys that opened a viewer).
func (v *viewer) bindings() []binding {
	k := v.c.keys
	page := func() int { return max(v.h.areaHeight()-4, 1) }
	closeIt := do(func() { v.closed = true })
	return append(append([]binding{scrollRow(k)}, scrolling(k, &v.offset, page)...),
		binding{key: described(k.Back, "close"), short: "close", row: "closes", run: closeIt},
		bind(joined("close", k.Quit, k.View, k.Knowledge), "", closeIt))
}

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
	return append(out, c.styles.HelpDesc.Render(rowText(v.bindings())+more))
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

func (v *viewer) key(k tea.KeyPressMsg) (dialog, tea.Cmd) { return pressed(v, &v.closed, k, nil) }

// knowledgeLoader reads knowledgebase.md at path and renders it, in a
// command.
func knowledgeLoader(cache *mdCache, path string) func(at mdAt, id int) tea.Cmd {
	return func(at mdAt, id int) tea.Cmd {
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
	}
}
