package oracle

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm/chatserve"
)

// The pacer makes the oracle answer as slowly as a model on a GPU would, so
// that what a person waits for with a real model can be measured without
// one. A server has a number of slots (Ollama's OLLAMA_NUM_PARALLEL,
// llama.cpp's -np): each serves one request at a time and keeps the last
// prompt it evaluated; a request that starts with part of that prompt
// evaluates only the rest (the prompt cache). A request that finds every
// slot busy waits, first come first served. Evaluating the prompt takes its
// uncached tokens at PromptRate, then the reply takes the role's generated
// tokens at GenRate.

// PaceOptions configure the latency model.
type PaceOptions struct {
	// PromptRate is prompt evaluation in tokens a second (0: the pacer
	// is off).
	PromptRate float64
	// GenRate is generation in tokens a second (0: the pacer is off).
	GenRate float64
	// Slots is the number of requests served at once (at least 1).
	Slots int
	// Budget is the generated tokens of each role's reply (nil:
	// DefaultBudget). A role it lacks gets DefaultBudget's "" entry.
	Budget map[string]int
}

// On reports whether the options pace replies.
func (o PaceOptions) On() bool { return o.PromptRate > 0 && o.GenRate > 0 }

// DefaultBudget is the generated tokens a real model writes for each role's
// reply schema, counted at four characters a token on replies of the size
// the schemas and prompts ask for (the oracle's own replies are shorter or
// longer and are not what is paced):
//   - agent: a sentence or two of reasoning and the command, with the JSON
//     keys and an empty remember field: about 280 characters, 70 tokens;
//   - critic: the score and a one-sentence justification (the schema caps
//     it at 300 characters, models write about 120): 40 tokens;
//   - extractor: the room's exits, objects and flags as JSON lists: 80;
//   - memory: the synthesis's decision and a memory of a sentence or two
//     with its title, category and importance: 120;
//   - objectives: a few objectives with a reason each: 150;
//   - knowledge: a paragraph of strategy learned so far: 200;
//   - supervisor: a mood, scores and a line of feedback: 60;
//   - retriever and any other role: 50;
//   - the agent's reply that also answers the last turn's memory question
//     (BudgetAgentMemory): the agent's 70 and the memory kept, with its
//     one-sentence why, 90: 160; when it keeps nothing
//     (BudgetAgentNothing), the agent's 70 and a "nothing to remember"
//     with its why, 35: 105;
//   - the memory role's reply that keeps nothing (BudgetMemoryNothing):
//     the decision and its reasoning, 50.
//
// A reply is charged what it carries: the memory kept or not.
func DefaultBudget() map[string]int {
	return map[string]int{
		BudgetAgentMemory:     160,
		BudgetAgentNothing:    105,
		BudgetMemoryNothing:   50,
		config.RoleAgent:      70,
		config.RoleCritic:     40,
		config.RoleExtractor:  80,
		config.RoleMemory:     120,
		config.RoleObjectives: 150,
		config.RoleKnowledge:  200,
		config.RoleSupervisor: 60,
		config.RoleRetriever:  50,
		"":                    50,
	}
}

// The budget keys of replies that carry a memory decision.
const (
	// BudgetAgentMemory: an agent reply whose memory field keeps a memory
	// (managers.memory_synthesis = "with_agent").
	BudgetAgentMemory = config.RoleAgent + "+memory"
	// BudgetAgentNothing: an agent reply whose memory field keeps nothing.
	BudgetAgentNothing = config.RoleAgent + "+nothing"
	// BudgetMemoryNothing: the memory role's reply keeping nothing.
	BudgetMemoryNothing = config.RoleMemory + "+nothing"
)

// budgetKey is the budget a reply is paced by: its role's, or for a reply
// that carries a memory decision (an agent reply with a memory field, the
// memory role's), what it carries: a memory kept, or nothing.
func budgetKey(role string, format json.RawMessage, content string) string {
	var kept struct {
		ShouldRemember *bool `json:"should_remember"`
		Memory         *struct {
			ShouldRemember bool `json:"should_remember"`
		} `json:"memory"`
	}
	switch role {
	case config.RoleAgent:
		if len(format) == 0 {
			return role
		}
		if s, err := parseFormat(format); err != nil || !s.has("memory") {
			return role
		}
		if json.Unmarshal([]byte(content), &kept) == nil && kept.Memory != nil && !kept.Memory.ShouldRemember {
			return BudgetAgentNothing
		}
		return BudgetAgentMemory
	case config.RoleMemory:
		if json.Unmarshal([]byte(content), &kept) == nil && kept.ShouldRemember != nil && !*kept.ShouldRemember {
			return BudgetMemoryNothing
		}
	}
	return role
}

