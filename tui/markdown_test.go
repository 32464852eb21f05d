package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestRenderMD(t *testing.T) {
	tests := []struct {
		name, md string
		want     []string // lines of the plain text, in order
	}{
		{"heading and paragraph", "## [SUCCESS] Orchard\n\nGoing north\nreaches the orchard.\n",
			[]string{"  [SUCCESS] Orchard", "", "  Going north reaches", "  the orchard."}},
		{"list", "- take lamp\n- go `north`\n3. wait\n", []string{"  • take lamp", "  • go north", "  3. wait"}},
		{"quote", "> superseded by L3\n", []string{"  │ superseded by L3"}},
		{"emphasis", "*L3 Lane · active* and **bold** and a*b", []string{"  L3 Lane · active and", "  bold and a*b"}},
		{"code fence", "```\nopen mailbox\n```\n", []string{"    open mailbox"}},
		{"wrap", "one two three four five six seven eight nine ten eleven twelve", []string{
			"  one two three four", "  five six seven eight", "  nine ten eleven", "  twelve"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Split(strings.TrimRight(ansi.Strip(renderMD(tc.md, 22, true)), "\n"), "\n")
			for i := range got {
				got[i] = strings.TrimRight(got[i], " ")
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
