package supervisor

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// The supervisor sees every turn whole: nothing of the agent's reasoning
// or the game's answer is clipped, and with a long interval a round is held
// early rather than have the model's context cut the prompt.
func TestSupervisorInputIsNeverTrimmed(t *testing.T) {
	fake := llmtest.New(t)
	fake.AddModel("small", 4096)
	roles := config.DefaultRoles()
	for k, r := range roles {
		r.Model, r.Timeout = "small", 10*time.Second
		roles[k] = r
	}
	var mu sync.Mutex
	var trimmed []int
	client, err := llm.New(llm.Options{Host: fake.Host(), Roles: roles, OnCall: func(m llm.CallMetrics) {
		mu.Lock()
		defer mu.Unlock()
		trimmed = append(trimmed, m.TrimmedTokens)
	}})
	if err != nil {
		t.Fatal(err)
	}
	fake.Always("feedback", llmtest.PromptContains("Now give the agent your feedback"), feedback("Keep going."))
	fake.Always("summary", llmtest.PromptContains("Rounds leaving your short-term memory"), summary("Earlier rounds went fine."))
	fake.Always("evaluation", llmtest.Role(config.RoleSupervisor), eval(1, 1, 1))
	// A session's agent calls the model before any supervisor round: the
	// client has its token counts by then.
	fake.Always("agent", llmtest.Role(config.RoleAgent), llmtest.Reply{Content: "ok", PromptTokens: 40})
	if _, err := client.Chat(context.Background(), llm.Request{Role: config.RoleAgent, Messages: []llm.Message{llm.User(strings.Repeat("Some words of a prompt. ", 40))}}); err != nil {
		t.Fatal(err)
	}
	s := New(Deps{Client: client}, Config{Every: 40})
	reasoning := strings.Repeat("I think the lamp matters because the cellar is dark. ", 20) + "THE END OF MY REASONING."
	rounds := 0
	for i := 1; i <= 40; i++ {
		_, ran, err := s.ProcessTurn(context.Background(), turn(i, fmt.Sprintf("look %d", i), reasoning))
		if err != nil {
			t.Fatal(err)
		}
		if ran {
			rounds++
		}
	}
	if rounds < 2 {
		t.Errorf("%d rounds over 40 long turns with a 4096-token context; a round of 40 such turns cannot fit", rounds)
	}
	for i, n := range trimmed {
		if n > 0 {
			t.Errorf("call %d: the supervisor's prompt was trimmed by about %d tokens", i, n)
		}
	}
	whole := false
	for _, r := range fake.ChatRequests() {
		whole = whole || strings.Contains(r.Prompt(), "THE END OF MY REASONING.")
	}
	if !whole {
		t.Error("no evaluation shows the agent's reasoning whole")
	}
}