// charsPerToken is the oracle's token estimate: four characters a token.
const charsPerToken = 4

// Paced is what the pacer did with one request.
type Paced struct {
	Slot       int           // the slot that served it
	Prompt     int           // the whole prompt's tokens
	Cached     int           // of them, the slot's cache served
	Generated  int           // the reply's tokens (the role's budget)
	Queued     time.Duration // waiting for a free slot
	PromptEval time.Duration
	Eval       time.Duration
}

// Evaluated is the prompt tokens the slot evaluated.
func (p Paced) Evaluated() int { return p.Prompt - p.Cached }

// Pacer is the latency model; safe for concurrent use.
type Pacer struct {
	opts   PaceOptions
	budget map[string]int
	// sleep waits d or until ctx ends (tests replace it).
	sleep func(ctx context.Context, d time.Duration) error
	now   func() time.Time

	mu      sync.Mutex
	slots   []paceSlot
	waiters []chan int
	tick    int64
	total   PaceTotals
}

// PaceTotals sum what the pacer served.
type PaceTotals struct {
	Requests  int
	Prompt    int // prompt tokens, cached ones included
	Cached    int
	Generated int
	Queued    time.Duration // waiting for a slot
	Busy      time.Duration // evaluating and generating
}

// String is a one-line summary.
func (t PaceTotals) String() string {
	share := 0.0
	if t.Prompt > 0 {
		share = 100 * float64(t.Cached) / float64(t.Prompt)
	}
	return fmt.Sprintf("paced %d requests: %d prompt tokens (%.0f%% from the slots' caches), %d generated; %.1fs busy, %.1fs waiting for a slot",
		t.Requests, t.Prompt, share, t.Generated, t.Busy.Seconds(), t.Queued.Seconds())
}

// Totals returns the sums so far.
func (p *Pacer) Totals() PaceTotals {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total
}

type paceSlot struct {
	busy   bool
	prompt string
	used   int64 // when it last started a request, for least recently used
}

