package engine

import (
	"context"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// TestThinkingAgentWithoutThinkingSaysSo: a model that thinks is asked for
// no reasoning in its reply (its thinking is the reasoning); when the
// server sends no thinking, the turn's reasoning says so instead of being
// blank, and a thought that came is kept as the reasoning.
func TestThinkingAgentWithoutThinkingSaysSo(t *testing.T) {
	for _, tc := range []struct {
		name, thinking, want string
	}{
		{"no thinking sent", "", NoThinking},
		{"thinking sent", "The mailbox is worth a look.", "The mailbox is worth a look."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := llmtest.New(t)
			s.AddModel("thinker", 8192, "completion", "thinking")
			roles := config.DefaultRoles()
			for k, r := range roles {
				r.Model = "thinker"
				roles[k] = r
			}
			c, err := llm.New(llm.Options{Host: s.Host(), Roles: roles})
			if err != nil {
				t.Fatal(err)
			}
			s.On("agent", llmtest.Role(config.RoleAgent), llmtest.Reply{Content: `{"action": "open mailbox", "remember": "", "remember_importance": 0}`, Thinking: tc.thinking})
			p, err := LLMAgent{Client: c}.Propose(context.Background(), []llm.Message{llm.User("West of House")}, nil, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.Action != "open mailbox" || p.Reasoning != tc.want {
				t.Errorf("proposal %q with reasoning %q, want %q", p.Action, p.Reasoning, tc.want)
			}
		})
	}
}
