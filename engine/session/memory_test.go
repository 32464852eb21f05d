package session

import (
	"context"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/zmachine"
)

func memReply(remember bool, category, title, text, status string, supersedes ...string) llmtest.Reply {
	q := func(s string) string { return `"` + s + `"` }
	var sup []string
	for _, s := range supersedes {
		sup = append(sup, q(s))
	}
	return llmtest.Reply{Content: `{"should_remember": ` + map[bool]string{true: "true", false: "false"}[remember] +
		`, "category": ` + q(category) + `, "memory_title": ` + q(title) + `, "memory_text": ` + q(text) +
		`, "status": ` + q(status) + `, "supersedes_memory_titles": [` + strings.Join(sup, ",") + `], "reasoning": "scripted"}`}
}

// playDemo runs a script on the demo through a whole session whose memory
// model answers from the script; it returns the session after the run.
func playDemo(t *testing.T, actions []string, script func(*llmtest.Server)) (*Session, map[string]int) {
	t.Helper()
	story, binding := demoStory(t)
	client, fake := fakeClient(t)
	script(fake)
	fake.Always("nothing else to remember", llmtest.Role(config.RoleMemory), memReply(false, "NOTE", "", "", "ACTIVE"))
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 3, "justification": "ok"}`})
	agent, _ := engine.NewScriptAgent(strings.NewReader(strings.Join(actions, "\n")))
	sess, err := Open(Options{Story: story, Name: demo.FileName, Binding: binding, WorkDir: t.TempDir(),
		Client: client, Agent: agent, Engine: engine.Config{Seed: 7, CriticThreshold: -0.2}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	go sess.Engine.Run(context.Background())
	rooms := map[string]int{}
	for ev := range sess.Engine.Events() {
		switch v := ev.(type) {
		case engine.EpisodeStarted:
			rooms[v.Observation.Location.Name] = v.Observation.Location.ID
		case engine.TurnResult:
			rooms[v.Observation.Location.Name] = v.Observation.Location.ID
		case engine.ErrorEvent:
			t.Errorf("error: %v", v.Err)
		}
	}
	return sess, rooms
}

func action(a string) llmtest.Matcher { return llmtest.PromptContains("): " + a + "\n") }

func TestMemoryPrerequisiteLandsAtTheSource(t *testing.T) {
	sess, rooms := playDemo(t, []string{"n", "e", "examine window", "open window", "enter window"}, func(f *llmtest.Server) {
		f.On("the window procedure", action("enter window"),
			spanning(memReply(true, "SUCCESS", "Window into the kitchen", "Examine the window, open it, then enter window to reach the kitchen.", "ACTIVE"), 3))
	})
	behind, kitchen := rooms["Behind the Cottage"], rooms["Kitchen"]
	mems := sess.Memories.List(behind)
	if len(mems) != 1 || mems[0].Status != memory.StatusActive || mems[0].Category != memory.CategorySuccess {
		t.Fatalf("memories behind the cottage: %+v", mems)
	}
	if mems[0].Turn != 3 || mems[0].TurnEnd != 5 {
		t.Errorf("the procedure spans turns %d-%d, want 3-5 (examine, open, enter), as the answer says", mems[0].Turn, mems[0].TurnEnd)
	}
	if got := sess.Memories.List(kitchen); len(got) != 0 {
		t.Errorf("a move's memory belongs at its source, not the destination: %+v", got)
	}
}

func TestMemoryTentativeGiftSupersededByDeath(t *testing.T) {
	sess, rooms := playDemo(t, []string{"n", "take lunch", "e", "e", "n", "give lunch to troll", "north"}, func(f *llmtest.Server) {
		f.On("the gift", action("give lunch to troll"),
			memReply(true, "NOTE", "Troll accepts lunch", "The troll takes the lunch gift; unclear what follows.", "TENTATIVE"))
		f.On("the death", action("north"),
			memReply(true, "DANGER", "Fed troll kills on the bridge", "After eating the lunch the troll kills anyone going north.", "ACTIVE", "Troll accepts lunch"))
	})
	bridge := rooms["Troll Bridge"]
	mems := sess.Memories.List(bridge)
	var danger, gift *memory.Memory
	for i := range mems {
		switch mems[i].Title {
		case "Fed troll kills on the bridge":
			danger = &mems[i]
		case "Troll accepts lunch":
			gift = &mems[i]
		}
	}
	if danger == nil || gift == nil {
		t.Fatalf("memories at the bridge: %+v", mems)
	}
	if danger.Category != memory.CategoryDanger || danger.Status != memory.StatusActive {
		t.Errorf("danger memory %+v", danger)
	}
	if gift.Status != memory.StatusSuperseded || gift.Superseded.By != "Fed troll kills on the bridge" || gift.Superseded.Turn != 7 {
		t.Errorf("the gift should be superseded at T7 by the danger memory: %+v", gift)
	}
	var out strings.Builder
	memory.Show(&out, sess.Memories.Path(), bridge)
	if !strings.Contains(out.String(), `[Superseded at T7 by "Fed troll kills on the bridge"]`) {
		t.Errorf("the metadata line is missing:\n%s", out.String())
	}
}

func TestMemoryKeyDiscovery(t *testing.T) {
	sess, rooms := playDemo(t, []string{"n", "e", "open window", "enter window", "take lantern", "light lantern", "open trapdoor", "d",
		"take key", "u", "w", "take rusty key", "n", "examine door", "unlock door with rusty key", "unlock door with brass key"}, func(f *llmtest.Server) {
		// Seed 000's progressive discovery: the failure teaches nothing on
		// its own turn; the success, seen with the recent turns, does.
		f.On("brass", llmtest.Matcher(func(r llmtest.Request) bool {
			p := r.Prompt()
			return strings.Contains(p, "): unlock door with brass key\n") && strings.Contains(p, "unlock door with rusty key")
		}), spanning(memReply(true, "SUCCESS", "Brass key opens the stone door", "The stone door needs the brass key (not the rusty key).", "ACTIVE"), 14))
	})
	hall := rooms["Hallway"]
	mems := sess.Memories.List(hall)
	if len(mems) != 1 || mems[0].Title != "Brass key opens the stone door" || mems[0].Category != memory.CategorySuccess {
		t.Fatalf("memories in the hallway: %+v", mems)
	}
	if mems[0].Turn != 14 || mems[0].TurnEnd != 16 {
		t.Errorf("the discovery spans turns %d-%d, want 14-16, as the answer says", mems[0].Turn, mems[0].TurnEnd)
	}
	if ctx := sess.Memories.LocationMemory(hall); !strings.Contains(ctx, "Brass key opens the stone door") {
		t.Errorf("the agent's view of the hallway lacks the discovery:\n%s", ctx)
	}
}

func TestResearchPhaseCallsTools(t *testing.T) {
	story, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		t.Fatal(err)
	}
	client, fake := fakeClient(t)
	fake.On("research: look up the notes", llmtest.Role(config.RoleAgent),
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "get_full_summary", Args: map[string]any{}}}},
		llmtest.Reply{Content: "Nothing is known yet."},
		llmtest.Reply{Content: `{"reasoning": "explore", "action": "north", "remember": "", "remember_importance": 0}`})
	fake.Always("memory", llmtest.Role(config.RoleMemory), memReply(false, "NOTE", "", "", "ACTIVE"))
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 3, "justification": "ok"}`})
	sess, err := Open(Options{Story: story, Name: demo.FileName, WorkDir: t.TempDir(), Client: client, Research: 2,
		Engine: engine.Config{Seed: 7, MaxTurns: 1, CriticThreshold: -0.2}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	go sess.Engine.Run(context.Background())
	played := ""
	for ev := range sess.Engine.Events() {
		if v, ok := ev.(engine.TurnResult); ok && v.Turn == 1 {
			played = v.Action
		}
	}
	if played != "north" {
		t.Fatalf("played %q", played)
	}
	var sawTool, sawFinding bool
	for _, r := range fake.ChatRequests() {
		for _, m := range r.Chat.Messages {
			sawTool = sawTool || (m.Role == "tool" && strings.Contains(m.Content, "Nothing has happened yet in this episode."))
			sawFinding = sawFinding || strings.Contains(m.Content, "What your research found: Nothing is known yet.")
		}
	}
	if !sawTool || !sawFinding {
		t.Errorf("tool result fed back %v, finding used %v", sawTool, sawFinding)
	}
}