// NewPacer makes a pacer; the options must be On.
func NewPacer(opts PaceOptions) (*Pacer, error) {
	if !opts.On() {
		return nil, fmt.Errorf("pace: prompt rate %g and generation rate %g must both be positive", opts.PromptRate, opts.GenRate)
	}
	if opts.Slots < 1 {
		return nil, fmt.Errorf("pace: %d slots: at least 1 is needed", opts.Slots)
	}
	budget := opts.Budget
	if budget == nil {
		budget = DefaultBudget()
	}
	return &Pacer{opts: opts, budget: budget, slots: make([]paceSlot, opts.Slots), sleep: sleepCtx, now: time.Now}, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Budget is the generated tokens of a role's reply.
func (p *Pacer) Budget(role string) int {
	if n, ok := p.budget[role]; ok {
		return n
	}
	return p.budget[""]
}

// Serve waits for a slot, takes the time the request would take on it and
// gives the slot back. prompt is the request's text as the model sees it
// (PromptText).
func (p *Pacer) Serve(ctx context.Context, role, prompt string) (Paced, error) {
	start := p.now()
	slot, err := p.acquire(ctx, prompt)
	if err != nil {
		return Paced{}, err
	}
	defer p.release(slot)
	p.mu.Lock()
	cachedChars := commonPrefix(p.slots[slot].prompt, prompt)
	p.slots[slot].prompt = prompt
	p.mu.Unlock()
	r := Paced{Slot: slot, Prompt: max(1, tokens(len(prompt))), Generated: p.Budget(role), Queued: p.now().Sub(start)}
	// The last prompt token is always evaluated (its logits start the reply).
	r.Cached = min(cachedChars/charsPerToken, r.Prompt-1)
	r.PromptEval = rate(r.Evaluated(), p.opts.PromptRate)
	r.Eval = rate(r.Generated, p.opts.GenRate)
	if err := p.sleep(ctx, r.PromptEval+r.Eval); err != nil {
		return Paced{}, err
	}
	p.mu.Lock()
	p.total.Requests++
	p.total.Prompt += r.Prompt
	p.total.Cached += r.Cached
	p.total.Generated += r.Generated
	p.total.Queued += r.Queued
	p.total.Busy += r.PromptEval + r.Eval
	p.mu.Unlock()
	return r, nil
}

func tokens(chars int) int { return (chars + charsPerToken - 1) / charsPerToken }

func rate(n int, perSecond float64) time.Duration {
	return time.Duration(float64(n) / perSecond * float64(time.Second))
}

// acquire takes a free slot, or waits in line for one. Of the free slots
// it takes the one sharing the longest prefix with the prompt, the least
// recently used on a tie (llama.cpp's and Ollama's choice when the
// prompts are alike).
func (p *Pacer) acquire(ctx context.Context, prompt string) (int, error) {
	p.mu.Lock()
	if len(p.waiters) == 0 {
		best, at := -1, -1
		for i, s := range p.slots {
			if s.busy {
				continue
			}
			n := commonPrefix(s.prompt, prompt)
			if n > best || (n == best && s.used < p.slots[at].used) {
				best, at = n, i
			}
		}
		if at >= 0 {
			p.take(at)
			p.mu.Unlock()
			return at, nil
		}
	}
	ch := make(chan int, 1)
	p.waiters = append(p.waiters, ch)
	p.mu.Unlock()
	select {
	case slot := <-ch:
		return slot, nil
	case <-ctx.Done():
		p.mu.Lock()
		defer p.mu.Unlock()
		for i, w := range p.waiters {
			if w == ch {
				p.waiters = append(p.waiters[:i], p.waiters[i+1:]...)
				return 0, ctx.Err()
			}
		}
		// A slot was handed over as the wait ended: pass it on.
		p.handOn(<-ch)
		return 0, ctx.Err()
	}
}

// take marks slot busy; p.mu is held.
func (p *Pacer) take(slot int) {
	p.tick++
	p.slots[slot].busy, p.slots[slot].used = true, p.tick
}

func (p *Pacer) release(slot int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.handOn(slot)
}

// handOn gives a slot to the first waiting request, or frees it; p.mu is
// held.
func (p *Pacer) handOn(slot int) {
	if len(p.waiters) == 0 {
		p.slots[slot].busy = false
		return
	}
	ch := p.waiters[0]
	p.waiters = p.waiters[1:]
	p.take(slot)
	ch <- slot
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// PromptText is a chat request as the model's template sees it, in order:
// the tool declarations, then each message's role, thinking and text. The
// format schema is not part of the prompt (it constrains sampling).
func PromptText(req *api.ChatRequest) string {
	var b []byte
	for _, t := range req.Tools {
		b = append(b, t.Function.Name...)
		b = append(b, 0)
		b = append(b, t.Function.Description...)
		b = append(b, 0)
	}
	for _, m := range req.Messages {
		b = append(b, m.Role...)
		b = append(b, 0)
		b = append(b, m.Thinking...)
		b = append(b, 0)
		b = append(b, m.Content...)
		b = append(b, 0)
	}
	return string(b)
}

// replyPace is one reply's pacing: at the first byte, the latency model's
// time (waiting for a slot, evaluating the uncached prompt, generating the
// role's budget), with the reply's counts and model time set from it: the
// whole prompt as prompt_eval_count (Ollama counts the prompt before its
// cache is consulted), the evaluation of the uncached part as
// prompt_eval_duration, the role's budget as eval_count. Then the chunk
// delay before each streamed piece.
type replyPace struct {
	o     *Oracle
	req   *chatserve.Request
	ans   *chatserve.Answer
	delay time.Duration
}

func (r *replyPace) Wait(ctx context.Context, piece, pieces int) error {
	if piece == 0 {
		if r.o.opts.Pacer == nil {
			return nil
		}
		p, err := r.o.opts.Pacer.Serve(ctx, budgetKey(r.req.Role, r.req.Chat.Format, r.ans.Content), PromptText(r.req.Chat))
		if err != nil {
			return err
		}
		r.o.log.Debug("oracle: paced", "role", r.req.Role, "slot", p.Slot, "prompt", p.Prompt, "cached", p.Cached,
			"generated", p.Generated, "queued", p.Queued, "prompt_eval", p.PromptEval, "eval", p.Eval)
		r.ans.PromptTokens, r.ans.EvalTokens = p.Prompt, p.Generated
		r.ans.PromptEval, r.ans.Eval = max(p.PromptEval, time.Microsecond), max(p.Eval, time.Microsecond)
		return nil
	}
	if r.delay <= 0 {
		return nil
	}
	return sleepCtx(ctx, r.delay)
}

func (r *replyPace) Done() {}
