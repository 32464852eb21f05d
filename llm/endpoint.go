package llm

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"
	"golang.org/x/net/http/httpproxy"

	"github.com/lantern-if/lantern/config"
)

// An endpoint is one model server a role's calls can go to: its protocol,
// its URL, the key it wants and how busy it is. A role may have several
// (config.Server.Hosts); each attempt goes to the least busy.
type endpoint struct {
	api  string   // config.APIOllama or config.APIOpenAI
	base *url.URL // Ollama: the server's root; OpenAI: the base of /chat/completions
	key  string   // the API key (from the environment; never logged)
	// keyEnv names the variable the key is read from (api_key_env).
	keyEnv string
	hc     *http.Client
	ol     *api.Client // Ollama's own client, for the Ollama API

	busy  atomic.Int64 // requests in flight
	calls atomic.Int64 // requests sent
	// isOllama: an OpenAI base that Ollama serves (its /api/show answered).
	isOllama atomic.Bool
}

// host is the endpoint's host:port, as messages name it.
func (e *endpoint) host() string { return e.base.Host }

// label names the endpoint in messages: its host, with the path for an
// OpenAI base.
func (e *endpoint) label() string {
	if e.api == config.APIOpenAI {
		return e.base.Host + strings.TrimSuffix(e.base.Path, "/")
	}
	return e.base.Host
}

// ollamaRoot is the Ollama server behind an endpoint: the endpoint itself,
// or for an OpenAI base ending in /v1 the same server's root (Ollama
// serves both), which may answer /api/show and /api/ps.
func (e *endpoint) ollamaRoot() *url.URL {
	u := *e.base
	if e.api == config.APIOpenAI {
		u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
	}
	return &u
}

// loopback reports whether a host name is this machine. 0.0.0.0 and ::,
// which a server listens on to take every address, are reached on this
// machine when dialled, as Ollama's own client treats them.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// endpointURL reads a server address for a protocol: Ollama's OLLAMA_HOST
// rules for "ollama"; for "openai" a URL (http:// added when no scheme is
// given). The unspecified addresses are replaced by loopback ones.
func endpointURL(apiName, s string) (*url.URL, error) {
	var u *url.URL
	var err error
	if apiName == config.APIOpenAI {
		if !strings.Contains(s, "://") {
			s = "http://" + s
		}
		u, err = url.Parse(strings.TrimSpace(s))
		if err == nil && (u.Scheme != "http" && u.Scheme != "https" || u.Host == "") {
			err = fmt.Errorf("want an http:// or https:// URL")
		}
		if err != nil {
			return nil, fmt.Errorf("base URL %q: %w", clipText(s, 200), err)
		}
	} else if u, err = ParseHost(s); err != nil {
		return nil, err
	}
	switch ip := net.ParseIP(u.Hostname()); {
	case ip == nil || !ip.IsUnspecified():
	case ip.To4() != nil:
		u.Host = net.JoinHostPort("127.0.0.1", u.Port())
	default:
		u.Host = net.JoinHostPort("::1", u.Port())
	}
	if u.Port() == "" {
		u.Host = strings.TrimSuffix(u.Host, ":")
	}
	return u, nil
}

// newTransport is the default transport: short dial timeouts, and the
// environment's proxy (HTTP_PROXY, HTTPS_PROXY, NO_PROXY) for servers on
// other machines only; a server on this one is always dialled directly.
func newTransport(getenv func(string) string) http.RoundTripper {
	pc := httpproxy.Config{
		HTTPProxy:  firstEnv(getenv, "HTTP_PROXY", "http_proxy"),
		HTTPSProxy: firstEnv(getenv, "HTTPS_PROXY", "https_proxy"),
		NoProxy:    firstEnv(getenv, "NO_PROXY", "no_proxy"),
	}
	proxy := pc.ProxyFunc()
	return &http.Transport{
		Proxy: func(r *http.Request) (*url.URL, error) {
			if loopback(r.URL.Hostname()) {
				return nil, nil
			}
			return proxy(r.URL)
		},
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 0, // a model's first byte may take minutes; the role's timeout bounds it
	}
}

func firstEnv(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// Body caps: every body read from a server is bounded, so a broken or
// hostile server can neither exhaust memory nor keep a command reading.
const (
	// maxListBody caps a listing or description (/api/tags, /api/show,
	// /api/ps, /api/version, /models).
	maxListBody = 8 << 20
	// maxErrorBody caps an error reply: its text is shown clipped anyway.
	maxErrorBody = 64 << 10
	// maxVersionBody caps /api/version, a few bytes of JSON.
	maxVersionBody = 64 << 10
	// minStreamBody is the least a chat or pull stream may carry in all;
	// a chat stream may carry 64 times the reply cap (framing and
	// one-token pieces), whichever is more.
	minStreamBody = 64 << 20
)

// capTransport bounds every response body by its kind, and sets the
// role and conversation headers and the API key on every request.
type capTransport struct {
	next     http.RoundTripper
	stream   int64  // cap of a chat or pull stream
	key      string // bearer token; empty: none
	conv     string // the client's conversation (ConversationHeader)
	isOpenAI bool
}

func (t capTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	role, _ := r.Context().Value(roleKey{}).(string)
	if role != "" || t.key != "" || t.conv != "" {
		r = r.Clone(r.Context())
		if role != "" {
			r.Header.Set(RoleHeader, role)
		}
		if t.conv != "" {
			r.Header.Set(ConversationHeader, t.conv)
		}
		if t.key != "" {
			r.Header.Set("Authorization", "Bearer "+t.key)
		}
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	limit := int64(maxListBody)
	switch {
	case resp.StatusCode >= 300:
		// Cut silently: the start of the text is what is shown.
		resp.Body = &cappedBody{r: resp.Body, left: maxErrorBody, quiet: true}
		return resp, nil
	case strings.HasSuffix(r.URL.Path, "/api/chat") || strings.HasSuffix(r.URL.Path, "/chat/completions") ||
		strings.HasSuffix(r.URL.Path, "/api/pull"):
		limit = t.stream
	case strings.HasSuffix(r.URL.Path, "/api/version"):
		limit = maxVersionBody
	}
	resp.Body = &cappedBody{r: resp.Body, left: limit, path: r.URL.Path}
	return resp, nil
}

// cappedBody reads at most left bytes; past them it fails with
// ErrBodyTooLarge, or (quiet) ends as if the body ended.
type cappedBody struct {
	r     io.ReadCloser
	left  int64
	quiet bool
	path  string
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		if b.quiet {
			return 0, io.EOF
		}
		return 0, fmt.Errorf("%w: %s sent more than its cap", ErrBodyTooLarge, b.path)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.r.Close() }

// apiKey reads a key from the named variable.
func apiKey(getenv func(string) string, name string) string {
	if name == "" {
		return ""
	}
	return strings.TrimSpace(getenv(name))
}

// osGetenv is os.Getenv, the default for Options.Getenv.
func osGetenv(k string) string { return os.Getenv(k) }

// clipText shortens a server's text for a message and neutralises its
// control characters (a server's text is data, never terminal control).
func clipText(s string, n int) string {
	var b strings.Builder
	for i, r := range s {
		if i >= n {
			fmt.Fprintf(&b, "… (%d bytes in all)", len(s))
			break
		}
		switch {
		case r == '\n' || r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			b.WriteRune('�')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
