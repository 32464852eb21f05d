package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// levelReply is a memory answer with a level.
func levelReply(level, title string) llmtest.Reply {
	return llmtest.Reply{Content: `{"should_remember": true, "category": "NOTE", "memory_title": "` + title +
		`", "memory_text": "` + title + `.", "status": "ACTIVE", "persistence": "` + level +
		`", "supersedes_memory_titles": [], "reasoning": "scripted"}`}
}

// spanning is a memory answer that names the first turn of the procedure
// it remembers (first_turn): the memory spans from there to its turn.
func spanning(r llmtest.Reply, first int) llmtest.Reply {
	r.Content = strings.Replace(r.Content, "{", fmt.Sprintf(`{"first_turn": %d, `, first), 1)
	return r
}

func both(a, b llmtest.Matcher) llmtest.Matcher {
	return func(r llmtest.Request) bool { return a(r) && b(r) }
}

// memoriesSection is the prompt's location memory section.
func memoriesSection(prompt string) string {
	i := strings.Index(prompt, "## Memories at L")
	if i < 0 {
		return ""
	}
	body := prompt[i:]
	if j := strings.Index(body[3:], "\n## "); j >= 0 {
		body = body[:j+3]
	}
	return body
}

// Levels with meaning, across episodes of one session: an EPHEMERAL
// memory of episode 1 is in episode 1's prompts and absent from episode
// 2's; a CORE one is present in both, first among the location's
// memories.
func TestMemoryLevelsAcrossEpisodes(t *testing.T) {
	story, binding := demoStory(t)
	client, fake := fakeClient(t)
	const eph, core = "Lane gate open this time", "Orchard is the hub"
	// The demo: Muddy Lane (start) -n- Orchard -e- Behind the Cottage.
	// Only the first "n" (into the orchard, a first visit) and the "e"
	// (behind the cottage) ask the memory role.
	fake.On("ephemeral", both(llmtest.Role(config.RoleMemory), action("n")), levelReply("EPHEMERAL", eph))
	fake.On("core", both(llmtest.Role(config.RoleMemory), action("e")), levelReply("CORE", core))
	fake.Always("nothing else", llmtest.Role(config.RoleMemory), memReply(false, "NOTE", "", "", "ACTIVE"))
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 3, "justification": "ok"}`})
	// Episode 1 (4 turns): n, s (back at the lane), n, e; episode 2: n, look.
	agent := recording("n", "s", "n", "e", "n", "look")
	sess, err := Open(Options{Story: story, Name: demo.FileName, Binding: binding, WorkDir: t.TempDir(), Client: client, Agent: agent,
		Engine: engine.Config{Seed: 7, Episodes: 2, MaxTurns: 4, CriticThreshold: -0.2}, Inline: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	evs := runAll(t, sess)
	if errs := errorsIn(evs); len(errs) > 0 {
		t.Fatalf("errors: %q", errs)
	}
	if len(agent.prompts) < 6 {
		t.Fatalf("%d prompts, want 6", len(agent.prompts))
	}
	for _, tc := range []struct {
		name   string
		prompt int // index in agent.prompts
		shown  []string
		absent []string
		first  string
	}{
		{"episode 1, back at the lane", 2, []string{eph}, nil, ""},
		{"episode 1, at the orchard", 3, nil, nil, ""},
		{"episode 2, at the lane", 4, nil, []string{eph}, ""},
		{"episode 2, at the orchard", 5, []string{core}, nil, "[NOTE - CORE] " + core},
	} {
		mem := memoriesSection(agent.prompts[tc.prompt])
		for _, w := range tc.shown {
			if !strings.Contains(mem, w) {
				t.Errorf("%s: %q not in the prompt's memories:\n%s", tc.name, w, mem)
			}
		}
		for _, w := range tc.absent {
			if strings.Contains(agent.prompts[tc.prompt], w) {
				t.Errorf("%s: %q in the prompt:\n%s", tc.name, w, agent.prompts[tc.prompt])
			}
		}
		if tc.first != "" {
			if i := strings.Index(mem, "\n["); i < 0 || !strings.HasPrefix(mem[i+1:], tc.first) {
				t.Errorf("%s: the CORE memory is not first:\n%s", tc.name, mem)
			}
		}
	}
	if !strings.Contains(agent.prompts[4], "Turn 1.") {
		t.Errorf("prompt 5 is not episode 2's first:\n%s", agent.prompts[4])
	}
}
