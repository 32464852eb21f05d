package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/lantern-if/lantern/sanitize"
	"github.com/lantern-if/lantern/themes"
)

// common is what the root model shares with every child: the styles of the
// current theme, the keys, and the helpers that draw lines and boxes.
type common struct {
	theme  themes.Theme
	styles *themes.Styles
	keys   keyMap
	// gen changes whenever the styles change; children that cache rendered
	// text compare it with the generation they rendered at.
	gen  int
	byID [numStyles]lipgloss.Style
	// pre and suf are each style's escape codes around a text, so that the
	// panes' many short runs are styled without lipgloss's full Render.
	pre, suf [numStyles]string
	help     help.Model
	helpLine struct {
		w, gen int
		ctx    string // the focused pane, the replay
		s      string
	}
	border lipgloss.Border
	// md caches the Markdown renderings (the viewer, notes, the
	// supervisor's text), made in commands and read by the views.
	md *mdCache
}

func newCommon(t themes.Theme) *common {
	c := &common{keys: defaultKeys(), border: lipgloss.RoundedBorder(), help: help.New(), md: newMDCache(mdCacheBytes)}
	c.setTheme(t)
	return c
}

// setTheme rebuilds every style.
func (c *common) setTheme(t themes.Theme) {
	c.theme = t
	c.styles = themes.Build(t)
	c.gen++
	s := c.styles
	c.byID = [numStyles]lipgloss.Style{
		stText: s.Text, stMuted: s.Muted, stSubtle: s.Subtle,
		stAgent: s.Agent, stHuman: s.Human, stCommand: s.Command, stMeta: s.TurnMeta,
		stResponse: s.Response, stEpisode: s.EpisodeRule, stSystem: s.SystemMessage,
		stThinking: s.Thinking, stReasoning: s.Reasoning, stProposal: s.Proposal,
		stAccepted: s.Accepted, stRejected: s.Rejected, stError: s.Error, stInfo: s.Info,
		stSuccess: s.Success, stFailure: s.Failure, stDiscovery: s.Discovery, stDanger: s.Danger, stNote: s.Note,
		stTentative: s.Tentative, stSuperseded: s.Superseded, stMemoryText: s.MemoryText,
		stSelected: s.Selected, stMatch: s.Match, stTitle: s.TitleFocused, stWarning: s.Notice,
	}
	for i, st := range c.byID {
		c.pre[i], c.suf[i] = affixes(st)
	}
	c.help.Styles = help.Styles{
		Ellipsis: s.HelpSep, ShortKey: s.HelpKey, ShortDesc: s.HelpDesc, ShortSeparator: s.HelpSep,
		FullKey: s.HelpKey, FullDesc: s.HelpDesc, FullSeparator: s.HelpSep,
	}
}

// affixes splits a style's rendering of a marker into what comes before
// and after the text (plain colours and attributes only: no padding,
// borders or widths).
func affixes(st lipgloss.Style) (string, string) {
	const marker = "x"
	r := st.Render(marker)
	i := strings.Index(r, marker)
	if i < 0 {
		return "", ""
	}
	return r[:i], r[i+len(marker):]
}

// paint styles a run of plain text (no newlines or tabs).
func (c *common) paint(id styleID, text string) string {
	if text == "" {
		return ""
	}
	return c.pre[id] + text + c.suf[id]
}

// styleID names a style in a cached line, so that cached lines stay small and
// follow a theme change without being laid out again.
type styleID uint8

const (
	stText styleID = iota
	stMuted
	stSubtle
	stAgent
	stHuman
	stCommand
	stMeta
	stResponse
	stEpisode
	stSystem
	stThinking
	stReasoning
	stProposal
	stAccepted
	stRejected
	stError
	stInfo
	stSuccess
	stFailure
	stDiscovery
	stDanger
	stNote
	stTentative
	stSuperseded
	stMemoryText
	stSelected
	stMatch
	stTitle
	stWarning
	numStyles
)

// seg is a run of plain text in one style.
type seg struct {
	text string
	st   styleID
}

