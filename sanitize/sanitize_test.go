package sanitize

import (
	"bytes"
	"strings"
	"testing"
)

// hostile holds every form of control a model or server could send.
var hostile = []string{
	"\x1b]0;pwned\x07", "\x1b[2J", "\u009b2J", "\u009d0;title\u009c", "\x9b31m", "\x9d", "a\rb", "\x00\x08\x7f",
}

func noControls(t *testing.T, s string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\u009b", "\u009d", "\x9b", "\x9d", "\x07", "\x00", "\x08", "\x7f"} {
		if strings.Contains(s, bad) {
			t.Fatalf("%q still holds %q", s, bad)
		}
	}
	if strings.Contains(strings.ReplaceAll(s, "\r\n", ""), "\r") {
		t.Fatalf("%q still holds a carriage return", s)
	}
}

func TestText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\n\twith tabs", "plain text\n\twith tabs"},
		{"Zörk — 森 �", "Zörk — 森 �"},
		{"\x1b]0;pwned\x07x", "^[]0;pwned^Gx"},
		{"\x1b[2J", "^[[2J"},
		{"a\u009b2Jb", "a\uFFFD2Jb"},
		{"a\u009d0;t\u009cb", "a\uFFFD0;t\uFFFDb"},
		{"raw \x9b byte", "raw \uFFFD byte"},
		{"line\r\nnext", "line\nnext"},
		{"over\rwrite", "over^Mwrite"},
		{"del\x7f", "del^?"},
	}
	for _, tc := range tests {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
		noControls(t, Text(tc.in))
		if Clean(tc.in) != (tc.in == tc.want) {
			t.Errorf("Clean(%q) = %v", tc.in, Clean(tc.in))
		}
	}
}

func TestLine(t *testing.T) {
	if got := Line("a\nb\tc\x1b"); got != "a b c^[" {
		t.Fatalf("Line = %q", got)
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("é", 1000)
	got := Clip(long, 101)
	if len(got) > 130 || !strings.HasSuffix(got, "… (2000 bytes)") || !strings.HasPrefix(got, "éé") {
		t.Fatalf("Clip = %q", got)
	}
	if Clip("short", 10) != "short" {
		t.Fatal("a short string changed")
	}
}

// Every split of every hostile sequence across two writes comes out
// neutralised, and the text between is kept.
func TestWriterSplits(t *testing.T) {
	for _, h := range hostile {
		in := "ok " + h + " ünï 森\r\n"
		for cut := 0; cut <= len(in); cut++ {
			var out bytes.Buffer
			w := NewWriter(&out)
			w.Write([]byte(in[:cut]))
			w.Write([]byte(in[cut:]))
			w.Flush()
			noControls(t, out.String())
			if out.String() != Text(in) {
				t.Fatalf("split at %d of %q: %q, want %q", cut, in, out.String(), Text(in))
			}
		}
	}
}

func BenchmarkTextClean(b *testing.B) {
	s := strings.Repeat("West of House. You are standing in an open field. ", 40)
	for b.Loop() {
		Text(s)
	}
}

func TestEscapeJSON(t *testing.T) {
	in := []byte(`{"a":"x` + "\u009b2J\u009d\x7f" + `ü"}`)
	got := string(EscapeJSON(in))
	if got != `{"a":"x\u009b2J\u009d\u007fü"}` {
		t.Fatalf("EscapeJSON = %s", got)
	}
}

func TestForeignEncoding(t *testing.T) {
	utf16le := func(s string) []byte {
		var b []byte
		for _, r := range s {
			b = append(b, byte(r), 0)
		}
		return b
	}
	utf32le := func(s string) []byte {
		var b []byte
		for _, r := range s {
			b = append(b, byte(r), 0, 0, 0)
		}
		return b
	}
	text := "# Knowledge base: zork\n\n## Strategy\n\n- Light the lamp.\n"
	tests := []struct {
		name    string
		data    []byte
		foreign bool
	}{
		{"UTF-8", []byte(text), false},
		{"UTF-8 with a mark", append([]byte{0xEF, 0xBB, 0xBF}, text...), false},
		{"UTF-16 with a mark", append([]byte{0xFF, 0xFE}, utf16le(text)...), false},
		{"UTF-16 without a mark", utf16le(text), true},
		{"UTF-32 with a mark", append([]byte{0xFF, 0xFE, 0, 0}, utf32le(text)...), true},
		{"UTF-32 without a mark", utf32le(text), true},
		{"empty", nil, false},
	}
	for _, tc := range tests {
		if got := ForeignEncoding(tc.data); (got != "") != tc.foreign {
			t.Errorf("%s: %q", tc.name, got)
		}
	}
}

// TestOneLineAndClipRunes: white space folds to single spaces, trimmed;
// ClipRunes counts runes, not bytes, and marks only a real cut.
func TestOneLineAndClipRunes(t *testing.T) {
	if got := OneLine("  a\n\tb  c \r\n"); got != "a b c" {
		t.Errorf("OneLine = %q", got)
	}
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"héllo", 5, "héllo"},
		{"héllo", 2, "hé…"},
		{"日本語", 1, "日…"},
		{"", 0, ""},
		{"ab", 0, "…"},
	} {
		if got := ClipRunes(tt.in, tt.n); got != tt.want {
			t.Errorf("ClipRunes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
