package llm_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
)

// The retry policy against hostile servers: refusals are sent once,
// errors inside a 200 stream count as the status they name, Retry-After
// is honoured up to its bound and otherwise stops the call at once, and
// the backoff is jittered.

// hostile is a server whose chat path answers with answer (the same for
// every request), counting the chat requests and when each came.
type hostile struct {
	srv *httptest.Server
	mu  sync.Mutex
	at  []time.Time
}

// chatPath is a protocol's chat path on the server.
func chatPath(apiName string) string {
	if apiName == config.APIOpenAI {
		return "/v1/chat/completions"
	}
	return "/api/chat"
}

func newHostile(t *testing.T, apiName string, answer func(w http.ResponseWriter, n int)) *hostile {
	t.Helper()
	h := &hostile{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != chatPath(apiName) {
			http.NotFound(w, r)
			return
		}
		h.mu.Lock()
		h.at = append(h.at, time.Now())
		n := len(h.at)
		h.mu.Unlock()
		answer(w, n)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hostile) requests() []time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]time.Time(nil), h.at...)
}

// sleeps records the waits a client asks for, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
}

func (s *sleeps) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// hostileClient is a client on h in a protocol whose roles need no model
// description (a fixed num_ctx, thinking off): every request is a chat.
func hostileClient(t *testing.T, h *hostile, apiName string, o llm.Options) *llm.Client {
	t.Helper()
	rs := roles(30 * time.Second)
	if o.Roles != nil {
		rs = o.Roles
	}
	for k, r := range rs {
		r.NumCtx, r.Think = 4096, config.ThinkOff
		rs[k] = r
	}
	o.Roles = rs
	o.Host = strings.TrimPrefix(h.srv.URL, "http://")
	if apiName == config.APIOpenAI {
		o.Server = config.Server{API: config.APIOpenAI, BaseURL: h.srv.URL + "/v1"}
	}
	if o.Retry.Attempts == 0 {
		o.Retry = llm.RetryPolicy{Attempts: 3, Backoff: 100 * time.Millisecond, Max: time.Second}
	}
	c, err := llm.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// status answers with an HTTP status, headers and a JSON body.
func status(code int, body string, header ...string) func(http.ResponseWriter, int) {
	return func(w http.ResponseWriter, _ int) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		w.Write([]byte(body))
	}
}

// inStream answers 200 with a stream that carries line (SSE data on the
// OpenAI protocol, an NDJSON line on Ollama's).
func inStream(apiName, line string) func(http.ResponseWriter, int) {
	return func(w http.ResponseWriter, _ int) {
		if apiName == config.APIOpenAI {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("data: " + line + "\n\n"))
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Write([]byte(line + "\n"))
	}
}

const openAIKeyError = `{"error":{"message":"Incorrect API key provided: sk-xx","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`

