package chatserve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// The OpenAI chat-completions protocol: requests are translated to
// Ollama's shape for the backend, answers written as chat.completion
// objects or server-sent chunks.

type oaMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	Reasoning        string          `json:"reasoning,omitempty"`
	ToolCalls        []oaToolCall    `json:"tool_calls,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
	Name             string          `json:"name,omitempty"`
}

type oaToolCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type oaRequest struct {
	Model         string      `json:"model"`
	Messages      []oaMessage `json:"messages"`
	Stream        bool        `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	Tools               []api.Tool `json:"tools"`
	Temperature         *float64   `json:"temperature"`
	TopP                *float64   `json:"top_p"`
	TopK                *int       `json:"top_k"`
	MinP                *float64   `json:"min_p"`
	RepeatPenalty       *float64   `json:"repeat_penalty"`
	Seed                *int       `json:"seed"`
	MaxTokens           *int       `json:"max_tokens"`
	MaxCompletionTokens *int       `json:"max_completion_tokens"`
	ReasoningEffort     *string    `json:"reasoning_effort"`
}

// readOpenAI decodes a chat-completions request into Ollama's shape.
// It also reports whether a stream should end with a usage chunk.
func readOpenAI(r *http.Request) (*api.ChatRequest, bool, error) {
	var in oaRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		return nil, false, fmt.Errorf("bad request: %v", err)
	}
	stream := in.Stream
	out := &api.ChatRequest{Model: in.Model, Stream: &stream, Tools: in.Tools, Options: map[string]any{}}
	names := map[string]string{} // tool call id → tool name
	for _, m := range in.Messages {
		text, err := contentText(m.Content)
		if err != nil {
			return nil, false, err
		}
		am := api.Message{Role: m.Role, Content: text, Thinking: m.ReasoningContent}
		if am.Thinking == "" {
			am.Thinking = m.Reasoning
		}
		for _, tc := range m.ToolCalls {
			args := api.NewToolCallFunctionArguments()
			if tc.Function.Arguments != "" {
				if err := json.Unmarshal([]byte(tc.Function.Arguments), &args); err != nil {
					return nil, false, fmt.Errorf("bad request: tool call arguments: %v", err)
				}
			}
			names[tc.ID] = tc.Function.Name
			am.ToolCalls = append(am.ToolCalls, api.ToolCall{ID: tc.ID, Function: api.ToolCallFunction{Name: tc.Function.Name, Arguments: args}})
		}
		if m.Role == "tool" {
			am.ToolName, am.ToolCallID = m.Name, m.ToolCallID
			if am.ToolName == "" {
				am.ToolName = names[m.ToolCallID]
			}
		}
		out.Messages = append(out.Messages, am)
	}
	if rf := in.ResponseFormat; rf != nil {
		switch rf.Type {
		case "json_schema":
			if rf.JSONSchema == nil || len(rf.JSONSchema.Schema) == 0 {
				return nil, false, fmt.Errorf("bad request: response_format json_schema without a schema")
			}
			out.Format = rf.JSONSchema.Schema
		case "json_object":
			out.Format = json.RawMessage(`"json"`)
		case "text", "":
		default:
			return nil, false, fmt.Errorf("bad request: response_format type %q", rf.Type)
		}
	}
	set := func(k string, v any, ok bool) {
		if ok {
			out.Options[k] = v
		}
	}
	set("temperature", deref(in.Temperature), in.Temperature != nil)
	set("top_p", deref(in.TopP), in.TopP != nil)
	set("top_k", deref(in.TopK), in.TopK != nil)
	set("min_p", deref(in.MinP), in.MinP != nil)
	set("repeat_penalty", deref(in.RepeatPenalty), in.RepeatPenalty != nil)
	set("seed", deref(in.Seed), in.Seed != nil)
	set("num_predict", deref(in.MaxTokens), in.MaxTokens != nil)
	set("num_predict", deref(in.MaxCompletionTokens), in.MaxCompletionTokens != nil)
	if e := in.ReasoningEffort; e != nil {
		switch *e {
		case "none":
			out.Think = &api.ThinkValue{Value: false}
		case "low", "medium", "high":
			out.Think = &api.ThinkValue{Value: *e}
		default:
			return nil, false, fmt.Errorf("bad request: invalid reasoning value: %q", *e)
		}
	}
	return out, in.StreamOptions != nil && in.StreamOptions.IncludeUsage, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// contentText reads a message's content: a string, null, or a list of
