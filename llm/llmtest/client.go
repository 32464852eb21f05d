package llmtest

import (
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
)

// NewClient starts a fake server with one model and returns a client whose
// every role uses that model (no retries' waiting: backoff of a
// millisecond). Tests script the server, then drive the client.
func NewClient(t testing.TB, model string) (*llm.Client, *Server) {
	t.Helper()
	s := New(t)
	s.AddModel(model, 8192)
	roles := config.DefaultRoles()
	for k, r := range roles {
		r.Model, r.Timeout = model, 10*time.Second
		roles[k] = r
	}
	c, err := llm.New(llm.Options{Host: s.Host(), Roles: roles, Retry: llm.RetryPolicy{Attempts: 3, Backoff: time.Millisecond, Max: 2 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}
