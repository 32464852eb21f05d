package tui

import (
	"container/list"
	"strings"
	"sync"
	"unicode/utf8"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/lantern-if/lantern/sanitize"
	"github.com/lantern-if/lantern/themes"
)

// Markdown written by models (the knowledge base, a memory, a note, the
// supervisor's coaching) may hold anything CommonMark and GitHub's tables
// allow; glamour draws it in the theme's colours. The style is built from
// the palette alone, so glamour never asks the terminal anything; code
// blocks are drawn in one colour (no syntax highlighting: chroma's styles
// are one global registry, which would keep the first theme's colours).
//
// A rendering is cached by (text, width, palette). The viewer and the
// notes render in the commands that load them, and again in a command
// after a resize; their views only read the cache. The Reasoning pane
// renders the supervisor's few sentences as it lays them out, once per
// width and theme. No keystroke renders anything.

// mdMargin is the left margin of rendered Markdown, the indent the panes
// give their text.
const mdMargin = 2

// mdMaxInput bounds the Markdown rendered; the rest is cut with a note.
const mdMaxInput = 256 << 10

func strp(s string) *string { return &s }
func boolp(b bool) *bool    { return &b }
func uintp(u uint) *uint    { return &u }

// colorp is a palette colour for glamour: nil keeps the terminal's own.
func colorp(c string) *string {
	if c == "" {
		return nil
	}
	return strp(c)
}

// mdStyle is the glamour style of a palette: the text in its text colour,
// headings, bullets and link texts in its accent, quotes and link targets
// muted, code in its warning colour (the amber of the dark theme), rules
// subtle, a table's borders in the border colour (see tidyLine). No
// background is set: the TUI's own shows.
func mdStyle(p themes.Palette) gansi.StyleConfig {
	prim := func(color string) gansi.StylePrimitive { return gansi.StylePrimitive{Color: colorp(color)} }
	heading := func(color string, upper bool) gansi.StyleBlock {
		s := gansi.StyleBlock{StylePrimitive: prim(color)}
		s.Bold = boolp(true)
		if upper {
			s.Upper = boolp(true)
		}
		return s
	}
	code := prim(p.Warning)
	link := prim(p.Muted)
	link.Underline = boolp(true)
	st := gansi.StyleConfig{
		Document:       gansi.StyleBlock{StylePrimitive: prim(p.Text), Margin: uintp(mdMargin)},
		BlockQuote:     gansi.StyleBlock{StylePrimitive: prim(p.Muted), Indent: uintp(1), IndentToken: strp("▎")},
		List:           gansi.StyleList{LevelIndent: 2},
		Heading:        gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{BlockSuffix: "\n"}},
		H1:             heading(p.Accent, true),
		H2:             heading(p.Accent, false),
		H3:             heading(p.Accent, false),
		H4:             heading(p.Text, false),
		H5:             heading(p.Muted, false),
		H6:             heading(p.Muted, false),
		Emph:           gansi.StylePrimitive{Italic: boolp(true)},
		Strong:         gansi.StylePrimitive{Bold: boolp(true)},
		Strikethrough:  gansi.StylePrimitive{CrossedOut: boolp(true)},
		HorizontalRule: gansi.StylePrimitive{Color: colorp(p.Subtle), Format: "\n" + strings.Repeat("─", 24) + "\n"},
		Item:           gansi.StylePrimitive{Color: colorp(p.Accent), BlockPrefix: "• "},
		Enumeration:    gansi.StylePrimitive{Color: colorp(p.Accent), BlockPrefix: ". "},
		Task:           gansi.StyleTask{StylePrimitive: prim(p.Accent), Ticked: "[✓] ", Unticked: "[ ] "},
		Link:           link,
		LinkText:       prim(p.Accent),
		Image:          link,
		ImageText:      gansi.StylePrimitive{Color: colorp(p.Accent), Format: "image: {{.text}} →"},
		Code:           gansi.StyleBlock{StylePrimitive: code},
		CodeBlock:      gansi.StyleCodeBlock{StyleBlock: gansi.StyleBlock{StylePrimitive: code, Margin: uintp(mdMargin)}},
		Table: gansi.StyleTable{StyleBlock: gansi.StyleBlock{StylePrimitive: prim(p.Text)},
			CenterSeparator: strp("┼"), ColumnSeparator: strp("│"), RowSeparator: strp("─")},
		DefinitionTerm:        gansi.StylePrimitive{Bold: boolp(true)},
		DefinitionDescription: gansi.StylePrimitive{BlockPrefix: "\n  "},
		HTMLBlock:             gansi.StyleBlock{StylePrimitive: prim(p.Muted)},
		HTMLSpan:              gansi.StyleBlock{StylePrimitive: prim(p.Muted)},
	}
	return st
}

