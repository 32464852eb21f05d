package contextmgr

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// The agent's prompt is also read by programs that stand in for a model
// (the oracle): the turn number heads the game state ("Turn N."), and each
// previous turn is one line "TN (actor) command". Parse reads them back;
// Build and Parse are tested together so the two never drift apart.

var (
	turnLine   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Turn (\d+)\.`) })
	recentLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^T(\d+) \(([a-z-]*)\) (.*?)(?: — because: .*)?$`)
	})
)

// Parsed is what Parse finds in an agent prompt.
type Parsed struct {
	Turn   int            // the turn about to be played (0: not found)
	Recent []HistoryEntry // the previous turns shown, oldest first (Turn, Actor, Action only)
}

// Parse reads the turn number and the previous turns from the user message
// of an agent prompt made by Build.
func Parse(user string) Parsed {
	var p Parsed
	if m := turnLine().FindStringSubmatch(user); m != nil {
		p.Turn, _ = strconv.Atoi(m[1])
	}
	start := strings.Index(user, "## Previous turns\n")
	if start < 0 {
		return p
	}
	body := user[start+len("## Previous turns\n"):]
	if end := strings.Index(body, "\n## "); end >= 0 {
		body = body[:end]
	}
	for _, m := range recentLine().FindAllStringSubmatch(body, -1) {
		n, _ := strconv.Atoi(m[1])
		p.Recent = append(p.Recent, HistoryEntry{Turn: n, Actor: m[2], Action: strings.TrimSpace(m[3])})
	}
	return p
}
