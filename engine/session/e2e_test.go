package session

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/memory"
)

// e2eRoles points every role at the tiny test model (see
// scripts/ollama-test-server.sh); the test skips without the server.
func e2eClient(t *testing.T) *llm.Client {
	t.Helper()
	if os.Getenv("LANTERN_OLLAMA_E2E") != "1" || os.Getenv("OLLAMA_HOST") == "" {
		t.Skip("set LANTERN_OLLAMA_E2E=1 and OLLAMA_HOST (scripts/ollama-test-server.sh start)")
	}
	roles := config.DefaultRoles()
	for k, r := range roles {
		// A fixed num_ctx: a changing one makes the server reload the model.
		r.Model, r.Think, r.NumPredict, r.Seed, r.Timeout, r.NumCtx = "lantern-tiny", config.ThinkOff, 1200, 3, 2*time.Minute, 4096
		roles[k] = r
	}
	c, err := llm.New(llm.Options{Host: os.Getenv("OLLAMA_HOST"), Roles: roles})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestE2ERoleSchemasDecode: every role's reply schema decodes 20 of 20
// times from the real server.
func TestE2ERoleSchemasDecode(t *testing.T) {
	c := e2eClient(t)
	ctx := context.Background()
	msgs := []llm.Message{llm.User("West of House. There is a small mailbox here.")}
	checks := map[string]func(int) error{
		config.RoleAgent: func(i int) error {
			_, _, err := llm.Structured[engine.Proposal](ctx, c, llm.Request{Role: config.RoleAgent, Messages: msgs, Turn: i})
			return err
		},
		config.RoleCritic: func(i int) error {
			_, _, err := llm.Structured[engine.CriticReply](ctx, c, llm.Request{Role: config.RoleCritic, Messages: msgs, Turn: i})
			return err
		},
		config.RoleExtractor: func(i int) error {
			_, _, err := llm.Structured[engine.ExtractorReply](ctx, c, llm.Request{Role: config.RoleExtractor, Messages: msgs, Turn: i})
			return err
		},
	}
	for role, check := range checks {
		for i := 0; i < 20; i++ {
			if err := check(i); err != nil {
				t.Fatalf("%s, call %d of 20: %v", role, i+1, err)
			}
		}
	}
}

// TestE2EScriptedZorkWithTinyModel replays the Zork I walkthrough through
// the whole loop with the tiny model as critic and memory synthesizer: 350
// points, and a Memories.md that checks. It takes several minutes, so it
// also needs LANTERN_E2E_LONG=1.
func TestE2EScriptedZorkWithTinyModel(t *testing.T) {
	c := e2eClient(t)
	if os.Getenv("LANTERN_E2E_LONG") != "1" {
		t.Skip("set LANTERN_E2E_LONG=1 for the full scripted Zork I run with the tiny model")
	}
	story, _ := zork(t)
	cmds := walkthrough(t)
	agent, _ := engine.NewScriptAgent(strings.NewReader(strings.Join(cmds, "\n")))
	sess, err := Open(Options{Story: story, Name: "zork1.z3", Binding: zorkBinding(t), WorkDir: t.TempDir(), Client: c, Agent: agent,
		Engine: engine.Config{Seed: 12, CriticThreshold: -0.2}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	start := time.Now()
	go sess.Engine.Run(context.Background())
	var last engine.TurnResult
	errs := 0
	for ev := range sess.Engine.Events() {
		switch v := ev.(type) {
		case engine.TurnResult:
			last = v
		case engine.ErrorEvent:
			errs++
		}
	}
	t.Logf("%d turns in %v, %d model errors, memories %+v, calls %+v", last.Turn, time.Since(start), errs, sess.Memories.Stats(), c.Metrics.All())
	if last.Observation.Score != 350 {
		t.Fatalf("score %d, want 350", last.Observation.Score)
	}
	var out strings.Builder
	if code := memory.Check(&out, sess.Memories.Path()); code != 0 {
		t.Errorf("Memories.md does not check:\n%s", out.String())
	}
}
