package chatserve

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// echo answers every call with a fixed reply and records what it saw.
type echo struct {
	mu   sync.Mutex
	seen []*Request
	ans  Answer
}

func (e *echo) Models() []Model {
	return []Model{{Name: "m:latest", ContextLength: 4096, Capabilities: []string{"tools"}}}
}

func (e *echo) Chat(req *Request) (Answer, error) {
	e.mu.Lock()
	e.seen = append(e.seen, req)
	e.mu.Unlock()
	return e.ans, nil
}

// countPacer records the pieces it was asked to wait before.
type countPacer struct {
	mu    *sync.Mutex
	waits *[]int
	done  *int
}

func (p countPacer) Wait(_ context.Context, piece, _ int) error {
	p.mu.Lock()
	*p.waits = append(*p.waits, piece)
	p.mu.Unlock()
	return nil
}

func (p countPacer) Done() {
	p.mu.Lock()
	*p.done++
	p.mu.Unlock()
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set(RoleHeader, "critic")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestBothProtocolsOneCore: one answer streams the same pieces on
// /api/chat and /v1/chat/completions, the OpenAI request reaches the
// backend in Ollama's shape (schema, tools, reasoning effort, tool
// results by name), and the pacer is asked before the first byte and
// before each later piece.
func TestBothProtocolsOneCore(t *testing.T) {
	be := &echo{ans: Answer{Thinking: "think", Content: "0123456789", ToolCalls: []ToolCall{{Name: "f", Args: map[string]any{"a": 1.0}}},
		PromptTokens: 10, EvalTokens: 3, CachedTokens: 8}}
	var mu sync.Mutex
	var waits []int
	done := 0
	srv := httptest.NewServer(New(Options{Backend: be, ChunkRunes: 4,
		Pace: func(*Request, *Answer) Pacer { return countPacer{&mu, &waits, &done} }}))
	t.Cleanup(srv.Close)

	resp := post(t, srv.URL+"/api/chat", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	var content, thinking string
	var final map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var v struct {
			Message struct{ Content, Thinking string } `json:"message"`
			Done    bool                               `json:"done"`
		}
		json.Unmarshal(sc.Bytes(), &v)
		content += v.Message.Content
		thinking += v.Message.Thinking
		if v.Done {
			json.Unmarshal(sc.Bytes(), &final)
		}
	}
	if content != "0123456789" || thinking != "think" || final["prompt_eval_count"] != 10.0 || final["done_reason"] != "stop" {
		t.Errorf("ollama: content %q thinking %q final %v", content, thinking, final)
	}

	resp = post(t, srv.URL+"/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},
		"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"r"}],
		"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object"}}},
		"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],
		"reasoning_effort":"none","max_tokens":7}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	content, thinking = "", ""
	var finish string
	var usage map[string]any
	var calls int
	sawDone := false
	sc = bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			sawDone = true
			continue
		}
		var ch struct {
			Choices []struct {
				Delta struct {
					Content          string `json:"content"`
					ReasoningContent string `json:"reasoning_content"`
					ToolCalls        []any  `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]any `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			t.Fatalf("chunk %s: %v", data, err)
		}
		for _, choice := range ch.Choices {
			content += choice.Delta.Content
			thinking += choice.Delta.ReasoningContent
			calls += len(choice.Delta.ToolCalls)
			if choice.FinishReason != nil {
				finish = *choice.FinishReason
			}
		}
		if ch.Usage != nil {
			usage = ch.Usage
		}
	}
	details, _ := usage["prompt_tokens_details"].(map[string]any)
	if content != "0123456789" || thinking != "think" || calls != 1 || finish != "tool_calls" || !sawDone ||
		usage["prompt_tokens"] != 10.0 || details["cached_tokens"] != 8.0 {
		t.Errorf("openai: content %q thinking %q calls %d finish %q done %v usage %v", content, thinking, calls, finish, sawDone, usage)
	}

	if len(be.seen) != 2 {
		t.Fatalf("%d calls reached the backend", len(be.seen))
	}
	oa := be.seen[1]
	msgs := oa.Chat.Messages
	if oa.Protocol != OpenAI || oa.Role != "critic" || string(oa.Chat.Format) != `{"type":"object"}` || len(oa.Chat.Tools) != 1 ||
		oa.Chat.Think == nil || oa.Chat.Think.Value != false || oa.Chat.Options["num_predict"] != 7 ||
		len(msgs) != 3 || msgs[0].Content != "hi" || len(msgs[1].ToolCalls) != 1 || msgs[2].ToolName != "f" {
		t.Errorf("translated request %+v", oa.Chat)
	}
	// Pieces: "thin","k","0123","4567","89" = 5; waits 0..4 per reply.
	mu.Lock()
	defer mu.Unlock()
	want := []int{0, 1, 2, 3, 4, 0, 1, 2, 3, 4}
	if len(waits) != len(want) || done != 2 {
		t.Fatalf("pacer waits %v, done %d", waits, done)
	}
	for i := range want {
		if waits[i] != want[i] {
			t.Errorf("pacer waits %v, want %v", waits, want)
			break
		}
	}
}

// TestListingsOnBothProtocols: the same models on /api/tags, /api/ps,
// /api/show and /v1/models; an unknown model is 404 in each protocol's
// error shape.
func TestListingsOnBothProtocols(t *testing.T) {
	srv := httptest.NewServer(New(Options{Backend: &echo{}}))
	t.Cleanup(srv.Close)
	get := func(path string) map[string]any {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		json.NewDecoder(resp.Body).Decode(&v)
		return v
	}
	tags := get("/api/tags")["models"].([]any)
	ps := get("/api/ps")["models"].([]any)
	oa := get("/v1/models")["data"].([]any)
	if tags[0].(map[string]any)["name"] != "m:latest" || ps[0].(map[string]any)["context_length"] != 4096.0 || oa[0].(map[string]any)["id"] != "m:latest" {
		t.Errorf("tags %v ps %v models %v", tags, ps, oa)
	}
	resp := post(t, srv.URL+"/api/show", `{"model":"m"}`)
	var show map[string]any
	json.NewDecoder(resp.Body).Decode(&show)
	if info, _ := show["model_info"].(map[string]any); info["llama.context_length"] != 4096.0 {
		t.Errorf("show %v", show)
	}
	resp = post(t, srv.URL+"/api/show", `{"model":"absent"}`)
	if resp.StatusCode != 404 {
		t.Errorf("unknown model: %d", resp.StatusCode)
	}
}
