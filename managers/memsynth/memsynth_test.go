package memsynth

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/memory"
)

// The memory request continues the agent's prompt when both roles run on
// one model (Ollama's cache then keeps the agent's prompt for the next
// turn), and stands alone on another model or for a person's turn.
func TestMemoryRequestContinuesTheAgentPrompt(t *testing.T) {
	agentPrompt := []llm.Message{llm.System("You play a text adventure."), llm.User("## Game state\nTurn 7. Location: L3 Kitchen.")}
	turn := domain.Turn{Turn: 7, Actor: "agent", Action: "take lamp", FromID: 3, FromName: "Kitchen", ToID: 3, ToName: "Kitchen",
		ScoreBefore: 0, ScoreAfter: 5, Response: "Taken."}
	reply := llmtest.Reply{Content: `{"should_remember": false, "category": "NOTE", "memory_title": "", "memory_text": "", "status": "ACTIVE", "supersedes_memory_titles": [], "reasoning": "nothing new"}`}
	for _, tc := range []struct {
		name        string
		prompt      []llm.Message
		memoryModel string
		continues   bool
	}{
		{"same model", agentPrompt, "fake", true},
		{"another model", agentPrompt, "other", false},
		{"a person's turn", nil, "fake", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, fake := llmtest.NewClient(t, "fake")
			fake.AddModel("other", 8192)
			if err := client.SetModel(config.RoleMemory, tc.memoryModel); err != nil {
				t.Fatal(err)
			}
			fake.On("memory", llmtest.Role(config.RoleMemory), reply)
			store, err := memory.Open(filepath.Join(t.TempDir(), "Memories.md"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := New(client, store, 5).ProcessTurnAfter(context.Background(), turn, tc.prompt); err != nil {
				t.Fatal(err)
			}
			reqs := fake.ChatRequests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			msgs := reqs[0].Chat.Messages
			last := msgs[len(msgs)-1]
			if !strings.Contains(last.Content, "Location where the action was taken: L3 Kitchen") {
				t.Errorf("the last message lacks the turn: %q", last.Content)
			}
			continued := len(msgs) == 3 && msgs[0].Content == agentPrompt[0].Content && msgs[1].Content == agentPrompt[1].Content &&
				last.Role == "user" && strings.HasPrefix(last.Content, systemPrompt)
			alone := len(msgs) == 2 && msgs[0].Role == "system" && msgs[0].Content == systemPrompt
			if tc.continues && !continued {
				t.Errorf("the request does not continue the agent's prompt: %+v", msgs)
			}
			if !tc.continues && !alone {
				t.Errorf("the request is not the memory prompt alone: %+v", msgs)
			}
		})
	}
}
