package session

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/memory/rundb"
)

// get_full_summary over the whole history: the line being played, from
// its first turn (a branch's parent's turns up to its fork included), each
// turn whole (its whole response), read in pieces the retriever can take
// in: each piece is summarised on its own, then the narrative is written
// from the pieces' summaries (and when those are too many to read at once,
// they are summarised in pieces in turn). A piece already summarised is
// not asked again (its text is the key: the turns of a piece never change
// once played), so calling the tool every turn costs a call for the
// newest piece and one for the narrative. With one piece the narrative is
// written from the turns directly; without a retriever the tool gives the
// facts.

// SummaryPieceChars is the most one piece holds (about 3000 tokens); less
// when the retriever's context holds less (its prompt budget, counted at
// the worst case of a token a byte). A turn is never split, so a piece may
// hold more when a single turn is longer.
const SummaryPieceChars = 12000

// summaryOverhead is what a piece's request holds beside the piece.
const summaryOverhead = 768

// maxSummaryLevels bounds how often summaries are summarised again.
const maxSummaryLevels = 4

// maxSummaryCache bounds the pieces' summaries kept.
const maxSummaryCache = 1024

// Prompts of the summary.
const (
	narrativeSystem = "You write a short narrative summary of a text adventure played so far: where the player went, what was found and solved, what failed, what is still open. At most eight sentences."
	pieceSystem     = "You summarise one stretch of a text adventure's play, for a later summary of the whole: where the player went, which items were found or left where, what was solved, what failed. At most six sentences; keep room names, items and turn numbers."
)

// historySummary is get_full_summary with its pieces' summaries.
type historySummary struct {
	s      *Session
	client *llm.Client // nil: no retriever

	mu     sync.Mutex
	pieces map[[sha256.Size]byte]string
}

// SummaryTool is get_full_summary's function: the running line's whole
// history, summarised in pieces (see SummaryPieceChars) by the retriever
// role (client; nil: the facts alone). It keeps the pieces' summaries
// between calls.
func (s *Session) SummaryTool(client *llm.Client) func(context.Context, noArgs) (string, error) {
	h := &historySummary{s: s, client: client, pieces: map[[sha256.Size]byte]string{}}
	return h.summary
}

func (h *historySummary) summary(ctx context.Context, _ noArgs) (string, error) {
	v := researcher{s: h.s}.view()
	var turns []rundb.Turn
	if v.episode > 0 {
		var err error
		if turns, err = h.s.DB.BranchTurns(ctx, v.episode); err != nil {
			return "", err
		}
	}
	if len(turns) == 0 {
		return "Nothing has happened yet in this episode.", nil
	}
	rooms := map[int]bool{}
	for _, t := range turns {
		rooms[t.LocationID] = true
	}
	last := turns[len(turns)-1]
	facts := fmt.Sprintf("%d turns played; score %d; now at %s; %d rooms visited this episode; %d rooms and %d connections mapped.",
		last.Turn, last.Score, last.Location, len(rooms), v.rooms, v.connections)
	if h.client == nil {
		return facts, nil
	}
	size := h.pieceSize(ctx)
	lines := make([]pieceLine, 0, len(turns))
	for _, t := range turns {
		lines = append(lines, pieceLine{t.Turn, t.Turn, fmt.Sprintf("T%d %s → %s (score %d, at %s)\n", t.Turn, t.Action,
			strings.Join(strings.Fields(t.Response), " "), t.Score, t.Location)})
	}
	pieces := cutPieces(lines, size)
	if len(pieces) == 1 {
		return h.ask(ctx, narrativeSystem, "Turns:\n"+pieces[0].text+"\n"+facts)
	}
	for level := 0; ; level++ {
		sums := make([]pieceLine, 0, len(pieces))
		total := 0
		for _, p := range pieces {
			sum, err := h.piece(ctx, p)
			if err != nil {
				return "", err
			}
			line := fmt.Sprintf("Turns %d-%d: %s\n\n", p.first, p.last, strings.Join(strings.Fields(sum), " "))
			sums = append(sums, pieceLine{p.first, p.last, line})
			total += len(line)
		}
		if total <= size || level == maxSummaryLevels || len(sums) == 1 {
			var b strings.Builder
			for _, l := range sums {
				b.WriteString(l.text)
			}
			return h.ask(ctx, narrativeSystem, "The play so far, in parts (oldest first):\n\n"+b.String()+facts)
		}
		pieces = cutPieces(sums, size) // too many to read at once: summarised in pieces in turn
	}
}

// pieceSize is how much of the log a piece holds for the retriever.
func (h *historySummary) pieceSize(ctx context.Context) int {
	budget, err := h.client.PromptBudget(ctx, config.RoleRetriever)
	if err != nil || budget <= 0 {
		return SummaryPieceChars
	}
	return min(SummaryPieceChars, max(budget-summaryOverhead, 1000))
}

// piece is one stretch of the log: turns, or the summaries of pieces.
type piece struct {
	first, last int // turn numbers
	text        string
}

// pieceLine is one entry of the log: a turn, or a piece's summary.
type pieceLine struct {
	first, last int
	text        string
}

// cutPieces cuts the log into pieces of about size characters, each entry
// whole, oldest first.
func cutPieces(lines []pieceLine, size int) []piece {
	var out []piece
	var cur strings.Builder
	first, last := 0, 0
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, piece{first: first, last: last, text: cur.String()})
			cur.Reset()
		}
	}
	for _, l := range lines {
		if cur.Len() > 0 && cur.Len()+len(l.text) > size {
			flush()
		}
		if cur.Len() == 0 {
			first = l.first
		}
		cur.WriteString(l.text)
		last = l.last
	}
	flush()
	return out
}

// piece summarises one piece, once.
func (h *historySummary) piece(ctx context.Context, p piece) (string, error) {
	key := sha256.Sum256([]byte(p.text))
	h.mu.Lock()
	sum, ok := h.pieces[key]
	h.mu.Unlock()
	if ok {
		return sum, nil
	}
	sum, err := h.ask(ctx, pieceSystem, fmt.Sprintf("Turns %d to %d:\n\n%s", p.first, p.last, p.text))
	if err != nil {
		return "", err
	}
	h.mu.Lock()
	if len(h.pieces) >= maxSummaryCache {
		clear(h.pieces)
	}
	h.pieces[key] = sum
	h.mu.Unlock()
	return sum, nil
}

func (h *historySummary) ask(ctx context.Context, system, user string) (string, error) {
	rep, err := h.client.Chat(ctx, llm.Request{Role: config.RoleRetriever, Messages: []llm.Message{llm.System(system), llm.User(user)}})
	if err != nil {
		return "", err
	}
	return rep.Content, nil
}
