package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// hostileModel is what a hostile server puts in every string: ESC and C1
// CSI/OSC, a BEL, and a C1 ST.
const hostileModel = "\x1b]0;pwned\x07 \x1b[2J \u009b2J \u009d0;t\u009c"

// TestNoControlReachesTheFilesForPeople: with every model string laden
// with controls (the agent's reasoning, objectives, memories, knowledge)
// and a person's objective holding them too, no file Lantern writes in the
// story's folder (current_state.json, objectives.json, Memories.md and its
// backup, knowledgebase.md) holds a raw ESC or a code point in
// U+0080–U+009F; the JSON files still read back as the strings given.
func TestNoControlReachesTheFilesForPeople(t *testing.T) {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	h := q(hostileModel)
	client, fake := fakeClient(t)
	fake.Always("agent", llmtest.Role(config.RoleAgent), llmtest.Reply{Content: `{"reasoning": ` + h + `, "action": "look", "remember": ` + h + `, "remember_importance": 3}`})
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 5, "justification": ` + h + `}`})
	fake.Always("memory", llmtest.Role(config.RoleMemory), llmtest.Reply{Content: `{"should_remember": true, "category": "NOTE", "memory_title": ` +
		q("Title "+hostileModel) + `, "memory_text": ` + h + `, "status": "ACTIVE", "supersedes_memory_titles": [], "reasoning": ` + h + `}`})
	fake.Always("objectives", llmtest.Role(config.RoleObjectives), llmtest.Reply{Content: `{"objectives": [` + q("Reach L5 "+hostileModel) +
		`], "refined_objectives": [` + q("Reach L5 "+hostileModel) + `], "completed": [], "reasoning": ` + h + `}`})
	fake.Always("knowledge", llmtest.Role(config.RoleKnowledge), llmtest.Reply{Content: `{"strategy": ` + h + `, "lessons": [` + h +
		`], "episode_note": ` + h + `, "reasoning": "r"}`})
	story, binding := demoStory(t)
	sess, err := Open(Options{Story: story, Name: "demo.z3", Binding: binding, WorkDir: t.TempDir(), Client: client, Inline: true,
		Engine:   engine.Config{MaxTurns: 4, Seed: 1, CriticThreshold: -0.2},
		Planning: Planning{Objectives: true, ObjectiveInterval: 1, Knowledge: true, KnowledgeInterval: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := sess.Engine.Send(context.Background(), engine.ObjectiveEdit{Op: engine.ObjectiveAdd, Text: "Person " + hostileModel}); err != nil {
		t.Fatal(err)
	}
	evs := runAll(t, sess)
	if errs := errorsIn(evs); len(errs) > 0 {
		t.Fatalf("errors: %q", errs)
	}
	written := map[string]bool{}
	entries, err := os.ReadDir(sess.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, "lantern.db") || strings.HasSuffix(name, ".lock") {
			continue // lantern.db keeps model text verbatim, as data
		}
		data, err := os.ReadFile(filepath.Join(sess.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		written[name] = true
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r == 0x1b || r == 0x07 || r >= 0x80 && r <= 0x9f || r == utf8.RuneError && n == 1 {
				t.Errorf("%s: raw %U at byte %d: %q", name, r, i, data[max(0, i-20):min(len(data), i+20)])
				break
			}
			i += n
		}
	}
	for _, want := range []string{"current_state.json", "objectives.json", "Memories.md", "knowledgebase.md"} {
		if !written[want] {
			t.Errorf("%s was not written (files %v): the test proves nothing about it", want, written)
		}
	}
	var st State
	data, _ := os.ReadFile(filepath.Join(sess.Dir, "current_state.json"))
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, o := range st.Objectives {
		found = found || strings.Contains(o, hostileModel)
	}
	if !found {
		t.Errorf("current_state.json's objectives %q do not read back as the model wrote them", st.Objectives)
	}
	var person []struct{ Text string }
	data, _ = os.ReadFile(filepath.Join(sess.Dir, objectivesFile))
	if err := json.Unmarshal(data, &person); err != nil || len(person) != 1 || person[0].Text != "Person "+hostileModel {
		t.Errorf("objectives.json reads back %+v (%v):\n%s", person, err, data)
	}
}
