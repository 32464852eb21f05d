package tui

import "testing"

// Model and story text never reaches the terminal with a control sequence
// in it: ESC sequences, C0 controls, DEL and C1 controls (U+009B is an
// 8-bit CSI) are removed; newlines stay and tabs become spaces.
func TestCleanRemovesControls(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"red \x1b[31mtext\x1b[0m", "red text"},
		{"title\x1b]0;pwned\x07 here", "title here"},
		{"bell\x07 and del\x7f", "bell and del"},
		{"c1 \u009b31m csi", "c1 31m csi"},
		{"line\r\nnext\tcol", "line\nnext    col"},
		{"naïve ümlaut ✓", "naïve ümlaut ✓"},
	} {
		if got := clean(tc.in); got != tc.want {
			t.Errorf("clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
