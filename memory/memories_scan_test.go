package memory

import (
	"regexp"
	"strings"
	"testing"
)

// The expressions the hand-written scanners follow (see memories_parse.go).
var (
	entryRe   = regexp.MustCompile(`^\*\*\[([A-Za-z]+)(?:\s*-\s*([A-Za-z]+)(?:\s*-\s*([A-Za-z]+))?)?\]\s*(.*?)\*\*(?:\s+\*\((.*)\)\*)?\s*$`)
	visitsRe  = regexp.MustCompile(`^\*\*Visits:\*\*\s*(\d+)\s*\|\s*\*\*Episodes:\*\*\s*(.*?)\s*$`)
	episodeRe = regexp.MustCompile(`^[Ee][Pp](\d+)$`)
	turnsRe   = regexp.MustCompile(`^[Tt](\d+)(?:\s*-\s*[Tt]?(\d+))?$`)
	scoreRe   = regexp.MustCompile(`^[+-]?\d+$`)
)

// checkScanners compares each scanner with its expression on one line.
func checkScanners(t *testing.T, line string) {
	t.Helper()
	g := entryRe.FindStringSubmatch(line)
	idx := entryRe.FindStringSubmatchIndex(line)
	cat, q1, q2, title, meta, hasMeta, ok := scanEntry(line)
	if ok != (g != nil) {
		t.Fatalf("entry %q: scanner %v, expression %v", line, ok, g != nil)
	}
	if ok && (cat != g[1] || q1 != g[2] || q2 != g[3] || title != g[4] || meta != g[5] || hasMeta != (idx[10] >= 0)) {
		t.Fatalf("entry %q: scanner %q %q %q %q %q %v, expression %q", line, cat, q1, q2, title, meta, hasMeta, g[1:])
	}
	g = visitsRe.FindStringSubmatch(line)
	v, eps, ok := scanVisits(line)
	if ok != (g != nil) || ok && (v != g[1] || eps != g[2]) {
		t.Fatalf("visits %q: scanner %q %q %v, expression %q", line, v, eps, ok, g)
	}
	g = episodeRe.FindStringSubmatch(line)
	e, ok := scanEpisode(line)
	if ok != (g != nil) || ok && e != g[1] {
		t.Fatalf("episode %q: scanner %q %v, expression %q", line, e, ok, g)
	}
	g = turnsRe.FindStringSubmatch(line)
	from, to, ok := scanTurns(line)
	if ok != (g != nil) || ok && (from != g[1] || to != g[2]) {
		t.Fatalf("turns %q: scanner %q %q %v, expression %q", line, from, to, ok, g)
	}
	if isScore(line) != scoreRe.MatchString(line) {
		t.Fatalf("score %q: scanner %v", line, isScore(line))
	}
}

var scanSeeds = []string{
	"**[SUCCESS] Open and enter window** *(Ep1, T23-24, +0)*",
	"**[NOTE - SUPERSEDED] Troll accepts lunch gift** *(Ep01, T12, +0)*",
	"**[note-active]Title**",
	"**[SUCCESS - CORE] Window entry** *(Ep1, T47-49, +0)*", "**[DANGER - PERMANENT - SUPERSEDED] Trap** *(Ep1, T50, -5)*",
	"**[N - A - B - C] x**", "**[N-A-B] x**", "**[N - A -] x**",
	"**[NOTE ] x**", "**[NOTE -] x**", "**[NOTE - X1] x**", "**[] x**", "**[N] **", "**[N] ****", "**[N] a** *()*",
	"**[N] a** *(x)* b** *(Ep2)*", "**[N] a*** *(Ep1)*", "**[N] x** *(Ep1)**", "**[N] a**\t*( Ep1 )*  ", "**[N] a** *(*",
	"**[N] a** *()", "**[N] a**b", "**[N] a** \r", "**[N]\x00a** *(\xff)*",
	"**Visits:** 3 | **Episodes:** 1, 2, 3", "**Visits:**3|**Episodes:**", "**Visits:** 3 | **Episodes:**  none  ",
	"**Visits:** x | **Episodes:** 1", "**Visits:** 3 **Episodes:** 1", "**Visits:** 3 |",
	"Ep1", "ep12", "EP", "Ep1a", "E1", "T5", "t5-6", "T5 - T6", "T5-", "T5 -6 ", "T-5", "+0", "-10", "+", "5", "1e3", "",
}

func TestScannersMatchExpressions(t *testing.T) {
	for _, s := range scanSeeds {
		checkScanners(t, s)
	}
}

func FuzzScanners(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.Contains(line, "\n") {
			return // the parser's lines have none (and "." in the expressions does not match it)
		}
		checkScanners(t, line)
	})
}
