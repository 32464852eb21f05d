package tui

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// fakeModel is the model the scripted server offers.
const fakeModel = "lantern-fake"

// demoActions are the agent's first moves on the built-in demo (its
// walkthrough's start); after them it looks around.
var demoActions = []string{"north", "take all", "up", "take apple", "down", "east", "examine window", "open window", "enter window"}

// scriptDemo scripts a fake Ollama for a run on the demo: the agent walks
// the first walk moves of the demo's opening (thinking as it goes), then
// looks; the critic accepts; the memory role remembers the first move (a
// SUCCESS at the lane) and nothing after. A pace above zero makes every agent
// reply wait that long, so that a person (or the tmux script) can watch a
// running agent instead of a run that reaches the turn cap at once.
func scriptDemo(s *llmtest.Server, walk int, pace time.Duration) {
	s.AddModel(fakeModel, 8192, "tools", "thinking")
	var replies []llmtest.Reply
	for _, a := range demoActions[:walk] {
		replies = append(replies, paced(proposal("Trying "+a+" to see what it opens up.", a), pace))
	}
	s.On("agent walks the demo", llmtest.Role(config.RoleAgent), replies...)
	s.Always("agent looks", llmtest.Role(config.RoleAgent), paced(proposal("Nothing obvious; looking again.", "look"), pace))
	s.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 5, "justification": "a sensible next step"}`})
	first, _ := json.Marshal(map[string]any{
		"should_remember": true, "category": "SUCCESS", "memory_title": "Orchard lies north",
		"memory_text": "Going north from the muddy lane leads to the orchard.", "status": "ACTIVE",
		"supersedes_memory_titles": []string{}, "reasoning": "a new room",
	})
	s.On("memory: the first move", llmtest.Role(config.RoleMemory), llmtest.Reply{Content: string(first)})
	s.Always("memory: nothing new", llmtest.Role(config.RoleMemory), llmtest.Reply{Content: `{"should_remember": false, "category": "NOTE", "memory_title": "", "memory_text": "", "status": "ACTIVE", "supersedes_memory_titles": [], "reasoning": "nothing new"}`})
	s.ScriptPlanning()
	// Roles the engine may add later answer with an empty object.
	s.Always("other roles", llmtest.AnyCall(), llmtest.Reply{Content: `{}`})
}

// paced delays a reply's first byte by pace (none when pace is zero).
func paced(r llmtest.Reply, pace time.Duration) llmtest.Reply {
	if pace > 0 {
		r.Fault, r.Delay = llmtest.SlowFirstByte, pace
	}
	return r
}

func proposal(reasoning, action string) llmtest.Reply {
	body, _ := json.Marshal(map[string]any{"action": action, "remember": "", "remember_importance": 0}) // a thinking model: its reasoning is the thinking stream
	return llmtest.Reply{Thinking: "Where am I? " + reasoning, Content: string(body)}
}

// TestServeFakeOllama serves the scripted fake for scripts/tui-tmux-test.sh.
// It runs only when LANTERN_TUI_FAKE_OLLAMA names a file: it writes the
// server's host there and serves until the file is removed (or an hour).
func TestServeFakeOllama(t *testing.T) {
	path := os.Getenv("LANTERN_TUI_FAKE_OLLAMA")
	if path == "" {
		t.Skip("serves the fake Ollama for scripts/tui-tmux-test.sh; set LANTERN_TUI_FAKE_OLLAMA=FILE")
	}
	s := llmtest.New(t)
	scriptDemo(s, len(demoActions), 500*time.Millisecond)
	if err := os.WriteFile(path+".tmp", []byte(s.Host()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Hour)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("served %d requests", len(s.Requests()))
}