// renderMarkdown draws md at w cells (its left margin included) in the
// palette's colours: the rendered lines, trailing padding and blank lines
// at the ends dropped. Text from outside is cleaned first (escape
// sequences and control characters go); should glamour fail, the text is
// shown wrapped as it is.
func renderMarkdown(md string, w int, p themes.Palette) []string {
	w = max(w, 20)
	if len(md) > mdMaxInput {
		n := mdMaxInput
		for n > 0 && !utf8.RuneStart(md[n]) {
			n--
		}
		md = md[:n] + "\n\n*(cut here: the rest is longer than Lantern draws)*\n"
	}
	md = clean(md)
	r, err := glamour.NewTermRenderer(glamour.WithStyles(mdStyle(p)), glamour.WithWordWrap(w))
	var out string
	if err == nil {
		out, err = r.Render(md)
	}
	if err != nil {
		var lines []string
		for _, l := range wrap(md, w-mdMargin, stText, "") {
			lines = append(lines, strings.Repeat(" ", mdMargin)+l.plain())
		}
		return lines
	}
	border := ""
	if p.Border != "" {
		border, _ = affixes(lipgloss.NewStyle().Foreground(lipgloss.Color(p.Border)))
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = tidyLine(l, border)
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// tidyLine drops a rendered line's trailing blanks (glamour pads every
// line to the width, each space styled on its own; fit pads again where
// needed) and draws what glamour left unstyled (a table's borders) after
// border, an escape that sets a colour ("": as it is). A hyperlink closed
// after the last visible cell stays closed.
func tidyLine(l, border string) string {
	var body, tail strings.Builder // tail: what follows the last visible cell
	styled := false                // an SGR other than a reset is in force
	open := false                  // body ends in a border run left open
	state := byte(0)
	for len(l) > 0 {
		seq, width, n, newState := ansi.DecodeSequence(l, state, nil)
		state = newState
		l = l[n:]
		switch {
		case width == 0:
			if strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m") {
				styled = seq != "\x1b[m" && seq != "\x1b[0m"
			}
			tail.WriteString(seq)
		case strings.TrimSpace(seq) == "":
			tail.WriteString(seq)
		default:
			bordered := !styled && border != ""
			if open && (!bordered || strings.Contains(tail.String(), "\x1b")) {
				body.WriteString("\x1b[m")
				open = false
			}
			body.WriteString(tail.String())
			tail.Reset()
			if bordered && !open {
				body.WriteString(border)
				open = true
			}
			body.WriteString(seq)
		}
	}
	if open {
		body.WriteString("\x1b[m")
	}
	s := body.String()
	if rest := tail.String(); strings.Contains(rest, "\x1b]") {
		// Keep the tail's OSC sequences (a hyperlink's end), not its
		// blanks and colours.
		for rest != "" {
			seq, _, n, _ := ansi.DecodeSequence(rest, 0, nil)
			if strings.HasPrefix(seq, "\x1b]") {
				s += seq
			}
			rest = rest[n:]
		}
	}
	if strings.Contains(s, "\x1b[") && !strings.HasSuffix(s, "\x1b[m") {
		s += "\x1b[m"
	}
	return s
}

// mdAt is where Markdown is drawn: a width (the left margin included)
// and a palette.
type mdAt struct {
	w   int
	pal themes.Palette
}

// mdKey names one rendering.
type mdKey struct {
	text string
	at   mdAt
}

type mdEntry struct {
	key   mdKey
	lines []string
	size  int
}

// mdCache keeps recent renderings, up to a number of bytes (least
// recently used out first). Commands fill it from their goroutines, views
// read it: it locks.
type mdCache struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List // of *mdEntry, the most recent first
	byKey map[mdKey]*list.Element
}

