package export

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/sanitize"
)

// writeMarkdown: a heading with the outcome, the score's changes, the map
// drawn as text, then every turn with its reasoning, the critic's verdicts
// and the person's reviews.
func writeMarkdown(w io.Writer, ep Episode) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# %s\n\n", mdInline(ep.title()))
	fmt.Fprintf(b, "- Started: %s\n- Ending: %s\n- Score: %d in %d moves, %d turns\n", stamp(ep), ep.ending(), ep.Score, ep.Moves, len(ep.Turns))
	if ep.Reviews.Decisions > 0 {
		fmt.Fprintf(b, "- Reviews: %d decisions, %d accepted, %d edited, %d rejected\n", ep.Reviews.Decisions, ep.Reviews.Accepted, ep.Reviews.Edited, ep.Reviews.Rejected)
	}
	if len(ep.Branches) > 0 {
		b.WriteString("\n## Branches\n\n")
		for _, br := range ep.Branches {
			fmt.Fprintf(b, "%s- %s\n", strings.Repeat("  ", br.Depth), mdInline(br.Line()))
		}
	}
	b.WriteString("\n## Score over turns\n\n")
	if pts := scorePoints(ep); len(pts) > 0 {
		b.WriteString("| Turn | Score |\n| ---: | ---: |\n")
		for _, p := range pts {
			fmt.Fprintf(b, "| %d | %d |\n", p.turn, p.score)
		}
	} else {
		b.WriteString("No turns recorded.\n")
	}
	b.WriteString("\n## Map\n\n```text\n")
	b.WriteString(ep.Map.Text())
	b.WriteString("```\n\n## Transcript\n")
	for _, t := range ep.Turns {
		fmt.Fprintf(b, "\n### Turn %d · %s › %s\n\n", t.Turn, t.Actor, mdInline(t.Action))
		fmt.Fprintf(b, "*%s (L%d) · score %d · moves %d*", mdInline(t.Location), t.LocationID, t.Score, t.Moves)
		if t.Failed {
			b.WriteString(" · *failed*")
		}
		if t.PlayedOn != 0 {
			fmt.Fprintf(b, " · *played on %s (#%d)*", mdInline(t.PlayedOnLine), t.PlayedOn)
		}
		b.WriteString("\n\n")
		for _, l := range strings.Split(strings.TrimRight(t.Response, "\n"), "\n") {
			b.WriteString(strings.TrimRight("> "+sanitize.EscapeBlock(mdText(l)), " ") + "\n")
		}
		if t.Reasoning != "" {
			b.WriteString("\n**Reasoning**\n\n")
			for _, l := range strings.Split(t.Reasoning, "\n") {
				b.WriteString(strings.TrimRight("    "+l, " ") + "\n")
			}
		}
		if len(t.Verdicts) > 0 {
			b.WriteString("\n**Critic**\n\n")
			for _, v := range t.Verdicts {
				fmt.Fprintf(b, "- %s `%s` — %.2f (%s)", verdictMark(v), mdCode(v.Action), v.Score, v.Stage)
				if v.Justification != "" {
					b.WriteString(": " + mdInline(v.Justification))
				}
				b.WriteString("\n")
			}
		}
		if len(t.Reviews) > 0 {
			b.WriteString("\n**Review**\n\n")
			for _, r := range t.Reviews {
				fmt.Fprintf(b, "- %s\n", mdInline(reviewText(r)))
			}
		}
	}
	return b.Flush()
}

// point is the score after a turn.
type point struct{ turn, score int }

// scorePoints are the turns where the score changed, with the first and
// the last.
func scorePoints(ep Episode) []point {
	var out []point
	for i, t := range ep.Turns {
		if i == 0 || i == len(ep.Turns)-1 || t.Score != ep.Turns[i-1].Score {
			out = append(out, point{t.Turn, t.Score})
		}
	}
	return out
}

func verdictMark(v Verdict) string {
	if v.Accepted {
		return "✓"
	}
	return "✗"
}

// reviewText is the decision in one line, as every view shows it.
func reviewText(r Review) string {
	return rundb.Review{Proposal: r.Proposal, Decision: r.Decision, Command: r.Command, Reason: r.Reason, Remembered: r.Remembered, Auto: r.Auto}.Text()
}

func stamp(ep Episode) string {
	if ep.Started.IsZero() {
		return "unknown"
	}
	return ep.Started.UTC().Format("2006-01-02 15:04 UTC")
}

// mdInline keeps a text on one line with Markdown's markup characters
// escaped.
func mdInline(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "#", `\#`, "|", `\|`)
	return r.Replace(s)
}

// mdCode keeps a text usable inside backticks.
func mdCode(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "`", "'")
}

// mdText keeps a story's text from being read as HTML; the quote it goes
// in escapes what would start a block (sanitize.EscapeBlock).
func mdText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
