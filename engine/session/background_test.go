package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// windowActions reach the kitchen; the memory of the last one is the one
// these tests follow.
var windowActions = []string{"n", "e", "examine window", "open window", "enter window"}

const windowTitle = "Window into the kitchen"

// TestBackgroundEventsBeforeTheirTurnCloses: with the managers beside the
// next proposal, every played turn still closes with one TurnCompleted, in
// order, after the events its memory synthesis caused, with its model
// calls (the memory role's too) counted in it.
func TestBackgroundEventsBeforeTheirTurnCloses(t *testing.T) {
	story, binding := demoStory(t)
	client, fake := fakeClient(t)
	fake.On("the window procedure", action("enter window"),
		memReply(true, "SUCCESS", windowTitle, "Examine the window, open it, then enter window.", "ACTIVE"))
	fake.Always("nothing else", llmtest.Role(config.RoleMemory), memReply(false, "NOTE", "", "", "ACTIVE"))
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 3, "justification": "ok"}`})
	agent, _ := engine.NewScriptAgent(strings.NewReader(strings.Join(windowActions, "\n")))
	sess, err := Open(Options{Story: story, Name: demo.FileName, Binding: binding, WorkDir: t.TempDir(),
		Client: client, Agent: agent, Engine: engine.Config{Seed: 7, CriticThreshold: -0.2}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var results, completed []int
	memoryAt := 0 // the turn whose TurnCompleted came after the MemoryChanged
	memorySeen := false
	for _, ev := range runAll(t, sess) {
		switch v := ev.(type) {
		case engine.TurnResult:
			results = append(results, v.Turn)
		case engine.MemoryChanged:
			memorySeen = true
		case engine.TurnCompleted:
			completed = append(completed, v.Result.Turn)
			if memorySeen && memoryAt == 0 {
				memoryAt = v.Result.Turn
			}
			if v.Result.Turn == 5 && v.LLM.Calls != 2 {
				t.Errorf("turn 5 counts %d model calls, want 2 (its critic's and its memory synthesis')", v.LLM.Calls)
			}
		case engine.ErrorEvent:
			t.Errorf("error: %v", v.Err)
		}
	}
	if len(completed) != 5 || len(results) != 5 {
		t.Fatalf("turns %v completed %v, want 5 of each", results, completed)
	}
	for i, n := range completed {
		if n != i+1 {
			t.Fatalf("turns completed in the order %v", completed)
		}
	}
	if memoryAt != 5 {
		t.Errorf("the memory of turn 5 arrived before turn %d closed, want 5", memoryAt)
	}
}

// TestInterruptedBackgroundWorkIsDoneOnResume: a session stopped while a
// turn's memory synthesis is in flight (as a kill would leave it: the turn
// recorded, its memory not written) does that work when it resumes, and
// the memory is written once.
func TestInterruptedBackgroundWorkIsDoneOnResume(t *testing.T) {
	story, binding := demoStory(t)
	dir := t.TempDir()
	client, fake := fakeClient(t)
	fake.On("the window procedure, stalled then answered", action("enter window"),
		llmtest.Reply{Fault: llmtest.NeverEnds},
		memReply(true, "SUCCESS", windowTitle, "Examine the window, open it, then enter window.", "ACTIVE"))
	fake.Always("nothing else", llmtest.Role(config.RoleMemory), memReply(false, "NOTE", "", "", "ACTIVE"))
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 3, "justification": "ok"}`})
	open := func() *Session {
		agent, _ := engine.NewScriptAgent(strings.NewReader(strings.Join(windowActions, "\n")))
		sess, err := Open(Options{Story: story, Name: demo.FileName, Binding: binding, WorkDir: dir, Autosave: true,
			Client: client, Agent: agent, Engine: engine.Config{Seed: 7, CriticThreshold: -0.2}})
		if err != nil {
			t.Fatal(err)
		}
		return sess
	}

	first := open()
	inFlight := fake.Arrived(func(r llmtest.Request) bool { return r.Role == config.RoleMemory && action("enter window")(r) })
	ctx, cancel := context.WithCancel(context.Background())
	if err := first.Start(ctx, StartOptions{}); err != nil {
		t.Fatal(err)
	}
	<-inFlight // turn 5 is recorded and its memory call stalls: stop here
	cancel()
	if err := first.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
	pending, err := first.DB.PendingAfterWork(context.Background(), 1)
	if err != nil || len(pending) != 1 || pending[0].Turn != 5 {
		t.Fatalf("pending after-turn work after the stop: %+v (%v), want turn 5's", pending, err)
	}
	first.Close()

	again := open()
	defer again.Close()
	if _, err := again.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	if errs := errorsIn(runAll(t, again)); len(errs) > 0 {
		t.Errorf("errors on resume: %q", errs)
	}
	count := 0
	for _, sec := range again.Memories.Sections() {
		for _, m := range sec.Memories {
			if m.Title == windowTitle {
				count++
			}
		}
	}
	if count != 1 {
		t.Errorf("the interrupted turn's memory is written %d times, want once", count)
	}
	if left, err := again.DB.PendingAfterWork(context.Background(), 1); err != nil || len(left) != 0 {
		t.Errorf("work still pending after the resume: %d (%v)", len(left), err)
	}
}