// line is one laid-out row of plain text segments and its width in cells.
type line struct {
	segs  []seg
	width int
}

func mkLine(segs ...seg) line {
	w := 0
	for _, s := range segs {
		w += ansi.StringWidth(s.text)
	}
	return line{segs: segs, width: w}
}

func (l line) plain() string {
	if len(l.segs) == 1 {
		return l.segs[0].text
	}
	var b strings.Builder
	for _, s := range l.segs {
		b.WriteString(s.text)
	}
	return b.String()
}

// render draws a line at exactly w cells, truncated or padded; a non-empty
// match is highlighted (case-insensitively) and sel draws it selected.
func (c *common) render(l line, w int, match string, sel bool) string {
	if sel {
		return c.renderSelected(l, w)
	}
	if len(l.segs) == 0 {
		return strings.Repeat(" ", max(w, 0))
	}
	var b strings.Builder
	b.Grow(w + 16*len(l.segs))
	used := 0
	fits := l.width <= w
	for _, s := range l.segs {
		if used >= w {
			break
		}
		text := s.text
		if !fits {
			tw := ansi.StringWidth(text)
			if used+tw > w {
				text = ansi.Truncate(text, w-used, "…")
			}
		}
		if match != "" {
			c.highlight(&b, text, match, s.st)
		} else {
			b.WriteString(c.paint(s.st, text))
		}
		if fits {
			continue
		}
		used += ansi.StringWidth(text)
	}
	if fits {
		used = l.width
	}
	if used < w {
		b.WriteString(strings.Repeat(" ", w-used))
	}
	return b.String()
}

// renderSelected draws a selected row: the selection's background under
// every run, to the full width.
func (c *common) renderSelected(l line, w int) string {
	var b strings.Builder
	used := 0
	for _, s := range l.segs {
		if used >= w {
			break
		}
		text := s.text
		if tw := ansi.StringWidth(text); used+tw > w {
			text = ansi.Truncate(text, w-used, "…")
		}
		st := c.byID[s.st].Background(c.styles.Selected.GetBackground())
		b.WriteString(st.Render(text))
		used += ansi.StringWidth(text)
	}
	if used < w {
		b.WriteString(c.styles.Selected.Render(strings.Repeat(" ", w-used)))
	}
	return b.String()
}

// highlight writes text in st with every occurrence of match in the match
// style.
func (c *common) highlight(b *strings.Builder, text, match string, st styleID) {
	lower := strings.ToLower(text)
	m := strings.ToLower(match)
	if len(lower) != len(text) || m == "" {
		b.WriteString(c.paint(st, text))
		return
	}
	for {
		i := strings.Index(lower, m)
		if i < 0 {
			b.WriteString(c.paint(st, text))
			return
		}
		b.WriteString(c.paint(st, text[:i]))
		b.WriteString(c.paint(stMatch, text[i:i+len(m)]))
		text, lower = text[i+len(m):], lower[i+len(m):]
	}
}

// wrap lays plain text out at width w: words wrapped, long words broken,
// tabs expanded, control characters dropped. Every line gets style st and
// the indent (counted in the width).
func wrap(text string, w int, st styleID, indent string) []line {
	text = clean(text)
	iw := ansi.StringWidth(indent)
	if w-iw < 8 {
		indent, iw = "", 0
	}
	avail := max(w-iw, 1)
	var out []line
	for _, para := range strings.Split(text, "\n") {
		if strings.TrimSpace(para) == "" {
			out = append(out, line{})
			continue
		}
		wrapped := para
		if ansi.StringWidth(para) > avail {
			wrapped = ansi.Wrap(para, avail, "")
		}
		for _, l := range strings.Split(wrapped, "\n") {
			l = strings.TrimRight(l, " ")
			if indent != "" {
				out = append(out, line{segs: []seg{{indent, st}, {l, st}}, width: iw + ansi.StringWidth(l)})
			} else {
				out = append(out, line{segs: []seg{{l, st}}, width: ansi.StringWidth(l)})
			}
		}
	}
	return out
}

