package mdcheck

import (
	"slices"
	"testing"
)

func TestBlocks(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Kind
	}{
		{"paragraphs only", "one\ntwo\n\nthree", nil},
		{"headings", "# a\n\n## b\n   ### c\n#nope", []Kind{Heading, Heading, Heading}},
		{"setext under a paragraph", "text\n===\n\ntext\n---", []Kind{Setext, Setext}},
		{"rules", "---\n\n* * *\n___", []Kind{Rule, Rule, Rule}},
		{"lists", "- a\n+ b\n* c\n1. d\n2) e\n-x\n1.5", []Kind{List, List, List, List, List}},
		{"quote", "> q", []Kind{Quote}},
		{"fence hides its inside", "```\n# not a heading\n```\n# heading", []Kind{Fence, Heading}},
		{"indented code", "    code\n\npara\n    continued", []Kind{Code}},
		{"html", "<div>\n\n< not html", []Kind{HTML}},
		{"table", "| a |", []Kind{Table}},
		{"link definition", "[x]: /url\n\npara\n[y]: /url", []Kind{LinkDef}},
		{"escaped", "\\# a\n\\---\n\\- b\n1\\. c\n\\**[X] t**", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []Kind
			for _, b := range Blocks(tc.in) {
				got = append(got, b.Kind)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("kinds %v, want %v (%+v)", got, tc.want, Blocks(tc.in))
			}
		})
	}
}
