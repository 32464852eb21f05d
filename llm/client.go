// Package llm is how every mind in Lantern talks to local models, through
// Ollama's own API or the OpenAI chat-completions protocol (llama.cpp's
// llama-server, LM Studio, vLLM, Ollama's /v1), and the only package that
// imports github.com/ollama/ollama/api. It gives each role its own model,
// sampling and server (or list of servers, each call going to the least
// busy), streams content and thinking deltas, fits prompts to the context
// the server reports (sending num_ctx only when configured), decodes
// structured replies
// against a JSON schema (retrying with a format reminder), runs bounded
// tool-call loops, retries transient faults with backoff, and turns every
// failure into a typed *Error with a plain message.
package llm

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/config"
)

// DefaultHost is where Ollama listens unless OLLAMA_HOST says otherwise.
const DefaultHost = "127.0.0.1:11434"

// RoleHeader carries the role of a call to the server, for logs and for the
// scripted fake server.
const RoleHeader = "X-Lantern-Role"

// ConversationHeader names the client's conversation, the same on every
// call of one client (a random word made when the client is): a server
// that keeps state between calls (the oracle) keeps one for each, so
// concurrent games on one server do not mix.
const ConversationHeader = "X-Lantern-Conversation"

// Options configure a Client.
type Options struct {
	Host string // Ollama's OLLAMA_HOST form ("127.0.0.1:11434") or a URL; empty: DefaultHost
	// Server is the global server ([server]); a role's own keys win over
	// it, and an empty one is Host on Ollama's API.
	Server     config.Server
	Roles      map[string]config.Role // empty: config.DefaultRoles()
	Retry      RetryPolicy            // zero: DefaultRetry()
	HTTPClient *http.Client           // nil: a client with sane dial timeouts and proxies for remote hosts
	Logger     *slog.Logger           // nil: discard
	// Getenv reads API keys and proxy settings (nil: os.Getenv).
	Getenv func(string) string
	// OnCall, if set, receives every call's metrics as it finishes.
	OnCall func(CallMetrics)
	// MaxReplyBytes caps a reply's content plus thinking plus tool calls;
	// a longer reply is cut off with ErrReplyTooLarge. 0: DefaultMaxReply.
	MaxReplyBytes int
	// CacheSlots is how many prompt caches the server keeps per model
	// (Ollama's OLLAMA_NUM_PARALLEL); 0: 1, Ollama's default. It only
	// serves the estimate of the cache share in the metrics.
	CacheSlots int
	// MultiUserCache: the server runs with OLLAMA_MULTIUSER_CACHE (see
	// cache.go), for the same estimate.
	MultiUserCache bool
	// Sleep waits between attempts (nil: a timer that gives way to the
	// context); tests pass one that records the waits.
	Sleep func(ctx context.Context, d time.Duration)
	// Now is the clock an HTTP-date Retry-After is read against (nil:
	// time.Now).
	Now func() time.Time
}

// DefaultMaxReply is the default cap on a model reply: far above any
// useful answer, far below what would strain memory.
const DefaultMaxReply = 512 << 10

// maxToolCalls bounds the tool calls in one reply.
const maxToolCalls = 64

// Client talks to the roles' model servers. It is safe for concurrent use.
type Client struct {
	def     []*endpoint // the global server's endpoints
	byRole  map[string][]*endpoint
	retry   RetryPolicy
	sleep   func(context.Context, time.Duration) // Options.Sleep
	clock   func() time.Time                     // Options.Now
	log     *slog.Logger
	onCall  func(CallMetrics)
	Metrics *Aggregate
	// maxReply caps a reply's size (Options.MaxReplyBytes).
	maxReply int

	down atomic.Bool // the last Version check found no server (offline.go)

	mu    sync.Mutex
	roles map[string]config.Role
	info  map[string]ModelInfo // /api/show, by model
	// unshown: a model whose description came back larger than the cap
	// (ErrBodyTooLarge); a server that sends that does so again, so it is
	// not asked again (each retry would read the cap's worth of bytes).
	unshown map[string]error
	// ctxSize is each model's context size for the session (see
	// sessionCtx); ctxGuess marks the sizes not yet read from the server.
	ctxSize  map[string]int
	ctxGuess map[string]int
	// tokPerChar is each model's worst observed tokens-per-character ratio.
	tokPerChar map[string]float64
	// slots are each model's prompts as the server's cache slots hold them
	// (cache.go); cacheSlots is how many the server has.
	slots      map[string][][]byte
	cacheSlots int
	multiUser  bool
}

