package zasm

import (
	"fmt"
	"strings"
)

// Text (Standards Document §3): ZSCII, Z-characters, Z-strings with
// abbreviations, dictionary words.

// alphabet2 is alphabet A2 from Z-character 6 on (v2+): 6 is the ZSCII escape
// and 7 the newline, so neither is looked up here.
const alphabet2 = "\x00\r0123456789.,!?_#'\"/\\-:()"

// defaultUnicode is the default translation of ZSCII 155–223 (§3.8.5.3).
const defaultUnicode = "äöüÄÖÜß»«ëïÿËÏáéíóúýÁÉÍÓÚÝàèìòùÀÈÌÒÙâêîôûÂÊÎÔÛåÅøØãñõÃÑÕæÆçÇþðÞÐ£œŒ¡¿"

// toZSCII converts text to ZSCII: printable ASCII, '\n' as 13, and the
// characters of the default Unicode table.
func toZSCII(s string) ([]uint16, error) {
	out := make([]uint16, 0, len(s))
	for _, r := range s {
		switch {
		case r >= 32 && r <= 126:
			out = append(out, uint16(r))
		case r == '\n':
			out = append(out, 13)
		default:
			i := strings.IndexRune(defaultUnicode, r)
			if i < 0 {
				return nil, fmt.Errorf("%w: %q has no ZSCII code", ErrText, r)
			}
			out = append(out, uint16(155+len([]rune(defaultUnicode[:i]))))
		}
	}
	return out, nil
}

// zcharsOf appends the Z-characters for one ZSCII code (v3+ alphabets).
func zcharsOf(zc []byte, c uint16) []byte {
	switch {
	case c == ' ':
		return append(zc, 0)
	case c >= 'a' && c <= 'z':
		return append(zc, byte(6+c-'a'))
	case c >= 'A' && c <= 'Z':
		return append(zc, 4, byte(6+c-'A'))
	}
	if c < 128 {
		if i := strings.IndexByte(alphabet2[1:], byte(c)); i >= 0 {
			return append(zc, 5, byte(7+i))
		}
	}
	return append(zc, 5, 6, byte(c>>5), byte(c&0x1f))
}

// abbrev is one abbreviation: its ZSCII text and its index (0–95).
type abbrev struct {
	text  []uint16
	index int
}

// encoder turns text into Z-characters, using the story's abbreviations.
type encoder struct {
	abbrevs []abbrev // longest first
}

// zchars encodes ZSCII text as Z-characters. With abbreviations, the longest
// one that starts at each position and saves space replaces its text.
func (e *encoder) zchars(text []uint16, useAbbrevs bool) []byte {
	zc := make([]byte, 0, len(text)+len(text)/2)
	for i := 0; i < len(text); {
		if useAbbrevs {
			if a := e.match(text[i:]); a != nil {
				zc = append(zc, byte(1+a.index/32), byte(a.index%32))
				i += len(a.text)
				continue
			}
		}
		zc = zcharsOf(zc, text[i])
		i++
	}
	return zc
}

func (e *encoder) match(text []uint16) *abbrev {
	for k := range e.abbrevs {
		a := &e.abbrevs[k]
		if len(a.text) > len(text) || len(a.text) < 2 {
			continue
		}
		ok := true
		for j, c := range a.text {
			if text[j] != c {
				ok = false
				break
			}
		}
		if ok && cost(a.text) > 2 {
			return a
		}
	}
	return nil
}

// cost is the number of Z-characters text takes without abbreviations.
func cost(text []uint16) int {
	var buf [4]byte
	n := 0
	for _, c := range text {
		n += len(zcharsOf(buf[:0], c))
	}
	return n
}

// pack packs Z-characters three to a word, padding with 5s and setting the
// end bit on the last word. An empty string is one word of padding.
func pack(zc []byte) []byte {
	for len(zc) == 0 || len(zc)%3 != 0 {
		zc = append(zc, 5)
	}
	out := make([]byte, 0, 2*len(zc)/3)
	for i := 0; i < len(zc); i += 3 {
		w := uint16(zc[i])<<10 | uint16(zc[i+1])<<5 | uint16(zc[i+2])
		if i+3 == len(zc) {
			w |= 0x8000
		}
		out = append(out, byte(w>>8), byte(w))
	}
	return out
}

// encodeString encodes text as a Z-string.
func (e *encoder) encodeString(text string, useAbbrevs bool) ([]byte, error) {
	zs, err := toZSCII(text)
	if err != nil {
		return nil, err
	}
	return pack(e.zchars(zs, useAbbrevs)), nil
}

// dictKey encodes a dictionary word as the interpreter encodes typed words:
// lower case, cut to 6 Z-characters (9 in v4+), padded with 5s.
func dictKey(word string, v int) ([]byte, error) {
	zs, err := toZSCII(strings.ToLower(word))
	if err != nil {
		return nil, err
	}
	for _, c := range zs {
		if c == ' ' || c == 13 {
			return nil, fmt.Errorf("%w: dictionary word %q contains white space", ErrText, word)
		}
	}
	n := 6
	if v >= 4 {
		n = 9
	}
	var zc []byte
	for _, c := range zs {
		zc = zcharsOf(zc, c)
	}
	if len(zc) > n {
		zc = zc[:n]
	}
	for len(zc) < n {
		zc = append(zc, 5)
	}
	return pack(zc), nil
}

// EncodeString returns text as a Z-string (without abbreviations), for tests
// and tools that write strings into tables themselves.
func EncodeString(text string) ([]byte, error) {
	var e encoder
	return e.encodeString(text, false)
}
