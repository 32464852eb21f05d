// Package sanitize makes text from outside Lantern (a model's reply, a
// server's error body or model name, a story's output, a file a person
// edited) safe to show: wherever such text reaches a terminal, a Markdown
// file, knowledgebase.md or a log, it goes through here, so it can neither
// move the cursor, retitle or clear the terminal, nor hide what follows.
// Where text is stored as data (lantern.db, JSON) it is kept verbatim and
// escaped by its encoder instead.
//
// The rule: every C0 control but line feed and tab, DEL, every C1 control
// (U+0080–U+009F, CSI U+009B and OSC U+009D among them) and every byte that
// is not UTF-8 (a lone 0x9B is CSI to an 8-bit terminal) is replaced by a
// visible stand-in: ESC and the other C0 controls and DEL by their caret
// notation (^[, ^G, ^?, as cat -v shows them), the rest by U+FFFD. The
// stand-ins are ASCII or U+FFFD, so not even a continuation byte 0x9B or
// 0x9D is added. A carriage return before a line feed is
// dropped; any other is a control too.
package sanitize

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// unsafe reports whether r must be replaced.
func unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	}
	return r == utf8.RuneError
}

// writeStandIn writes what replaces the control r.
func writeStandIn(b *strings.Builder, r rune) {
	switch {
	case r < 0x20:
		b.WriteByte('^')
		b.WriteByte(byte(r) + '@')
	case r == 0x7f:
		b.WriteString("^?")
	default:
		b.WriteRune(utf8.RuneError)
	}
}

// Clean reports whether s needs no change.
func Clean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafe(r) && !(r == utf8.RuneError && n == 3) {
			return false
		}
		i += n
	}
	return true
}

// Text is s with its controls replaced by visible stand-ins; line feeds and
// tabs stay. Clean text is returned as is, without copying.
func Text(s string) string {
	if Clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// a CRLF line end is a line end
		case r == utf8.RuneError && n == 3:
			b.WriteRune(r) // a real U+FFFD
		case unsafe(r):
			writeStandIn(&b, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Line is Text on one line: line feeds and tabs become spaces too, for a
// message, a status line or a log field.
func Line(s string) string {
	s = Text(s)
	if strings.ContainsAny(s, "\n\t") {
		s = strings.NewReplacer("\n", " ", "\t", " ").Replace(s)
	}
	return s
}

// Clip is s cut to at most max bytes (never inside a UTF-8 sequence), with
// "… (N bytes)" saying how long it was; a short s is returned as is.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}

// OneLine is s with every run of white space (newlines and tabs
// included) folded into one space, and none at either end.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ClipRunes is s cut to its first n runes, "…" marking the cut; a short s
// is returned as is.
func ClipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Writer passes what is written to w through Text. A multi-byte sequence
// split across two writes is held until its end arrives.
type Writer struct {
	w       io.Writer
	pending []byte
}

// NewWriter is a Writer onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes Text(p) to the underlying writer; it reports len(p) written
// when the underlying write succeeds.
func (s *Writer) Write(p []byte) (int, error) {
	data := p
	if len(s.pending) > 0 {
		data = append(s.pending, p...)
		s.pending = nil
	}
	// Hold back an incomplete UTF-8 sequence (or a CR that may start CRLF)
	// at the end.
	keep := 0
	for k := 1; k <= 3 && k <= len(data); k++ {
		c := data[len(data)-k]
		if utf8.RuneStart(c) {
			if c >= 0x80 && !utf8.FullRune(data[len(data)-k:]) {
				keep = k
			}
			break
		}
	}
	if keep == 0 && len(data) > 0 && data[len(data)-1] == '\r' {
		keep = 1
	}
	if keep > 0 {
		s.pending = append([]byte(nil), data[len(data)-keep:]...)
		data = data[:len(data)-keep]
	}
	if _, err := io.WriteString(s.w, Text(string(data))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what a Write held back (an incomplete sequence at the end of
// the stream), neutralised.
func (s *Writer) Flush() error {
	if len(s.pending) == 0 {
		return nil
	}
	rest := s.pending
	s.pending = nil
	_, err := io.WriteString(s.w, Text(string(rest)))
	return err
}

// JSONWriter passes JSON to w with DEL and the C1 controls, which
// encoding/json leaves raw inside strings, escaped as \u00XX: the text is
// kept verbatim as data and no control reaches a terminal. Each Write must
// hold whole UTF-8 sequences, as json.Encoder's do.
type JSONWriter struct{ w io.Writer }

// NewJSONWriter is a JSONWriter onto w.
func NewJSONWriter(w io.Writer) JSONWriter { return JSONWriter{w: w} }

// Write writes p with its C1 controls escaped.
func (j JSONWriter) Write(p []byte) (int, error) {
	if _, err := j.w.Write(EscapeJSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// EscapeJSON is JSON text with DEL and the C1 controls escaped as \u00XX
// (they can only stand inside strings, where the escape means the same).
func EscapeJSON(p []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(p); {
		c := p[i]
		if c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRune(p[i:])
		if r == 0x7f || r >= 0x80 && r <= 0x9f {
			out = append(out, p[last:i]...)
			out = fmt.Appendf(out, `\u%04x`, r)
			last = i + n
		}
		i += n
	}
	if out == nil {
		return p
	}
	return append(out, p[last:]...)
}
