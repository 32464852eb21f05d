package oracle

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/managers/memsynth"
)

// TestRememberedFromGroundTruth: the oracle's decision weighs a death, a
// score change (up or down), what was found and the way to a new room, in
// that order, each with a reason of its own; anything else keeps nothing.
func TestRememberedFromGroundTruth(t *testing.T) {
	base := memsynth.Asked{Turn: 4, Actor: "agent", Action: "take egg", FromID: 5, FromName: "Up a Tree", ScoreBefore: 10, ScoreAfter: 10}
	for _, c := range []struct {
		name     string
		edit     func(a *memsynth.Asked)
		category string
		title    string
	}{
		{"death", func(a *memsynth.Asked) { a.Changed = []string{"death"}; a.ScoreAfter = 15 }, "DANGER", "Deadly: take egg"},
		{"points", func(a *memsynth.Asked) { a.Changed = []string{"score +5"}; a.ScoreAfter = 15 }, "SUCCESS", "Points: take egg"},
		{"points lost", func(a *memsynth.Asked) { a.Changed = []string{"score -5"}; a.ScoreAfter = 5 }, "FAILURE", "Lost points: take egg"},
		{"found", func(a *memsynth.Asked) { a.Changed = []string{"long response"}; a.InvAfter = []string{"egg"} }, "DISCOVERY", "Found here: egg"},
		{"a new room", func(a *memsynth.Asked) { a.Changed = []string{"first visit"}; a.ToID, a.ToName = 6, "Forest" }, "DISCOVERY", "Way to Forest"},
		{"nothing new", func(a *memsynth.Asked) { a.Changed = []string{"long response"} }, "", ""},
	} {
		a := base
		c.edit(&a)
		n := remembered(a)
		if n.ShouldRemember != (c.title != "") || n.Category != c.category && c.title != "" || n.MemoryTitle != c.title || strings.TrimSpace(n.Why) == "" {
			t.Errorf("%s: %+v, want %q %q with a reason", c.name, n, c.category, c.title)
		}
	}
	if n := askedIn("no question here"); n.ShouldRemember || n.Why == "" {
		t.Errorf("an unreadable question: %+v", n)
	}
}

// TestMemoryRoleAnswersFromGroundTruth: the memory role's own call gets
// the oracle's decision in the reply's shape, its reasoning the decision's
// why, its enums as the schema allows.
func TestMemoryRoleAnswersFromGroundTruth(t *testing.T) {
	o := New(Options{Script: []string{"look"}})
	format := json.RawMessage(`{"type":"object","properties":{"should_remember":{"type":"boolean"},
		"category":{"type":"string","enum":["SUCCESS","FAILURE","DISCOVERY","DANGER","NOTE"]},"memory_title":{"type":"string","maxLength":80},
		"memory_text":{"type":"string"},"status":{"type":"string","enum":["ACTIVE","TENTATIVE"]},
		"supersedes_memory_titles":{"type":"array","items":{"type":"string"}},"reasoning":{"type":"string"}},
		"required":["should_remember","category","memory_title","memory_text","status","supersedes_memory_titles","reasoning"]}`)
	prompt := "Location where the action was taken: L5 Up a Tree\nTurn 4, action (agent): take egg\nResponse:\nTaken.\n\n" +
		"What changed: score +5.\nScore 10 → 15. Inventory: nothing → egg."
	a, err := o.respond("", config.RoleMemory, &api.ChatRequest{Model: ModelName, Format: format, Messages: []api.Message{{Role: "user", Content: prompt}}})
	if err != nil {
		t.Fatal(err)
	}
	var r memsynth.Reply
	if err := json.Unmarshal([]byte(a.Content), &r); err != nil {
		t.Fatal(err)
	}
	if !r.ShouldRemember || r.Category != "SUCCESS" || r.MemoryTitle != "Points: take egg" || r.Status != "ACTIVE" || !strings.Contains(r.Reasoning, "rose by 5") {
		t.Errorf("reply %+v", r)
	}
	if st := o.Stats(); st.Remembered != 1 || st.Others != 1 {
		t.Errorf("stats %+v", st)
	}
}

// TestOldestConversationForgotten: past maxConversations places, the
// oldest made is forgotten.
func TestOldestConversationForgotten(t *testing.T) {
	o := New(Options{Script: []string{"look"}})
	o.mu.Lock()
	defer o.mu.Unlock()
	first := o.walker("first")
	for i := range maxConversations {
		o.walker(strings.Repeat("x", i+1))
	}
	if len(o.walks) != maxConversations || o.walker("first") == first {
		t.Errorf("%d places kept; the first still there: %v", len(o.walks), o.walker("first") == first)
	}
}
