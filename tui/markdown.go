package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// The viewer's Markdown is what Lantern writes itself (a memory, the
// knowledge base): headings, paragraphs, lists, block quotes, code fences
// and inline emphasis and code. A full CommonMark renderer would link a
// syntax highlighter whose lexers and styles initialise on every start of
// every command; this one renders that subset and shows anything else as
// its text.

// mdStyles are the renderer's styles for a dark or light background.
type mdStyles struct {
	heading, emph, strong, code, quote, bullet lipgloss.Style
}

func newMDStyles(dark bool) mdStyles {
	accent, muted, code := lipgloss.Color("#7AA2F7"), lipgloss.Color("#9AA0A6"), lipgloss.Color("#E0AF68")
	if !dark {
		accent, muted, code = lipgloss.Color("#1F4FB5"), lipgloss.Color("#5F6368"), lipgloss.Color("#8A5A00")
	}
	return mdStyles{
		heading: lipgloss.NewStyle().Bold(true).Foreground(accent),
		emph:    lipgloss.NewStyle().Italic(true),
		strong:  lipgloss.NewStyle().Bold(true),
		code:    lipgloss.NewStyle().Foreground(code),
		quote:   lipgloss.NewStyle().Foreground(muted),
		bullet:  lipgloss.NewStyle().Foreground(accent),
	}
}

// renderMD renders md at width w (at least 20 columns), with a margin of
// two columns as the viewer had.
func renderMD(md string, w int, dark bool) string {
	st := newMDStyles(dark)
	w = max(w, 20)
	var out []string
	var para []string
	flush := func() {
		if len(para) == 0 {
			return
		}
		text := inlineMD(strings.Join(para, " "), st)
		out = append(out, indentLines(ansi.Wordwrap(text, w-2, " "), "  ", "  ")...)
		out = append(out, "")
		para = para[:0]
	}
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			flush()
		case strings.HasPrefix(trimmed, "```"):
			flush()
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
				out = append(out, "    "+st.code.Render(ansi.Truncate(lines[i], w-4, "…")))
			}
			out = append(out, "")
		case strings.HasPrefix(trimmed, "#"):
			flush()
			level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
			text := strings.TrimSpace(trimmed[level:])
			if level == 1 {
				text = strings.ToUpper(text)
			}
			out = append(out, indentLines(ansi.Wordwrap(st.heading.Render(text), w-2, " "), "  ", "  ")...)
			out = append(out, "")
		case strings.HasPrefix(trimmed, ">"):
			flush()
			text := strings.TrimSpace(strings.TrimPrefix(trimmed, ">"))
			bar := st.quote.Render("│ ")
			out = append(out, indentLines(st.quote.Render(ansi.Wordwrap(inlineMD(text, st), w-4, " ")), "  "+bar, "  "+bar)...)
		case listItem(trimmed) != "":
			flush()
			mark := listItem(trimmed)
			text := inlineMD(strings.TrimSpace(trimmed[len(mark):]), st)
			lead := "  " + st.bullet.Render("•") + " "
			if mark[0] >= '0' && mark[0] <= '9' {
				lead = "  " + st.bullet.Render(strings.TrimSpace(mark)) + " "
			}
			pad := strings.Repeat(" ", ansi.StringWidth(lead))
			out = append(out, indentLines(ansi.Wordwrap(text, w-ansi.StringWidth(lead), " "), lead, pad)...)
		default:
			para = append(para, trimmed)
		}
	}
	flush()
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n") + "\n"
}

// listItem returns the marker of a list item ("- ", "* ", "12. "), or "".
func listItem(s string) string {
	if strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "* ") || strings.HasPrefix(s, "+ ") {
		return s[:2]
	}
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n > 0 && n+1 < len(s) && (s[n] == '.' || s[n] == ')') && s[n+1] == ' ' {
		return s[:n+2]
	}
	return ""
}

// indentLines prefixes the first line of s with first and the others with
// rest.
func indentLines(s, first, rest string) []string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return lines
}

// inlineMD styles `code`, **strong** and *emphasis* (or _emphasis_); an
// unclosed marker stays as it is.
func inlineMD(s string, st mdStyles) string {
	var b strings.Builder
	for len(s) > 0 {
		switch {
		case s[0] == '`':
			if j := strings.IndexByte(s[1:], '`'); j >= 0 {
				b.WriteString(st.code.Render(s[1 : 1+j]))
				s = s[2+j:]
				continue
			}
		case strings.HasPrefix(s, "**"):
			if j := strings.Index(s[2:], "**"); j > 0 {
				b.WriteString(st.strong.Render(s[2 : 2+j]))
				s = s[4+j:]
				continue
			}
		case s[0] == '*' || s[0] == '_':
			if j := strings.IndexByte(s[1:], s[0]); j > 0 && s[1] != ' ' {
				b.WriteString(st.emph.Render(s[1 : 1+j]))
				s = s[2+j:]
				continue
			}
		}
		b.WriteByte(s[0])
		s = s[1:]
	}
	return b.String()
}
