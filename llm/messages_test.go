package llm_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// TestMessagesNameWhatFailed: every failure names the protocol, role,
// model and server that failed, never an empty field: a base URL without
// /v1 (Go's "404 page not found" on /chat/completions and /models) says to
// add /v1; a listing fails without "(role , model , …)"; a schema or
// tool-loop failure of a role on an OpenAI-compatible server never says
// "Ollama at", whatever the global server is.
func TestMessagesNameWhatFailed(t *testing.T) {
	plain := httptest.NewServer(http.NotFoundHandler()) // a server with no /v1 (nor anything else)
	t.Cleanup(plain.Close)
	s := fake(t)
	s.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"justification": "no score"}`})
	s.Always("retriever", llmtest.Role(config.RoleRetriever), llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "look", Args: map[string]any{}}}})
	// The global server is Ollama's API; the critic and the retriever are
	// on the fake's /v1.
	mixed := func(t *testing.T) *llm.Client {
		rs := roles(5 * time.Second)
		for _, name := range []string{config.RoleCritic, config.RoleRetriever} {
			r := rs[name]
			r.API, r.BaseURL, r.NumCtx = config.APIOpenAI, s.BaseURL(), 4096
			rs[name] = r
		}
		c, err := llm.New(llm.Options{Host: s.Host(), Roles: rs, Retry: llm.RetryPolicy{Attempts: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	noV1 := func(t *testing.T) *llm.Client {
		rs := roles(5 * time.Second)
		for k, r := range rs {
			r.NumCtx, r.Think = 4096, config.ThinkOff
			rs[k] = r
		}
		c, err := llm.New(llm.Options{Server: config.Server{API: config.APIOpenAI, BaseURL: plain.URL}, Roles: rs, Retry: llm.RetryPolicy{Attempts: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	look, err := llm.NewTool("look", "look around", func(context.Context, struct{}) (string, error) { return "a room", nil })
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		client func(*testing.T) *llm.Client
		call   func(*llm.Client) error
		want   error
		says   []string
		never  []string
	}{
		{"chat on a base without /v1", noV1, func(c *llm.Client) error {
			_, err := c.Chat(context.Background(), ask(config.RoleAgent, "go"))
			return err
		},
			llm.ErrModelNotFound, []string{"role agent", "model tiny", "OpenAI-compatible server at " + strings.TrimPrefix(plain.URL, "http://"),
				plain.URL + "/chat/completions", "under /v1", plain.URL + "/v1"}, []string{"role ,", "model ,", "does not serve ;"}},
		{"models on a base without /v1", noV1, func(c *llm.Client) error { _, err := c.Models(context.Background()); return err },
			llm.ErrModelNotFound, []string{"OpenAI-compatible server at", plain.URL + "/models", plain.URL + "/v1"}, []string{"role", "model ,", "for the  role"}},
		{"version on a base without /v1", noV1, func(c *llm.Client) error { _, err := c.Version(context.Background()); return err },
			llm.ErrModelNotFound, []string{plain.URL + "/v1"}, []string{"role", "model ,"}},
		{"schema failure of an OpenAI role", mixed, func(c *llm.Client) error {
			_, _, err := llm.Structured[verdict](context.Background(), c, ask(config.RoleCritic, "judge"))
			return err
		}, llm.ErrInvalidReply, []string{"role critic", "model tiny", "OpenAI-compatible server at " + s.Host() + "/v1"}, []string{"Ollama at"}},
		{"tool loop of an OpenAI role", mixed, func(c *llm.Client) error {
			_, err := c.RunTools(context.Background(), ask(config.RoleRetriever, "look"), []llm.Tool{look}, 1)
			return err
		}, llm.ErrToolLoop, []string{"role retriever", "OpenAI-compatible server at " + s.Host() + "/v1"}, []string{"Ollama at"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call(tc.client(t))
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			msg := err.Error()
			for _, w := range tc.says {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			for _, w := range tc.never {
				if strings.Contains(msg, w) {
					t.Errorf("message %q says %q", msg, w)
				}
			}
		})
	}
}

// TestErrorLeavesOutWhatItDoesNotKnow: an *Error without a role or model
// does not print empty fields.
func TestErrorLeavesOutWhatItDoesNotKnow(t *testing.T) {
	tests := []struct {
		name string
		err  *llm.Error
		want string
	}{
		{"everything", &llm.Error{Role: "agent", Model: "m", Host: "h:1/v1", API: config.APIOpenAI, Attempts: 3, Err: llm.ErrServer, Hint: "wait"},
			"model server error (role agent, model m, OpenAI-compatible server at h:1/v1, 3 attempts): wait"},
		{"no role", &llm.Error{Model: "m", Host: "h:1", Attempts: 1, Err: llm.ErrModelNotFound},
			"model not found (model m, Ollama at h:1)"},
		{"no role nor model", &llm.Error{Host: "h:1/v1", API: config.APIOpenAI, Err: llm.ErrUnreachable},
			"model server unreachable (OpenAI-compatible server at h:1/v1)"},
		{"nothing", &llm.Error{Err: llm.ErrTimeout}, "model call timed out"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}