// clean makes story or model text safe to draw: CR dropped, tabs expanded,
// escape sequences and other control characters (C0, DEL, C1) removed.
func clean(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f }) {
		return s
	}
	s = ansi.Strip(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("    ")
		case r == '\n':
			b.WriteRune(r)
		case r < 0x20 || r >= 0x7f && r <= 0x9f: // C0, DEL, C1 (0x9b is a CSI)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// oneLine makes text a single line (for titles and commands).
func oneLine(s string) string { return sanitize.OneLine(clean(s)) }

// fit truncates or pads an already styled string to exactly w cells.
func fit(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// box draws a pane w×h: a rounded border with the title in its top edge and
// info at the right of it, around the body lines (already w-4 wide: a space
// pads each side).
func (c *common) box(title, info string, focused bool, w, h int, body []string) []string {
	if w < 4 || h < 2 {
		return blank(w, h)
	}
	bs := c.styles.Border
	ts := c.styles.Title
	if focused {
		bs, ts = c.styles.BorderFocused, c.styles.TitleFocused
	}
	b := c.border
	out := make([]string, 0, h)
	inner := w - 2
	// Top: ╭─ Title ───── info ─╮
	t := " " + title + " "
	if ansi.StringWidth(t) > inner-2 {
		t = ansi.Truncate(t, max(inner-2, 0), "…")
	}
	tw := ansi.StringWidth(t)
	in := ""
	if info != "" {
		in = " " + info + " "
		if tw+ansi.StringWidth(in)+3 > inner {
			in = ""
		}
	}
	iw := ansi.StringWidth(in)
	fill := max(inner-1-tw-iw-1, 0)
	var top strings.Builder
	top.WriteString(bs.Render(b.TopLeft + b.Top))
	top.WriteString(ts.Render(t))
	top.WriteString(bs.Render(strings.Repeat(b.Top, fill)))
	if in != "" {
		top.WriteString(c.styles.PaneInfo.Render(in))
	}
	top.WriteString(bs.Render(b.Top + b.TopRight))
	out = append(out, top.String())
	left, right := bs.Render(b.Left)+" ", " "+bs.Render(b.Right)
	empty := strings.Repeat(" ", max(inner-2, 0))
	for i := 0; i < h-2; i++ {
		row := empty
		if i < len(body) {
			row = body[i]
		}
		out = append(out, left+row+right)
	}
	out = append(out, bs.Render(b.BottomLeft+strings.Repeat(b.Bottom, inner)+b.BottomRight))
	return out
}

// blank is h rows of w spaces.
func blank(w, h int) []string {
	out := make([]string, max(h, 0))
	row := strings.Repeat(" ", max(w, 0))
	for i := range out {
		out[i] = row
	}
	return out
}

// hjoin puts blocks of rows side by side (each block's rows are already
// exactly as wide as the block).
func hjoin(blocks ...[]string) []string {
	h := 0
	for _, b := range blocks {
		h = max(h, len(b))
	}
	out := make([]string, h)
	for i := range out {
		var sb strings.Builder
		for _, b := range blocks {
			if i < len(b) {
				sb.WriteString(b[i])
			}
		}
		out[i] = sb.String()
	}
	return out
}

// plural is "1 room", "2 rooms".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// styleInput gives a one-line text input the theme's colours: every input
// of the TUI (the command line, the prompts, the memory form's title, the
// timeline's branch name) looks alike.
func (c *common) styleInput(ti *textinput.Model) {
	s := c.styles
	st := textinput.DefaultDarkStyles()
	st.Focused.Prompt, st.Blurred.Prompt = s.Prompt, s.Muted
	st.Focused.Text, st.Blurred.Text = s.InputText, s.Muted
	st.Focused.Placeholder, st.Blurred.Placeholder = s.Placeholder, s.Placeholder
	st.Cursor.Color = s.ProgressFull
	ti.SetStyles(st)
}

// newInput is a one-line text input in the theme's colours.
func (c *common) newInput(prompt, placeholder string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = prompt
	ti.Placeholder = placeholder
	ti.CharLimit = 200
	c.styleInput(&ti)
	return ti
}
