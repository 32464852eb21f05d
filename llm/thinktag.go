package llm

import (
	"fmt"
	"strings"
)

// A server without a reasoning parser (llama.cpp with --reasoning-format
// none, vLLM without --reasoning-parser, a proxy) streams a reasoning
// model's thinking in its content, inside a <think> (or <thinking>) block
// that opens the reply. On the OpenAI protocol that block is taken out of
// the content as it streams and delivered as thinking, the same as the
// reasoning_content (or reasoning) field: the thinking stream and the
// reply's Thinking hold it, the content holds the answer.

// The tags a reasoning block may open with.
const (
	thinkTag    = "<think>"
	thinkingTag = "<thinking>"
)

// thinkSplit is the state of one reply's content.
type thinkSplit struct {
	state   splitState
	open    string // the opening tag seen
	pending string // held back: whitespace or a tag's first characters
}

type splitState int

const (
	atStart    splitState = iota // nothing but whitespace yet
	inBlock                      // inside the block
	afterBlock                   // just past the block: whitespace is dropped
	pastOpen                     // in the answer, or the content had no block
)

// feed takes a piece of content and returns the content and the thinking
// it releases; a possible tag's first characters are held back until the
// next piece tells.
func (t *thinkSplit) feed(s string) (content, thinking string) {
	switch t.state {
	case pastOpen:
		return s, ""
	case afterBlock:
		if s = strings.TrimLeft(s, " \t\r\n"); s != "" {
			t.state = pastOpen
		}
		return s, ""
	}
	t.pending += s
	if t.state == atStart {
		lead := strings.TrimLeft(t.pending, " \t\r\n")
		if lead == "" {
			return "", ""
		}
		for _, tag := range []string{thinkTag, thinkingTag} {
			if strings.HasPrefix(lead, tag) {
				t.state, t.open, t.pending = inBlock, tag, lead[len(tag):]
				break
			}
		}
		if t.state == atStart {
			for _, tag := range []string{thinkTag, thinkingTag} {
				if strings.HasPrefix(tag, lead) {
					return "", "" // it may still open a block
				}
			}
			t.state = pastOpen
			out := t.pending
			t.pending = ""
			return out, ""
		}
	}
	closer := "</" + t.open[1:]
	if i := strings.Index(t.pending, closer); i >= 0 {
		thinking, rest := t.pending[:i], t.pending[i+len(closer):]
		t.state, t.pending = afterBlock, ""
		content, _ = t.feed(rest)
		return content, thinking
	}
	keep := partialSuffix(t.pending, closer)
	thinking, t.pending = t.pending[:len(t.pending)-keep], t.pending[len(t.pending)-keep:]
	return "", thinking
}

// partialSuffix is the length of the longest end of s that begins tag
// (and is shorter than it).
func partialSuffix(s, tag string) int {
	for n := min(len(s), len(tag)-1); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}

// addOpenAI takes a piece of an OpenAI reply: the content's reasoning
// block goes to the thinking (w.tagged), the rest as add takes it.
func (c *Client) addOpenAI(w *wire, req Request, content, thinking string) error {
	content, tagged := w.split.feed(content)
	if err := c.add(w, req, content, thinking); err != nil {
		return err
	}
	return c.addTagged(w, req, tagged)
}

// addTagged takes thinking that came in the content's block.
func (c *Client) addTagged(w *wire, req Request, tagged string) error {
	if tagged == "" {
		return nil
	}
	if n := w.size() + len(tagged); n > c.maxReply {
		return fmt.Errorf("%w: more than %d bytes (the cap is %d)", ErrReplyTooLarge, n, c.maxReply)
	}
	w.tagged = append(w.tagged, tagged...)
	if req.OnDelta != nil {
		req.OnDelta(Delta{Thinking: tagged})
	}
	return nil
}

// endOpenAI releases what the splitter holds at the reply's end. A block
// never closed was not a reasoning block the server meant: the reply's
// content is the text as sent (its deltas went out as thinking).
func (c *Client) endOpenAI(w *wire, req Request) error {
	t := &w.split
	rest := t.pending
	t.pending = ""
	switch t.state {
	case inBlock:
		w.content = append(append([]byte(t.open), w.tagged...), rest...)
		w.tagged = nil
		t.state = pastOpen
		return nil
	case atStart:
		t.state = pastOpen
		return c.add(w, req, rest, "")
	}
	t.state = pastOpen
	return nil
}
