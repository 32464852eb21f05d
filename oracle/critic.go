package oracle

import (
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/managers/mapper"
)

// Scores the critic gives.
const (
	ScoreKnownStep = 8  // the walkthrough's own next move
	ScoreSeen      = 3  // every object the command names is in the game state
	ScoreMove      = 2  // a command that names no object (look, a direction)
	ScoreUnseen    = -6 // the command names something the game state never mentions
)

// verdict is the critic's answer.
type verdict struct {
	Score         int
	Justification string
}

// proposedPrefix starts the line of the critic's prompt that holds the
// command to judge; the reasoning line, if any, is not game state.
const (
	proposedPrefix  = "Proposed command:"
	reasoningPrefix = "The agent's reasoning:"
)

// splitCritic finds the command to judge (the last "Proposed command:"
// line) and the game state the critic is shown: the "## Game state"
// section if there is one, else the whole prompt without the proposal and
// reasoning lines.
func splitCritic(user string) (command, state string) {
	var kept []string
	for _, line := range strings.Split(user, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, proposedPrefix):
			command = strings.TrimSpace(strings.TrimPrefix(t, proposedPrefix))
		case strings.HasPrefix(t, reasoningPrefix):
		default:
			kept = append(kept, line)
		}
	}
	state = strings.Join(kept, "\n")
	if i := strings.Index(state, "## Game state\n"); i >= 0 {
		body := state[i+len("## Game state\n"):]
		if j := strings.Index(body, "\n## "); j >= 0 {
			body = body[:j]
		}
		state = body
	}
	return command, state
}

// isFiller reports a word of a command that names no object.
func isFiller(w string) bool {
	switch w {
	case "a", "an", "the", "at", "to", "with", "in", "into", "on", "onto", "from", "under", "over", "behind",
		"through", "up", "down", "out", "off", "of", "and", "then", "all", "it", "them", "everything", "me",
		"myself", "self", "around", "inside", "for", "about", "except", "but", "here":
		return true
	}
	return false
}

// judge scores a command from the state shown. The pending proposal (the
// walkthrough's move) scores high; anything else is judged by whether the
// objects it names appear in the state text.
func judge(command, state string, w *walker) verdict {
	if command == "" {
		return verdict{Score: 0, Justification: "There is no proposed command to judge."}
	}
	if w.pendingCmd != "" && sameAction(command, w.pendingCmd) && w.next < len(w.script) {
		return verdict{Score: ScoreKnownStep, Justification: fmt.Sprintf("%q is the next step of the known solution (step %d of %d).", command, w.next+1, len(w.script))}
	}
	norm := mapper.NormalizeAction(command)
	if mapper.IsDirection(norm) {
		return verdict{Score: ScoreMove, Justification: fmt.Sprintf("Moving %s is cheap and may find something new; it is not a known step.", norm)}
	}
	words := strings.Fields(strings.ToLower(command))
	lowState := strings.ToLower(state)
	var missing []string
	nouns := 0
	for _, word := range words[1:] {
		word = strings.Trim(word, ".,;:!?\"'")
		if word == "" || isFiller(word) || strings.ContainsAny(word, "0123456789") {
			continue
		}
		nouns++
		if !containsWord(lowState, word) {
			missing = append(missing, word)
		}
	}
	switch {
	case nouns == 0:
		return verdict{Score: ScoreMove, Justification: fmt.Sprintf("%q names no object; harmless, but it is not a known step.", command)}
	case len(missing) > 0:
		return verdict{Score: ScoreUnseen, Justification: fmt.Sprintf("Nothing called %q is mentioned in the game state, so %q is unlikely to work.", strings.Join(missing, " "), command)}
	}
	return verdict{Score: ScoreSeen, Justification: fmt.Sprintf("What %q names is in the game state, so it may do something; it is not a known step.", command)}
}

// containsWord reports whether text holds word as a whole word.
func containsWord(text, word string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], word)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(word)
		before := i == 0 || !isLetter(text[i-1])
		after := end == len(text) || !isLetter(text[end])
		if before && after {
			return true
		}
		from = i + 1
	}
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' }
