package llm_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// BenchmarkCallOverhead compares a call through our layer with a bare
// api.Client call to the same fake reply; the difference is our overhead.
func BenchmarkCallOverhead(b *testing.B) {
	s := llmtest.New(b)
	s.AddModel(testModel, 8192)
	s.Always("bench", llmtest.AnyCall(), llmtest.Reply{Content: `{"reasoning":"the door is open","action":"north","mood":"calm"}`})
	rs := config.DefaultRoles()
	r := rs[config.RoleAgent]
	r.Model, r.Timeout, r.Think = testModel, time.Minute, config.ThinkOff
	rs[config.RoleAgent] = r
	c, err := llm.New(llm.Options{Host: s.Host(), Roles: rs})
	if err != nil {
		b.Fatal(err)
	}
	u, _ := url.Parse("http://" + s.Host())
	bare := api.NewClient(u, &http.Client{})
	stream := true
	ctx := context.Background()
	msgs := []llm.Message{llm.User("where now?")}
	b.Run("bare", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			bare.Chat(ctx, &api.ChatRequest{Model: testModel, Stream: &stream, Messages: []api.Message{{Role: "user", Content: "where now?"}}}, func(api.ChatResponse) error { return nil })
		}
	})
	b.Run("structured", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, _, err := llm.Structured[proposal](ctx, c, llm.Request{Role: config.RoleAgent, Messages: msgs}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
