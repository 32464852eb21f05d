package engine

import (
	"testing"

	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/engine/internal/testgames"
	"github.com/lantern-if/lantern/game_files/bindings"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/zmachine"
)

func zork(t testing.TB) (*zmachine.Story, string) { return testgames.Zork(t) }

func walkthrough(t testing.TB) []string { return testgames.ZorkWalkthrough(t) }

func zorkBinding(t testing.TB) *env.Binding {
	t.Helper()
	bs, err := env.LoadBindings(bindings.FS())
	if err != nil {
		t.Fatal(err)
	}
	return bs.For(testgames.ZorkMD5)
}

// startEnv is a started Zork I environment with its binding unless opts
// names one.
func startEnv(t testing.TB, opts env.EnvOptions) *env.Env {
	t.Helper()
	story, _ := zork(t)
	if opts.Binding == nil {
		opts.Binding = zorkBinding(t)
	}
	e, err := env.NewEnv(story, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Start(); err != nil {
		t.Fatal(err)
	}
	return e
}

func fakeClient(t testing.TB) (*llm.Client, *llmtest.Server) {
	t.Helper()
	return llmtest.NewClient(t, "fake")
}
