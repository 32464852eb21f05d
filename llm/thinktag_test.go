package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
)

// sseDeltas answers an OpenAI chat with one chunk per delta (each a map
// of the delta's fields), then a finish.
func sseDeltas(deltas []map[string]string) func(http.ResponseWriter, int) {
	return func(w http.ResponseWriter, _ int) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, d := range deltas {
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": d}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}
}

// pieces are content deltas.
func pieces(ss ...string) []map[string]string {
	var out []map[string]string
	for _, s := range ss {
		out = append(out, map[string]string{"content": s})
	}
	return out
}

// TestReasoningReachesTheThinkingStream: on the OpenAI protocol, the
// server's reasoning channel (reasoning_content, or Ollama's reasoning)
// and a <think> block that opens the content, however the stream splits
// its tags, reach the thinking stream and the reply's Thinking, and the
// content keeps only the answer; a <think> later in the content, or a
// block never closed, stays content.
func TestReasoningReachesTheThinkingStream(t *testing.T) {
	const answer = `{"score": 7, "justification": "north"}`
	tests := []struct {
		name         string
		deltas       []map[string]string
		wantContent  string
		wantThinking string
	}{
		{"reasoning_content", []map[string]string{{"reasoning_content": "The door "}, {"reasoning_content": "is north."}, {"content": answer}},
			answer, "The door is north."},
		{"reasoning (Ollama's /v1)", []map[string]string{{"reasoning": "The door is north."}, {"content": answer}}, answer, "The door is north."},
		{"a think block in one piece", pieces("<think>The door is north.</think>\n\n" + answer), answer, "The door is north."},
		{"a think block split inside its tags", pieces("  <th", "ink>The door", " is north.</th", "ink", ">", "\n"+answer[:5], answer[5:]), answer, "The door is north."},
		{"a thinking block a character at a time", pieces(strings.Split("<thinking>The door is north.</thinking>"+answer, "")...), answer, "The door is north."},
		{"an empty think block", pieces("<think>\n\n</think>\n\n", answer), answer, ""},
		{"a think block and reasoning_content", []map[string]string{{"reasoning_content": "First."}, {"content": "<think>Second.</think>"}, {"content": answer}},
			answer, "First.\nSecond."},
		{"no block", pieces("<", "b>bold</b> ", answer), "<b>bold</b> " + answer, ""},
		{"a think tag later in the content", pieces("Sure. <think>not reasoning</think> " + answer), "Sure. <think>not reasoning</think> " + answer, ""},
		{"a block never closed", pieces("<think>The door ", "is north. "+answer), "<think>The door is north. " + answer, ""},
		{"only whitespace", pieces("  ", "\n"), "  \n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostile(t, config.APIOpenAI, sseDeltas(tc.deltas))
			c := hostileClient(t, h, config.APIOpenAI, llm.Options{})
			var streamed, thought strings.Builder
			req := ask(config.RoleCritic, "judge")
			req.OnDelta = func(d llm.Delta) {
				streamed.WriteString(d.Content)
				thought.WriteString(d.Thinking)
			}
			reply, err := c.Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if reply.Content != tc.wantContent || reply.Thinking != tc.wantThinking {
				t.Errorf("content %q, thinking %q; want %q and %q", reply.Content, reply.Thinking, tc.wantContent, tc.wantThinking)
			}
			// What streamed as thinking is the reply's thinking (a block
			// never closed streamed as thinking before it was known).
			if tc.name != "a block never closed" {
				if strings.TrimSpace(streamed.String()) != strings.TrimSpace(tc.wantContent) {
					t.Errorf("streamed content %q, want %q", streamed.String(), tc.wantContent)
				}
				if got := strings.Join(strings.Fields(thought.String()), ""); got != strings.Join(strings.Fields(tc.wantThinking), "") {
					t.Errorf("streamed thinking %q, want %q", thought.String(), tc.wantThinking)
				}
			}
		})
	}
}

// TestStructuredReasoningFromAThinkBlock: a structured reply whose
// reasoning comes in a <think> block decodes at the first attempt, with
// the block as the reply's Thinking.
func TestStructuredReasoningFromAThinkBlock(t *testing.T) {
	h := newHostile(t, config.APIOpenAI, sseDeltas(pieces("<think>North is", " open.</think>", `{"score": 7, "justification": "a new room"}`)))
	c := hostileClient(t, h, config.APIOpenAI, llm.Options{})
	v, reply, err := llm.Structured[verdict](context.Background(), c, ask(config.RoleCritic, "judge"))
	if err != nil {
		t.Fatal(err)
	}
	if v.Score != 7 || reply.Thinking != "North is open." || reply.Metrics.FormatRetries != 0 {
		t.Errorf("verdict %+v, thinking %q, %d format retries", v, reply.Thinking, reply.Metrics.FormatRetries)
	}
}
