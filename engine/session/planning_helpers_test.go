package session

import (
	"context"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/game_files/bindings"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/zmachine"
)

// recordingAgent plays its proposals in order and keeps the prompt of
// every turn (the first proposal of each), so tests can read what the agent
// was shown. After the last proposal it ends the run.
type recordingAgent struct {
	plays   []engine.Proposal
	prompts []string // the user message of each turn's prompt
	n       int
}

func recording(actions ...string) *recordingAgent {
	r := &recordingAgent{}
	for _, a := range actions {
		r.plays = append(r.plays, engine.Proposal{Action: a, Reasoning: "Playing " + a + "."})
	}
	return r
}

func (r *recordingAgent) Propose(_ context.Context, prompt []llm.Message, rejected []string, _ int, _ func(llm.Delta)) (engine.Proposal, error) {
	if len(rejected) == 0 {
		r.prompts = append(r.prompts, prompt[len(prompt)-1].Content)
	}
	if r.n >= len(r.plays) {
		return engine.Proposal{}, engine.ErrScriptDone
	}
	p := r.plays[r.n]
	r.n++
	return p, nil
}

func (*recordingAgent) Scripted() bool { return true }

// demoStory is the built-in demo and its binding.
func demoStory(t testing.TB) (*zmachine.Story, *env.Binding) {
	t.Helper()
	story, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		t.Fatal(err)
	}
	bs, err := env.LoadBindings(bindings.FS())
	if err != nil {
		t.Fatal(err)
	}
	return story, bs.For(story.Info().MD5)
}

// runAll runs the session's engine to its end and returns its events. No
// one sends commands here, so an Idle (the engine paused, e.g. after
// repeated model failures) would wait for ever: runAll keeps it as the last
// event, stops the engine and returns, so the test fails on what it sees
// instead of hanging until the package's timeout.
func runAll(t *testing.T, sess *Session) []engine.Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go sess.Engine.Run(ctx)
	var evs []engine.Event
	for ev := range sess.Engine.Events() {
		evs = append(evs, ev)
		if _, idle := ev.(engine.Idle); idle {
			t.Logf("the engine paused after %d events; errors: %q", len(evs), errorsIn(evs))
			cancel()
		}
	}
	return evs
}

// errorsIn lists the error events' messages.
func errorsIn(evs []engine.Event) []string {
	var out []string
	for _, ev := range evs {
		if e, ok := ev.(engine.ErrorEvent); ok {
			out = append(out, e.Err.Error())
		}
	}
	return out
}

// section returns a prompt's "## title" section body ("" when absent).
func section(prompt, title string) string {
	head := "## " + title + "\n"
	i := strings.Index(prompt, head)
	if i < 0 {
		return ""
	}
	body := prompt[i+len(head):]
	if j := strings.Index(body, "\n## "); j >= 0 {
		body = body[:j]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body), "What is your next command?"))
}

// demoSession opens a session of the demo story in a fresh work dir with
// agent, the engine not started (paused when it is); it is closed when
// the test ends.
func demoSession(t *testing.T, agent engine.Agent) *Session {
	t.Helper()
	story, binding := demoStory(t)
	sess, err := Open(Options{Story: story, Name: "demo.z3", Binding: binding, WorkDir: t.TempDir(), Agent: agent,
		Engine: engine.Config{Seed: 1, StartPaused: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}
