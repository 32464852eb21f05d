package llm

import (
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/config"
)

// Fitting a prompt to the session's context.
//
// A prompt may take the session's context size minus the room kept for
// the reply (reserveFor). A longer one is trimmed before it is sent, never
// by Ollama (which cuts the start of a prompt silently): the variable
// middle of the longest messages goes first, whole lines at a time, and a
// marker says how many lines were left out. The head of each message (the
// instructions, the sections that change rarely and so stay in Ollama's
// prompt cache) and its tail (the turn's state and the question, which
// prompt builders put last) are kept, as are the system messages and the
// last message, which are only cut when nothing else is left. A prompt
// still too long is ErrContextOverflow.

// markerFormat replaces the lines left out.
const markerFormat = "[… %d lines left out to fit the model's context …]"

// keepLines are the lines kept at each end of a trimmed message.
const keepLines = 4

// fit returns the request fitted to a context of numCtx tokens, the
// estimated prompt size after fitting and the tokens trimmed.
func (c *Client) fit(r config.Role, req Request, numCtx int) (Request, int, int, error) {
	budget := numCtx - reserveFor(r, numCtx)
	est := c.estimate(r.Model, req)
	if est <= budget {
		return req, est, 0, nil
	}
	before := est
	msgs := append([]Message(nil), req.Messages...)
	out := req
	out.Messages = msgs
	// Middle messages first (not system, not the last); then, only if
	// needed, the last message and the system messages.
	for pass := 0; pass < 2 && est > budget; pass++ {
		for est > budget {
			i := longest(msgs, pass == 1)
			if i < 0 {
				break
			}
			over := est - budget
			cut, ok := c.trimMiddle(r.Model, msgs[i].Content, over)
			if !ok {
				break
			}
			msgs[i].Content = cut
			est = c.estimate(r.Model, out)
		}
	}
	if est > budget {
		return req, before, 0, fmt.Errorf("%w: about %d tokens, %d at the least; the context holds %d with %d kept for the reply",
			ErrContextOverflow, before, est, numCtx, numCtx-budget)
	}
	return out, est, before - est, nil
}

// longest is the index of the longest message that can still be trimmed:
// in the first pass a middle message (neither system nor the last), in the
// second any message. -1: none.
func longest(msgs []Message, any bool) int {
	at, size := -1, 0
	for i, m := range msgs {
		if !any && (m.Role == "system" || i == len(msgs)-1) {
			continue
		}
		if trimmable(m.Content) && len(m.Content) > size {
			at, size = i, len(m.Content)
		}
	}
	return at
}

// minTrimChars is the shortest message text that is cut inside a line.
const minTrimChars = 400

func trimmable(s string) bool {
	return strings.Count(s, "\n") > 2*keepLines+1 || len(s) >= minTrimChars
}

// trimMiddle drops whole lines from the middle of s until about over
// tokens are gone, keeping keepLines lines at each end. It reports false
// when nothing more can go.
func (c *Client) trimMiddle(model, s string, over int) (string, bool) {
	ratio := c.ratio(model)
	lines := strings.Split(s, "\n")
	if len(lines) <= 2*keepLines+1 {
		return trimChars(s, over, ratio)
	}
	mid := len(lines) / 2
	lo, hi := mid, mid // lines[lo:hi] go
	gone := 0
	// The marker line takes room too.
	need := over + int(float64(len(markerFormat)+8)*ratio) + 8
	for gone < need && (lo > keepLines || hi < len(lines)-keepLines) {
		// Take from the side nearer the middle of what is left, so the
		// kept head and tail stay balanced.
		if hi < len(lines)-keepLines && (hi-mid <= mid-lo || lo <= keepLines) {
			gone += int(float64(len(lines[hi])+1)*ratio + 0.999)
			hi++
		} else {
			lo--
			gone += int(float64(len(lines[lo])+1)*ratio + 0.999)
		}
	}
	if hi <= lo {
		return trimChars(s, over, ratio)
	}
	kept := append([]string(nil), lines[:lo]...)
	kept = append(kept, fmt.Sprintf(markerFormat, hi-lo))
	kept = append(kept, lines[hi:]...)
	out := strings.Join(kept, "\n")
	if len(out) >= len(s) {
		return trimChars(s, over, ratio)
	}
	return out, true
}

// trimChars cuts characters from the middle of s (a text of few lines),
// keeping at least a quarter of it at each end.
func trimChars(s string, over int, ratio float64) (string, bool) {
	r := []rune(s)
	if len(r) < minTrimChars {
		return s, false
	}
	drop := int(float64(over+8)/ratio) + 1
	if most := len(r) / 2; drop > most {
		drop = most
	}
	head := (len(r) - drop) / 2
	out := string(r[:head]) + " […] " + string(r[head+drop:])
	if len(out) >= len(s) {
		return s, false
	}
	return out, true
}
