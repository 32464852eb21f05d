package oracle

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/contextmgr"
)

// TestThinksAsOllamaDoes: the agent's reasoning goes in the thinking
// stream when the request turns thinking on, or says nothing and the model
// can think (Ollama thinks by default then, on /api/chat and /v1 alike);
// not when it turns thinking off or the model cannot.
func TestThinksAsOllamaDoes(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name       string
		noThinking bool
		think      *bool
		want       bool
	}{
		{"unsaid, the model can", false, nil, true},
		{"unsaid, the model cannot", true, nil, false},
		{"on", false, &yes, true},
		{"off", false, &no, false},
	}
	format, err := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"action": map[string]any{"type": "string"}},
		"required": []string{"action"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := New(Options{Script: []string{"north"}, NoThinking: tc.noThinking})
			req := &api.ChatRequest{Model: ModelName, Format: format}
			for _, m := range contextmgr.Build(contextmgr.Input{Turn: 1, Thinking: true}) {
				req.Messages = append(req.Messages, api.Message{Role: m.Role, Content: m.Content})
			}
			if tc.think != nil {
				req.Think = &api.ThinkValue{Value: *tc.think}
			}
			ans, err := o.respond("c", config.RoleAgent, req)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(ans.Thinking, "Step 1 of 1"); got != tc.want {
				t.Errorf("thinking %q, want reasoning there: %v", ans.Thinking, tc.want)
			}
		})
	}
}

// TestThinkingOnTheOpenAIProtocol: a client on the oracle's /v1 whose
// agent thinks (think auto, a model that can) gets the reasoning in its
// thinking stream, as on Ollama's API.
func TestThinkingOnTheOpenAIProtocol(t *testing.T) {
	srv := httptest.NewServer(New(Options{Script: []string{"open mailbox"}}))
	t.Cleanup(srv.Close)
	roles := config.DefaultRoles()
	for k, r := range roles {
		r.Model, r.Timeout, r.Think = ModelName, 10*time.Second, config.ThinkAuto
		roles[k] = r
	}
	c, err := llm.New(llm.Options{Server: config.Server{API: config.APIOpenAI, BaseURL: srv.URL + "/v1"}, Roles: roles,
		Retry: llm.RetryPolicy{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if !c.Thinks(ctx, config.RoleAgent) {
		t.Fatal("the agent does not think on the oracle's /v1")
	}
	var thought strings.Builder
	msgs := contextmgr.Build(contextmgr.Input{Turn: 1, Thinking: true})
	p, reply, err := llm.Structured[thinkingProposal](ctx, c, llm.Request{Role: config.RoleAgent, Messages: msgs,
		OnDelta: func(d llm.Delta) { thought.WriteString(d.Thinking) }})
	if err != nil {
		t.Fatal(err)
	}
	if p.Action != "open mailbox" || !strings.Contains(reply.Thinking, "Step 1 of 1") || thought.String() != reply.Thinking {
		t.Errorf("action %q, thinking %q, streamed thinking %q", p.Action, reply.Thinking, thought.String())
	}
}