// text parts.
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("bad request: message content: %v", err)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

func (s *Server) openaiModels() map[string]any {
	var data []map[string]any
	for _, m := range s.o.Backend.Models() {
		data = append(data, map[string]any{"id": m.Name, "object": "model", "created": s.o.Started.Unix(), "owned_by": "library",
			"max_model_len": m.ContextLength})
	}
	return map[string]any{"object": "list", "data": data}
}

func openaiError(w http.ResponseWriter, code int, msg string) {
	typ := "invalid_request_error"
	if code >= 500 {
		typ = "api_error"
	}
	writeJSON(w, code, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}

type openaiWriter struct {
	w     http.ResponseWriter
	model string
	t     *tally
	id    string
	usage bool
	calls bool
}

func (o *openaiWriter) usageJSON() map[string]any {
	u := map[string]any{"prompt_tokens": o.t.promptTokens, "completion_tokens": o.t.evalTokens, "total_tokens": o.t.promptTokens + o.t.evalTokens}
	if o.t.cached > 0 {
		u["prompt_tokens_details"] = map[string]any{"cached_tokens": o.t.cached}
	}
	return u
}

func (o *openaiWriter) finish() string {
	if o.t.reason == "length" {
		return "length"
	}
	if o.calls {
		return "tool_calls"
	}
	return "stop"
}

func oaCalls(calls []ToolCall) []map[string]any {
	var out []map[string]any
	for i, c := range calls {
		args, _ := json.Marshal(c.Args)
		if c.Args == nil {
			args = []byte("{}")
		}
		out = append(out, map[string]any{"index": i, "id": fmt.Sprintf("call_%d", i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": string(args)}})
	}
	return out
}

func (o *openaiWriter) whole(a Answer) {
	o.calls = len(a.ToolCalls) > 0
	msg := map[string]any{"role": "assistant", "content": a.Content}
	if a.Thinking != "" {
		msg["reasoning_content"] = a.Thinking
	}
	if o.calls {
		msg["tool_calls"] = oaCalls(a.ToolCalls)
	}
	writeJSON(o.w, http.StatusOK, map[string]any{"id": o.id, "object": "chat.completion", "created": time.Now().Unix(), "model": o.model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": o.finish()}}, "usage": o.usageJSON()})
}

func (o *openaiWriter) begin() {
	o.w.Header().Set("Content-Type", "text/event-stream")
	o.w.Header().Set("Cache-Control", "no-cache")
	o.w.WriteHeader(http.StatusOK)
}

func (o *openaiWriter) event(choices []any, usage map[string]any) bool {
	v := map[string]any{"id": o.id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": o.model, "choices": choices}
	if usage != nil {
		v["usage"] = usage
	}
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	if _, err := fmt.Fprintf(o.w, "data: %s\n\n", b); err != nil {
		return false
	}
	flush(o.w)
	return true
}

func (o *openaiWriter) piece(p piece) bool {
	delta := map[string]any{"role": "assistant"}
	if p.thinking != "" {
		delta["reasoning_content"] = p.thinking
	}
	if p.content != "" {
		delta["content"] = p.content
	}
	return o.event([]any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}, nil)
}

func (o *openaiWriter) tools(calls []ToolCall) {
	o.calls = true
	o.event([]any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "tool_calls": oaCalls(calls)}, "finish_reason": nil}}, nil)
}

func (o *openaiWriter) end() {
	o.event([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": o.finish()}}, nil)
	if o.usage {
		o.event([]any{}, o.usageJSON())
	}
	fmt.Fprint(o.w, "data: [DONE]\n\n")
	flush(o.w)
}

func (o *openaiWriter) malformed() string { return "data: {\"choices\": [{\"delta\": \n\n" }
