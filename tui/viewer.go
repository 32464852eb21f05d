package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// viewer shows Markdown (a memory, the knowledge base), rendered by renderMD.
type viewer struct {
	c       *common
	h       host
	id      int
	title   string
	lines   []string
	offset  int
	loading bool
	err     string
}

type viewerMsg struct {
	id    int
	text  string
	err   error
	title string
}

func (v *viewer) set(msg viewerMsg) {
	v.loading = false
	if msg.err != nil {
		v.err = msg.err.Error()
		return
	}
	v.lines = strings.Split(strings.TrimRight(msg.text, "\n"), "\n")
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

// renderMarkdown renders md at width w, off the Update goroutine.
func renderMarkdown(id int, title, md string, w int, dark bool) tea.Cmd {
	return func() tea.Msg {
		return viewerMsg{id: id, title: title, text: renderMD(md, w, dark)}
	}
}

// openViewer shows the viewer and returns the command that fills it.
func (m *Model) openViewer(title string, load func(w int, dark bool, id int) tea.Cmd) tea.Cmd {
	m.viewers++
	id := m.viewers
	m.open(&viewer{c: m.c, h: m, id: id, title: title, loading: true})
	w := min(max(m.w-4, 20), 100) - 4
	return load(w, m.c.theme.Dark, id)
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
	return m.openViewer("Memory", func(w int, dark bool, id int) tea.Cmd {
		return renderMarkdown(id, "Memory", md, w, dark)
	})
}

// openKnowledge shows knowledgebase.md.
func (m *Model) openKnowledge() tea.Cmd {
	path := m.opts.KnowledgePath
	if path == "" {
		return m.setFlash("no knowledge base for this story", true)
	}
	return m.openViewer("Knowledge base", func(w int, dark bool, id int) tea.Cmd {
		return func() tea.Msg {
			data, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				data, err = []byte("*The knowledge base is written after the first episodes; there is none yet.*\n\n`"+path+"`"), nil
			}
			if err != nil {
				return viewerMsg{id: id, err: err}
			}
			return renderMarkdown(id, "Knowledge base", string(data), w, dark)()
		}
	})
}

func (v *viewer) update(msg tea.Msg) (dialog, tea.Cmd) {
	switch msg := msg.(type) {
	case viewerMsg:
		if msg.id == v.id {
			v.set(msg)
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
