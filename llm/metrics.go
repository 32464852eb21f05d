package llm

import (
	"sort"
	"sync"
	"time"
)

// CallMetrics describe one call: Ollama's own counts and durations, our
// latency, the attempts it took and the context size chosen.
type CallMetrics struct {
	Role            string        `json:"role"`
	Model           string        `json:"model"`
	Host            string        `json:"host,omitempty"` // the server that answered (the last attempt's)
	Turn            int           `json:"turn"`
	PromptTokens    int           `json:"prompt_tokens"`
	PromptEstimated bool          `json:"prompt_estimated,omitempty"` // the server gave no count
	EvalTokens      int           `json:"eval_tokens"`
	PromptEval      time.Duration `json:"prompt_eval"`
	Eval            time.Duration `json:"eval"`
	Load            time.Duration `json:"load"`
	Total           time.Duration `json:"total"`
	Latency         time.Duration `json:"latency"`
	Attempts        int           `json:"attempts"`
	FormatRetries   int           `json:"format_retries,omitempty"`
	NumCtx          int           `json:"num_ctx"`
	// PromptTotal is the whole prompt's size in tokens: the server's
	// prompt_eval_count, or Lantern's estimate when that is larger. Cached
	// is Lantern's estimate of the part Ollama's prompt cache served
	// (cache.go: Ollama's runner reports the whole prompt as evaluated).
	PromptTotal   int    `json:"prompt_total,omitempty"`
	Cached        int    `json:"cached,omitempty"`
	TrimmedTokens int    `json:"trimmed_tokens,omitempty"` // left out to fit the context
	Loaded        bool   `json:"loaded,omitempty"`         // the server loaded the model for this call
	Cut           bool   `json:"cut,omitempty"`            // a free-text reply stopped at num_predict
	LengthRetried bool   `json:"length_retried,omitempty"` // cut off, tried again with twice num_predict
	Err           string `json:"error,omitempty"`
}

// Summary aggregates calls (per role, per turn, or all).
type Summary struct {
	Calls         int           `json:"calls"`
	Errors        int           `json:"errors"`
	PromptTokens  int           `json:"prompt_tokens"`
	EvalTokens    int           `json:"eval_tokens"`
	Retries       int           `json:"retries"` // attempts beyond the first
	FormatRetries int           `json:"format_retries"`
	Latency       time.Duration `json:"latency"` // total
	// PromptTotal is the estimated size of every prompt in tokens, Cached
	// the part Ollama's prompt cache served (see CallMetrics.Cached).
	PromptTotal int           `json:"prompt_total"`
	Cached      int           `json:"cached"`
	Loads       int           `json:"loads"` // calls on which the server loaded the model
	P50         time.Duration `json:"p50"`
	P95         time.Duration `json:"p95"`
}

// CacheShare is the share of prompt tokens served from Ollama's prompt
// cache (0 without calls).
func (s Summary) CacheShare() float64 {
	if s.PromptTotal == 0 {
		return 0
	}
	return float64(s.Cached) / float64(s.PromptTotal)
}

// LoadThreshold is the load_duration from which a call counts as a model
// load. Ollama reports a few milliseconds of scheduling on every call;
// starting a runner and reading the weights takes far longer, even for a
// tiny model.
const LoadThreshold = 100 * time.Millisecond

type bucket struct {
	s         Summary
	latencies []time.Duration
}

func (b *bucket) add(m CallMetrics) {
	b.s.Calls++
	if m.Err != "" {
		b.s.Errors++
	}
	b.s.PromptTokens += m.PromptTokens
	b.s.EvalTokens += m.EvalTokens
	if m.Attempts > 1 {
		b.s.Retries += m.Attempts - 1
	}
	b.s.FormatRetries += m.FormatRetries
	b.s.PromptTotal += max(m.PromptTotal, m.PromptTokens)
	b.s.Cached += m.Cached
	if m.Loaded {
		b.s.Loads++
	}
	b.s.Latency += m.Latency
	b.latencies = append(b.latencies, m.Latency)
}

func (b *bucket) summary() Summary {
	s := b.s
	if n := len(b.latencies); n > 0 {
		l := append([]time.Duration(nil), b.latencies...)
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		s.P50 = l[(n-1)*50/100]
		s.P95 = l[(n-1)*95/100]
	}
	return s
}