// New makes a client; it does not contact the server.
func New(opts Options) (*Client, error) {
	roles := opts.Roles
	if len(roles) == 0 {
		roles = config.DefaultRoles()
	}
	retry := opts.Retry
	if retry.Attempts <= 0 {
		retry = DefaultRetry()
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = osGetenv
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		retry: retry, sleep: opts.Sleep, clock: opts.Now, log: log, byRole: map[string][]*endpoint{},
		onCall: opts.OnCall, Metrics: NewAggregate(), roles: map[string]config.Role{}, info: map[string]ModelInfo{}, unshown: map[string]error{},
		ctxSize: map[string]int{}, ctxGuess: map[string]int{}, tokPerChar: map[string]float64{}, slots: map[string][][]byte{}, cacheSlots: max(opts.CacheSlots, 1),
		multiUser: opts.MultiUserCache,
		maxReply:  opts.MaxReplyBytes,
	}
	if c.maxReply <= 0 {
		c.maxReply = DefaultMaxReply
	}
	conv := conversation()
	var next http.RoundTripper
	var timeout time.Duration
	if opts.HTTPClient != nil {
		next, timeout = transportOf(opts.HTTPClient), opts.HTTPClient.Timeout
	} else {
		next = newTransport(getenv)
	}
	made := map[string]*endpoint{}
	endpoints := func(s config.Server) ([]*endpoint, error) {
		addrs := config.HostList(s.Hosts)
		if len(addrs) == 0 && strings.TrimSpace(s.BaseURL) != "" {
			addrs = []string{s.BaseURL}
		}
		if len(addrs) == 0 {
			addrs = []string{opts.Host}
			if s.API == config.APIOpenAI {
				u, err := ParseHost(opts.Host)
				if err != nil {
					return nil, err
				}
				addrs = []string{strings.TrimSuffix(u.String(), "/") + "/v1"}
			}
		}
		var out []*endpoint
		for _, a := range addrs {
			u, err := endpointURL(s.API, a)
			if err != nil {
				return nil, err
			}
			id := s.API + " " + u.String() + " " + s.APIKeyEnv
			e, ok := made[id]
			if !ok {
				key := apiKey(getenv, s.APIKeyEnv)
				hc := &http.Client{Timeout: timeout, Transport: capTransport{next: next, key: key, conv: conv,
					stream: max(minStreamBody, 64*int64(c.maxReply)), isOpenAI: s.API == config.APIOpenAI}}
				e = &endpoint{api: s.API, base: u, key: key, keyEnv: s.APIKeyEnv, hc: hc}
				e.ol = api.NewClient(e.ollamaRoot(), hc)
				made[id] = e
			}
			out = append(out, e)
		}
		return out, nil
	}
	var err error
	if c.def, err = endpoints(config.ServerFor(opts.Server, config.Role{})); err != nil {
		return nil, err
	}
	for k, v := range roles {
		c.roles[k] = v
		if c.byRole[k], err = endpoints(config.ServerFor(opts.Server, v)); err != nil {
			return nil, fmt.Errorf("role %s: %w", k, err)
		}
	}
	return c, nil
}

func transportOf(hc *http.Client) http.RoundTripper {
	if hc.Transport != nil {
		return hc.Transport
	}
	return http.DefaultTransport
}

// ParseHost reads an OLLAMA_HOST value by Ollama's own rules (see
// config.OllamaURL); empty means DefaultHost.
func ParseHost(h string) (*url.URL, error) {
	if strings.TrimSpace(h) == "" {
		h = DefaultHost
	}
	u, err := config.OllamaURL(h)
	if err != nil {
		return nil, fmt.Errorf("ollama host %q: %w", clipText(h, 200), err)
	}
	return u, nil
}

// Host is the global server's address (the first, when there are
// several): host:port, with the path of an OpenAI base.
func (c *Client) Host() string { return c.def[0].label() }

// API is the global server's protocol (config.APIOllama or APIOpenAI).
func (c *Client) API() string { return c.def[0].api }

// Hosts lists every server any role uses, each once, the global ones
// first.
func (c *Client) Hosts() []string {
	var out []string
	seen := map[*endpoint]bool{}
	add := func(eps []*endpoint) {
		for _, e := range eps {
			if !seen[e] {
				seen[e] = true
				out = append(out, e.label())
			}
		}
	}
	add(c.def)
	c.mu.Lock()
	names := make([]string, 0, len(c.byRole))
	for n := range c.byRole {
		names = append(names, n)
	}
	c.mu.Unlock()
	sort.Strings(names)
	for _, n := range names {
		add(c.byRole[n])
	}
	return out
}

