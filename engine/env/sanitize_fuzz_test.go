package env

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSanitize checks what Sanitize promises the story: one line of at most
// MaxCommand characters, valid UTF-8, with no control or escape characters
// (C0, DEL, C1, ESC), and that sanitising twice changes nothing.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{
		"",
		"open mailbox",
		"go north\nsave",
		"look\r\nquit",
		"\rlook",
		"\x1b[31mred\x1b[0m",
		"\x1b]0;title\x07look",
		"  take\tlamp  ",
		"take\x00lamp",
		"\x7fdelete",
		"c1 \u0085 next line \u009b csi",
		"line\u2028separator\u2029paragraph",
		"bidi \u202eabc\u202c zero\u200bwidth",
		"\ufeffbom",
		"bad utf-8 \xff\xfe \xc3",
		"\xe2\x82",
		"nbsp\u00a0here\u3000ideographic",
		"ünïcödé 日本語 🙂 e\u0301",
		strings.Repeat("a", 300),
		strings.Repeat("é", 250),
		strings.Repeat(" ", 199) + "x" + strings.Repeat(" ", 10) + "y",
		strings.Repeat("\x01", 50) + strings.Repeat("b", 199) + "  c",
		strings.Repeat("ab ", 67) + "\x1bc",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in)
		if strings.ContainsAny(out, "\r\n") {
			t.Errorf("Sanitize(%q) = %q: more than one line", in, out)
		}
		if n := utf8.RuneCountInString(out); n > MaxCommand {
			t.Errorf("Sanitize(%q): %d characters, at most %d", in, n, MaxCommand)
		}
		if !utf8.ValidString(out) {
			t.Errorf("Sanitize(%q) = %q: not valid UTF-8", in, out)
		}
		for i, r := range out {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
				t.Errorf("Sanitize(%q) = %q: control character %U at byte %d", in, out, r, i)
				break
			}
		}
		if again := Sanitize(out); again != out {
			t.Errorf("not idempotent: Sanitize(%q) = %q, Sanitize of that = %q", in, out, again)
		}
	})
}