// Aggregate collects call metrics per role and per turn. It is safe for
// concurrent use.
type Aggregate struct {
	mu     sync.Mutex
	all    bucket
	byRole map[string]*bucket
	byTurn map[int]*bucket
}

// NewAggregate makes an empty aggregate.
func NewAggregate() *Aggregate {
	return &Aggregate{byRole: map[string]*bucket{}, byTurn: map[int]*bucket{}}
}

// Record adds one call.
func (a *Aggregate) Record(m CallMetrics) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.all.add(m)
	get := func(k string) *bucket {
		b := a.byRole[k]
		if b == nil {
			b = &bucket{}
			a.byRole[k] = b
		}
		return b
	}
	get(m.Role).add(m)
	t := a.byTurn[m.Turn]
	if t == nil {
		t = &bucket{}
		a.byTurn[m.Turn] = t
	}
	t.add(m)
}

// All summarises every call.
func (a *Aggregate) All() Summary {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.all.summary()
}

// Latency is the total latency of every call: All().Latency without
// sorting every latency for the percentiles (the engine asks each turn,
// and the calls only grow).
func (a *Aggregate) Latency() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.all.s.Latency
}

// ResetTurns forgets the per-turn summaries. Turn numbers start again
// with each episode; the engine calls it when one starts, so Turn(n) is
// the episode's turn n, not the sum over every episode's turn n.
func (a *Aggregate) ResetTurns() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.byTurn = map[int]*bucket{}
}

// Role summarises one role's calls.
func (a *Aggregate) Role(role string) Summary {
	a.mu.Lock()
	defer a.mu.Unlock()
	return summaryOf(a.byRole, role)
}

// Turn summarises one turn's calls.
func (a *Aggregate) Turn(turn int) Summary {
	a.mu.Lock()
	defer a.mu.Unlock()
	return summaryOf(a.byTurn, turn)
}

// summaryOf summarises the bucket of key k (none: the zero Summary); the
// caller holds the lock.
func summaryOf[K comparable](buckets map[K]*bucket, k K) Summary {
	if b := buckets[k]; b != nil {
		return b.summary()
	}
	return Summary{}
}

// RoleStats are one role's calls over a run, per turn where it says so.
type RoleStats struct {
	Role          string  `json:"role"`
	Calls         int     `json:"calls"`
	Errors        int     `json:"errors"`
	CallsPerTurn  float64 `json:"calls_per_turn"`
	PromptPerTurn float64 `json:"prompt_tokens_per_turn"` // whole prompts (evaluated and cached)
	// CacheShare is the part of the prompt tokens Ollama's prompt cache
	// served (see CallMetrics.Cached).
	CacheShare float64 `json:"cache_share"`
	Loads      int     `json:"model_loads"`
	P50MS      float64 `json:"latency_p50_ms"`
}

// Roles is the per-role table over turns played turns (the calls of every
// turn and of the episodes' ends), in config.RoleNames order, then any
// other role; a role without calls is left out. The whole-run row, named
// "all", comes last.
func (a *Aggregate) Roles(turns int, order []string) []RoleStats {
	a.mu.Lock()
	defer a.mu.Unlock()
	row := func(name string, b *bucket) RoleStats {
		s := b.summary()
		r := RoleStats{Role: name, Calls: s.Calls, Errors: s.Errors, CacheShare: s.CacheShare(), Loads: s.Loads,
			P50MS: float64(s.P50.Microseconds()) / 1000}
		if turns > 0 {
			r.CallsPerTurn = float64(s.Calls) / float64(turns)
			r.PromptPerTurn = float64(s.PromptTotal) / float64(turns)
		}
		return r
	}
	var out []RoleStats
	seen := map[string]bool{}
	for _, name := range order {
		if b := a.byRole[name]; b != nil && !seen[name] {
			out = append(out, row(name, b))
			seen[name] = true
		}
	}
	var rest []string
	for name := range a.byRole {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	for _, name := range rest {
		out = append(out, row(name, a.byRole[name]))
	}
	return append(out, row("all", &a.all))
}
