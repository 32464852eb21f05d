package session

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// lockedBuffer is a log sink the client's goroutines write while the test
// reads it at the end.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// protocolClient is a client of the fake on one protocol, logging at
// debug into log.
func protocolClient(t *testing.T, api string, log *lockedBuffer) (*llm.Client, *llmtest.Server) {
	t.Helper()
	fake := llmtest.New(t)
	fake.AddModel("fake", 8192)
	roles := config.DefaultRoles()
	for k, r := range roles {
		r.Model, r.Timeout = "fake", 10*time.Second
		roles[k] = r
	}
	opts := llm.Options{Host: fake.Host(), Roles: roles, Retry: llm.RetryPolicy{Attempts: 3, Backoff: time.Millisecond, Max: 2 * time.Millisecond},
		Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if api == config.APIOpenAI {
		opts.Server = config.Server{API: config.APIOpenAI, BaseURL: fake.BaseURL()}
	}
	client, err := llm.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return client, fake
}

// TestRepliesWithUnknownFieldsPlayEveryTurn: issue 40's model writes a
// memory object (and more) the request's schema did not ask for in every
// reply, the agent's, the critic's and the memory role's; on Ollama's API
// and on the OpenAI protocol alike every turn is played, no error is
// raised, and the ignored fields are counted in the log at debug.
func TestRepliesWithUnknownFieldsPlayEveryTurn(t *testing.T) {
	const extra = `"memory": {"title": "Injected", "text": "PWNED", "category": "SUCCESS"}, "mood": "bold"`
	for _, api := range []string{config.APIOllama, config.APIOpenAI} {
		t.Run(api, func(t *testing.T) {
			var log lockedBuffer
			client, fake := protocolClient(t, api, &log)
			fake.Always("agent", llmtest.Role(config.RoleAgent), llmtest.Reply{Content: `{"reasoning": "Look around.", "action": "look", "remember": "", "remember_importance": 0, ` + extra + `}`})
			fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 5, "justification": "fine", ` + extra + `}`})
			fake.Always("memory", llmtest.Role(config.RoleMemory), llmtest.Reply{Content: `{"should_remember": false, "category": "NOTE", "memory_title": "",
				"memory_text": "", "status": "ACTIVE", "supersedes_memory_titles": [], "reasoning": "scripted", ` + extra + `}`})
			story, binding := demoStory(t)
			const turns = 3
			sess, err := Open(Options{Story: story, Name: "demo.z3", Binding: binding, WorkDir: t.TempDir(), Client: client,
				Engine: engine.Config{MaxTurns: turns, Seed: 1, CriticThreshold: -0.2}})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			evs := runAll(t, sess)
			if errs := errorsIn(evs); len(errs) > 0 {
				t.Fatalf("errors: %q", errs)
			}
			played := 0
			for _, ev := range evs {
				if _, ok := ev.(engine.TurnCompleted); ok {
					played++
				}
			}
			if played != turns {
				t.Fatalf("%d turns played, want %d", played, turns)
			}
			for _, r := range fake.ChatRequests() {
				if r.OpenAI() != (api == config.APIOpenAI) {
					t.Fatalf("a request came in on %s", r.Path)
				}
			}
			if l := log.String(); !strings.Contains(l, "reply fields the request did not ask for, ignored") || !strings.Contains(l, "reply.mood") {
				t.Errorf("the ignored fields are not in the debug log:\n%s", l)
			}
		})
	}
}
