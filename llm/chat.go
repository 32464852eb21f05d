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

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/config"
)

// Message is one chat message.
type Message struct {
	Role      string     `json:"role"` // system, user, assistant, tool
	Content   string     `json:"content"`
	Thinking  string     `json:"thinking,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	ToolName  string     `json:"tool_name,omitempty"` // for role tool
}

// ToolCall is a model's request to run a tool.
type ToolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// System, User and Assistant make messages.
func System(s string) Message    { return Message{Role: "system", Content: s} }
func User(s string) Message      { return Message{Role: "user", Content: s} }
func Assistant(s string) Message { return Message{Role: "assistant", Content: s} }

// Delta is a piece of a streaming reply.
type Delta struct {
	Content  string
	Thinking string
}

// Request is one call for a role.
type Request struct {
	Role     string
	Messages []Message
	// Format, if set, constrains the reply to the schema (structured output).
	Format *Schema
	// Tools the model may call (see RunTools).
	Tools []Tool
	// OnDelta receives content and thinking as they stream, in order.
	OnDelta func(Delta)
	// Turn tags the call's metrics with the game turn.
	Turn int
	// WholeReply makes a reply cut off at its length limit an error
	// (ErrReplyLength, retried once with twice num_predict) even without
	// Format. Without it a free-text reply stopped at num_predict is
	// returned as it is, with Reply.Cut set: num_predict is then the
	// caller's chosen length, not a failure. A structured reply (Format
	// set) cut off is always ErrReplyLength, since it cannot be whole JSON.
	WholeReply bool
}

// Reply is a model's answer.
type Reply struct {
	Content   string
	Thinking  string
	ToolCalls []ToolCall
	Metrics   CallMetrics
	// Cut: the model stopped at its length limit (done_reason "length")
	// and the request allowed a cut reply (see Request.WholeReply).
	Cut bool
}

// Chat sends a request for its role and returns the whole reply, streaming
// deltas to OnDelta as they come. Transient faults are retried per the
// client's policy within the role's timeout; cancelling ctx stops the
// stream at once and returns ctx's error.
func (c *Client) Chat(ctx context.Context, req Request) (Reply, error) {
	role, ok := c.Role(req.Role)
	if !ok {
		return Reply{}, fmt.Errorf("llm: unknown role %q", req.Role)
	}
	if c.Down() {
		return Reply{}, c.downError(req.Role, role.Model)
	}
	start := time.Now()
	if role.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, role.Timeout)
		defer cancel()
	}
	ctx = context.WithValue(ctx, roleKey{}, req.Role)
	m := CallMetrics{Role: req.Role, Model: role.Model, Turn: req.Turn}
	var reply Reply
	var err error
	var at *endpoint
	for attempt := 1; ; attempt++ {
		m.Attempts = attempt
		reply, at, err = c.chatOnce(ctx, role, req, &m)
		if errors.Is(err, ErrReplyLength) && !m.LengthRetried && role.NumPredict > 0 && ctx.Err() == nil {
			// One more try with twice the reply budget.
			c.log.Warn("reply cut at num_predict, retrying with a larger budget", "role", req.Role, "model", role.Model, "num_predict", role.NumPredict)
			m.LengthRetried = true
			r2 := role
			r2.NumPredict *= 2
			reply, at, err = c.chatOnce(ctx, r2, req, &m)
		}
		if err == nil || !transient(err) || ctx.Err() != nil {
			break
		}
		wait, asked := c.backoff(attempt, err)
		if asked {
			if late := c.tooLate(ctx, wait, err); late != nil {
				c.log.Warn("llm call failed; the server asks for a wait longer than a call waits", "role", req.Role, "model", role.Model, "wait", wait, "err", err)
				err = late
				break
			}
		}
		if attempt >= c.retry.Attempts {
			break
		}
		c.log.Warn("llm call failed, retrying", "role", req.Role, "model", role.Model, "attempt", attempt, "wait", wait, "asked", asked, "err", err)
		c.pause(ctx, wait)
	}
	if err == nil && ctx.Err() != nil {
		err = c.classify(ctx, ctx.Err())
	}
	m.Latency = time.Since(start)
	if err != nil {
		err = c.wrapAt(at, req.Role, role.Model, m.Attempts, err)
		m.Err = err.Error()
	} else {
		c.learnCtx(ctx, at, role.Model)
	}
	m.Host = at.label()
	reply.Metrics = m
	c.record(m)
	return reply, err
}

func (c *Client) record(m CallMetrics) {
	c.Metrics.Record(m)
	if c.onCall != nil {
		c.onCall(m)
	}
}

// chatOnce is one attempt: one streaming request to the role's least busy
// server, in its protocol.
func (c *Client) chatOnce(ctx context.Context, role config.Role, req Request, m *CallMetrics) (Reply, *endpoint, error) {
	at, release := c.pick(req.Role)
	defer release()
	numCtx, send, req, err := c.numCtx(ctx, role, req, m)
	if err != nil {
		return Reply{}, at, err
	}
	var w wire
	if at.api == config.APIOpenAI {
		w, err = c.streamOpenAI(ctx, at, role, req, m)
	} else {
		if !send {
			numCtx = 0
		}
		w, err = c.streamOllama(ctx, at, role, req, numCtx, m)
	}
	if err != nil {
		return Reply{}, at, err
	}
	reply, err := c.finish(role, req, w, numCtx, m)
	return reply, at, err
}

// wire is a reply as either protocol delivered it.
type wire struct {
	content, thinking []byte
	calls             []ToolCall
	done              bool
	reason            string // "stop" or "length"
	cached            int    // prompt tokens the server reports served from its cache; -1: not reported
	// split takes a reasoning block out of an OpenAI reply's content, and
	// tagged is the thinking it held (thinktag.go).
	split  thinkSplit
	tagged []byte
}

// add takes a piece of a streamed reply, holding the whole under the cap.
func (c *Client) add(w *wire, req Request, content, thinking string) error {
	if content == "" && thinking == "" {
		return nil
	}
	if n := w.size() + len(content) + len(thinking); n > c.maxReply {
		return fmt.Errorf("%w: more than %d bytes (the cap is %d)", ErrReplyTooLarge, n, c.maxReply)
	}
	w.content = append(w.content, content...)
	w.thinking = append(w.thinking, thinking...)
	if req.OnDelta != nil {
		req.OnDelta(Delta{Content: content, Thinking: thinking})
	}
	return nil
}

// size is the reply's bytes so far, tool calls included.
func (w *wire) size() int {
	n := len(w.content) + len(w.thinking) + len(w.tagged)
	for _, tc := range w.calls {
		n += len(tc.Name) + len(tc.Arguments)
	}
	return n
}

// addCall takes a whole tool call, under the caps on calls and bytes.
func (c *Client) addCall(w *wire, tc ToolCall) error {
	if len(w.calls) >= maxToolCalls {
		return fmt.Errorf("%w: more than %d tool calls", ErrReplyTooLarge, maxToolCalls)
	}
	if n := w.size() + len(tc.Name) + len(tc.Arguments); n > c.maxReply {
		return fmt.Errorf("%w: tool calls of more than %d bytes (the cap is %d)", ErrReplyTooLarge, n, c.maxReply)
	}
	w.calls = append(w.calls, tc)
	return nil
}

// streamOllama is one request on Ollama's API. numCtx 0 sends none.
func (c *Client) streamOllama(ctx context.Context, at *endpoint, role config.Role, req Request, numCtx int, m *CallMetrics) (wire, error) {
	stream := true
	ar := &api.ChatRequest{Model: role.Model, Stream: &stream, Options: options(role, numCtx)}
	for _, msg := range req.Messages {
		ar.Messages = append(ar.Messages, toAPI(msg))
	}
	if req.Format != nil {
		f, err := json.Marshal(req.Format)
		if err != nil {
			return wire{}, fmt.Errorf("llm: format schema: %w", err)
		}
		ar.Format = f
	}
	for _, t := range req.Tools {
		at, err := t.apiTool()
		if err != nil {
			return wire{}, err
		}
		ar.Tools = append(ar.Tools, at)
	}
	// Sent only when configured, as Ollama reads it: a negative value
	// keeps the model loaded; unset, the server's own default holds.
	if role.KeepAlive != 0 {
		ar.KeepAlive = &api.Duration{Duration: role.KeepAlive}
	}
	if th := c.think(ctx, role); th != nil {
		ar.Think = th
	}
	w := wire{cached: -1}
	err := c.ollamaStream(ctx, at, ar, func(r api.ChatResponse) error {
		// The api client does not stop reading on cancellation by itself:
		// returning the context's error ends the stream at once.
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.add(&w, req, r.Message.Content, r.Message.Thinking); err != nil {
			return err
		}
		for _, tc := range r.Message.ToolCalls {
			args, err := json.Marshal(tc.Function.Arguments)
			if err != nil {
				return fmt.Errorf("%w: tool call arguments: %v", ErrMalformed, err)
			}
			if err := c.addCall(&w, ToolCall{Name: tc.Function.Name, Arguments: args}); err != nil {
				return err
			}
		}
		if r.Done {
			w.done, w.reason = true, r.DoneReason
			m.PromptTokens, m.EvalTokens = r.PromptEvalCount, r.EvalCount
			m.PromptEval, m.Eval, m.Load, m.Total = r.PromptEvalDuration, r.EvalDuration, r.LoadDuration, r.TotalDuration
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrMalformed) || errors.Is(err, ErrReplyTooLarge) || errors.Is(err, ErrBodyTooLarge) {
			return wire{}, err
		}
		return wire{}, c.classify(ctx, err)
	}
	if !w.done && ctx.Err() != nil {
		return wire{}, c.classify(ctx, ctx.Err())
	}
	return w, nil
}

// ollamaStream posts a chat request to Ollama's /api/chat and hands each
// NDJSON line to fn. It reads the stream itself rather than through
// Ollama's client, whose reader takes an 8 MB buffer a call and stops
// silently at a longer line: here a line is bounded by the reply cap and a
// line too long is ErrReplyTooLarge.
func (c *Client) ollamaStream(ctx context.Context, at *endpoint, ar *api.ChatRequest, fn func(api.ChatResponse) error) error {
	body, err := json.Marshal(ar)
	if err != nil {
		return fmt.Errorf("llm: request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, at.base.JoinPath("/api/chat").String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/x-ndjson")
	resp, err := at.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= http.StatusBadRequest {
		return readStatus(resp)
	}
	r := bufio.NewReaderSize(resp.Body, 32<<10)
	maxLine := c.maxReply + 64<<10
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := readLine(r, maxLine)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var cr struct {
			api.ChatResponse
			Error  json.RawMessage `json:"error"`
			Status int             `json:"status"`
		}
		if err := json.Unmarshal(line, &cr); err != nil {
			return fmt.Errorf("%w: %s: %s", ErrMalformed, clipText(err.Error(), 120), clipText(string(line), 120))
		}
		if len(cr.Error) > 0 && string(cr.Error) != "null" && string(cr.Error) != `""` {
			return streamError(cr.Error, cr.Status)
		}
		if err := fn(cr.ChatResponse); err != nil {
			return err
		}
	}
}

// finish checks a delivered reply and completes the call's metrics.
func (c *Client) finish(role config.Role, req Request, w wire, numCtx int, m *CallMetrics) (Reply, error) {
	if !w.done {
		if w.size() == 0 {
			return Reply{}, fmt.Errorf("%w: the stream ended before any text or final message (the server stopped, or sent a line too long to read)", ErrStreamCut)
		}
		return Reply{}, fmt.Errorf("%w: no final message after %d bytes", ErrStreamCut, w.size())
	}
	thinking := string(w.thinking)
	if len(w.tagged) > 0 {
		thinking = strings.TrimSpace(strings.TrimSpace(thinking) + "\n" + strings.TrimSpace(string(w.tagged)))
	}
	reply := Reply{Content: string(w.content), Thinking: thinking, ToolCalls: w.calls}
	if m.PromptTokens == 0 {
		m.PromptTokens, m.PromptEstimated = estimateTokens(req), true
	} else {
		c.learnRatio(role.Model, req, m.PromptTokens)
	}
	m.PromptTotal = max(m.PromptTotal, m.PromptTokens)
	prefix := c.cachedPrefix(role.Model, promptText(req))
	if w.cached >= 0 {
		m.Cached = min(w.cached, m.PromptTotal)
	} else {
		m.Cached = c.cachedTokens(role.Model, prefix, m.PromptTotal)
	}
	if m.Load >= LoadThreshold {
		m.Loaded = true
	}
	if w.reason == "length" {
		if req.Format != nil || req.WholeReply {
			return reply, lengthError(role, numCtx)
		}
		reply.Cut, m.Cut = true, true
	}
	if reply.Content == "" && reply.Thinking == "" && len(reply.ToolCalls) == 0 {
		return Reply{}, ErrEmptyReply
	}
	return reply, nil
}

func toAPI(m Message) api.Message {
	am := api.Message{Role: m.Role, Content: m.Content, Thinking: m.Thinking, ToolName: m.ToolName}
	for _, tc := range m.ToolCalls {
		args := api.NewToolCallFunctionArguments()
		var kv map[string]any
		if json.Unmarshal(tc.Arguments, &kv) == nil {
			for k, v := range kv {
				args.Set(k, v)
			}
		}
		am.ToolCalls = append(am.ToolCalls, api.ToolCall{Function: api.ToolCallFunction{Name: tc.Name, Arguments: args}})
	}
	return am
}

// options are the role's sampling settings in Ollama's terms; numCtx 0
// sends no num_ctx.
func options(r config.Role, numCtx int) map[string]any {
	o := map[string]any{
		"temperature": r.Temperature,
		"top_p":       r.TopP,
		"top_k":       r.TopK,
		"min_p":       r.MinP,
	}
	if numCtx > 0 {
		o["num_ctx"] = numCtx
	}
	if r.RepeatPenalty > 0 {
		o["repeat_penalty"] = r.RepeatPenalty
	}
	if r.Seed != 0 {
		o["seed"] = r.Seed
	}
	if r.NumPredict != 0 {
		o["num_predict"] = r.NumPredict
	}
	return o
}

// think turns the role's setting into the request's: on, off and the
// effort levels are sent as such; auto thinks when the model can (and says
// nothing when we cannot tell, leaving it to the server).
func (c *Client) think(ctx context.Context, r config.Role) *api.ThinkValue {
	switch r.Think {
	case config.ThinkOn:
		return &api.ThinkValue{Value: true}
	case config.ThinkOff:
		return &api.ThinkValue{Value: false}
	case config.ThinkLow, config.ThinkMedium, config.ThinkHigh:
		return &api.ThinkValue{Value: string(r.Think)}
	}
	if info, ok, _ := c.cachedInfo(r.Model); ok {
		return &api.ThinkValue{Value: info.Has(CapThinking)}
	}
	return nil
}

// lengthError is the typed error for a reply the server stopped at its
// length limit (done_reason or finish_reason "length"): num_predict when
// the role sets one, else the end of the context.
func lengthError(r config.Role, numCtx int) error {
	if r.NumPredict > 0 {
		return fmt.Errorf("%w: num_predict %d", ErrReplyLength, r.NumPredict)
	}
	if numCtx <= 0 {
		return fmt.Errorf("%w: the context filled up (num_predict unset)", ErrReplyLength)
	}
	return fmt.Errorf("%w: the context of %d tokens filled up (num_predict unset)", ErrReplyLength, numCtx)
}
