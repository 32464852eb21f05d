package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/memory/rundb"
)

// researchSession is a session on the demo whose lantern.db holds notes of
// two sessions (episodes 1 and 2, the second running) and episode 2's
// turns.
func researchSession(t *testing.T) *Session {
	t.Helper()
	story, binding := demoStory(t)
	sess, err := Open(Options{Story: story, Name: demo.FileName, Binding: binding, WorkDir: t.TempDir(), Agent: recording()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	ctx := context.Background()
	for ep := int64(1); ep <= 2; ep++ {
		if _, err := sess.DB.StartEpisodeID(ctx, ep, 7); err != nil {
			t.Fatal(err)
		}
	}
	// Episode 1: an old note with an old turn number; episode 2: twelve.
	if _, _, err := sess.DB.Remember(ctx, rundb.Note{Session: "1", Turn: 90, Content: "the well needs a rope", Importance: 1000, Location: "Old Well", LocationID: 6}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 12; i++ {
		if _, _, err := sess.DB.Remember(ctx, rundb.Note{Session: "2", Turn: i, Content: fmt.Sprintf("note number %d of this session", i),
			Importance: 100 + i, Location: "Orchard", LocationID: 4}); err != nil {
			t.Fatal(err)
		}
	}
	for i, a := range []string{"north", "take all"} {
		if err := sess.DB.RecordTurn(ctx, rundb.Turn{Episode: 2, Turn: i + 1, Actor: "agent", Action: a, Response: "Orchard. Gnarled apple trees.",
			Verdicts: "[]", LocationID: 4, Location: "Orchard"}); err != nil {
			t.Fatal(err)
		}
	}
	sess.episode = 2
	sess.updateView(nil)
	return sess
}

func runTool(t *testing.T, tools []llm.Tool, name string, args any) string {
	t.Helper()
	raw, _ := json.Marshal(args)
	for _, tl := range tools {
		if tl.Name == name {
			out, err := tl.Run(context.Background(), raw)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return out
		}
	}
	t.Fatalf("no tool %s", name)
	return ""
}

// The research tools follow the memory-tool plan: the session's top ten
// notes by default, every session's notes searched with their numbers,
// the notes made at a location, and a narrative summary.
func TestResearchToolsFollowThePlan(t *testing.T) {
	sess := researchSession(t)
	client, fake := fakeClient(t)
	fake.Always("summary", llmtest.PromptContains("narrative summary"), llmtest.Reply{Content: "You walked north into the orchard and took the lunch."})
	fake.Always("query", llmtest.PromptContains("Question: what needs a rope?"), llmtest.Reply{Content: "Relevant memories: #1\nAnswer: the well."})
	fake.Always("location", llmtest.PromptContains("Location: L4"), llmtest.Reply{Content: "Twelve notes were made in the orchard."})
	tools, err := sess.ResearchTools(client)
	if err != nil {
		t.Fatal(err)
	}

	top := runTool(t, tools, "get_top_memories", topArgs{})
	if n := strings.Count(top, "Importance: "); n != 10 {
		t.Errorf("get_top_memories with no limit gave %d notes, want 10:\n%s", n, top)
	}
	if strings.Contains(top, "well") {
		t.Errorf("get_top_memories shows another session's note:\n%s", top)
	}

	if got := runTool(t, tools, "query_memories", questionArgs{Question: "what needs a rope?"}); !strings.Contains(got, "#1") {
		t.Errorf("query_memories = %q", got)
	}
	var asked string
	for _, r := range fake.ChatRequests() {
		if r.Role == config.RoleRetriever && strings.Contains(r.Prompt(), "what needs a rope?") {
			asked = r.Prompt()
		}
	}
	if !strings.Contains(asked, "#1 [Ep1 T90 @ Old Well, importance=1000] the well needs a rope") || strings.Count(asked, "\n#") != 13 || !strings.HasPrefix(strings.SplitN(asked, "Memories:\n", 2)[1], "#1 ") {
		t.Errorf("query_memories did not search every note with its number:\n%s", asked)
	}

	if got := runTool(t, tools, "get_location_memories", locationArgs{Location: "L4"}); got != "Twelve notes were made in the orchard." {
		t.Errorf("get_location_memories = %q", got)
	}
	if got := runTool(t, tools, "get_full_summary", noArgs{}); got != "You walked north into the orchard and took the lunch." {
		t.Errorf("get_full_summary = %q", got)
	}

	// Without a retriever the tools return what they found.
	bare, err := sess.ResearchTools(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := runTool(t, bare, "get_location_memories", locationArgs{Location: "old well"}); !strings.Contains(got, "the well needs a rope") {
		t.Errorf("get_location_memories by name = %q", got)
	}
	if got := runTool(t, bare, "get_full_summary", noArgs{}); !strings.Contains(got, "2 turns played") {
		t.Errorf("get_full_summary without a model = %q", got)
	}
}

// The agent's prompt shows the running session's notes only: an old
// episode's notes, with their old turn numbers, stay out of it.
func TestPromptNotesAreThisSessions(t *testing.T) {
	sess := researchSession(t)
	notes := sess.notes()
	if len(notes) != 5 {
		t.Fatalf("%d notes in the prompt, want 5: %q", len(notes), notes)
	}
	for _, n := range notes {
		if strings.Contains(n, "well") {
			t.Errorf("the prompt shows another session's note: %q", n)
		}
	}
}
