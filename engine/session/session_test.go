package session

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/managers/contextmgr"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/memory"
)

func fakeClient(t testing.TB) (*llm.Client, *llmtest.Server) {
	t.Helper()
	return llmtest.NewClient(t, "fake")
}

// TestScriptedZorkThroughEveryManager replays the walkthrough through the
// whole loop with a (scripted) critic model: 350 points, every turn in the
// database, every move on the map.
func TestScriptedZorkThroughEveryManager(t *testing.T) {
	story, _ := zork(t)
	cmds := walkthrough(t)
	client, fake := fakeClient(t)
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 4, "justification": "fine"}`})
	fake.Always("memory", llmtest.Role(config.RoleMemory), llmtest.Reply{Content: `{"should_remember": true, "category": "DISCOVERY",
		"memory_title": "The walkthrough passed here", "memory_text": "Something happened on this step.", "status": "ACTIVE",
		"supersedes_memory_titles": [], "reasoning": "scripted"}`})
	agent, _ := engine.NewScriptAgent(strings.NewReader(strings.Join(cmds, "\n")))
	sess, err := Open(Options{Story: story, Name: "zork1.z3", Binding: zorkBinding(t), WorkDir: t.TempDir(),
		Client: client, Agent: agent, Autosave: true, Engine: engine.Config{Seed: 12, CriticThreshold: -0.2}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	go sess.Engine.Run(context.Background())
	type move struct {
		from   int
		action string
		to     int
	}
	var moves []move
	var last engine.TurnResult
	prev := 0
	for ev := range sess.Engine.Events() {
		switch v := ev.(type) {
		case engine.EpisodeStarted:
			prev = v.Observation.Location.ID
		case engine.TurnResult:
			if v.Turn > 0 && v.Observation.Location.ID != prev && !v.Observation.Meta {
				moves = append(moves, move{prev, v.Action, v.Observation.Location.ID})
			}
			prev = v.Observation.Location.ID
			last = v
		case engine.ErrorEvent:
			t.Errorf("error: %v", v.Err)
		}
	}
	if last.Observation.Score != 350 {
		t.Fatalf("final score %d, want 350", last.Observation.Score)
	}
	turns, err := sess.DB.Turns(context.Background(), 1)
	if err != nil || len(turns) != len(cmds) {
		t.Fatalf("database holds %d turns, want %d (%v)", len(turns), len(cmds), err)
	}
	for _, mv := range moves {
		if got := sess.Map.Exits(mv.from)[mapper.NormalizeAction(mv.action)]; got != mv.to {
			t.Errorf("map: %q from L%d leads to L%d, want L%d", mv.action, mv.from, got, mv.to)
		}
		if !sess.Map.Known(mv.to) {
			t.Errorf("map lacks room L%d", mv.to)
		}
	}
	if n := len(fake.ChatRequests()); n < len(cmds)/2 {
		t.Errorf("the models were asked %d times; every manager should run", n)
	}
	var out strings.Builder
	if code := memory.Check(&out, sess.Memories.Path()); code != 0 {
		t.Errorf("Memories.md does not check: %s", out.String())
	}
	if st := sess.Memories.Stats(); st.Memories < 50 {
		t.Errorf("memory stats %+v: the synthesizer should have stored a memory in most rooms", st)
	}
}

// cycleAgent proposes its actions in turn, at once.
type cycleAgent struct {
	actions []string
	n       int
}

func (c *cycleAgent) Propose(_ context.Context, _ []llm.Message, _ []string, _ int, _ func(llm.Delta)) (engine.Proposal, error) {
	a := c.actions[c.n%len(c.actions)]
	c.n++
	return engine.Proposal{Action: a, Reasoning: "benchmark", Remember: "The mailbox opens and closes", RememberImportance: 10}, nil
}

func (*cycleAgent) Scripted() bool { return false }

// BenchmarkTurnOverhead is one turn with a zero-latency model: every
// manager on, files and database written.
func BenchmarkTurnOverhead(b *testing.B) {
	story, _ := zork(b)
	sess, err := Open(Options{Story: story, Name: "zork1.z3", Binding: zorkBinding(b), WorkDir: b.TempDir(),
		Agent: &cycleAgent{actions: []string{"open mailbox", "close mailbox"}}, Autosave: true,
		Engine: engine.Config{Seed: 12, CriticThreshold: -0.2, StartPaused: true}})
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go sess.Engine.Run(ctx)
	waitIdle := func() {
		for ev := range sess.Engine.Events() {
			if _, ok := ev.(engine.Idle); ok {
				return
			}
		}
	}
	waitIdle()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sess.Engine.Send(ctx, engine.Step{})
		waitIdle()
	}
}

// TestPromptSizeAtTurn200 measures the agent's prompt after 200 turns of
// the Zork I walkthrough with 100 memories kept (goal: at most 1,500
// tokens; ZorkGPT sent 15-20K).
func TestPromptSizeAtTurn200(t *testing.T) {
	story, _ := zork(t)
	cmds := walkthrough(t)[:200]
	agent, _ := engine.NewScriptAgent(strings.NewReader(strings.Join(cmds, "\n")))
	sess, err := Open(Options{Story: story, Name: "zork1.z3", Binding: zorkBinding(t), WorkDir: t.TempDir(),
		Agent: agent, Engine: engine.Config{Seed: 12, CriticThreshold: -0.2}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	go sess.Engine.Run(context.Background())
	var last engine.TurnResult
	for ev := range sess.Engine.Events() {
		if r, ok := ev.(engine.TurnResult); ok {
			last = r
		}
	}
	// 100 memories over the rooms visited, ten of them where the agent is.
	here := last.Observation.Location
	rooms := sess.Map.Rooms()
	for i := 0; i < 100; i++ {
		loc, name := rooms[i%len(rooms)], sess.Map.Name(rooms[i%len(rooms)])
		if i < 10 {
			loc, name = here.ID, here.Name
		}
		m := memory.Memory{Category: []memory.Category{memory.CategorySuccess, memory.CategoryFailure, memory.CategoryDiscovery}[i%3],
			Status: memory.StatusActive, Title: fmt.Sprintf("Lesson %d about %s", i, name), Episode: 1, Turn: i + 1,
			Text: fmt.Sprintf("Memory %d: what happened here when the agent tried something, and what it learned from it.", i)}
		if err := sess.Memories.Add(loc, name, m); err != nil {
			t.Fatal(err)
		}
	}
	prompt := sess.Engine.Prompt(context.Background(), 201)
	tokens := 0
	for _, m := range prompt {
		tokens += contextmgr.EstimateTokens(m.Content)
	}
	t.Logf("agent prompt at turn 200 with 100 memories: about %d tokens\n%s\n%s", tokens, prompt[0].Content, prompt[1].Content)
	if tokens > 1500 {
		t.Errorf("prompt of about %d tokens, goal at most 1,500", tokens)
	}
}
