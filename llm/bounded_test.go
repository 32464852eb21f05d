package llm_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
)

// hugeServer answers one path with head, then filler until 1 GB is sent or
// the client stops reading; it counts what it managed to send.
func hugeServer(t *testing.T, path string, status int, head, filler string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case path:
		case "/api/show":
			w.Write([]byte(`{"model_info":{"llama.context_length":8192},"capabilities":["completion","tools"]}`))
			return
		case "/v1/models":
			w.Write([]byte(`{"data":[{"id":"tiny"}]}`))
			return
		default:
			http.NotFound(w, r)
			return
		}
		if strings.HasPrefix(head, "data:") {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		w.WriteHeader(status)
		n, _ := w.Write([]byte(head))
		sent.Add(int64(n))
		block := []byte(strings.Repeat(filler, max(1, (64<<10)/len(filler))))
		for sent.Load() < 1<<30 {
			n, err := w.Write(block)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &sent
}

// TestBodiesAreBounded: 1 GB on every body a server sends (a listing, a
// description, the version, an error, one tool call's arguments, millions
// of tool calls; on both protocols) ends the call with an error after
// reading a bounded amount, not retried past its attempts.
func TestBodiesAreBounded(t *testing.T) {
	const most = 100 << 20 // read at most, over every attempt
	x := "xxxxxxxxxxxxxxxx"
	toolLine := `{"model":"tiny","message":{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":{}}}]},"done":false}` + "\n"
	oaTool := `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"xxxxxxxxxxxxxxxx`
	cases := []struct {
		name, api, path string
		status          int
		head, filler    string
		call            func(*llm.Client) error
		want            error
	}{
		{"show", config.APIOllama, "/api/show", 200, `{"modelfile":"`, x, func(c *llm.Client) error { _, err := c.Show(context.Background(), "tiny"); return err }, llm.ErrBodyTooLarge},
		{"tags", config.APIOllama, "/api/tags", 200, `{"models":[{"name":"`, x, func(c *llm.Client) error { _, err := c.Models(context.Background()); return err }, llm.ErrBodyTooLarge},
		{"version", config.APIOllama, "/api/version", 200, `{"version":"`, x, func(c *llm.Client) error { _, err := c.Version(context.Background()); return err }, llm.ErrBodyTooLarge},
		{"error body", config.APIOllama, "/api/chat", 500, `{"error":"`, x, chatCall, llm.ErrServer},
		{"tool-call arguments", config.APIOllama, "/api/chat", 200, `{"model":"tiny","message":{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":{"a":"`, x, chatCall, llm.ErrReplyTooLarge},
		{"millions of tool calls", config.APIOllama, "/api/chat", 200, "", toolLine, chatCall, llm.ErrReplyTooLarge},
		{"openai models", config.APIOpenAI, "/v1/models", 200, `{"data":[{"id":"`, x, func(c *llm.Client) error { _, err := c.Models(context.Background()); return err }, llm.ErrBodyTooLarge},
		{"openai error body", config.APIOpenAI, "/v1/chat/completions", 500, `{"error":{"message":"`, x, chatCall, llm.ErrServer},
		{"openai tool-call arguments", config.APIOpenAI, "/v1/chat/completions", 200, oaTool, x, chatCall, llm.ErrReplyTooLarge},
		{"openai whole completion", config.APIOpenAI, "/v1/chat/completions", 200, `{"choices":[{"message":{"content":"`, x, chatCall, llm.ErrReplyTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, sent := hugeServer(t, tc.path, tc.status, tc.head, tc.filler)
			host := strings.TrimPrefix(srv.URL, "http://")
			opts := llm.Options{Host: host, Roles: roles(20 * time.Second), Retry: llm.RetryPolicy{Attempts: 3, Backoff: time.Millisecond}}
			if tc.api == config.APIOpenAI {
				opts.Server = config.Server{API: config.APIOpenAI, BaseURL: srv.URL + "/v1"}
			}
			c, err := llm.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			err = tc.call(c)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if n := sent.Load(); n > most {
				t.Errorf("the server sent %d MB before the client stopped, want at most %d MB", n>>20, most>>20)
			}
			if len(err.Error()) > 1000 {
				t.Errorf("error message of %d bytes: a server's text is clipped", len(err.Error()))
			}
		})
	}
}

func chatCall(c *llm.Client) error {
	_, err := c.Chat(context.Background(), ask(config.RoleAgent, "hi"))
	return err
}

// TestCancelStopsEveryRead: a server that trickles an endless body never
// holds a call past its cancellation, on every kind of request.
func TestCancelStopsEveryRead(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.Write([]byte(`{"models":[{"name":"`))
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
				w.Write([]byte("x"))
				w.(http.Flusher).Flush()
			}
		}
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, apiName := range []string{config.APIOllama, config.APIOpenAI} {
		opts := llm.Options{Host: host, Roles: roles(time.Hour)}
		if apiName == config.APIOpenAI {
			opts.Server = config.Server{API: config.APIOpenAI, BaseURL: srv.URL + "/v1"}
		}
		c, err := llm.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		calls := map[string]func(context.Context) error{
			"models":  func(ctx context.Context) error { _, err := c.Models(ctx); return err },
			"version": func(ctx context.Context) error { _, err := c.Version(ctx); return err },
			"show":    func(ctx context.Context) error { _, err := c.Show(ctx, "tiny"); return err },
		}
		for name, call := range calls {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- call(ctx) }()
			time.AfterFunc(50*time.Millisecond, cancel)
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("%s %s: error %v, want context.Canceled", apiName, name, err)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("%s %s: still reading 20 s after cancellation", apiName, name)
			}
		}
	}
}

// TestTooLargeDescriptionAskedOnce: a server whose /api/show is past the
// cap is asked once a session: Show again, a role check and chat requests
// (which look the model up for its context size and thinking) get the
// same error, or go on without the description, at once.
func TestTooLargeDescriptionAskedOnce(t *testing.T) {
	var shows atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/show":
			shows.Add(1)
			w.Write([]byte(`{"modelfile":"`))
			block := []byte(strings.Repeat("x", 64<<10))
			for range 16 << 4 { // 16 MB: past the cap
				if _, err := w.Write(block); err != nil {
					return
				}
			}
		case "/api/chat":
			w.Write([]byte(`{"model":"tiny","message":{"role":"assistant","content":"hello"},"done":true}` + "\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, strings.TrimPrefix(srv.URL, "http://"), 20*time.Second)
	ctx := context.Background()
	for i := range 3 {
		if _, err := c.Show(ctx, testModel); !errors.Is(err, llm.ErrBodyTooLarge) {
			t.Fatalf("Show %d: %v, want ErrBodyTooLarge", i+1, err)
		}
	}
	if err := c.CheckRole(ctx, config.RoleAgent); err == nil {
		t.Error("CheckRole passed a model that cannot be described")
	}
	for range 3 {
		c.Chat(ctx, ask(config.RoleAgent, "hi"))
	}
	if n := shows.Load(); n != 1 {
		t.Errorf("/api/show asked %d times, want once", n)
	}
}
