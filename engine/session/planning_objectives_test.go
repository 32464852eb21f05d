package session

import (
	"context"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm/llmtest"
)

const agentLook = `{"reasoning": "Look around first.", "action": "look", "remember": "", "remember_importance": 0}`

// TestPlanningObjectivesReachTheAgentPrompt: the objectives role's scripted
// reply at the discovery turn is in the agent's chat request on the next
// turn (the LLM agent, through the whole session).
func TestPlanningObjectivesReachTheAgentPrompt(t *testing.T) {
	story, binding := demoStory(t)
	client, fake := fakeClient(t)
	fake.On("discovery", llmtest.PromptContains("discover objectives"), llmtest.Reply{Content: `{"objectives": [
		"Reach Location 5 and read the OBJECTIVE-MARKER sign"], "reasoning": "scripted"}`})
	fake.Always("later discoveries", llmtest.PromptContains("discover objectives"), llmtest.Reply{Content: `{"objectives": [], "reasoning": "enough"}`})
	fake.Always("completion", llmtest.PromptContains("Which of the current objectives"), llmtest.Reply{Content: `{"completed": [], "reasoning": "none"}`})
	fake.Always("agent", llmtest.Role(config.RoleAgent), llmtest.Reply{Content: agentLook})
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 5, "justification": "fine"}`})
	fake.Always("memory", llmtest.Role(config.RoleMemory), memReply(false, "NOTE", "", "", "ACTIVE"))
	sess, err := Open(Options{Story: story, Name: "demo.z3", Binding: binding, WorkDir: t.TempDir(), Client: client,
		Engine: engine.Config{MaxTurns: 4, Seed: 1, CriticThreshold: -0.2}, Planning: Planning{Objectives: true, ObjectiveInterval: 2},
		Inline: true}) // turn 3's prompt must hold turn 2's discovery
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	evs := runAll(t, sess)
	if errs := errorsIn(evs); len(errs) > 0 {
		t.Fatalf("errors: %q", errs)
	}
	var prompts []string
	for _, r := range fake.ChatRequests() {
		if r.Role == config.RoleAgent && len(r.Chat.Messages) == 2 { // a turn's first proposal
			prompts = append(prompts, r.Chat.Messages[len(r.Chat.Messages)-1].Content)
		}
	}
	if len(prompts) != 4 {
		t.Fatalf("%d agent calls, want 4", len(prompts))
	}
	for i, p := range prompts {
		has := strings.Contains(section(p, "Objectives"), "Reach Location 5 and read the OBJECTIVE-MARKER sign")
		if want := i >= 1; has != want {
			t.Errorf("turn %d: objective in the agent's prompt = %v, want %v (discovery at turn 1, the episode having none):\n%s", i+1, has, want, p)
		}
	}
	changed := 0
	for _, ev := range evs {
		if oc, ok := ev.(engine.ObjectivesChanged); ok {
			changed++
			if len(oc.Active) != 1 || !strings.Contains(oc.Active[0], "OBJECTIVE-MARKER") {
				t.Errorf("ObjectivesChanged %+v", oc)
			}
		}
	}
	if changed != 1 {
		t.Errorf("%d ObjectivesChanged events, want 1", changed)
	}
	if active, _ := sess.Objectives.Objectives(); len(active) != 1 {
		t.Errorf("the TUI's source lists %q", active)
	}
}

// TestPlanningPersonObjectiveEdits: a person's objective (a TUI command) is
// in the agent's next prompt; completing it takes it out.
func TestPlanningPersonObjectiveEdits(t *testing.T) {
	story, binding := demoStory(t)
	agent := recording("look", "look")
	sess, err := Open(Options{Story: story, Name: "demo.z3", Binding: binding, WorkDir: t.TempDir(), Agent: agent,
		Engine: engine.Config{Seed: 1, StartPaused: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ctx := context.Background()
	go sess.Engine.Run(ctx)
	var evs []engine.Event
	next := func(stop func(engine.Event) bool) {
		for ev := range sess.Engine.Events() {
			evs = append(evs, ev)
			if stop(ev) {
				return
			}
		}
	}
	played := func(turn int) func(engine.Event) bool {
		return func(ev engine.Event) bool { r, ok := ev.(engine.TurnResult); return ok && r.Turn == turn }
	}
	next(func(ev engine.Event) bool { _, ok := ev.(engine.Idle); return ok })
	sess.Engine.Send(ctx, engine.ObjectiveEdit{Op: "add", Text: "Find the PERSON-MARKER key"})
	sess.Engine.Send(ctx, engine.Step{})
	next(played(1))
	sess.Engine.Send(ctx, engine.ObjectiveEdit{Op: "complete", Text: "Find the PERSON-MARKER key"})
	sess.Engine.Send(ctx, engine.ObjectiveEdit{Op: "drop", Text: "no such objective"})
	sess.Engine.Send(ctx, engine.Step{})
	next(played(2))
	sess.Engine.Send(ctx, engine.Quit{})
	next(func(engine.Event) bool { return false })
	if len(agent.prompts) != 2 {
		t.Fatalf("%d turns", len(agent.prompts))
	}
	if got := section(agent.prompts[0], "Objectives"); got != "- (from the person) Find the PERSON-MARKER key" {
		t.Errorf("turn 1 objectives %q", got)
	}
	if got := section(agent.prompts[1], "Objectives"); got != "" {
		t.Errorf("turn 2 objectives %q: the completed objective is gone", got)
	}
	var changes []engine.ObjectivesChanged
	var errs []string
	for _, ev := range evs {
		switch v := ev.(type) {
		case engine.ObjectivesChanged:
			changes = append(changes, v)
		case engine.ErrorEvent:
			errs = append(errs, v.Err.Error())
		}
	}
	if len(changes) != 2 || len(changes[0].Active) != 1 || len(changes[0].Completed) != 0 ||
		len(changes[1].Active) != 0 || len(changes[1].Completed) != 1 || changes[1].Completed[0] != changes[0].Active[0] {
		t.Errorf("objective events %+v", changes)
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "no such active objective") {
		t.Errorf("errors %q: dropping an unknown objective is reported", errs)
	}
}

// TestStuckForcesObjectiveRefresh: five actions in a row that change
// nothing make the agent stuck; the objectives are rediscovered on that
// turn (long before the interval), once beside the first turn's, and the agent's next prompt says
// it is stuck and carries the new objective.
func TestStuckForcesObjectiveRefresh(t *testing.T) {
	story, binding := demoStory(t)
	client, fake := fakeClient(t)
	fake.On("discovery", llmtest.PromptContains("discover objectives"),
		llmtest.Reply{Content: `{"objectives": [], "reasoning": "nothing yet"}`}, // turn 1: the episode has none
		llmtest.Reply{Content: `{"objectives": ["Leave Location 3 by a new exit"], "reasoning": "stuck looking"}`})
	fake.Always("completion", llmtest.PromptContains("Which of the current objectives"), llmtest.Reply{Content: `{"completed": [], "reasoning": "none"}`})
	fake.Always("agent", llmtest.Role(config.RoleAgent), llmtest.Reply{Content: agentLook})
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 5, "justification": "fine"}`})
	fake.Always("memory", llmtest.Role(config.RoleMemory), memReply(false, "NOTE", "", "", "ACTIVE"))
	sess, err := Open(Options{Story: story, Name: "demo.z3", Binding: binding, WorkDir: t.TempDir(), Client: client,
		Engine: engine.Config{MaxTurns: 8, Seed: 1, CriticThreshold: -0.2}, Planning: Planning{Objectives: true, ObjectiveInterval: 100},
		Inline: true}) // turn 6's prompt must hold what turn 5's refresh found
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if errs := errorsIn(runAll(t, sess)); len(errs) > 0 {
		t.Fatalf("errors: %q", errs)
	}
	discoveries, turn := 0, 0
	var sixth string
	for _, r := range fake.ChatRequests() {
		switch {
		case strings.Contains(r.Prompt(), "discover objectives"):
			discoveries++
			if turn != 1 && turn != 5 {
				t.Errorf("discovery during turn %d's processing, want 1 (the episode's first, with none) and 5 (stuck)", turn)
			}
		case r.Role == config.RoleAgent && len(r.Chat.Messages) == 2:
			turn++
			if turn == 6 {
				sixth = r.Chat.Messages[1].Content
			}
		}
	}
	if discoveries != 2 {
		t.Fatalf("%d discoveries, want 2 (the first turn's and the stuck turn's)", discoveries)
	}
	if !strings.Contains(sixth, "Leave Location 3 by a new exit") || !strings.Contains(sixth, "changed nothing") {
		t.Errorf("turn 6's prompt lacks the new objective or the warning:\n%s", sixth)
	}
}
