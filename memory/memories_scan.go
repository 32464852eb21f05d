package memory

import "strings"

// The scanners below read the lines the parser meets on every entry; they
// are written by hand for speed and behave exactly as these expressions
// (memories_scan_test.go checks it):
//
//	entry header   ^\*\*\[([A-Za-z]+)(?:\s*-\s*([A-Za-z]+)(?:\s*-\s*([A-Za-z]+))?)?\]\s*(.*?)\*\*(?:\s+\*\((.*)\)\*)?\s*$
//	visits line    ^\*\*Visits:\*\*\s*(\d+)\s*\|\s*\*\*Episodes:\*\*\s*(.*?)\s*$
//	episode        ^[Ee][Pp](\d+)$
//	turns          ^[Tt](\d+)(?:\s*-\s*[Tt]?(\d+))?$
//	score          ^[+-]?\d+$

// isSpace is the regexp class \s.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

func skipSpace(s string) string {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return s[i:]
}

func trimSpaceRight(s string) string {
	i := len(s)
	for i > 0 && isSpace(s[i-1]) {
		i--
	}
	return s[:i]
}

// span returns the length of the prefix of s whose bytes satisfy ok.
func span(s string, ok func(byte) bool) int {
	i := 0
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func allDigits(s string) bool {
	return s != "" && span(s, isDigit) == len(s)
}

// scanEntry splits an entry header into category, up to two qualifiers
// (a level and a status, or either), title and metadata; meta is absent
// (hasMeta false) when the header has no "*(...)*".
func scanEntry(c string) (cat, q1, q2, title, meta string, hasMeta, ok bool) {
	s, found := strings.CutPrefix(c, "**[")
	if !found {
		return
	}
	n := span(s, isLetter)
	if n == 0 {
		return
	}
	cat, s = s[:n], s[n:]
	for k := 0; k < 2 && !strings.HasPrefix(s, "]"); k++ {
		t := skipSpace(s)
		if !strings.HasPrefix(t, "-") {
			return
		}
		t = skipSpace(t[1:])
		m := span(t, isLetter)
		if m == 0 {
			return
		}
		if k == 0 {
			q1 = t[:m]
		} else {
			q2 = t[:m]
		}
		s = t[m:]
	}
	if !strings.HasPrefix(s, "]") {
		return
	}
	s = skipSpace(s[1:])
	// the title is the shortest prefix followed by "**" and a valid rest
	for p := 0; ; p++ {
		q := strings.Index(s[p:], "**")
		if q < 0 {
			return
		}
		p += q
		rest := s[p+2:]
		if trimSpaceRight(rest) == "" {
			return cat, q1, q2, s[:p], "", false, true
		}
		r := skipSpace(rest)
		if len(r) < len(rest) && strings.HasPrefix(r, "*(") {
			r = trimSpaceRight(r)
			if len(r) >= 4 && strings.HasSuffix(r, ")*") {
				return cat, q1, q2, s[:p], r[2 : len(r)-2], true, true
			}
		}
	}
}

// scanVisits splits a visits line into the count and the episodes text.
func scanVisits(c string) (visits, episodes string, ok bool) {
	s, found := strings.CutPrefix(c, "**Visits:**")
	if !found {
		return
	}
	s = skipSpace(s)
	n := span(s, isDigit)
	if n == 0 {
		return
	}
	visits, s = s[:n], skipSpace(s[n:])
	s, found = strings.CutPrefix(s, "|")
	if !found {
		return
	}
	s, found = strings.CutPrefix(skipSpace(s), "**Episodes:**")
	if !found {
		return
	}
	return visits, trimSpaceRight(skipSpace(s)), true
}

// scanEpisode reads "Ep12".
func scanEpisode(f string) (string, bool) {
	if len(f) < 3 || (f[0] != 'E' && f[0] != 'e') || (f[1] != 'P' && f[1] != 'p') || !allDigits(f[2:]) {
		return "", false
	}
	return f[2:], true
}

// scanTurns reads "T23" or "T23-24" (or "T23-T24").
func scanTurns(f string) (from, to string, ok bool) {
	if len(f) < 2 || (f[0] != 'T' && f[0] != 't') {
		return
	}
	s := f[1:]
	n := span(s, isDigit)
	if n == 0 {
		return
	}
	from, s = s[:n], s[n:]
	if s == "" {
		return from, "", true
	}
	s = skipSpace(s)
	if !strings.HasPrefix(s, "-") {
		return
	}
	s = skipSpace(s[1:])
	if s != "" && (s[0] == 'T' || s[0] == 't') {
		s = s[1:]
	}
	if !allDigits(s) {
		return
	}
	return from, s, true
}

// isScore reads "+5", "-10", "0".
func isScore(f string) bool {
	if f != "" && (f[0] == '+' || f[0] == '-') {
		f = f[1:]
	}
	return allDigits(f)
}

// isSectionLine reports a level-2 heading, which always starts a section
// (valid or broken).
func isSectionLine(c string) bool {
	return c == "##" || strings.HasPrefix(c, "## ") || strings.HasPrefix(c, "##\t")
}

func isRule(c string) bool { return strings.TrimRight(c, " \t\r") == "---" }

func isBlank(c string) bool { return strings.TrimSpace(c) == "" }
