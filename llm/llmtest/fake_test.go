package llmtest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errs     []string
	cleanups []func()
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) finish() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func chat(t *testing.T, host, prompt string) error {
	u, _ := url.Parse("http://" + host)
	c := api.NewClient(u, http.DefaultClient)
	return c.Chat(context.Background(), &api.ChatRequest{Model: "m", Messages: []api.Message{{Role: "user", Content: prompt}}}, func(api.ChatResponse) error { return nil })
}

func TestUnexpectedAndMissingCallsFail(t *testing.T) {
	rec := &recorder{TB: t}
	s := New(rec)
	s.On("the greeting", PromptContains("hello"), Reply{Content: "hi"})
	s.On("the farewell", PromptContains("bye"), Reply{Content: "bye"})
	if err := chat(t, s.Host(), "hello there"); err != nil {
		t.Fatal(err)
	}
	if err := chat(t, s.Host(), "what?"); err == nil {
		t.Error("an unexpected call should get an error response")
	}
	rec.finish()
	joined := strings.Join(rec.errs, "\n")
	if !strings.Contains(joined, "unexpected chat call") || !strings.Contains(joined, "never came for the farewell") {
		t.Errorf("failures recorded: %q", joined)
	}
	if len(s.ChatRequests()) != 2 {
		t.Errorf("recorded %d chat requests, want 2", len(s.ChatRequests()))
	}
}
