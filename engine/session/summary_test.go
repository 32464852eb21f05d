package session

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/memory/rundb"
)

// The log is cut into pieces of about the size asked, a turn never split.
func TestSummaryPieces(t *testing.T) {
	turn := func(n, size int) rundb.Turn {
		return rundb.Turn{Turn: n, Action: "x", Response: strings.Repeat("a", size), Location: "Hall"}
	}
	for _, tc := range []struct {
		name  string
		turns []rundb.Turn
		size  int
		want  [][2]int // first and last turn of each piece
	}{
		{"one piece", []rundb.Turn{turn(1, 10), turn(2, 10)}, 1000, [][2]int{{1, 2}}},
		{"even pieces", []rundb.Turn{turn(1, 60), turn(2, 60), turn(3, 60), turn(4, 60)}, 200, [][2]int{{1, 2}, {3, 4}}},
		{"a turn longer than a piece", []rundb.Turn{turn(1, 10), turn(2, 500), turn(3, 10)}, 200, [][2]int{{1, 1}, {2, 2}, {3, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lines []pieceLine
			for _, tr := range tc.turns {
				lines = append(lines, pieceLine{tr.Turn, tr.Turn, fmt.Sprintf("T%d %s → %s (score %d, at %s)\n", tr.Turn, tr.Action, tr.Response, tr.Score, tr.Location)})
			}
			ps := cutPieces(lines, tc.size)
			var got [][2]int
			whole := ""
			for _, p := range ps {
				got = append(got, [2]int{p.first, p.last})
				whole += p.text
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("pieces %v, want %v", got, tc.want)
			}
			for _, tr := range tc.turns {
				if !strings.Contains(whole, tr.Response+" (score") {
					t.Errorf("turn %d's response is not whole in the pieces", tr.Turn)
				}
			}
		})
	}
}

// get_full_summary reads the whole history, not the newest turns: every
// turn of a 300-turn episode, its response whole, reaches the retriever
// in a piece; the narrative is written from the pieces' summaries (long
// summaries summarised again first); a piece summarised once is not asked
// again.
func TestFullSummaryReadsTheWholeHistory(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sum    string // each piece's summary
		levels int    // of pieces before the narrative
	}{
		{"short summaries", "A stretch of play.", 1},
		{"long summaries", strings.TrimSpace(strings.Repeat("A long stretch of play with many rooms. ", 15)), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sess := researchSession(t)
			ctx := context.Background()
			const turns = 300
			marker := func(n int) string {
				return fmt.Sprintf("response-%03d %s end-%03d", n, strings.TrimSpace(strings.Repeat("word ", 40)), n)
			}
			for i := 1; i <= turns; i++ {
				if err := sess.DB.RecordTurn(ctx, rundb.Turn{Episode: 2, Turn: i, Actor: "agent", Action: fmt.Sprintf("act %d", i), Response: marker(i),
					Verdicts: "[]", LocationID: 4, Location: "Orchard", Score: i / 10}); err != nil {
					t.Fatal(err)
				}
			}
			client, fake := fakeClient(t)
			fake.Always("piece", llmtest.PromptContains("one stretch of a text adventure"), llmtest.Reply{Content: tc.sum})
			fake.Always("narrative", llmtest.PromptContains("narrative summary"), llmtest.Reply{Content: "The whole story so far."})
			tool := sess.SummaryTool(client)
			got, err := tool(ctx, noArgs{})
			if err != nil || got != "The whole story so far." {
				t.Fatalf("get_full_summary = %q, %v", got, err)
			}
			var turnPieces, sumPieces, narratives []string
			for _, r := range fake.ChatRequests() {
				switch p := r.Prompt(); {
				case r.Role != config.RoleRetriever:
				case !strings.Contains(p, "one stretch"):
					narratives = append(narratives, p)
				case strings.Contains(p, "response-"):
					turnPieces = append(turnPieces, p)
				default:
					sumPieces = append(sumPieces, p)
				}
			}
			if len(turnPieces) < 2 || len(narratives) != 1 || (len(sumPieces) > 0) != (tc.levels > 1) {
				t.Fatalf("%d pieces of turns, %d of summaries, %d narratives", len(turnPieces), len(sumPieces), len(narratives))
			}
			all := strings.Join(turnPieces, "\n")
			for i := 1; i <= turns; i++ {
				if !strings.Contains(all, marker(i)) {
					t.Fatalf("turn %d is not read whole", i)
				}
			}
			if !strings.Contains(narratives[0], "Turns 1-") || !strings.Contains(narratives[0], fmt.Sprintf("-%d: ", turns)) ||
				!strings.Contains(narratives[0], "300 turns played") {
				t.Errorf("the narrative is not written from every piece:\n%s", narratives[0])
			}

			// Once more: every piece is summarised already.
			before := len(fake.ChatRequests())
			if _, err := tool(ctx, noArgs{}); err != nil {
				t.Fatal(err)
			}
			if n := len(fake.ChatRequests()) - before; n != 1 {
				t.Errorf("a second call made %d requests, want the narrative alone", n)
			}
		})
	}
}
