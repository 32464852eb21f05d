package session

import (
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// TestExtractor: the ground truth comes from the machine every turn; the
// extractor role is asked only when the extractor is on and the turn did
// something; its exits (normalised, unknown words dropped, unexplored ones
// marked) and combat state reach the agent's next prompt.
func TestExtractor(t *testing.T) {
	for _, tc := range []struct {
		name       string
		on         bool
		actions    []string
		calls      int
		wantInNext []string // in the prompt after the first action
	}{
		{"off", false, []string{"north", "look"}, 0, nil},
		{"on", true, []string{"north", "look"}, 1, []string{"Exits the text mentions: south (unexplored), up (unexplored), east (unexplored).", "You are in a fight."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			story, binding := demoStory(t)
			client, fake := fakeClient(t)
			if tc.calls > 0 {
				fake.On("extractor", llmtest.Role(config.RoleExtractor),
					llmtest.Reply{Content: `{"exits": ["S", "up", "go east", "xyzzy", "south"], "in_combat": true}`})
			}
			fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 5, "justification": "fine"}`})
			fake.Always("memory", llmtest.Role(config.RoleMemory), memReply(false, "NOTE", "", "", "ACTIVE"))
			agent := recording(tc.actions...)
			sess, err := Open(Options{Story: story, Name: "demo.z3", Binding: binding, WorkDir: t.TempDir(), Client: client, Agent: agent,
				Engine: engine.Config{Seed: 1, CriticThreshold: -0.2, Extractor: tc.on}})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			evs := runAll(t, sess)
			if errs := errorsIn(evs); len(errs) > 1 || len(errs) == 1 && !strings.Contains(errs[0], "script") {
				t.Fatalf("errors: %q", errs)
			}
			calls := 0
			for _, r := range fake.ChatRequests() {
				if r.Role == config.RoleExtractor {
					calls++
					if !strings.Contains(r.Prompt(), "Orchard") {
						t.Errorf("the extractor did not get the turn's text: %s", r.Prompt())
					}
				}
			}
			if calls != tc.calls {
				t.Fatalf("%d extractor calls, want %d (the look changes nothing and is not read)", calls, tc.calls)
			}
			second := agent.prompts[1]
			for _, w := range tc.wantInNext {
				if !strings.Contains(second, w) {
					t.Errorf("turn 2's prompt lacks %q:\n%s", w, second)
				}
			}
			if !tc.on && strings.Contains(second, "Exits the text mentions") {
				t.Errorf("exits without the extractor:\n%s", second)
			}
		})
	}
}
