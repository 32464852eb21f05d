package session

import (
	"context"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/managers/memsynth"
)

// askingSession opens a session on the demo whose memory questions go to
// its model agent; script sets the fake's replies (the critic always
// accepts).
func askingSession(t *testing.T, cfg engine.Config, script func(*llmtest.Server)) (*Session, *llmtest.Server) {
	t.Helper()
	story, binding := demoStory(t)
	client, fake := fakeClient(t)
	script(fake)
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 3, "justification": "ok"}`})
	cfg.Seed, cfg.CriticThreshold = 7, -0.2
	sess, err := Open(Options{Story: story, Name: demo.FileName, Binding: binding, WorkDir: t.TempDir(), Client: client,
		MemoryWithAgent: true, Engine: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess, fake
}

// playAll runs the engine to its end and returns the turns played, with
// each turn's source location (the room before it).
func playAll(t *testing.T, sess *Session) (played []string, from []int) {
	t.Helper()
	go sess.Engine.Run(context.Background())
	at := 0
	for ev := range sess.Engine.Events() {
		switch v := ev.(type) {
		case engine.EpisodeStarted:
			at = v.Observation.Location.ID
		case engine.TurnResult:
			played, from = append(played, v.Action), append(from, at)
			at = v.Observation.Location.ID
		case engine.ErrorEvent:
			t.Errorf("error: %v", v.Err)
		}
	}
	return played, from
}

// TestMemoryAnsweredInTheAgentsReply: with MemoryWithAgent, the memory
// question of a turn that triggers synthesis (turn 1, a first visit) goes
// into the agent's next request, whose reply answers it in a memory field:
// the memory is stored at the turn's source and its decision recorded with
// the note's own reasoning, with no memory call. The last turn's question (turn 2, also a first visit) has
// no agent reply after it (the episode ends at its turn cap), so the memory
// role answers it in a call of its own. Each memory is written once.
func TestMemoryAnsweredInTheAgentsReply(t *testing.T) {
	sess, fake := askingSession(t, engine.Config{MaxTurns: 2}, func(fake *llmtest.Server) {
		fake.On("turn 1's proposal", llmtest.Role(config.RoleAgent), proposalReply("n"))
		fake.On("turn 2's proposal, answering turn 1's question", llmtest.FormatHas("memory"),
			llmtest.Reply{Content: `{"memory": {"why": "north of the start is a place to come back to", "should_remember": true, "category": "DISCOVERY", "memory_title": "North leads on",
			"memory_text": "Going north from the start reaches the cottage.", "status": "ACTIVE", "supersedes_memory_titles": []},
			"reasoning": "look around the cottage", "action": "e", "remember": "", "remember_importance": 0}`})
		fake.On("turn 2's question, asked of the memory role", llmtest.Role(config.RoleMemory),
			memReply(true, "NOTE", "East of the cottage", "East of the cottage the path goes on.", "ACTIVE"))
	})
	_, from := playAll(t, sess)
	if len(from) != 2 {
		t.Fatalf("%d turns played, want 2", len(from))
	}

	var agentReqs, memReqs []llmtest.Request
	for _, r := range fake.ChatRequests() {
		switch r.Role {
		case config.RoleAgent:
			agentReqs = append(agentReqs, r)
		case config.RoleMemory:
			memReqs = append(memReqs, r)
		}
	}
	if len(agentReqs) != 2 || len(memReqs) != 1 {
		t.Fatalf("%d agent and %d memory calls, want 2 and 1", len(agentReqs), len(memReqs))
	}
	if p := agentReqs[0].Prompt(); strings.Contains(p, memsynth.QuestionHeader) {
		t.Errorf("turn 1's request asks a memory question with no turn before it:\n%s", p)
	}
	if p := agentReqs[1].Prompt(); !strings.Contains(p, memsynth.QuestionHeader) || !strings.Contains(p, "Turn 1, agent: n. What changed: first visit") {
		t.Errorf("turn 2's request lacks turn 1's question:\n%s", p)
	}
	if p := memReqs[0].Prompt(); !strings.Contains(p, "Turn 2, action (agent): e") {
		t.Errorf("the memory call is not about turn 2:\n%s", p)
	}

	for i, want := range []string{"North leads on", "East of the cottage"} {
		n := 0
		for _, m := range sess.Memories.List(from[i]) {
			if m.Title == want {
				n++
			}
		}
		if n != 1 {
			t.Errorf("turn %d's memory %q kept %d times at L%d, want once: %+v", i+1, want, n, from[i], sess.Memories.List(from[i]))
		}
	}
	ds, err := sess.DB.Decisions(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].Turn != 1 || ds[1].Turn != 2 || ds[0].Outcome != "stored" || ds[1].Outcome != "stored" {
		t.Fatalf("decisions %+v, want turns 1 and 2 stored", ds)
	}
	// The decision's reasoning is its own (the note's why), never the
	// agent's reasoning for its next command.
	if got := strings.Join(ds[0].Triggers, "; "); !strings.Contains(got, "answered in the agent's reply") || ds[0].Reasoning != "north of the start is a place to come back to" {
		t.Errorf("turn 1's decision: triggers %q, reasoning %q; want the agent's reply and the memory's own why", got, ds[0].Reasoning)
	}
	if got := strings.Join(ds[1].Triggers, "; "); strings.Contains(got, "agent") {
		t.Errorf("turn 2's decision %q says the agent answered it", got)
	}
}

// TestMemoryQuestionLeftUnansweredGoesToTheMemoryRole: an agent reply that
// proposes but leaves out the memory field, or writes it wrong, still plays
// its command, and the turn's question goes to the memory role instead:
// the memory is written once, no turn is lost.
func TestMemoryQuestionLeftUnansweredGoesToTheMemoryRole(t *testing.T) {
	for name, memory := range map[string]string{
		"left out":  ``,
		"malformed": `"memory": {"should_remember": "yes", "category": "CLUE"}, `,
	} {
		t.Run(name, func(t *testing.T) { unansweredMemoryQuestion(t, memory) })
	}
}

func unansweredMemoryQuestion(t *testing.T, memory string) {
	sess, fake := askingSession(t, engine.Config{MaxTurns: 2}, func(fake *llmtest.Server) {
		fake.On("proposals without a usable memory field", llmtest.Role(config.RoleAgent), proposalReply("n"),
			llmtest.Reply{Content: `{` + memory + `"reasoning": "look around the cottage", "action": "e", "remember": "", "remember_importance": 0}`})
		fake.On("turn 1's question", llmtest.PromptContains("Turn 1, action (agent): n"),
			memReply(true, "DISCOVERY", "North leads on", "Going north from the start reaches the cottage.", "ACTIVE"))
		fake.On("turn 2's question", llmtest.PromptContains("Turn 2, action (agent): e"),
			memReply(false, "NOTE", "", "", "ACTIVE"))
	})
	played, _ := playAll(t, sess)
	if strings.Join(played, ",") != "n,e" {
		t.Fatalf("played %v, want n and e", played)
	}
	if reqs := fake.ChatRequests(); !strings.Contains(reqs[2].Prompt(), memsynth.QuestionHeader) || reqs[2].Role != config.RoleAgent {
		t.Errorf("turn 2's proposal did not carry turn 1's question")
	}
	ds, err := sess.DB.Decisions(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].Turn != 1 || ds[0].Outcome != "stored" || ds[1].Turn != 2 {
		t.Fatalf("decisions %+v, want turn 1's stored and turn 2's", ds)
	}
	n := 0
	for _, d := range ds {
		for _, tr := range d.Triggers {
			if strings.Contains(tr, "agent's reply") {
				n++
			}
		}
	}
	if n != 0 {
		t.Errorf("%d decisions say the agent answered", n)
	}
}

// TestMemoryQuestionInAPauseGoesToTheMemoryRole: stepping one turn at a
// time, the engine settles each turn's work when it pauses, so the turn's
// question is not held for a proposal that may be long in coming: the
// memory role answers it in the pause, the next proposal carries no
// question, and each memory is written once.
func TestMemoryQuestionInAPauseGoesToTheMemoryRole(t *testing.T) {
	sess, fake := askingSession(t, engine.Config{StartPaused: true}, func(fake *llmtest.Server) {
		fake.On("proposals", llmtest.Role(config.RoleAgent), proposalReply("n"), proposalReply("e"))
		fake.On("turn 1's question", llmtest.PromptContains("Turn 1, action (agent): n"),
			memReply(true, "DISCOVERY", "North leads on", "Going north from the start reaches the cottage.", "ACTIVE"))
		fake.On("turn 2's question", llmtest.PromptContains("Turn 2, action (agent): e"),
			memReply(true, "NOTE", "East of the cottage", "East of the cottage the path goes on.", "ACTIVE"))
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go sess.Engine.Run(ctx)
	h := &harness{t: t, e: sess.Engine, ctx: ctx}
	h.until(engine.Idle{})
	for range 2 {
		h.send(engine.Step{})
		h.until(engine.TurnCompleted{})
		h.until(engine.Idle{})
	}
	for _, r := range fake.ChatRequests() {
		if r.Role == config.RoleAgent && strings.Contains(r.Prompt(), memsynth.QuestionHeader) {
			t.Errorf("a proposal after a pause carries a memory question:\n%s", r.Prompt())
		}
	}
	ds, err := sess.DB.Decisions(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].Turn != 1 || ds[1].Turn != 2 || ds[0].Outcome != "stored" || ds[1].Outcome != "stored" {
		t.Fatalf("decisions %+v, want turns 1 and 2 stored once each", ds)
	}
}

// TestMemoryModeSaysWhoAndWhy: the session says who decides its memories
// and why, including when the agent was asked for but cannot answer.
func TestMemoryModeSaysWhoAndWhy(t *testing.T) {
	for _, c := range []struct {
		opts   Options
		asking bool
		want   string
	}{
		{Options{MemoryWithAgent: true, MemoryWhy: "auto: one slot"}, true, "in the agent's reply (auto: one slot)"},
		{Options{MemoryWithAgent: true, MemoryWhy: "auto: one slot"}, false, "in the memory role's own call (auto: one slot, but the agent cannot answer here"},
		{Options{MemoryWhy: "auto: 4 slots"}, false, "in the memory role's own call (auto: 4 slots)"},
		{Options{}, false, "in the memory role's own call"},
	} {
		if got := memoryMode(c.opts, c.asking); !strings.HasPrefix(got, c.want) {
			t.Errorf("memoryMode(%+v, %v) = %q, want %q…", c.opts, c.asking, got, c.want)
		}
	}
}