// Loopback reports whether every server is on this machine.
func (c *Client) Loopback() bool {
	for _, e := range c.def {
		if !loopback(e.base.Hostname()) {
			return false
		}
	}
	for _, eps := range c.byRole {
		for _, e := range eps {
			if !loopback(e.base.Hostname()) {
				return false
			}
		}
	}
	return true
}

// RequestsPerHost counts the chat requests sent to each server, by its
// address.
func (c *Client) RequestsPerHost() map[string]int64 {
	out := map[string]int64{}
	seen := map[*endpoint]bool{}
	count := func(eps []*endpoint) {
		for _, e := range eps {
			if !seen[e] {
				seen[e] = true
				out[e.label()] += e.calls.Load()
			}
		}
	}
	count(c.def)
	for _, eps := range c.byRole {
		count(eps)
	}
	return out
}

// pick chooses the role's least busy server (fewest requests in flight,
// then fewest sent) and counts the request on it until release.
func (c *Client) pick(role string) (*endpoint, func()) {
	eps := c.byRole[role]
	if len(eps) == 0 {
		eps = c.def
	}
	c.mu.Lock()
	best := eps[0]
	for _, e := range eps[1:] {
		if b, eb := e.busy.Load(), best.busy.Load(); b < eb || b == eb && e.calls.Load() < best.calls.Load() {
			best = e
		}
	}
	best.busy.Add(1)
	best.calls.Add(1)
	c.mu.Unlock()
	return best, func() { best.busy.Add(-1) }
}

// endpointFor is the server asked about a model: the first of a role on
// that model, else the global one.
func (c *Client) endpointFor(model string) *endpoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.roles))
	for n := range c.roles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if c.roles[n].Model == model && len(c.byRole[n]) > 0 {
			return c.byRole[n][0]
		}
	}
	return c.def[0]
}

// Role returns a role's settings.
func (c *Client) Role(name string) (config.Role, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.roles[name]
	return r, ok
}

// SetModel changes the model of a role (the TUI's model switcher).
func (c *Client) SetModel(role, model string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.roles[role]
	if !ok {
		return fmt.Errorf("set model: unknown role %q", role)
	}
	// The context sizes of both models are chosen again from the roles'
	// new needs on their next call.
	delete(c.ctxSize, r.Model)
	delete(c.ctxSize, model)
	r.Model = model
	c.roles[role] = r
	return nil
}

// conversation is a new conversation's name: 16 hex digits.
func conversation() string {
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// roleKey carries the role in a request's context.
type roleKey struct{}

// Version asks the global server for its version; it is the cheapest
// reachability check. An OpenAI-compatible server has no version call: its
// model list answers instead, and the version is "OpenAI-compatible" (or
// Ollama's, when Ollama serves that base).
func (c *Client) Version(ctx context.Context) (string, error) {
	e := c.def[0]
	var v string
	var err error
	if e.api == config.APIOpenAI {
		if _, err = c.openaiModels(ctx, e); err == nil {
			v = "OpenAI-compatible"
			if ov, oerr := e.ol.Version(ctx); oerr == nil && ov != "" {
				v = "OpenAI-compatible (Ollama " + clipText(ov, 40) + ")"
			}
		}
	} else {
		v, err = e.ol.Version(ctx)
		v = clipText(v, 40)
	}
	if err != nil {
		err = c.classify(ctx, err)
		if errors.Is(err, ErrUnreachable) {
			c.setDown(true)
		}
		return "", c.wrapAt(e, "", "", 1, err)
	}
	c.setDown(false)
	return v, nil
}

// statusError is an HTTP error status with the server's message, the URL
// asked and its Retry-After header.
type statusError struct {
	code       int
	msg        string
	url        string
	retryAfter string
}

func (e statusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.code, e.msg) }

// classify maps a transport or API error to a sentinel. A server's text in
// it is clipped and its control characters neutralised.
func (c *Client) classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: %s", ErrTimeout, clipText(err.Error(), 300))
	}
	var hf *httpFault
	if errors.Is(err, context.Canceled) || errors.As(err, &hf) {
		return err
	}
	for _, known := range []error{ErrBodyTooLarge, ErrReplyTooLarge, ErrMalformed, ErrStreamCut, ErrUnauthorized, ErrModelNotFound,
		ErrBadRequest, ErrServer, ErrRetryLater} {
		if errors.Is(err, known) {
			return err
		}
	}
	code, msg := 0, ""
	var se api.StatusError
	var ae api.AuthorizationError
	var st statusError
	switch {
	case errors.As(err, &ae):
		code, msg = ae.StatusCode, ae.Status
		if ae.SigninURL != "" {
			msg += " (sign in at " + ae.SigninURL + ")"
		}
	case errors.As(err, &se):
		code, msg = se.StatusCode, se.ErrorMessage
	case errors.As(err, &st):
		code, msg = st.code, st.msg
	}
	if code != 0 {
		msg = clipText(msg, 300)
		f := &httpFault{err: statusErr(code, msg), said: fmt.Sprintf("HTTP %d: %s", code, msg), url: st.url}
		if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
			f.after, f.at, _ = parseRetryAfter(st.retryAfter, c.now())
		}
		return f
	}
	text := clipText(err.Error(), 300)
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || errors.As(err, &ne) || strings.Contains(text, "connection refused") {
		return fmt.Errorf("%w: %s", ErrUnreachable, text)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%w: %s", ErrUnreachable, text)
	}
	if strings.Contains(text, "EOF") || strings.Contains(text, "connection reset") {
		return fmt.Errorf("%w: %s", ErrStreamCut, text)
	}
	return fmt.Errorf("%w: %s", ErrMalformed, text)
}

