package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/lantern-if/lantern/config"
)

// The OpenAI chat-completions protocol, as llama.cpp's llama-server, LM
// Studio, vLLM and Ollama's /v1 speak it. Lantern writes this small client
// itself rather than take an SDK: it needs a dozen fields, and owning the
// reads is how every body stays bounded (capTransport, readLine), every
// read honours cancellation, and errors map to the same typed sentinels as
// on Ollama's API.

type oaMessage struct {
	Role       string       `json:"role"`
	Content    string       `json:"content"`
	Reasoning  string       `json:"reasoning_content,omitempty"`
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
	Name       string       `json:"name,omitempty"`
}

type oaFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type oaToolCall struct {
	Index    int        `json:"index"`
	ID       string     `json:"id,omitempty"`
	Type     string     `json:"type,omitempty"`
	Function oaFunction `json:"function"`
}

// oaDelta is a streamed delta or a whole message of a reply.
type oaDelta struct {
	Content          string       `json:"content"`
	ReasoningContent string       `json:"reasoning_content"`
	Reasoning        string       `json:"reasoning"` // Ollama's /v1 name
	ToolCalls        []oaToolCall `json:"tool_calls"`
}

type oaChunk struct {
	Choices []struct {
		Delta        oaDelta  `json:"delta"`
		Message      *oaDelta `json:"message"`
		FinishReason *string  `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	// Timings are llama.cpp's.
	Timings *struct {
		PromptMS    float64 `json:"prompt_ms"`
		PredictedMS float64 `json:"predicted_ms"`
		CacheN      int     `json:"cache_n"`
	} `json:"timings"`
	Error json.RawMessage `json:"error"`
}

// openaiBody is the request for a role's call.
func (c *Client) openaiBody(ctx context.Context, at *endpoint, role config.Role, req Request) (map[string]any, error) {
	var msgs []oaMessage
	var pending []string // ids of the last assistant message's tool calls
	for i, m := range req.Messages {
		om := oaMessage{Role: m.Role, Content: m.Content}
		if m.Role == "assistant" {
			om.Reasoning = m.Thinking
			pending = nil
			for j, tc := range m.ToolCalls {
				id := fmt.Sprintf("call_%d_%d", i, j)
				pending = append(pending, id)
				args := string(tc.Arguments)
				if args == "" {
					args = "{}"
				}
				om.ToolCalls = append(om.ToolCalls, oaToolCall{Index: j, ID: id, Type: "function", Function: oaFunction{Name: tc.Name, Arguments: args}})
			}
		}
		if m.Role == "tool" {
			om.Name = m.ToolName
			if len(pending) > 0 {
				om.ToolCallID, pending = pending[0], pending[1:]
			}
		}
		msgs = append(msgs, om)
	}
	body := map[string]any{
		"model": role.Model, "messages": msgs, "stream": true,
		"stream_options": map[string]any{"include_usage": true},
		"temperature":    role.Temperature, "top_p": role.TopP,
	}
	// Beyond OpenAI's own fields: llama.cpp and vLLM read these; Ollama's
	// /v1 ignores them.
	if role.TopK > 0 {
		body["top_k"] = role.TopK
	}
	if role.MinP > 0 {
		body["min_p"] = role.MinP
	}
	if role.RepeatPenalty > 0 && role.RepeatPenalty != 1 {
		body["repeat_penalty"] = role.RepeatPenalty
	}
	if role.Seed != 0 {
		body["seed"] = role.Seed
	}
	if role.NumPredict > 0 {
		body["max_tokens"] = role.NumPredict
	}
	if req.Format != nil {
		body["response_format"] = map[string]any{"type": "json_schema",
			"json_schema": map[string]any{"name": "reply", "schema": req.Format, "strict": true}}
	}
	var tools []map[string]any
	for _, t := range req.Tools {
		tools = append(tools, map[string]any{"type": "function",
			"function": map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Params}})
	}
	if len(tools) > 0 {
		body["tools"] = tools
	}
	switch role.Think {
	case config.ThinkLow, config.ThinkMedium, config.ThinkHigh:
		body["reasoning_effort"] = string(role.Think)
	case config.ThinkOff:
		// "none" is Ollama's; other servers may refuse it.
		if at.isOllama.Load() {
			body["reasoning_effort"] = "none"
		}
	}
	return body, nil
}

// streamOpenAI is one streaming request on the OpenAI protocol.
func (c *Client) streamOpenAI(ctx context.Context, at *endpoint, role config.Role, req Request, m *CallMetrics) (wire, error) {
	body, err := c.openaiBody(ctx, at, role, req)
	if err != nil {
		return wire{}, err
	}
	b, err := json.Marshal(body)
	if err != nil {
		return wire{}, fmt.Errorf("llm: request: %w", err)
	}
	start := time.Now()
	resp, err := c.post(ctx, at, "/chat/completions", b)
	if err != nil {
		return wire{}, c.classify(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return wire{}, c.classify(ctx, readStatus(resp))
	}
	w := wire{cached: -1}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// A server that does not stream answers with the whole completion,
		// bounded like a stream's line.
		limit := int64(c.maxReply + 64<<10)
		data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
		if err != nil {
			return wire{}, c.classify(ctx, err)
		}
		if int64(len(data)) > limit {
			return wire{}, fmt.Errorf("%w: a completion of more than %d bytes", ErrReplyTooLarge, limit)
		}
		if err := c.openaiChunk(&w, req, data, m); err != nil {
			return wire{}, err
		}
		w.done = w.done || w.reason != ""
	} else if err := c.readEvents(ctx, &w, req, resp.Body, m); err != nil {
		return wire{}, err
	}
	if err := c.endOpenAI(&w, req); err != nil {
		return wire{}, err
	}
	if m.Total == 0 {
		m.Total = time.Since(start)
	}
	if !w.done && ctx.Err() != nil {
		return wire{}, c.classify(ctx, ctx.Err())
	}
	return w, nil
}

// readEvents reads a server-sent event stream to its end ("[DONE]" or the
// end of the body).
func (c *Client) readEvents(ctx context.Context, w *wire, req Request, body io.Reader, m *CallMetrics) error {
	r := bufio.NewReaderSize(body, 64<<10)
	// A line holds one chunk: at most the reply cap plus its framing.
	maxLine := c.maxReply + 64<<10
	sawFinish := false
	for {
		if err := ctx.Err(); err != nil {
			return c.classify(ctx, err)
		}
		line, err := readLine(r, maxLine)
		if err != nil {
			if errors.Is(err, io.EOF) {
				w.done = sawFinish
				return nil
			}
			if errors.Is(err, ErrReplyTooLarge) || errors.Is(err, ErrBodyTooLarge) {
				return err
			}
			return c.classify(ctx, err)
		}
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue // blank lines, comments, event names
		}
		data = bytes.TrimSpace(data)
		if string(data) == "[DONE]" {
			w.done = sawFinish
			if !sawFinish && w.size() > 0 {
				// Some servers end without a finish reason.
				w.done = true
			}
			return nil
		}
		if err := c.openaiChunk(w, req, data, m); err != nil {
			return err
		}
		if w.reason != "" {
			sawFinish = true
		}
	}
}

// openaiChunk takes one chunk (or a whole completion).
func (c *Client) openaiChunk(w *wire, req Request, data []byte, m *CallMetrics) error {
	var ch oaChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return fmt.Errorf("%w: %s: %s", ErrMalformed, clipText(err.Error(), 120), clipText(string(data), 120))
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		return streamError(ch.Error, 0)
	}
	for _, choice := range ch.Choices {
		d := choice.Delta
		whole := choice.Message != nil
		if whole {
			d = *choice.Message
		}
		thinking := d.ReasoningContent
		if thinking == "" {
			thinking = d.Reasoning
		}
		if err := c.addOpenAI(w, req, d.Content, thinking); err != nil {
			return err
		}
		for _, tc := range d.ToolCalls {
			if err := c.toolDelta(w, tc, whole); err != nil {
				return err
			}
		}
		if choice.FinishReason != nil && *choice.FinishReason != "" {
			w.reason = *choice.FinishReason
			if whole {
				w.done = true
			}
		}
	}
	if u := ch.Usage; u != nil {
		m.PromptTokens, m.EvalTokens = u.PromptTokens, u.CompletionTokens
		if u.PromptTokensDetails != nil {
			w.cached = u.PromptTokensDetails.CachedTokens
		}
	}
	if t := ch.Timings; t != nil {
		m.PromptEval = time.Duration(t.PromptMS * float64(time.Millisecond))
		m.Eval = time.Duration(t.PredictedMS * float64(time.Millisecond))
		if w.cached < 0 && t.CacheN > 0 {
			w.cached = t.CacheN
		}
	}
	return nil
}

// toolDelta merges a streamed tool call piece: a new index starts a call,
// later pieces add to its arguments.
func (c *Client) toolDelta(w *wire, tc oaToolCall, whole bool) error {
	idx := tc.Index
	if whole {
		idx = len(w.calls)
	}
	if idx < 0 || idx > len(w.calls) {
		return fmt.Errorf("%w: tool call index %d out of order", ErrMalformed, idx)
	}
	if idx == len(w.calls) {
		return c.addCall(w, ToolCall{Name: tc.Function.Name, Arguments: json.RawMessage(tc.Function.Arguments)})
	}
	if n := w.size() + len(tc.Function.Arguments); n > c.maxReply {
		return fmt.Errorf("%w: tool calls of more than %d bytes (the cap is %d)", ErrReplyTooLarge, n, c.maxReply)
	}
	call := &w.calls[idx]
	if tc.Function.Name != "" && call.Name == "" {
		call.Name = tc.Function.Name
	}
	call.Arguments = append(call.Arguments, tc.Function.Arguments...)
	return nil
}

// readLine reads one line of at most max bytes (without its newline).
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		if len(line)+len(part) > max {
			return nil, fmt.Errorf("%w: a stream line of more than %d bytes", ErrReplyTooLarge, max)
		}
		line = append(line, part...)
		switch {
		case err == nil:
			return bytes.TrimRight(line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return bytes.TrimRight(line, "\r\n"), nil
		default:
			return nil, err
		}
	}
}

// post sends a JSON body to a path under the endpoint's base.
func (c *Client) post(ctx context.Context, at *endpoint, path string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, at.base.JoinPath(path).String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	return at.hc.Do(req)
}

// readStatus makes the error of a non-200 reply from its (capped) body:
// OpenAI's {"error": {"message": …}}, Ollama's {"error": "…"} (with the
// sign-in URL of a cloud model's 401), or the text.
func readStatus(resp *http.Response) error {
	data, _ := io.ReadAll(resp.Body)
	var v struct {
		Error     json.RawMessage `json:"error"`
		SigninURL string          `json:"signin_url"`
	}
	msg := string(data)
	if json.Unmarshal(data, &v) == nil && len(v.Error) > 0 {
		msg = errorText(v.Error)
		if v.SigninURL != "" {
			msg += " (sign in at " + v.SigninURL + ")"
		}
	}
	if strings.TrimSpace(msg) == "" {
		msg = resp.Status
	}
	st := statusError{code: resp.StatusCode, msg: clipText(msg, 300), retryAfter: resp.Header.Get("Retry-After")}
	if resp.Request != nil && resp.Request.URL != nil {
		st.url = resp.Request.URL.Redacted()
	}
	return st
}

// errorText reads an error value: a string or an object with a message.
func errorText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Message != "" {
		return o.Message
	}
	return string(raw)
}

// oaModel is one entry of /models, with the context fields some servers
// add (vLLM's max_model_len, llama.cpp's meta, LM Studio's).
type oaModel struct {
	ID            string `json:"id"`
	OwnedBy       string `json:"owned_by"`
	MaxModelLen   int    `json:"max_model_len"`
	ContextLength int    `json:"context_length"`
	Meta          *struct {
		NCtxTrain int `json:"n_ctx_train"`
	} `json:"meta"`
}

// openaiModels lists /models.
func (c *Client) openaiModels(ctx context.Context, at *endpoint) ([]oaModel, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, at.base.JoinPath("/models").String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := at.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, readStatus(resp)
	}
	var v struct {
		Data []oaModel `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		if errors.Is(err, ErrBodyTooLarge) {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: /models: %s", ErrMalformed, clipText(err.Error(), 200))
	}
	return v.Data, nil
}

// showOpenAI describes a model from /models; when Ollama serves the base,
// its /api/show adds the capabilities and the model's length.
func (c *Client) showOpenAI(ctx context.Context, at *endpoint, model string) (ModelInfo, error) {
	list, err := c.openaiModels(ctx, at)
	if err != nil {
		return ModelInfo{}, err
	}
	var found *oaModel
	for i := range list {
		if sameModel(list[i].ID, model) {
			found = &list[i]
			break
		}
	}
	if found == nil {
		return ModelInfo{}, fmt.Errorf("%w: %s is not among the %d model(s) the server lists", ErrModelNotFound, clipText(model, 200), len(list))
	}
	if i, err := c.showOllama(ctx, at, model); err == nil {
		at.isOllama.Store(true)
		return i, nil
	}
	i := ModelInfo{Name: model, Family: clipText(found.OwnedBy, 40), Capabilities: []string{CapCompletion, CapTools}}
	switch {
	case found.MaxModelLen > 0:
		i.RunningContext = found.MaxModelLen
	case found.ContextLength > 0:
		i.RunningContext = found.ContextLength
	case found.Meta != nil && found.Meta.NCtxTrain > 0:
		i.ContextLength = found.Meta.NCtxTrain
	}
	return i, nil
}
