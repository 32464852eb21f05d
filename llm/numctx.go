package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/config"
)

// DefaultSessionCtx is the context size a model gets when a role on it
// fixes num_ctx at 0 but another fixes it: the floor chooseCtx starts from.
const DefaultSessionCtx = 8192

// FirstCallCtx is the context assumed for a model whose server has not
// yet said what it runs it with (the model is not loaded): Ollama's
// smallest default (4096, on machines with little GPU memory), so a first
// prompt fits whatever size the server picks; the size is read from the
// server after that call.
const FirstCallCtx = 4096

// ctxChecks is how many calls the client reads the server's running
// context after, while it does not report one.
const ctxChecks = 3

// Reply reserves: the room kept for the reply when a role sets no
// num_predict. A thinking model writes its reasoning before the answer, so
// it gets more.
const (
	replyReserve         = 1024
	thinkingReplyReserve = 3072
)

// minCharsPerToken is the most characters a token is assumed to hold once
// a model's own counts are known. Real tokenizers average 3.5 to 4
// characters a token on English; 3 keeps the estimate on the safe side,
// and each model's reported counts raise the ratio when it is worse (a
// byte- or character-level vocabulary gives one character a token).
const minCharsPerToken = 3

// sessionCtx returns the context size prompts to a model are fitted to,
// and whether it is sent as num_ctx. A role on the model that fixes
// num_ctx fixes it for the session (the largest wins), and it is sent; the
// same size for every call keeps Ollama from reloading the model. Else
// nothing is sent, the server keeps its own size (Ollama's default depends
// on the GPU's memory, and its admin may set OLLAMA_CONTEXT_LENGTH), and
// the size is the one the server reports running the model with (/api/ps);
// before the model is loaded, FirstCallCtx (at most the model's length,
// from /api/show), read again after the next calls.
func (c *Client) sessionCtx(ctx context.Context, model string) (int, bool, error) {
	c.mu.Lock()
	if anyFixes(c.roles, model) {
		fixed := chooseCtx(c.roles, model, 0)
		c.mu.Unlock()
		return fixed, true, nil
	}
	n, ok := c.ctxSize[model]
	c.mu.Unlock()
	if ok {
		return n, false, nil
	}
	info, err := c.Show(ctx, model)
	if err != nil {
		return 0, false, err
	}
	at := c.endpointFor(model)
	running := c.runningCtx(ctx, at, model)
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.ctxSize[model]; ok {
		return n, false, nil
	}
	n = running
	if n <= 0 {
		n = FirstCallCtx
		if info.ContextLength > 0 {
			n = min(n, info.ContextLength)
		}
		if info.RunningContext > 0 {
			n = info.RunningContext
		}
		c.ctxGuess[model] = ctxChecks
	}
	c.ctxSize[model] = n
	c.log.Info("context size for the session", "model", model, "context", n, "from_server", running > 0, "model_context", info.ContextLength)
	return n, false, nil
}

// learnCtx, after a successful call on a model whose running context is
// not known yet, asks the server for it.
func (c *Client) learnCtx(ctx context.Context, at *endpoint, model string) {
	if at == nil {
		return
	}
	c.mu.Lock()
	left := c.ctxGuess[model]
	if left > 0 {
		c.ctxGuess[model] = left - 1
	}
	c.mu.Unlock()
	if left <= 0 || ctx.Err() != nil {
		return
	}
	n := c.runningCtx(ctx, at, model)
	if n <= 0 {
		return
	}
	c.mu.Lock()
	c.ctxSize[model] = n
	delete(c.ctxGuess, model)
	c.mu.Unlock()
	c.log.Info("context size read from the server", "model", model, "context", n)
}

// runningCtx is the context the server runs a loaded model with (Ollama's
// /api/ps, also behind an OpenAI base it serves); 0: not loaded, or the
// server does not tell.
func (c *Client) runningCtx(ctx context.Context, at *endpoint, model string) int {
	ps, err := at.ol.ListRunning(ctx)
	if err != nil {
		return 0
	}
	for _, m := range ps.Models {
		if sameModel(m.Name, model) || sameModel(m.Model, model) {
			return m.ContextLength
		}
	}
	return 0
}

// sameModel compares model names, ":latest" being the default tag.
func sameModel(a, b string) bool {
	return strings.TrimSuffix(a, ":latest") == strings.TrimSuffix(b, ":latest")
}

// chooseCtx is the session's context size for a model given the roles and
// the model's context length (0: unknown).
func chooseCtx(roles map[string]config.Role, model string, modelMax int) int {
	n := 0
	for _, r := range roles {
		if r.Model == model && r.NumCtx > n {
			n = r.NumCtx
		}
	}
	if n == 0 {
		n = DefaultSessionCtx
	}
	if modelMax > 0 && n > modelMax {
		n = modelMax
	}
	return n
}