func newMDCache(maxBytes int) *mdCache {
	return &mdCache{max: maxBytes, order: list.New(), byKey: map[mdKey]*list.Element{}}
}

// mdCacheBytes bounds a TUI's cache of renderings.
const mdCacheBytes = 16 << 20

// get returns a rendering made before.
func (c *mdCache) get(k mdKey) ([]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*mdEntry).lines, true
}

// put keeps a rendering, dropping the oldest beyond the bound.
func (c *mdCache) put(k mdKey, lines []string) {
	size := len(k.text)
	for _, l := range lines {
		size += len(l)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[k]; ok {
		c.order.MoveToFront(e)
		return
	}
	if size > c.max {
		return
	}
	c.byKey[k] = c.order.PushFront(&mdEntry{key: k, lines: lines, size: size})
	c.size += size
	for c.size > c.max {
		last := c.order.Back()
		e := last.Value.(*mdEntry)
		c.order.Remove(last)
		delete(c.byKey, e.key)
		c.size -= e.size
	}
}

// lines is md rendered at at, from the cache when it was rendered
// before (the returned slice is shared: read it only).
func (c *mdCache) lines(md string, at mdAt) []string {
	k := mdKey{md, at}
	if lines, ok := c.get(k); ok {
		return lines
	}
	lines := renderMarkdown(md, at.w, at.pal)
	c.put(k, lines)
	return lines
}

// cached is md's rendering at at when one was made before; it
// never renders.
func (c *mdCache) cached(md string, at mdAt) ([]string, bool) { return c.get(mdKey{md, at}) }

// text is md rendered as one line of plain text, for a list's row:
// from the cache, else md itself on one line.
func (c *mdCache) text(md string, at mdAt) string {
	if lines, ok := c.cached(md, at); ok {
		return oneLine(ansi.Strip(strings.Join(lines, "\n")))
	}
	return oneLine(md)
}

// feed is md as lines of a feed (the Reasoning pane): each line
// one styled run, its width counted without the escapes. A short text (the
// supervisor's two sentences) is rendered as it is laid out, once per
// width and theme.
func (c *mdCache) feed(md string, at mdAt) []line {
	ls := c.lines(md, at)
	out := make([]line, 0, len(ls))
	for _, l := range ls {
		if l == "" {
			out = append(out, line{})
			continue
		}
		out = append(out, line{segs: []seg{{l, stText}}, width: ansi.StringWidth(l)})
	}
	return out
}

// supervisorMarkdown is a supervisor's round as Markdown: head (Lantern's
// own words, escaped) starts the feedback's first paragraph, unless that
// starts a block of its own; the claims the game contradicted follow.
func supervisorMarkdown(head, feedback string, contradicted []string) string {
	md := escapeInline(head)
	if fb := strings.TrimSpace(feedback); fb != "" {
		first, _, _ := strings.Cut(fb, "\n")
		if sanitize.EscapeBlock(first) != first {
			md += "\n\n" + fb
		} else {
			md += " " + fb
		}
	}
	if len(contradicted) > 0 {
		md += "\n\nContradicted: " + oneLine(strings.Join(contradicted, "; "))
	}
	return md
}

// escapeInline makes text literal in Markdown: every character that could
// start an inline construct gets a backslash.
func escapeInline(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>!~|&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