// orText is s, or else the alternative.
func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// roleError is the typed error of a role's call, naming the role's model
// and its (first) server in its protocol.
func (c *Client) roleError(role string, attempts int, err error) error {
	r, _ := c.Role(role)
	at := c.def[0]
	if eps := c.byRole[role]; len(eps) > 0 {
		at = eps[0]
	}
	return c.wrapAt(at, role, r.Model, attempts, err)
}

// wrap makes the typed error for the global server.
func (c *Client) wrap(role, model string, attempts int, err error) error {
	return c.wrapAt(c.def[0], role, model, attempts, err)
}

// wrapAt makes the typed error with a hint for the user.
func (c *Client) wrapAt(at *endpoint, role, model string, attempts int, err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	e := &Error{Role: role, Model: model, Host: at.label(), API: at.api, Attempts: attempts, Err: err}
	var hf *httpFault
	if errors.As(err, &hf) {
		e.URL = hf.url
	}
	openai := at.api == config.APIOpenAI
	pick := "or pick another model"
	if role != "" {
		pick += " for the " + role + " role"
	}
	switch {
	case errors.Is(err, ErrUnreachable) && openai:
		e.Hint = fmt.Sprintf("is the server running? Check base_url (tried %s)", at.base.Redacted())
	case errors.Is(err, ErrUnreachable):
		e.Hint = fmt.Sprintf("is Ollama running? Start it with `ollama serve`, or set OLLAMA_HOST (tried %s)", at.host())
	case errors.Is(err, ErrUnauthorized) && openai && at.keyEnv != "" && at.key != "":
		e.Hint = fmt.Sprintf("the server refused the API key in %s (api_key_env): check it", at.keyEnv)
	case errors.Is(err, ErrUnauthorized) && openai && at.keyEnv != "":
		e.Hint = fmt.Sprintf("the server wants an API key, and %s (api_key_env) is empty or unset: put the key in it", at.keyEnv)
	case errors.Is(err, ErrUnauthorized) && openai:
		e.Hint = "the server wants an API key: put it in an environment variable and name that variable in api_key_env"
	case errors.Is(err, ErrUnauthorized):
		e.Hint = "the server refused: a cloud model needs you signed in with `ollama signin`; a server that wants a key needs api_key_env"
	case errors.Is(err, ErrModelNotFound) && openai && !strings.Contains(at.base.Path, "/v1") && e.URL != "":
		e.Hint = fmt.Sprintf("nothing answers at %s: OpenAI-compatible servers serve their API under /v1, so the base URL is likely %s (--base-url, or base_url in [server])",
			e.URL, strings.TrimSuffix(at.base.Redacted(), "/")+"/v1")
	case errors.Is(err, ErrModelNotFound) && openai && model != "":
		e.Hint = fmt.Sprintf("the server does not serve %s; `lantern models` lists what it does, %s", model, pick)
	case errors.Is(err, ErrModelNotFound) && openai:
		e.Hint = fmt.Sprintf("nothing answers at %s: check the base URL (--base-url, or base_url in [server])", orText(e.URL, at.base.Redacted()))
	case errors.Is(err, ErrModelNotFound) && model != "":
		e.Hint = fmt.Sprintf("pull it with `ollama pull %s`, %s", model, pick)
	case errors.Is(err, ErrRetryLater):
		e.Hint = "try again then, or use another server"
	case errors.Is(err, ErrBodyTooLarge):
		e.Hint = fmt.Sprintf("no model server sends that much; is something else listening at %s?", at.label())
	case errors.Is(err, ErrTimeout):
		e.Hint = "the model is slow or stuck; raise the role's timeout or use a smaller model"
	case errors.Is(err, ErrContextOverflow):
		e.Hint = "shorten the prompt (fewer memories or history) or use a model with a longer context"
	}
	return e
}
