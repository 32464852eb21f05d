package engine

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/engine/internal/testgames"
	"github.com/lantern-if/lantern/game_files/bindings"
	"github.com/lantern-if/lantern/sharedtest"
)

var updateRefusals = flag.Bool("update-refusals", false, "rewrite testdata/ground_truth_refusals.txt from the run")

// TestGroundTruthStageOnJerichoWalkthroughs plays the walkthroughs of
// Jericho's suite (the representative games; all with LANTERN_JERICHO=all) through the engine's own play path and asks the critic's
// ground-truth stage about each command before it is played. A walkthrough
// command is a good move, so the stage may refuse only what the game
// itself refuses; those are listed in testdata/ground_truth_refusals.txt
// with the game's reply, and the run must match the list exactly.
func TestGroundTruthStageOnJerichoWalkthroughs(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 38 walkthroughs")
	}
	games := testgames.Jericho(t)
	bs, err := env.LoadBindings(bindings.FS())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range games {
		en, err := env.NewEnv(g.Story, env.EnvOptions{Seed: g.Walk.Seed, Binding: bs.For(g.Story.Info().MD5)})
		if err != nil {
			t.Fatalf("%s: %v", g.File, err)
		}
		got = append(got, refusalsOf(t, g, en)...)
	}
	path := filepath.Join("testdata", "ground_truth_refusals.txt")
	if *updateRefusals {
		if len(games) < 38 {
			t.Fatalf("-update-refusals plays every game: set %s=all", sharedtest.EnvJericho)
		}
		body := "# The critic's ground-truth stage refuses these walkthrough commands of Jericho's suite;\n" +
			"# each is a command the game itself refuses (its reply follows). Written by\n" +
			"# LANTERN_JERICHO=all go test ./engine -run TestGroundTruthStageOnJerichoWalkthroughs -update-refusals\n" +
			strings.Join(got, "\n") + "\n"
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	played := map[string]bool{}
	for _, g := range games {
		played[g.File] = true
	}
	want := map[string]bool{}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		file, _, _ := strings.Cut(l, "\t")
		if l != "" && !strings.HasPrefix(l, "#") && played[file] {
			want[l] = true
		}
	}
	for _, l := range got {
		if !want[l] {
			t.Errorf("refused a walkthrough command the list does not name:\n  %s", l)
		}
		delete(want, l)
	}
	for l := range want {
		t.Errorf("listed refusal did not happen:\n  %s", l)
	}
	t.Logf("%d games, %d ground-truth refusals (all listed game refusals)", len(games), len(got))
}

// refusalsOf plays one walkthrough and lists the ground-truth refusals as
// "file<TAB>step<TAB>command<TAB>why<TAB>the game's reply".
func refusalsOf(t *testing.T, g testgames.Game, en *env.Env) []string {
	t.Helper()
	obs, err := en.Start()
	if err != nil {
		t.Fatalf("%s: %v", g.File, err)
	}
	e := New(Options{Config: Config{CriticThreshold: -0.2, Seed: g.Walk.Seed}, Env: en, Agent: &listAgent{}})
	e.st.Obs = obs
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for range e.Events() {
		}
	}()
	var out []string
	for i, cmd := range g.Walk.Walkthrough {
		if e.quitting {
			break
		}
		why := e.scope().groundTruth(cmd)
		if err := e.play(ctx, e.newTurn(ActorAgent).choose(ActorAgent, cmd, Proposal{Action: cmd})); err != nil {
			t.Fatalf("%s step %d: %v", g.File, i+1, err)
		}
		if why != "" {
			reply := strings.Join(strings.Fields(e.st.Obs.Text), " ")
			if len(reply) > 100 {
				reply = reply[:100]
			}
			out = append(out, fmt.Sprintf("%s\t%d\t%s\t%s\t%s", g.File, i+1, cmd, why, reply))
		}
	}
	return out
}