// TestRefusalsAreSentOnce: a refusal is one request and one error that
// says it once, whether it comes as an HTTP status or inside a 200 stream
// (OpenAI's mid-stream error object, Ollama's error line); an error in a
// stream that names no refusal is retried like a 5xx.
func TestRefusalsAreSentOnce(t *testing.T) {
	tests := []struct {
		name     string
		apiName  string
		answer   func(string) func(http.ResponseWriter, int)
		want     error
		requests int
		says     string
	}{
		{"HTTP 401", config.APIOpenAI, func(string) func(http.ResponseWriter, int) { return status(401, openAIKeyError) }, llm.ErrUnauthorized, 1, "Incorrect API key provided"},
		{"HTTP 401", config.APIOllama, func(string) func(http.ResponseWriter, int) { return status(401, `{"error":"unauthorized"}`) }, llm.ErrUnauthorized, 1, "unauthorized"},
		{"HTTP 403", config.APIOpenAI, func(string) func(http.ResponseWriter, int) {
			return status(403, `{"error":{"message":"no access to this model"}}`)
		}, llm.ErrUnauthorized, 1, "no access to this model"},
		{"auth error in the stream", config.APIOpenAI, func(a string) func(http.ResponseWriter, int) { return inStream(a, openAIKeyError) }, llm.ErrUnauthorized, 1, "Incorrect API key provided"},
		{"auth error with a status in the stream", config.APIOllama, func(a string) func(http.ResponseWriter, int) {
			return inStream(a, `{"error":"log in first","status":401}`)
		}, llm.ErrUnauthorized, 1, "log in first"},
		{"unauthorized line in the stream", config.APIOllama, func(a string) func(http.ResponseWriter, int) { return inStream(a, `{"error":"unauthorized"}`) }, llm.ErrUnauthorized, 1, "unauthorized"},
		{"numeric 403 in the stream", config.APIOpenAI, func(a string) func(http.ResponseWriter, int) {
			return inStream(a, `{"error":{"message":"forbidden here","code":403}}`)
		}, llm.ErrUnauthorized, 1, "forbidden here"},
		{"model not found in the stream", config.APIOpenAI, func(a string) func(http.ResponseWriter, int) {
			return inStream(a, `{"error":{"message":"The model x does not exist","type":"NotFoundError","code":404}}`)
		}, llm.ErrModelNotFound, 1, "does not exist"},
		{"rate limit in the stream", config.APIOpenAI, func(a string) func(http.ResponseWriter, int) {
			return inStream(a, `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`)
		}, llm.ErrServer, 3, "slow down"},
		{"plain error in the stream", config.APIOllama, func(a string) func(http.ResponseWriter, int) { return inStream(a, `{"error":"out of memory"}`) }, llm.ErrServer, 3, "out of memory"},
		{"plain error in the stream", config.APIOpenAI, func(a string) func(http.ResponseWriter, int) { return inStream(a, `{"error":"out of memory"}`) }, llm.ErrServer, 3, "out of memory"},
	}
	for _, tc := range tests {
		t.Run(tc.apiName+"/"+tc.name, func(t *testing.T) {
			h := newHostile(t, tc.apiName, tc.answer(tc.apiName))
			var s sleeps
			c := hostileClient(t, h, tc.apiName, llm.Options{Sleep: s.sleep})
			_, err := c.Chat(context.Background(), ask(config.RoleAgent, "go"))
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if n := len(h.requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			if n := strings.Count(err.Error(), tc.says); n != 1 {
				t.Errorf("the message says %q %d times, want once: %v", tc.says, n, err)
			}
			if len(s.waits()) != tc.requests-1 {
				t.Errorf("waited %v for %d requests", s.waits(), tc.requests)
			}
			var le *llm.Error
			if !errors.As(err, &le) || le.Role != config.RoleAgent || le.Model != testModel || le.Host == "" {
				t.Errorf("error %#v does not name the role, model and server", err)
			}
		})
	}
}

// TestRetryAfter: a 429 or 503 that says Retry-After (seconds or an HTTP
// date) is tried again after that wait; a wait past the bound or past the
// role's timeout stops the call at once with ErrRetryLater, saying when
// the server asked to be called again.
func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		code       int
		retryAfter string
		timeout    time.Duration
		want       error
		requests   int
		wait       [2]time.Duration // the one wait's least and most; zero: none
		says       []string
	}{
		{"429 after 2 s", 429, "2", time.Minute, nil, 2, [2]time.Duration{2 * time.Second, 2 * time.Second}, nil},
		{"503 after an HTTP date", 503, now.Add(5 * time.Second).Format(http.TimeFormat), time.Minute, nil, 2, [2]time.Duration{5 * time.Second, 5 * time.Second}, nil},
		{"a date already past: the backoff", 503, now.Add(-time.Hour).Format(http.TimeFormat), time.Minute, nil, 2, [2]time.Duration{50 * time.Millisecond, 100 * time.Millisecond}, nil},
		{"no Retry-After: the backoff", 429, "", time.Minute, nil, 2, [2]time.Duration{50 * time.Millisecond, 100 * time.Millisecond}, nil},
		{"a day", 429, "86400", time.Minute, llm.ErrRetryLater, 1, [2]time.Duration{}, []string{"24h0m0s", "Mon, 02 Mar 2026 12:00:00 UTC", "HTTP 429: busy"}},
		{"past the bound", 503, "61", 5 * time.Minute, llm.ErrRetryLater, 1, [2]time.Duration{}, []string{"1m1s", "longer than a call waits (1m0s)"}},
		{"past the role's timeout", 429, "20", 10 * time.Second, llm.ErrRetryLater, 1, [2]time.Duration{}, []string{"20s", "past the role's timeout"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostile(t, config.APIOpenAI, func(w http.ResponseWriter, n int) {
				if n == 1 {
					status(tc.code, `{"error":{"message":"busy"}}`, "Retry-After", tc.retryAfter)(w, n)
					return
				}
				inStream(config.APIOpenAI, `{"choices":[{"delta":{"content":"fine"},"finish_reason":"stop"}]}`)(w, n)
			})
			var s sleeps
			c := hostileClient(t, h, config.APIOpenAI, llm.Options{Sleep: s.sleep, Now: func() time.Time { return now }, Roles: roles(tc.timeout)})
			reply, err := c.Chat(context.Background(), ask(config.RoleAgent, "go"))
			if tc.want == nil && (err != nil || reply.Content != "fine") {
				t.Fatalf("reply %q, error %v; want the second attempt's", reply.Content, err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if n := len(h.requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			got := s.waits()
			switch {
			case tc.wait[1] == 0 && len(got) != 0:
				t.Errorf("waited %v, want no wait", got)
			case tc.wait[1] > 0 && (len(got) != 1 || got[0] < tc.wait[0] || got[0] > tc.wait[1]):
				t.Errorf("waited %v, want one wait between %v and %v", got, tc.wait[0], tc.wait[1])
			}
			for _, w := range tc.says {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestRetryAfterIsWaited: with the real clock, the retry of a 429 that
// says Retry-After: 2 reaches the server at least 2 s after the first
// request (a lower bound only).
func TestRetryAfterIsWaited(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 2 s")
	}
	h := newHostile(t, config.APIOpenAI, func(w http.ResponseWriter, n int) {
		if n == 1 {
			status(429, `{"error":{"message":"busy"}}`, "Retry-After", "2")(w, n)
			return
		}
		inStream(config.APIOpenAI, `{"choices":[{"delta":{"content":"fine"},"finish_reason":"stop"}]}`)(w, n)
	})
	c := hostileClient(t, h, config.APIOpenAI, llm.Options{})
	if _, err := c.Chat(context.Background(), ask(config.RoleAgent, "go")); err != nil {
		t.Fatal(err)
	}
	at := h.requests()
	if len(at) != 2 {
		t.Fatalf("%d requests, want 2", len(at))
	}
	if gap := at[1].Sub(at[0]); gap < 2*time.Second {
		t.Errorf("the retry came %v after the first request, want at least 2s", gap)
	}
}

// TestBackoffIsJittered: without Retry-After each wait is between half
// and all of the doubling backoff (capped at Max), and the waits of many
// calls are not all the same.
func TestBackoffIsJittered(t *testing.T) {
	h := newHostile(t, config.APIOllama, status(500, `{"error":"down"}`))
	var s sleeps
	policy := llm.RetryPolicy{Attempts: 4, Backoff: 100 * time.Millisecond, Max: 300 * time.Millisecond}
	c := hostileClient(t, h, config.APIOllama, llm.Options{Sleep: s.sleep, Retry: policy})
	const calls = 20
	for range calls {
		if _, err := c.Chat(context.Background(), ask(config.RoleAgent, "go")); !errors.Is(err, llm.ErrServer) {
			t.Fatalf("error %v, want ErrServer", err)
		}
	}
	waits := s.waits()
	if len(waits) != calls*3 {
		t.Fatalf("%d waits, want %d", len(waits), calls*3)
	}
	full := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}
	distinct := map[time.Duration]bool{}
	for i, w := range waits {
		f := full[i%3]
		if w < f/2 || w > f {
			t.Errorf("wait %d is %v, want between %v and %v", i%3+1, w, f/2, f)
		}
		distinct[w] = true
	}
	if len(distinct) < 10 {
		t.Errorf("only %d distinct waits in %d: no jitter", len(distinct), len(waits))
	}
}
