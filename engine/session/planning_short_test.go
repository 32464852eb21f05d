package session

import (
	"context"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// A short episode at the lean cadence (objectives and a supervisor round
// every 40 turns) is planned and coached all the same: objectives from its
// first turn (in turn 2's prompt), and one supervisor round at its end over
// its 30 turns.
func TestShortEpisodeIsPlannedAndCoached(t *testing.T) {
	story, binding := demoStory(t)
	client, fake := fakeClient(t)
	fake.On("discovery", llmtest.PromptContains("discover objectives"), llmtest.Reply{Content: `{"objectives": [
		"Find the SHORT-MARKER key"], "reasoning": "scripted"}`})
	fake.Always("later discoveries", llmtest.PromptContains("discover objectives"), llmtest.Reply{Content: `{"objectives": [], "reasoning": "enough"}`})
	fake.Always("completion", llmtest.PromptContains("Which of the current objectives"), llmtest.Reply{Content: `{"completed": [], "reasoning": "none"}`})
	fake.Always("feedback", llmtest.PromptContains("Now give the agent your feedback"), llmtest.Reply{Content: `{"feedback_reasoning": "ok", "feedback": "Keep going."}`})
	fake.Always("evaluation", llmtest.Role(config.RoleSupervisor), llmtest.Reply{Content: `{"assessment": "fine", "trust_level": 2, "work_satisfaction": 3, "relational_comfort": 1}`})
	fake.Always("memory", llmtest.Role(config.RoleMemory), memReply(false, "NOTE", "", "", "ACTIVE"))
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 5, "justification": "fine"}`})
	var actions []string
	for i := 0; i < 30; i++ {
		actions = append(actions, []string{"look", "inventory", "wait"}[i%3])
	}
	agent := recording(actions...)
	sess, err := Open(Options{Story: story, Name: "demo.z3", Binding: binding, WorkDir: t.TempDir(), Client: client, Agent: agent,
		Engine:   engine.Config{MaxTurns: 30, Seed: 1, CriticThreshold: -0.2},
		Planning: Planning{Objectives: true, ObjectiveInterval: 40, RefineInterval: 50, Supervisor: true, SupervisorEvery: 40},
		Inline:   true}) // turn 2's prompt must hold turn 1's discovery
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if errs := errorsIn(runAll(t, sess)); len(errs) > 0 {
		t.Fatalf("errors: %q", errs)
	}
	if len(agent.prompts) != 30 {
		t.Fatalf("%d turns, want 30", len(agent.prompts))
	}
	if got := section(agent.prompts[1], "Objectives"); !strings.Contains(got, "Find the SHORT-MARKER key") {
		t.Errorf("turn 2's objectives %q, want the discovery of turn 1", got)
	}
	rounds, err := sess.rounds.Rounds(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 1 || rounds[0].FirstTurn != 1 || rounds[0].LastTurn != 30 {
		t.Errorf("%d supervisor rounds %+v, want one over turns 1-30 at the episode's end", len(rounds), rounds)
	}
}