// anyFixes reports whether a role on the model fixes num_ctx.
func anyFixes(roles map[string]config.Role, model string) bool {
	for _, r := range roles {
		if r.Model == model && r.NumCtx > 0 {
			return true
		}
	}
	return false
}

// reserveFor is the room a role's reply needs.
// It never takes more than half the context, so a large num_predict on a
// short context still leaves room for a prompt (the reply then ends at the
// context's end, which a structured reply reports as ErrReplyLength).
func reserveFor(r config.Role, numCtx int) int {
	n := replyReserve
	switch {
	case r.NumPredict > 0:
		n = r.NumPredict
	case r.Think != config.ThinkOff:
		n = thinkingReplyReserve
	}
	return min(n, numCtx/2)
}

// PromptBudget is the room for a role's prompt in tokens: the session's
// context of its model minus the reply reserve. Prompt builders that know
// which of their sections matter least may trim to it; every prompt is
// fitted to it before it is sent anyway.
func (c *Client) PromptBudget(ctx context.Context, role string) (int, error) {
	r, ok := c.Role(role)
	if !ok {
		return 0, fmt.Errorf("llm: unknown role %q", role)
	}
	n, _, err := c.sessionCtx(ctx, r.Model)
	if err != nil {
		return 0, err
	}
	return n - reserveFor(r, n), nil
}

// numCtx returns the session's context size for the call's model, whether
// to send it, and the request fitted to it (see fit). A prompt that cannot
// fit even at its smallest is ErrContextOverflow before anything is sent,
// so the server never silently cuts the start of a prompt.
func (c *Client) numCtx(ctx context.Context, r config.Role, req Request, m *CallMetrics) (int, bool, Request, error) {
	n, send, err := c.sessionCtx(ctx, r.Model)
	if err != nil {
		return 0, false, req, err
	}
	m.NumCtx = n
	fitted, est, trimmed, err := c.fit(r, req, n)
	m.PromptTotal, m.TrimmedTokens = est, trimmed
	if err != nil {
		return 0, false, req, err
	}
	if trimmed > 0 {
		c.log.Info("prompt trimmed to fit the context", "role", req.Role, "model", r.Model,
			"trimmed_tokens_est", trimmed, "prompt_tokens_est", est, "num_ctx", n)
	}
	return n, send, fitted, nil
}

// estimate guesses a prompt's size in tokens for a model, rounding up: the
// characters at the model's worst observed ratio (at least
// 1/minCharsPerToken), plus a little per message for the chat template.
func (c *Client) estimate(model string, req Request) int {
	return int(float64(promptChars(req))*c.ratio(model)+0.999) + 8*len(req.Messages) + 8
}

// ratio is the model's tokens per character for estimates: the worst
// observed, at least 1/minCharsPerToken; before the model's first counts,
// one token a byte, which no tokenizer with byte fallback exceeds (so the
// first prompt is never too long, at worst trimmed more than needed).
func (c *Client) ratio(model string) float64 {
	c.mu.Lock()
	r, ok := c.tokPerChar[model]
	c.mu.Unlock()
	if !ok {
		return 1
	}
	return max(r, 1.0/minCharsPerToken)
}

// learnRatio raises a model's tokens-per-character ratio when a call's
// reported prompt count shows the estimate was low. Counts lowered by
// Ollama's prompt cache only ever lower the observed ratio, so taking the
// largest seen is safe.
func (c *Client) learnRatio(model string, req Request, promptTokens int) {
	chars := promptChars(req)
	if chars < 256 || promptTokens <= 0 {
		return
	}
	ratio := float64(promptTokens) / float64(chars)
	c.mu.Lock()
	if ratio > c.tokPerChar[model] {
		c.tokPerChar[model] = ratio
	}
	c.mu.Unlock()
}

// promptChars counts what the model's template renders: the messages and
// the tool declarations. The schema in Format is not rendered (Ollama turns
// it into a sampling grammar), so it is not counted: counting it would
// lower the learned ratio and let a long prompt without one through.
func promptChars(req Request) int {
	chars := 0
	for _, m := range req.Messages {
		chars += len(m.Content) + len(m.Thinking)
		for _, tc := range m.ToolCalls {
			chars += len(tc.Name) + len(tc.Arguments)
		}
	}
	for _, t := range req.Tools {
		chars += len(t.Name) + len(t.Description) + 32
		if b, err := json.Marshal(t.Params); err == nil {
			chars += len(b)
		}
	}
	return chars
}

// estimateTokens is the model-independent estimate (at minCharsPerToken),
// used when the server reports no prompt count.
func estimateTokens(req Request) int {
	return (promptChars(req)+minCharsPerToken-1)/minCharsPerToken + 8*len(req.Messages) + 8
}
