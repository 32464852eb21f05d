package session

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// TestPlanningSupervisorThroughTheSession: the supervisor's feedback is in
// the agent's next prompt; a claim the ground truth contradicts lowers its
// trust; a malformed evaluation is retried three times, then reported, and
// the engine goes on without feedback; every round is kept in lantern.db.
func TestPlanningSupervisorThroughTheSession(t *testing.T) {
	story, binding := demoStory(t)
	client, fake := fakeClient(t)
	bad := llmtest.Reply{Content: `{"assessment": "meh"}`}
	fake.On("feedback", llmtest.PromptContains("Now give the agent your feedback"),
		llmtest.Reply{Content: `{"feedback_reasoning": "it claims a lantern", "feedback": "COACH-ONE: you hold nothing; check your inventory."}`},
		llmtest.Reply{Content: `{"feedback_reasoning": "ok", "feedback": "COACH-THREE: keep exploring."}`})
	fake.On("evaluation", llmtest.Role(config.RoleSupervisor),
		llmtest.Reply{Content: `{"assessment": "a false claim", "trust_level": 9, "work_satisfaction": 1, "relational_comfort": 0}`},
		bad, bad, bad,
		llmtest.Reply{Content: `{"assessment": "fine", "trust_level": 2, "work_satisfaction": 3, "relational_comfort": 1}`})
	fake.Always("memory", llmtest.Role(config.RoleMemory), memReply(false, "NOTE", "", "", "ACTIVE"))
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 5, "justification": "fine"}`})
	agent := recording("look", "n", "s", "look")
	agent.plays[0].Reasoning = "I am carrying the brass lantern, so darkness is no danger."
	sess, err := Open(Options{Story: story, Name: "demo.z3", Binding: binding, WorkDir: t.TempDir(), Client: client, Agent: agent,
		Engine: engine.Config{MaxTurns: 3, Seed: 1, CriticThreshold: -0.2}, Planning: Planning{Supervisor: true},
		Inline: true}) // each turn's prompt must hold the round before it
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	evs := runAll(t, sess)

	if len(agent.prompts) != 3 {
		t.Fatalf("%d turns", len(agent.prompts))
	}
	if c := section(agent.prompts[0], "Coach"); c != "" {
		t.Errorf("turn 1 has feedback %q before any round", c)
	}
	if c := section(agent.prompts[1], "Coach"); c != "COACH-ONE: you hold nothing; check your inventory." {
		t.Errorf("turn 2 coach %q, want round 1's feedback", c)
	}
	if c := section(agent.prompts[2], "Coach"); c != "" {
		t.Errorf("turn 3 coach %q: a failed round leaves no feedback", c)
	}

	var rounds []engine.SupervisorChanged
	var errs []engine.ErrorEvent
	for _, ev := range evs {
		switch v := ev.(type) {
		case engine.SupervisorChanged:
			rounds = append(rounds, v)
		case engine.ErrorEvent:
			errs = append(errs, v)
		}
	}
	if len(rounds) != 3 {
		t.Fatalf("%d SupervisorChanged events, want 3: %+v", len(rounds), rounds)
	}
	if r := rounds[0]; r.Trust != -0.25 || r.PrevTrust != 0 || r.Work != 0.1 || len(r.Contradicted) != 1 ||
		!strings.Contains(r.Contradicted[0], "brass lantern") || r.Feedback == "" || r.Mood != "watchful" {
		t.Errorf("round 1 %+v: the false claim costs trust whatever the model said", r)
	}
	if r := rounds[1]; r.Trust != -0.25 || r.Feedback != "" {
		t.Errorf("round 2 (failed) %+v: the gauges stay, no feedback", r)
	}
	if r := rounds[2]; r.Trust != 0.2 || r.PrevTrust != -0.25 || r.Feedback != "COACH-THREE: keep exploring." {
		t.Errorf("round 3 %+v", r)
	}
	if len(errs) != 1 || errs[0].Turn != 2 || !errors.Is(errs[0].Err, llm.ErrInvalidReply) || errs[0].Fatal {
		t.Fatalf("errors %+v: want the malformed round reported once, not fatal", errs)
	}
	evals := 0
	for _, r := range fake.ChatRequests() {
		if r.Role == config.RoleSupervisor && strings.Contains(r.Prompt(), "Round 2.") && !strings.Contains(r.Prompt(), "Now give the agent") {
			evals++
		}
	}
	if evals != 3 {
		t.Errorf("round 2's evaluation was tried %d times, want 3", evals)
	}

	stored, err := sess.rounds.Rounds(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 3 || stored[0].Turns[0].Reasoning != agent.plays[0].Reasoning || stored[1].Error == "" ||
		!strings.Contains(stored[0].EvaluationReply, `"trust_level": 9`) || stored[2].Feedback != "COACH-THREE: keep exploring." {
		t.Errorf("rounds in lantern.db: %+v", stored)
	}
}
