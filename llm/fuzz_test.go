package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
)

// Three reply shapes like the ones the managers ask for: bounded strings
// and an enum; bounded integers and numbers with a boolean; lists with
// maxItems of bounded strings and of objects.
type fuzzProposal struct {
	Reasoning string `json:"reasoning" maxLength:"40"`
	Action    string `json:"action" maxLength:"20"`
	Mood      string `json:"mood" enum:"calm,bold"`
}

type fuzzScore struct {
	Score      int     `json:"score" minimum:"-10" maximum:"10"`
	Confidence float64 `json:"confidence" minimum:"0" maximum:"1"`
	Done       bool    `json:"done"`
}

type fuzzItem struct {
	ID   int    `json:"id" minimum:"1" maximum:"99"`
	Kind string `json:"kind" enum:"room,item"`
}

type fuzzList struct {
	Titles []string   `json:"titles" maxItems:"3" maxLength:"12"`
	Items  []fuzzItem `json:"items" maxItems:"2"`
}

// replyTransport answers every chat call in-process with one scripted
// reply, streamed as Ollama streams it: NDJSON chunks of a few characters
// (thinking first, then content), then the final message.
type replyTransport struct{ content, thinking string }

func (rt replyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	if r.URL.Path != "/api/chat" {
		return &http.Response{StatusCode: http.StatusNotFound, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(`{"error":"not scripted"}`)), Request: r}, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	chunk := func(field, text string) {
		rs := []rune(text)
		for len(rs) > 0 {
			n := min(7, len(rs))
			enc.Encode(map[string]any{"model": "fuzz", "message": map[string]string{"role": "assistant", field: string(rs[:n])}, "done": false})
			rs = rs[n:]
		}
	}
	chunk("thinking", rt.thinking)
	chunk("content", rt.content)
	enc.Encode(map[string]any{"model": "fuzz", "message": map[string]string{"role": "assistant"}, "done": true, "done_reason": "stop",
		"prompt_eval_count": 10, "eval_count": 5})
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/x-ndjson"}},
		Body: io.NopCloser(&b), Request: r}, nil
}

