package sanitize

import "strings"

// Markdown files Lantern writes for people (Memories.md, knowledgebase.md,
// exports) hold text that came from a model, a story or a person. Such text
// is data: it must not become structure when the file is read as Markdown
// (a heading, a rule, a list, a quote, a fence, HTML, a table, a link
// definition, a setext underline that turns the line above into a
// heading), nor when Lantern reads its own files back.
//
// The rule chosen: a text Lantern writes as one item (a memory's text, a
// lesson, an episode note) is folded onto one line (FoldLines), and the
// marker that would make a line start a block is escaped with a backslash,
// as Markdown itself escapes (EscapeBlock). A Markdown reader shows the
// line as written; Lantern's own parsers take the backslash off again
// (UnescapeBlock), so the text round-trips exactly. Text meant as Markdown
// (a strategy of bullet points) keeps its paragraphs and lists and loses
// every other block (MarkdownLists).

// FoldLines is s on one line: every line break, with the white space around
// it, becomes one space; blank lines go; the ends are trimmed.
func FoldLines(s string) string {
	if !strings.ContainsAny(s, "\n\r") {
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for l := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(l)
	}
	return b.String()
}

// MarkdownLine is s as one line of Markdown text: its controls neutralised
// (Text), folded onto one line (FoldLines), a leading block marker escaped
// (EscapeBlock).
func MarkdownLine(s string) string { return EscapeBlock(FoldLines(Text(s))) }

// escapable are the characters a backslash before a line's first character
// escapes (UnescapeBlock takes it off again).
const escapable = "#>-+*_=`~<[|\\"

// indent is the length of the spaces and tabs that start line.
func indent(line string) int {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return i
}

func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// endsMarker reports whether s (what follows a list marker) lets the
// marker start a list item: nothing, a space or a tab.
func endsMarker(s string) bool { return s == "" || s[0] == ' ' || s[0] == '\t' }

// onlyOf reports whether s holds c and nothing but spaces and tabs besides,
// at least min times.
func onlyOf(s string, c byte, min int) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= min
}

// blockStart reports whether rest, a line without its indentation, would
// start a block (or end a paragraph as a setext underline); at is where
// the escaping backslash goes: 0, or after an ordered list item's number.
func blockStart(rest string) (at int, ok bool) {
	if rest == "" {
		return 0, false
	}
	switch c := rest[0]; c {
	case '#', '>', '<', '[', '|', '\\':
		return 0, true
	case '-':
		// a list item, a rule or setext underline, or a line that merely
		// begins like a rule (for a reader that looks at the start alone)
		return 0, endsMarker(rest[1:]) || onlyOf(rest, '-', 2) || strings.HasPrefix(rest, "---")
	case '+':
		return 0, endsMarker(rest[1:])
	case '*':
		return 0, endsMarker(rest[1:]) || onlyOf(rest, '*', 3) || strings.HasPrefix(rest, "**[")
	case '_':
		return 0, onlyOf(rest, '_', 3)
	case '=':
		return 0, onlyOf(rest, '=', 1)
	case '`', '~':
		return 0, strings.HasPrefix(rest, strings.Repeat(string(c), 3))
	}
	if n := digits(rest); n > 0 && n < len(rest) {
		switch rest[n] {
		case '\\':
			return n, true // escaped so that UnescapeBlock leaves it be
		case '.', ')':
			return n, endsMarker(rest[n+1:])
		}
	}
	return 0, false
}

// EscapeBlock is line with the marker that would make it start a Markdown
// block escaped by a backslash: `# x` → `\# x`, `---` → `\---`, `- x` →
// `\- x`, `1. x` → `1\. x`, `**[` → `\**[`; a leading backslash is doubled.
// Indentation is kept, the backslash goes after it. A line that starts
// nothing is returned as it is. UnescapeBlock(EscapeBlock(s)) == s for
// every line s.
func EscapeBlock(line string) string {
	in := indent(line)
	at, ok := blockStart(line[in:])
	if !ok {
		return line
	}
	at += in
	return line[:at] + `\` + line[at:]
}

// UnescapeBlock takes off the backslash EscapeBlock put at the start of a
// line (after its indentation, or after an ordered list item's number); a
// line without one is returned as it is.
func UnescapeBlock(line string) string {
	in := indent(line)
	rest := line[in:]
	at := 0
	if n := digits(rest); n > 0 {
		if n+1 < len(rest) && rest[n] == '\\' && strings.IndexByte(`.)\`, rest[n+1]) >= 0 {
			at = n
		} else {
			return line
		}
	} else if len(rest) < 2 || rest[0] != '\\' || strings.IndexByte(escapable, rest[1]) < 0 {
		return line
	}
	at += in
	return line[:at] + line[at+1:]
}

// MarkdownLists is Markdown text kept to paragraphs and lists (a strategy
// of bullet points): in every line, after its indentation and list markers,
// what would start any other block (a heading, a rule, a setext underline,
// a quote, a fence, HTML, a table, a link definition) is escaped by a
// backslash. Controls are neutralised (Text). MarkdownLists of its own
// result changes nothing.
func MarkdownLists(s string) string {
	s = Text(s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = listLine(l)
	}
	return strings.Join(lines, "\n")
}

// listLine escapes one line for MarkdownLists.
func listLine(l string) string {
	at := indent(l)
	for {
		rest := l[at:]
		if _, ok := blockStart(rest); !ok {
			return l
		}
		// a list item's marker stays (but a rule made of markers does not)
		n := 0
		switch {
		case rest[0] == '-' || rest[0] == '+' || rest[0] == '*':
			if onlyOf(rest, rest[0], 3) || rest[0] == '-' && onlyOf(rest, '-', 2) {
				break
			}
			if endsMarker(rest[1:]) {
				n = 1
			}
		default:
			if d := digits(rest); d > 0 && d < len(rest) && (rest[d] == '.' || rest[d] == ')') && endsMarker(rest[d+1:]) {
				n = d + 1
			}
		}
		if n == 0 {
			if rest[0] == '\\' || rest[0] >= '0' && rest[0] <= '9' {
				return l // already escaped, or a number that starts no list
			}
			return l[:at] + `\` + rest
		}
		at += n + indent(rest[n:])
	}
}
