// Package llm is how every mind in Lantern talks to local models through
// Ollama, and the only package that imports github.com/ollama/ollama/api.
// It gives each role its own model and sampling, streams content and
// thinking deltas, sizes num_ctx once per model for the session (fitting
// prompts to it), decodes structured replies
// against a JSON schema (retrying with a format reminder), runs bounded
// tool-call loops, retries transient faults with backoff, and turns every
// failure into a typed *Error with a plain message.
package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/ollama/ollama/api"
)

// DefaultHost is where Ollama listens unless OLLAMA_HOST says otherwise.
const DefaultHost = "127.0.0.1:11434"

// RoleHeader carries the role of a call to the server, for logs and for the
// scripted fake server.
const RoleHeader = "X-Lantern-Role"

// RetryPolicy says how transient faults (server unreachable, 5xx, a cut or
// malformed stream, an empty reply) are retried.
type RetryPolicy struct {
	Attempts int           // total attempts, at least 1
	Backoff  time.Duration // first wait; doubles each time
	Max      time.Duration // longest wait
}

// DefaultRetry is three attempts, waiting 250 ms then 500 ms.
func DefaultRetry() RetryPolicy {
	return RetryPolicy{Attempts: 3, Backoff: 250 * time.Millisecond, Max: 4 * time.Second}
}

// Options configure a Client.
type Options struct {
	Host       string                 // OLLAMA_HOST form ("127.0.0.1:11434") or a URL; empty: DefaultHost
	Roles      map[string]config.Role // empty: config.DefaultRoles()
	Retry      RetryPolicy            // zero: DefaultRetry()
	HTTPClient *http.Client           // nil: a client with sane dial timeouts
	Logger     *slog.Logger           // nil: discard
	// OnCall, if set, receives every call's metrics as it finishes.
	OnCall func(CallMetrics)
	// MaxReplyBytes caps a reply's content plus thinking; a longer reply
	// is cut off with ErrReplyTooLarge. 0: DefaultMaxReply.
	MaxReplyBytes int
	// CacheSlots is how many prompt caches the server keeps per model
	// (Ollama's OLLAMA_NUM_PARALLEL); 0: 1, Ollama's default. It only
	// serves the estimate of the cache share in the metrics.
	CacheSlots int
	// MultiUserCache: the server runs with OLLAMA_MULTIUSER_CACHE (see
	// cache.go), for the same estimate.
	MultiUserCache bool
}

// DefaultMaxReply is the default cap on a model reply: far above any
// useful answer, far below what would strain memory.
const DefaultMaxReply = 512 << 10

// Client talks to one Ollama server. It is safe for concurrent use.
type Client struct {
	api     *api.Client
	host    string
	base    *url.URL
	retry   RetryPolicy
	log     *slog.Logger
	onCall  func(CallMetrics)
	Metrics *Aggregate
	// maxReply caps a reply's size (Options.MaxReplyBytes).
	maxReply int

	down atomic.Bool // the last Version check found no server (offline.go)

	mu    sync.Mutex
	roles map[string]config.Role
	info  map[string]ModelInfo // /api/show, by model
	// ctxSize is each model's context size for the session (see sessionCtx).
	ctxSize map[string]int
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
	base, err := ParseHost(opts.Host)
	if err != nil {
		return nil, err
	}
	roles := opts.Roles
	if len(roles) == 0 {
		roles = config.DefaultRoles()
	}
	retry := opts.Retry
	if retry.Attempts <= 0 {
		retry = DefaultRetry()
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: &http.Transport{
			Proxy:               nil, // a local model server is never reached through a proxy
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     90 * time.Second,
		}}
	}
	hc = &http.Client{Transport: roleTransport{next: transportOf(hc)}, Timeout: hc.Timeout}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		api: api.NewClient(base, hc), host: base.Host, base: base, retry: retry, log: log,
		onCall: opts.OnCall, Metrics: NewAggregate(), roles: map[string]config.Role{}, info: map[string]ModelInfo{},
		ctxSize: map[string]int{}, tokPerChar: map[string]float64{}, slots: map[string][][]byte{}, cacheSlots: max(opts.CacheSlots, 1),
		multiUser: opts.MultiUserCache,
		maxReply:  opts.MaxReplyBytes,
	}
	if c.maxReply <= 0 {
		c.maxReply = DefaultMaxReply
	}
	for k, v := range roles {
		c.roles[k] = v
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
		return nil, fmt.Errorf("ollama host %q: %w", h, err)
	}
	return u, nil
}

// Host is the server's host:port.
func (c *Client) Host() string { return c.host }

// Loopback reports whether the server is on this machine.
func (c *Client) Loopback() bool {
	if c.base.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(c.base.Hostname())
	return ip != nil && ip.IsLoopback()
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

// roleKey carries the role in a request's context.
type roleKey struct{}

type roleTransport struct{ next http.RoundTripper }

func (t roleTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if role, ok := r.Context().Value(roleKey{}).(string); ok && role != "" {
		r = r.Clone(r.Context())
		r.Header.Set(RoleHeader, role)
	}
	return t.next.RoundTrip(r)
}

// Version asks the server for its version; it is the cheapest reachability
// check.
func (c *Client) Version(ctx context.Context) (string, error) {
	v, err := c.api.Version(ctx)
	if err != nil {
		err = c.classify(ctx, err)
		if errors.Is(err, ErrUnreachable) {
			c.setDown(true)
		}
		return "", c.wrap("", "", 1, err)
	}
	c.setDown(false)
	return v, nil
}

// classify maps a transport or API error to a sentinel.
func (c *Client) classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: %v", ErrTimeout, err)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	var se api.StatusError
	if errors.As(err, &se) {
		switch {
		case se.StatusCode == http.StatusNotFound:
			return fmt.Errorf("%w: %s", ErrModelNotFound, se.ErrorMessage)
		case se.StatusCode == http.StatusBadRequest:
			return fmt.Errorf("%w: %s", ErrBadRequest, se.ErrorMessage)
		case se.StatusCode >= 500:
			return fmt.Errorf("%w: HTTP %d: %s", ErrServer, se.StatusCode, se.ErrorMessage)
		}
		return fmt.Errorf("%w: HTTP %d: %s", ErrServer, se.StatusCode, se.ErrorMessage)
	}
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || errors.As(err, &ne) || strings.Contains(err.Error(), "connection refused") {
		return fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	if strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "connection reset") {
		return fmt.Errorf("%w: %v", ErrStreamCut, err)
	}
	return fmt.Errorf("%w: %v", ErrMalformed, err)
}

// wrap makes the typed error with a hint for the user.
func (c *Client) wrap(role, model string, attempts int, err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	e := &Error{Role: role, Model: model, Host: c.host, Attempts: attempts, Err: err}
	switch {
	case errors.Is(err, ErrUnreachable):
		e.Hint = fmt.Sprintf("is Ollama running? Start it with `ollama serve`, or set OLLAMA_HOST (tried %s)", c.host)
	case errors.Is(err, ErrModelNotFound):
		e.Hint = fmt.Sprintf("pull it with `ollama pull %s`, or pick another model for the %s role", model, role)
	case errors.Is(err, ErrTimeout):
		e.Hint = "the model is slow or stuck; raise the role's timeout or use a smaller model"
	case errors.Is(err, ErrContextOverflow):
		e.Hint = "shorten the prompt (fewer memories or history) or use a model with a longer context"
	}
	return e
}
