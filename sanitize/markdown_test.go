package sanitize

import (
	"strings"
	"testing"
)

func TestEscapeBlock(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{"# Memories (rewritten)", `\# Memories (rewritten)`},
		{"## L999: Nowhere", `\## L999: Nowhere`},
		{"---", `\---`},
		{"--", `\--`},
		{"- - -", `\- - -`},
		{"--verbose is a flag", "--verbose is a flag"},
		{"--- Do not climb.", `\--- Do not climb.`},
		{"- item", `\- item`},
		{"-", `\-`},
		{"+ item", `\+ item`},
		{"+1 for that", "+1 for that"},
		{"* item", `\* item`},
		{"***", `\***`},
		{"*important* first", "*important* first"},
		{"**[SUCCESS] Injected memory**", `\**[SUCCESS] Injected memory**`},
		{"**bold** start", "**bold** start"},
		{"___", `\___`},
		{"_under_ score", "_under_ score"},
		{"===", `\===`},
		{"= 3", "= 3"},
		{"> quoted", `\> quoted`},
		{"```go", "\\```go"},
		{"``inline``", "``inline``"},
		{"~~~", `\~~~`},
		{"<script>", `\<script>`},
		{"[x]: http://evil", `\[x]: http://evil`},
		{"[Superseded by \"A\"]", `\[Superseded by "A"]`},
		{"| a | b |", `\| a | b |`},
		{`\# already`, `\\# already`},
		{`\n`, `\\n`},
		{"1. first", `1\. first`},
		{"12) twelfth", `12\) twelfth`},
		{"1.", `1\.`},
		{"1.5 kg of flour", "1.5 kg of flour"},
		{`3\. odd`, `3\\. odd`},
		{"2024 was a year", "2024 was a year"},
		{"   # indented", `   \# indented`},
		{"\t- tabbed", "\t\\- tabbed"},
		{"Open the door. # not a heading", "Open the door. # not a heading"},
	}
	for _, tc := range tests {
		got := EscapeBlock(tc.in)
		if got != tc.want {
			t.Errorf("EscapeBlock(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if back := UnescapeBlock(got); back != tc.in {
			t.Errorf("UnescapeBlock(%q) = %q, want %q back", got, back, tc.in)
		}
	}
}

// UnescapeBlock of a line a person wrote, then EscapeBlock, then
// UnescapeBlock again gives the same text: hand-written escapes are read
// as Markdown reads them and stay stable.
func TestUnescapeBlockStable(t *testing.T) {
	tests := []struct{ in, want string }{
		{`\# heading`, "# heading"},
		{`\a not an escape`, `\a not an escape`},
		{`1\x`, `1\x`},
		{`1\. item`, "1. item"},
		{`\`, `\`},
		{"plain", "plain"},
		{`  \> quote`, "  > quote"},
	}
	for _, tc := range tests {
		d := UnescapeBlock(tc.in)
		if d != tc.want {
			t.Errorf("UnescapeBlock(%q) = %q, want %q", tc.in, d, tc.want)
		}
		if again := UnescapeBlock(EscapeBlock(d)); again != d {
			t.Errorf("%q: round trip gives %q", d, again)
		}
	}
}

func TestMarkdownLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"one line", "one line"},
		{"x\n\n---\n# Memories (rewritten)\n\n## L999: Nowhere", "x --- # Memories (rewritten) ## L999: Nowhere"},
		{"\n# first\nsecond  \r\n", `\# first second`},
		{"  padded  ", "padded"},
		{"\x1b[2J# after a control", "^[[2J# after a control"},
		{"\u009b\n# x", "\uFFFD # x"},
	}
	for _, tc := range tests {
		if got := MarkdownLine(tc.in); got != tc.want {
			t.Errorf("MarkdownLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMarkdownLists(t *testing.T) {
	tests := []struct{ in, want string }{
		{"- Explore first\n- Then map", "- Explore first\n- Then map"},
		{"1. Take the lamp\n2. Go north", "1. Take the lamp\n2. Go north"},
		{"  - nested\n    * deeper", "  - nested\n    * deeper"},
		{"## Episode notes\n- forged", "\\## Episode notes\n- forged"},
		{"Strategy\n---", "Strategy\n\\---"},
		{"Title\n===", "Title\n\\==="},
		{"- - -", `\- - -`},
		{"* * *", `\* * *`},
		{"- # heading in an item", `- \# heading in an item`},
		{"1. > quote in an item", `1. \> quote in an item`},
		{"- - # nested heading", `- - \# nested heading`},
		{"```\nswallowed\n```", "\\```\nswallowed\n\\```"},
		{"<!-- hidden", `\<!-- hidden`},
		{"| a | b |", `\| a | b |`},
		{"2024 was a year", "2024 was a year"},
		{`12\x`, `12\x`},
		{"\x1b]0;t\x07- x", "^[]0;t^G- x"},
	}
	for _, tc := range tests {
		got := MarkdownLists(tc.in)
		if got != tc.want {
			t.Errorf("MarkdownLists(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if again := MarkdownLists(got); again != got {
			t.Errorf("MarkdownLists is not stable on %q: %q", got, again)
		}
	}
}

func TestFoldLines(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"a", "a"},
		{" a  b ", "a  b"},
		{"a\nb", "a b"},
		{"a \r\n\r\n  b\rc", "a b c"},
		{"\n\n", ""},
	}
	for _, tc := range tests {
		if got := FoldLines(tc.in); got != tc.want {
			t.Errorf("FoldLines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if strings.Contains(FoldLines("x\ny"), "\n") {
		t.Error("a line break survived")
	}
}

// FuzzEscapeBlock: whatever a line holds, the escape is taken off exactly,
// and the escaped line starts no block.
func FuzzEscapeBlock(f *testing.F) {
	for _, s := range []string{"# x", `\`, `1\.`, "- ", "***", "  ```", "12) x", "plain"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\n\r") {
			return
		}
		e := EscapeBlock(s)
		if back := UnescapeBlock(e); back != s {
			t.Fatalf("%q → %q → %q", s, e, back)
		}
		if _, starts := blockStart(e[indent(e):]); starts && e[indent(e)] != '\\' && digits(e[indent(e):]) == 0 {
			t.Fatalf("%q still starts a block", e)
		}
	})
}
