package zmachine

import "strconv"

// Text (§3): Z-string decoding with abbreviations and custom alphabets, ZSCII
// to Unicode through the (default or story's) translation table, and encoding
// of words for dictionary look-up.

const (
	a2v1 = " 0123456789.,!?_#'\"/\\<-:()"
	a2v2 = " \r0123456789.,!?_#'\"/\\-:()"
)

// defaultUnicode is the translation of ZSCII 155–223 (§3.8.5.3).
const defaultUnicode = "äöüÄÖÜß»«ëïÿËÏáéíóúýÁÉÍÓÚÝàèìòùÀÈÌÒÙâêîôûÂÊÎÔÛåÅøØãñõÃÑÕæÆçÇþðÞÐ£œŒ¡¿"

func itoa(n int) string { return strconv.Itoa(n) }

// alphabetChar is the ZSCII code of z-character c (6–31) in alphabet a.
func (m *Machine) alphabetChar(a int, c uint16) uint16 {
	if m.alphabet != 0 {
		if a == 2 && c == 7 {
			return 13
		}
		return uint16(m.mem[m.alphabet+uint32(26*a)+uint32(c-6)])
	}
	switch a {
	case 0:
		return 'a' + c - 6
	case 1:
		return 'A' + c - 6
	}
	if m.v == 1 {
		return uint16(a2v1[c-6])
	}
	if c == 7 {
		return 13
	}
	return uint16(a2v2[c-6])
}

// zscii decodes the Z-string at addr into ZSCII codes appended to out and
// returns them with the address after the string.
func (m *Machine) zscii(addr uint32, out []uint16, depth int) ([]uint16, uint32) {
	alpha, lock := 0, 0
	abbrev, esc := uint16(0), 0
	var escHi uint16
	for {
		w := m.word(addr)
		addr += 2
		for shift := 10; shift >= 0; shift -= 5 {
			c := (w >> uint(shift)) & 0x1f
			switch {
			case esc == 1:
				escHi, esc = c, 2
			case esc == 2:
				out = append(out, escHi<<5|c)
				esc = 0
			case abbrev != 0:
				out = m.expandAbbrev(32*(abbrev-1)+c, out, depth)
				abbrev = 0
			case c == 0:
				out = append(out, ' ')
				alpha = lock
			case c == 1 && m.v == 1:
				out = append(out, 13)
				alpha = lock
			case c <= 3 && (m.v >= 3 || c == 1):
				abbrev = c
				alpha = lock
			case c <= 3: // v1–2 temporary shift
				alpha = (lock + int(c) - 1) % 3
			case c <= 5:
				if m.v >= 3 {
					alpha = int(c) - 3
				} else {
					lock = (lock + int(c) - 3) % 3
					alpha = lock
				}
			case alpha == 2 && c == 6:
				esc = 1
				alpha = lock
			default:
				out = append(out, m.alphabetChar(alpha, c))
				alpha = lock
			}
		}
		if w&0x8000 != 0 {
			return out, addr
		}
	}
}

func (m *Machine) expandAbbrev(i uint16, out []uint16, depth int) []uint16 {
	if depth > 0 || m.abbrevs == 0 {
		return out // abbreviations may not nest (§3.3.1)
	}
	a := 2 * uint32(m.word(m.abbrevs+2*uint32(i)))
	out, _ = m.zscii(a, out, depth+1)
	return out
}

// decodeZString decodes the Z-string at addr to text.
func (m *Machine) decodeZString(addr uint32) (string, uint32) {
	zs, end := m.zscii(addr, nil, 0)
	buf := make([]rune, 0, len(zs))
	for _, c := range zs {
		if r, ok := m.zsciiRune(c); ok {
			buf = append(buf, r)
		}
	}
	return string(buf), end
}

// printZString prints the Z-string at addr and returns the address after it.
func (m *Machine) printZString(addr uint32) uint32 {
	zs, end := m.zscii(addr, m.out.scratch[:0], 0)
	for _, c := range zs {
		m.printZSCII(c)
	}
	m.out.scratch = zs[:0]
	return end
}

// zsciiRune translates a ZSCII output code; ok is false for codes that print
// nothing.
func (m *Machine) zsciiRune(c uint16) (rune, bool) {
	switch {
	case c >= 32 && c <= 126:
		return rune(c), true
	case c == 13:
		return '\n', true
	case c == 9 || c == 11:
		return ' ', true
	case c >= 155 && c <= 251:
		if r := m.unicodeFor(c); r != 0 {
			return r, true
		}
		return '?', true
	case c == 255:
		return '?', true
	}
	// The other control codes, DEL (127), the input-only codes 128–154 and
	// the mouse codes 252–254 print nothing (as in frotz).
	return 0, false
}

func (m *Machine) unicodeFor(c uint16) rune {
	i := int(c) - 155
	if m.unicode != 0 {
		n := int(m.byteAt(m.unicode))
		if i >= n {
			return 0
		}
		return rune(m.word(m.unicode + 1 + 2*uint32(i)))
	}
	k := 0
	for _, r := range defaultUnicode {
		if k == i {
			return r
		}
		k++
	}
	return 0
}

// runeZSCII translates typed text to ZSCII; ok is false when it has none.
func (m *Machine) runeZSCII(r rune) (uint16, bool) {
	switch {
	case r >= 32 && r <= 126:
		return uint16(r), true
	case r == '\n' || r == '\r':
		return 13, true
	}
	if m.unicode != 0 {
		n := int(m.byteAt(m.unicode))
		for i := 0; i < n; i++ {
			if rune(m.word(m.unicode+1+2*uint32(i))) == r {
				return uint16(155 + i), true
			}
		}
		return 0, false
	}
	i := 0
	for _, d := range defaultUnicode {
		if d == r {
			return uint16(155 + i), true
		}
		i++
	}
	return 0, false
}

func checkUnicode(r rune) uint16 {
	switch {
	case r < 32 && r != 10 && r != 13:
		return 0
	case r >= 0xd800 && r < 0xe000, r > 0xffff:
		return 0
	}
	return 3
}

// encodeZChars encodes ZSCII text as a dictionary word: 6 z-characters in
// two words (v1–3) or 9 in three (v4+), padded with 5s, end bit on the last.
func (m *Machine) encodeZChars(text []uint16) [3]uint16 {
	n := 6
	if m.v >= 4 {
		n = 9
	}
	zc := make([]uint16, 0, 12)
	for _, c := range text {
		if len(zc) >= n {
			break
		}
		if a, z, ok := m.findInAlphabet(c); ok {
			if a > 0 {
				shift := uint16(3 + a)
				if m.v <= 2 {
					shift = uint16(1 + a)
				}
				zc = append(zc, shift)
			}
			zc = append(zc, z)
			continue
		}
		shift := uint16(5)
		if m.v <= 2 {
			shift = 3
		}
		zc = append(zc, shift, 6, (c>>5)&0x1f, c&0x1f)
	}
	for len(zc) < n {
		zc = append(zc, 5)
	}
	var out [3]uint16
	for i := 0; i < n/3; i++ {
		out[i] = zc[3*i]<<10 | zc[3*i+1]<<5 | zc[3*i+2]
	}
	out[n/3-1] |= 0x8000
	return out
}

func (m *Machine) findInAlphabet(c uint16) (alpha int, z uint16, ok bool) {
	for a := 0; a < 3; a++ {
		for z := uint16(6); z < 32; z++ {
			if a == 2 && (z == 6 || (z == 7 && m.v != 1)) {
				continue
			}
			if m.alphabetChar(a, z) == c {
				return a, z, true
			}
		}
	}
	return 0, 0, false
}
