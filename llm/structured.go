package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxFormatAttempts is how often a structured call is tried before it fails
// with ErrInvalidReply.
const MaxFormatAttempts = 3

// Structured asks for a reply shaped like T: T's schema goes in `format`,
// the reply is validated and decoded. A reply that does not match is sent
// back with a format reminder, up to MaxFormatAttempts tries; then the call
// fails with ErrInvalidReply (never a silent default). Reasoning comes from
// the API's thinking field or from <think>, <thinking> or <reflection> tags.
func Structured[T any](ctx context.Context, c *Client, req Request) (T, Reply, error) {
	var zero T
	schema, err := SchemaOf(zero)
	if err != nil {
		return zero, Reply{}, err
	}
	req.Format = schema
	msgs := append([]Message(nil), req.Messages...)
	var reply Reply
	var last error
	for attempt := 1; attempt <= MaxFormatAttempts; attempt++ {
		req.Messages = msgs
		reply, err = c.Chat(ctx, req)
		if err != nil {
			return zero, reply, err
		}
		thinking, body := SplitReasoning(reply.Content)
		if thinking != "" {
			reply.Thinking = strings.TrimSpace(reply.Thinking + "\n" + thinking)
		}
		var v T
		var ignored []string
		if ignored, last = decodeInto(schema, body, &v); last == nil {
			if len(ignored) > 0 {
				c.log.Debug("reply fields the request did not ask for, ignored", "role", req.Role, "count", len(ignored),
					"fields", strings.Join(ignored[:min(len(ignored), maxIgnoredLogged)], ", "))
			}
			reply.Metrics.FormatRetries = attempt - 1
			return v, reply, nil
		}
		c.log.Warn("reply does not match the schema", "role", req.Role, "attempt", attempt, "err", last)
		msgs = append(msgs, Assistant(clipReply(reply.Content)), User(reminder(schema, last)))
	}
	return zero, reply, c.roleError(req.Role, MaxFormatAttempts, fmt.Errorf("%w: %v", ErrInvalidReply, last))
}

// maxIgnoredLogged bounds the ignored fields a debug line names.
const maxIgnoredLogged = 8

// decodeInto checks a reply's JSON against the schema the request sent and
// decodes it into v. The schema decides what is read: fields it does not
// have are left out and returned by path (for the log), never an error;
// what it requires must be there and match.
func decodeInto(schema *Schema, body string, v any) ([]string, error) {
	raw := extractJSON(body)
	if raw == "" {
		return nil, fmt.Errorf("no JSON object in the reply")
	}
	var generic any
	if err := json.Unmarshal([]byte(raw), &generic); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	c, err := schema.check(generic)
	if err != nil {
		return nil, err
	}
	if c.pruned { // a part was left out: decode what is left
		b, err := json.Marshal(generic)
		if err != nil {
			return nil, fmt.Errorf("does not encode: %v", err)
		}
		raw = string(b)
	}
	d := json.NewDecoder(bytes.NewReader([]byte(raw)))
	if err := d.Decode(v); err != nil {
		return nil, fmt.Errorf("does not decode: %v", err)
	}
	return c.ignored, nil
}

func reminder(schema *Schema, err error) string {
	s, _ := json.Marshal(schema)
	return fmt.Sprintf("That reply could not be used (%v). Reply with only one JSON object that matches this schema, nothing else:\n%s", err, s)
}

var reasoningTags = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)<(think|thinking|reflection)>(.*?)</(?:think|thinking|reflection)>`)
})

// SplitReasoning takes reasoning out of <think>, <thinking> and
// <reflection> tags and returns it with the rest of the text.
func SplitReasoning(s string) (reasoning, rest string) {
	var parts []string
	rest = reasoningTags().ReplaceAllStringFunc(s, func(m string) string {
		sub := reasoningTags().FindStringSubmatch(m)
		parts = append(parts, strings.TrimSpace(sub[2]))
		return ""
	})
	return strings.Join(parts, "\n"), strings.TrimSpace(rest)
}

// extractJSON finds the JSON object in a reply: fenced code, or the span
// from the first '{' to the last '}'.
func extractJSON(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "```"); i >= 0 {
		body := s[i+3:]
		body = strings.TrimPrefix(body, "json")
		if j := strings.Index(body, "```"); j >= 0 {
			s = strings.TrimSpace(body[:j])
		}
	}
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return ""
	}
	return s[i : j+1]
}

// maxEcho bounds the part of a rejected reply shown back to the model with
// the format reminder: enough to see its mistake, never the whole of a
// runaway reply.
const maxEcho = 4 << 10

func clipReply(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	cut := maxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[… %d more bytes left out]", len(s)-cut)
}
