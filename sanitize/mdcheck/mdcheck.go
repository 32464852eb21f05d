// Package mdcheck is test-only: it finds the lines of a Markdown text that
// start a block other than a paragraph (CommonMark's rules, read
// conservatively, with GFM tables), so tests can hold the files Lantern
// writes for people to one rule: text that came from outside never becomes
// structure. It is no Markdown parser; it errs on the side of reporting.
package mdcheck

import "strings"

// Kind is what a block-starting line starts.
type Kind string

// The kinds reported.
const (
	Heading Kind = "heading" // an ATX heading: #, ##, ...
	Setext  Kind = "setext"  // an underline (=== or ---) that makes the paragraph above a heading
	Rule    Kind = "rule"    // a thematic break: ---, ***, ___, - - -
	Quote   Kind = "quote"   // >
	List    Kind = "list"    // -, +, * or 1. / 1) and a space
	Fence   Kind = "fence"   // ``` or ~~~
	Code    Kind = "code"    // an indented code block
	HTML    Kind = "html"    // <tag, </tag, <!--, <?
	Table   Kind = "table"   // a line starting with |
	LinkDef Kind = "linkdef" // [label]: destination
)

// Block is one line that starts a block.
type Block struct {
	Line int // 1-based
	Kind Kind
	Text string
}

// Blocks lists the lines of text that start a block, in order. Inside a
// fence nothing more is reported until the fence closes.
func Blocks(text string) []Block {
	var out []Block
	para := false // the line before continues a paragraph
	fence := ""   // the open fence's marker
	for i, raw := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		add := func(k Kind) { out = append(out, Block{Line: i + 1, Kind: k, Text: raw}) }
		if fence != "" {
			if strings.HasPrefix(strings.TrimLeft(raw, " "), fence) {
				fence = ""
			}
			continue
		}
		if strings.TrimSpace(raw) == "" {
			para = false
			continue
		}
		col, rest := columns(raw)
		if col >= 4 {
			if !para {
				add(Code)
			}
			continue
		}
		switch k := kindOf(rest, para); k {
		case "":
			para = true
		case Fence:
			add(k)
			fence = rest[:3]
			para = false
		default:
			add(k)
			para = false
		}
	}
	return out
}

// columns is the indentation of line in columns (a tab to the next
// multiple of four) and the line after it.
func columns(line string) (int, string) {
	col := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col, line[i:]
		}
	}
	return col, ""
}

func kindOf(rest string, para bool) Kind {
	trimmed := strings.TrimRight(rest, " \t")
	switch {
	case para && (only(trimmed, '=') || only(trimmed, '-')):
		return Setext
	case thematic(trimmed):
		return Rule
	case atx(rest):
		return Heading
	case strings.HasPrefix(rest, "```") || strings.HasPrefix(rest, "~~~"):
		return Fence
	case rest[0] == '>':
		return Quote
	case listItem(rest):
		return List
	case rest[0] == '<' && len(rest) > 1 && (isLetter(rest[1]) || strings.ContainsRune("/!?", rune(rest[1]))):
		return HTML
	case rest[0] == '|':
		return Table
	case !para && rest[0] == '[' && strings.Contains(rest, "]:"):
		return LinkDef
	}
	return ""
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// only reports whether s is one or more c.
func only(s string, c byte) bool { return s != "" && strings.Trim(s, string(c)) == "" }

func thematic(s string) bool {
	if s == "" || !strings.ContainsRune("-*_", rune(s[0])) {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case s[0]:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

func atx(s string) bool {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(s) || s[n] == ' ' || s[n] == '\t')
}

func listItem(s string) bool {
	after := func(i int) bool { return i == len(s) || s[i] == ' ' || s[i] == '\t' }
	if strings.ContainsRune("-+*", rune(s[0])) {
		return after(1)
	}
	n := 0
	for n < len(s) && n < 10 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n >= 1 && n <= 9 && n < len(s) && (s[n] == '.' || s[n] == ')') && after(n+1)
}
