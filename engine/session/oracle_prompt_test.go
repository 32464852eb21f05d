package session

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/contextmgr"
	"github.com/lantern-if/lantern/oracle"
)

// TestOraclePromptAtTurn200 plays 199 turns of Zork I with the oracle as
// every model (the agent proposing the walkthrough through the real model
// path, every planning manager on) and prints the agent's prompt for turn
// 200: it holds the room's description and the objects in scope, within
// 1,500 tokens.
func TestOraclePromptAtTurn200(t *testing.T) {
	story, _ := zork(t)
	orc := oracle.New(oracle.Options{Script: walkthrough(t), NoThinking: true})
	srv := httptest.NewServer(orc)
	defer srv.Close()
	roles := config.DefaultRoles()
	for k, r := range roles {
		r.Model, r.Timeout = "oracle", 10*time.Second
		roles[k] = r
	}
	client, err := llm.New(llm.Options{Host: strings.TrimPrefix(srv.URL, "http://"), Roles: roles})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := Open(Options{Story: story, Name: "zork1.z3", Binding: zorkBinding(t), WorkDir: t.TempDir(),
		Client: client, Agent: engine.LLMAgent{Client: client}, Planning: DefaultPlanning(),
		Engine: engine.Config{Seed: 12, CriticThreshold: -0.2, MaxTurns: 199}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	go sess.Engine.Run(context.Background())
	var last engine.TurnResult
	for ev := range sess.Engine.Events() {
		switch e := ev.(type) {
		case engine.ErrorEvent:
			t.Errorf("turn %d: %v", e.Turn, e.Err)
		case engine.TurnResult:
			last = e
		}
	}
	if last.Turn != 199 {
		t.Fatalf("played %d turns, want 199", last.Turn)
	}
	prompt := sess.Engine.Prompt(context.Background(), 200)
	tokens := 0
	for _, m := range prompt {
		tokens += contextmgr.EstimateTokens(m.Content)
	}
	user := prompt[len(prompt)-1].Content
	t.Logf("the agent's prompt for turn 200 (about %d tokens):\n%s\n%s", tokens, prompt[0].Content, user)
	here := last.Observation.Location
	if !strings.Contains(user, "Objects in scope: ") {
		t.Error("the prompt lists no objects in scope")
	}
	if look := sess.Env.Look(); look == "" || !strings.Contains(user, strings.SplitN(look, "\n", 2)[len(strings.SplitN(look, "\n", 2))-1]) {
		t.Errorf("the prompt lacks the description of %s:\n%s", here.Name, look)
	}
	if tokens > 1500 {
		t.Errorf("prompt of about %d tokens, goal at most 1,500", tokens)
	}
}