func fuzzClient(t *testing.T, content, thinking string) *llm.Client {
	t.Helper()
	roles := config.DefaultRoles()
	for k, r := range roles {
		// A fixed num_ctx and think setting: no /api/show call.
		r.Model, r.NumCtx, r.Think, r.Timeout = "fuzz", 4096, config.ThinkOff, 30*time.Second
		roles[k] = r
	}
	c, err := llm.New(llm.Options{Host: "127.0.0.1:1", Roles: roles, Retry: llm.RetryPolicy{Attempts: 1},
		HTTPClient: &http.Client{Transport: replyTransport{content: content, thinking: thinking}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkStructured runs one structured call whose every attempt gets the
// same reply, and checks its outcome: a typed error and the zero value, or
// a value that validates against T's schema when encoded again.
func checkStructured[T any](t *testing.T, content, thinking string) {
	t.Helper()
	c := fuzzClient(t, content, thinking)
	v, reply, err := llm.Structured[T](context.Background(), c, llm.Request{Role: config.RoleAgent, Messages: []llm.Message{llm.User("go")}})
	if err != nil {
		var le *llm.Error
		if !errors.As(err, &le) {
			t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
		}
		want := llm.ErrInvalidReply
		if content == "" && thinking == "" {
			want = llm.ErrEmptyReply
		}
		if !errors.Is(err, want) {
			t.Fatalf("content %q thinking %q: error %v, want %v", content, thinking, err, want)
		}
		if !reflect.ValueOf(&v).Elem().IsZero() {
			t.Fatalf("failed call returned a value: %+v", v)
		}
		return
	}
	var zero T
	schema, err := llm.SchemaOf(zero)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("accepted value %+v does not encode: %v", v, err)
	}
	var generic any
	if err := json.Unmarshal(js, &generic); err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(generic); err != nil {
		t.Fatalf("content %q: accepted value %s does not validate: %v", content, js, err)
	}
	if reply.Content != content {
		t.Errorf("reply content %q, sent %q", reply.Content, content)
	}
	if reasoning, _ := llm.SplitReasoning(content); !strings.Contains(reply.Thinking, reasoning) || !strings.Contains(reply.Thinking, strings.TrimSpace(thinking)) {
		t.Errorf("reply thinking %q lacks the thinking field %q or the tagged reasoning %q", reply.Thinking, thinking, reasoning)
	}
}

// FuzzStructuredReply sends arbitrary reply text (content and the thinking
// field, with or without <think> tags, fences or prose around the JSON)
// through Structured for three reply types. It never panics; it fails with
// ErrInvalidReply (ErrEmptyReply for nothing at all) and the zero value, or
// returns a value that validates against the type's schema.
func FuzzStructuredReply(f *testing.F) {
	seeds := []struct {
		content, thinking string
		kind              uint8
	}{
		{`{"reasoning":"the door is shut","action":"open door","mood":"calm"}`, "", 0},
		{`<think>north is dark</think>{"reasoning":"light first","action":"light lamp","mood":"bold"}`, "hmm", 0},
		{"Sure!\n```json\n{\"reasoning\":\"r\",\"action\":\"look\",\"mood\":\"calm\"}\n```\nDone.", "", 0},
		{`<thinking>a</thinking><reflection>b</reflection> {"reasoning":"","action":"","mood":"calm"} trailing`, "", 0},
		{`<think>{"reasoning":"hidden","action":"x","mood":"calm"}</think>`, "", 0},
		{`<think>unclosed {"reasoning":"r","action":"a","mood":"calm"}`, "", 0},
		{`{"reasoning":"far too long a reasoning to fit in forty characters","action":"a","mood":"calm"}`, "", 0},
		{`{"reasoning":"r","action":"a","mood":"angry"}`, "", 0},
		{`{"reasoning":"r","action":"a","mood":"calm","extra":1}`, "", 0},
		{`{"reasoning":"r","action":"a","mood":"calm","Mood":"calm"}`, "", 0},
		{`{"reasoning":"r","action":"a","mood":"calm","mood":"nope"}`, "", 0},
		{`{"reasoning":"\ud800","action":"\u00e9","mood":"calm"}`, "", 0},
		{`{"reasoning":null,"action":"a","mood":"calm"}`, "", 0},
		{`{"score":3,"confidence":0.5,"done":false}`, "", 1},
		{`{"score":3.0,"confidence":1,"done":true}`, "", 1},
		{`{"score":11,"confidence":0.5,"done":false}`, "", 1},
		{`{"score":-10,"confidence":-0.0,"done":false}`, "", 1},
		{`{"score":1e1,"confidence":1e-400,"done":false}`, "", 1},
		{`{"score":2.5,"confidence":0.5,"done":false}`, "", 1},
		{`{"score":9223372036854775808,"confidence":0.5,"done":false}`, "", 1},
		{`{"score":"3","confidence":0.5,"done":"yes"}`, "", 1},
		{`{"titles":["a","b"],"items":[{"id":1,"kind":"room"}]}`, "", 2},
		{`{"titles":[],"items":[]}`, "", 2},
		{`{"titles":null,"items":[]}`, "", 2},
		{`{"titles":["a","b","c","d"],"items":[]}`, "", 2},
		{`{"titles":["thirteen chars"],"items":[{"id":100,"kind":"item"}]}`, "", 2},
		{`{"titles":["x"],"items":[{"id":1,"kind":"room"},{"id":2,"kind":"item"},{"id":3,"kind":"room"}]}`, "", 2},
		{`{"titles":[1],"items":[{}]}`, "", 2},
		{`[{"titles":[],"items":[]}]`, "", 2},
		{`{}`, "", 0},
		{`}{`, "", 1},
		{`not json at all`, "", 2},
		{"", "only thinking", 0},
		{"", "", 1},
		{"\xff\xfe{\"score\":1}", "", 1},
	}
	for _, s := range seeds {
		f.Add(s.content, s.thinking, s.kind)
	}
	f.Fuzz(func(t *testing.T, content, thinking string, kind uint8) {
		// Ollama's stream is JSON: what reaches the client is valid UTF-8.
		content, thinking = strings.ToValidUTF8(content, "\uFFFD"), strings.ToValidUTF8(thinking, "\uFFFD")
		if !utf8.ValidString(content) || !utf8.ValidString(thinking) {
			t.Fatal("unreachable")
		}
		switch kind % 3 {
		case 0:
			checkStructured[fuzzProposal](t, content, thinking)
		case 1:
			checkStructured[fuzzScore](t, content, thinking)
		default:
			checkStructured[fuzzList](t, content, thinking)
		}
	})
}
