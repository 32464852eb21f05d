package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/managers/knowledge"
)

// cellarDeaths dies in Zork I's dark cellar until the game is over: the
// grue kills the player three times (Zork resurrects twice, in the forest),
// and the third death ends the episode.
func cellarDeaths() []string {
	first := []string{"n", "e", "open window", "w", "w", "move rug", "open trap door", "d", "n"}
	back := []string{"n", "e", "s", "w", "w", "w", "open trap door", "d", "n"}
	return append(append(first, back...), back...)
}

// TestPlanningDarkCellarDeathTeachesTheNextEpisode: dying in the dark
// cellar ends an episode whose synthesis writes knowledgebase.md, and the
// next episode's first agent prompt holds that knowledge.
func TestPlanningDarkCellarDeathTeachesTheNextEpisode(t *testing.T) {
	story, _ := zork(t)
	client, fake := fakeClient(t)
	fake.On("synthesis", llmtest.PromptContains("The episode has ended (death) after 27 turns"), llmtest.Reply{Content: `{
		"strategy": "- GRUE-MARKER: the cellar below the trap door (L33) is dark; never walk there without a lit lantern (L75 has one).",
		"lessons": ["Going north from the dark cellar without light gets you eaten by a grue"],
		"episode_note": "Take and light the brass lantern before opening the trap door.", "reasoning": "three deaths in the same place"}`})
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 2, "justification": "ok"}`})
	fake.Always("memory", llmtest.Role(config.RoleMemory), memReply(false, "NOTE", "", "", "ACTIVE"))
	agent := recording(cellarDeaths()...)
	sess, err := Open(Options{Story: story, Name: "zork1.z3", Binding: zorkBinding(t), WorkDir: t.TempDir(), Client: client,
		Agent: agent, Engine: engine.Config{Seed: 12, Episodes: 2, CriticThreshold: -0.2}, Planning: Planning{Knowledge: true},
		Inline: true}) // the lesson must be in the very next prompt
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	evs := runAll(t, sess)
	if errs := errorsIn(evs); len(errs) > 0 {
		t.Fatalf("errors: %q", errs)
	}
	var ends []engine.EpisodeEnded
	for _, ev := range evs {
		if e, ok := ev.(engine.EpisodeEnded); ok {
			ends = append(ends, e)
		}
	}
	if len(ends) != 1 || ends[0].Reason != env.EndDeath || ends[0].Turns != 27 {
		t.Fatalf("episodes ended: %+v, want one death after 27 turns", ends)
	}

	data, err := os.ReadFile(filepath.Join(sess.Dir, knowledge.FileName))
	if err != nil {
		t.Fatal(err)
	}
	kb := string(data)
	for _, want := range []string{
		`- Died at L33 Cellar after "n": Oh, no! A lurking grue slithered into the room and devoured you! [Ep1 T9, Ep1 T18, Ep1 T27]`,
		"- Going north from the dark cellar without light gets you eaten by a grue",
		"## Strategy\n\n- GRUE-MARKER: the cellar below the trap door (L33) is dark",
		`- Episode 1 (death): 5 of 350 points in 27 turns. Died 3 times, last at L33 Cellar after "n". Take and light the brass lantern`,
	} {
		if !strings.Contains(kb, want) {
			t.Errorf("knowledgebase.md lacks %q:\n%s", want, kb)
		}
	}
	syn := ""
	for _, r := range fake.ChatRequests() {
		if r.Role == config.RoleKnowledge {
			syn = r.Prompt()
		}
	}
	for _, want := range []string{"T9 L33 Cellar: n → Oh, no! A lurking grue", "[DIED]", "with a score of 5 of 350"} {
		if !strings.Contains(syn, want) {
			t.Errorf("the synthesis prompt lacks %q", want)
		}
	}

	if len(agent.prompts) != 28 {
		t.Fatalf("%d prompts, want 27 turns and the next episode's first", len(agent.prompts))
	}
	if k := section(agent.prompts[0], "Knowledge"); k != "" {
		t.Errorf("the first episode starts with knowledge: %q", k)
	}
	if k := section(agent.prompts[9], "Knowledge"); !strings.HasPrefix(k, "Hard lessons from deaths:\n- Died at L33 Cellar") {
		t.Errorf("after the first death the lesson is in the next prompt at once: %q", k)
	}
	next := agent.prompts[27]
	if !strings.Contains(next, "Turn 1. Location: L") {
		t.Errorf("the last prompt is not the next episode's first:\n%s", next)
	}
	k := section(next, "Knowledge")
	for _, want := range []string{"GRUE-MARKER", "Hard lessons from deaths", "Going north from the dark cellar", "Take and light the brass lantern"} {
		if !strings.Contains(k, want) {
			t.Errorf("the next episode's first prompt lacks %q in its knowledge:\n%s", want, next)
		}
	}
	eps, err := sess.DB.Turns(context.Background(), 1)
	if err != nil || len(eps) != 27 {
		t.Errorf("lantern.db holds %d turns of episode 1 (%v)", len(eps), err)
	}
}
