package knowledge

import (
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/sanitize"
)

const updatePrompt = `You maintain the strategic knowledge base of an agent that plays a text adventure over many episodes. Each episode restarts the story; location IDs such as L64 stay the same across episodes.
From the turns you are shown, rewrite the strategy: keep what still holds, add what the turns teach (dangers, puzzle solutions, useful items, commands the parser accepts, routes by location ID), drop what they disprove. Write short markdown bullet points of general, reusable knowledge, not a diary of the turns.
Lessons: one line for each death or near death in these turns (what killed the agent and how to avoid it); an empty list when there was none.
Reply with JSON.`

const synthesisPrompt = `You maintain the strategic knowledge base of an agent that plays a text adventure over many episodes. An episode has just ended; the next one restarts the story, and location IDs such as L64 stay the same.
From the episode's last turns and its outcome, rewrite the strategy: keep what still holds, add what the episode taught (dangers, puzzle solutions, useful items, commands the parser accepts, routes by location ID), drop what it disproved. Write short markdown bullet points of general, reusable knowledge, not a diary.
Lessons: one line for each death in the episode (what killed the agent and how to avoid it); an empty list when there was none.
Episode note: one sentence the agent should read at the start of the next episode.
Reply with JSON.`

const condensePrompt = `You maintain the strategic knowledge base of an agent that plays a text adventure. The strategy has grown too long. Rewrite it shorter: keep the most useful, proven, general points (dangers first), merge repeats, drop details. Short markdown bullet points. Reply with JSON.`

// maxBatchChars bounds the turn log in one prompt.
const maxBatchChars = 8000

// updateInput is the user message of an update or a synthesis: the current
// knowledge, the turns since the last update and (at an episode's end) the
// outcome.
func (m *Manager) updateInput(d Doc, batch []domain.Turn, ep *Episode) string {
	var b strings.Builder
	if m.cfg.Story != "" {
		fmt.Fprintf(&b, "Story: %s\n\n", m.cfg.Story)
	}
	b.WriteString("Current strategy:\n")
	if s := strings.TrimSpace(d.Strategy); s != "" {
		b.WriteString(s)
		b.WriteByte('\n')
	} else {
		b.WriteString(noneYet + "\n")
	}
	b.WriteString("\nHard lessons already known:\n")
	writeList(&b, d.Lessons)
	if ep != nil {
		fmt.Fprintf(&b, "\nThe episode has ended (%s) after %d turns and %d moves with a score of %d", ep.Reason, ep.Turns, ep.Moves, ep.Score)
		if ep.MaxScore > 0 {
			fmt.Fprintf(&b, " of %d", ep.MaxScore)
		}
		b.WriteString(".\n")
	}
	if len(batch) == 0 {
		b.WriteString("\nNo turns were played since the last update.\n")
		return b.String()
	}
	first, last := batch[0], batch[len(batch)-1]
	fmt.Fprintf(&b, "\nTurns %d-%d of episode %d (oldest first):\n", first.Turn, last.Turn, last.Episode)
	b.WriteString(turnLog(batch, maxBatchChars))
	return b.String()
}

// turnLog writes one line per turn within limit characters: when the log
// is too long, uneventful turns are folded first, then the oldest lines go.
func turnLog(batch []domain.Turn, limit int) string {
	lines := make([]string, len(batch))
	eventful := make([]bool, len(batch))
	total := 0
	for i, t := range batch {
		lines[i], eventful[i] = turnLine(t)
		total += len(lines[i]) + 1
	}
	if total > limit {
		var kept []string
		quiet := 0
		for i, l := range lines {
			if eventful[i] {
				if quiet > 0 {
					kept = append(kept, fmt.Sprintf("(%d uneventful turns)", quiet))
					quiet = 0
				}
				kept = append(kept, l)
				continue
			}
			quiet++
		}
		if quiet > 0 {
			kept = append(kept, fmt.Sprintf("(%d uneventful turns)", quiet))
		}
		lines = kept
		total = 0
		for _, l := range lines {
			total += len(l) + 1
		}
		for total > limit && len(lines) > 1 {
			total -= len(lines[0]) + 1
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// turnLine is one turn of the log, and whether something happened in it.
func turnLine(t domain.Turn) (string, bool) {
	var b strings.Builder
	actor := ""
	if t.Actor != "" && t.Actor != "agent" {
		actor = " (" + t.Actor + ")"
	}
	fmt.Fprintf(&b, "T%d L%d %s%s: %s → %s", t.Turn, t.FromID, t.FromName, actor, t.Action, sanitize.ClipRunes(sanitize.OneLine(t.Response), 160))
	eventful := false
	if t.ToID != t.FromID {
		fmt.Fprintf(&b, " [now at L%d %s]", t.ToID, t.ToName)
		eventful = true
	}
	if t.ScoreAfter != t.ScoreBefore {
		fmt.Fprintf(&b, " [score %d→%d]", t.ScoreBefore, t.ScoreAfter)
		eventful = true
	}
	if t.Died {
		b.WriteString(" [DIED]")
		eventful = true
	}
	return b.String(), eventful
}
