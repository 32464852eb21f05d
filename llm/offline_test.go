package llm_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// TestDownServerSkipsCallsUntilFound: a failed Version check marks the
// server down, a Chat then fails at once (no attempt made) with
// ErrUnreachable; a check that reaches a server leaves the client up.
func TestDownServerSkipsCallsUntilFound(t *testing.T) {
	c := newClient(t, llmtest.RefusedHost(t), 5*time.Second)
	if c.Down() {
		t.Fatal("a new client must not be down before any check")
	}
	if _, err := c.Version(context.Background()); !errors.Is(err, llm.ErrUnreachable) {
		t.Fatalf("check: %v, want ErrUnreachable", err)
	}
	if !c.Down() {
		t.Fatal("a failed check must mark the server down")
	}
	_, err := c.Chat(context.Background(), ask(config.RoleAgent, "hi"))
	var e *llm.Error
	if !errors.Is(err, llm.ErrUnreachable) || !errors.As(err, &e) || e.Attempts != 0 {
		t.Fatalf("chat while down: %v (%+v), want ErrUnreachable with no attempt", err, e)
	}

	up, fake := llmtest.NewClient(t, "fake")
	fake.Always("hi", llmtest.Role(config.RoleAgent), llmtest.Reply{Content: "hello"})
	if _, err := up.Version(context.Background()); err != nil || up.Down() {
		t.Fatalf("check of a live server: %v, down %v", err, up.Down())
	}
	if r, err := up.Chat(context.Background(), ask(config.RoleAgent, "hi")); err != nil || r.Content != "hello" {
		t.Fatalf("chat with a live server: %q, %v", r.Content, err)
	}
}
