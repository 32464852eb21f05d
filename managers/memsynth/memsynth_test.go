package memsynth

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/memory"
)

// The memory request continues the agent's prompt when both roles run on
// one model (Ollama's cache then keeps the agent's prompt for the next
// turn), and stands alone on another model or for a person's turn.
func TestMemoryRequestContinuesTheAgentPrompt(t *testing.T) {
	agentPrompt := []llm.Message{llm.System("You play a text adventure."), llm.User("## Game state\nTurn 7. Location: L3 Kitchen.")}
	turn := domain.Turn{Turn: 7, Actor: "agent", Action: "take lamp", FromID: 3, FromName: "Kitchen", ToID: 3, ToName: "Kitchen",
		ScoreBefore: 0, ScoreAfter: 5, Response: "Taken."}
	reply := llmtest.Reply{Content: `{"should_remember": false, "category": "NOTE", "memory_title": "", "memory_text": "", "status": "ACTIVE", "supersedes_memory_titles": [], "reasoning": "nothing new"}`}
	for _, tc := range []struct {
		name        string
		prompt      []llm.Message
		memoryModel string
		continues   bool
	}{
		{"same model", agentPrompt, "fake", true},
		{"another model", agentPrompt, "other", false},
		{"a person's turn", nil, "fake", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, fake := llmtest.NewClient(t, "fake")
			fake.AddModel("other", 8192)
			if err := client.SetModel(config.RoleMemory, tc.memoryModel); err != nil {
				t.Fatal(err)
			}
			fake.On("memory", llmtest.Role(config.RoleMemory), reply)
			store, err := memory.Open(filepath.Join(t.TempDir(), "Memories.md"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := New(client, store, 5).ProcessTurnAfter(context.Background(), turn, tc.prompt); err != nil {
				t.Fatal(err)
			}
			reqs := fake.ChatRequests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			msgs := reqs[0].Chat.Messages
			last := msgs[len(msgs)-1]
			if !strings.Contains(last.Content, "Location where the action was taken: L3 Kitchen") {
				t.Errorf("the last message lacks the turn: %q", last.Content)
			}
			continued := len(msgs) == 3 && msgs[0].Content == agentPrompt[0].Content && msgs[1].Content == agentPrompt[1].Content &&
				last.Role == "user" && strings.HasPrefix(last.Content, systemPrompt)
			alone := len(msgs) == 2 && msgs[0].Role == "system" && msgs[0].Content == systemPrompt
			if tc.continues && !continued {
				t.Errorf("the request does not continue the agent's prompt: %+v", msgs)
			}
			if !tc.continues && !alone {
				t.Errorf("the request is not the memory prompt alone: %+v", msgs)
			}
		})
	}
}

// TestQuestionShowsTheWindowAndTheGuidance: the memory question put to the
// agent shows the recent turns up to memory_history_window (the oldest
// left out), the room the turn reached, and the design's guidance on
// procedures and later consequences; it asks for the decision's reason.
func TestQuestionShowsTheWindowAndTheGuidance(t *testing.T) {
	store, err := memory.Open(filepath.Join(t.TempDir(), "Memories.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	turn := domain.Turn{Turn: 9, Actor: "agent", Action: "open trap door", FromID: 3, FromName: "Living Room", ToID: 4, ToName: "Cellar"}
	var recent []Step
	for i := 1; i <= 8; i++ {
		recent = append(recent, Step{Turn: i, Action: fmt.Sprintf("step %d", i), Response: "ok"})
	}
	for _, tc := range []struct{ window, first int }{{2, 7}, {5, 4}} {
		q := New(nil, store, tc.window).Question(turn, []string{"first visit"}, recent)
		for i := 1; i <= 8; i++ {
			shown := strings.Contains(q, fmt.Sprintf("- T%d: step %d", i, i))
			if shown != (i >= tc.first) {
				t.Errorf("window %d: turn %d shown %v:\n%s", tc.window, i, shown, q)
			}
		}
		for _, want := range []string{stepsGuide, "Now at: L4 Cellar", "say why in a sentence"} {
			if !strings.Contains(q, want) {
				t.Errorf("window %d: the question lacks %q:\n%s", tc.window, want, q)
			}
		}
	}
}

// TestAnswerRecordsItsOwnReason: an answer's decision carries the note's
// why; a note without one says so rather than borrow another text.
func TestAnswerRecordsItsOwnReason(t *testing.T) {
	store, err := memory.Open(filepath.Join(t.TempDir(), "Memories.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var rec decisionLog
	s := New(nil, store, 3)
	s.SetRecorder(&rec)
	turn := domain.Turn{Turn: 4, Actor: "agent", Action: "take egg", FromID: 5, FromName: "Up a Tree", ToID: 5, ScoreBefore: 0, ScoreAfter: 5}
	for _, n := range []Note{
		{Why: "the egg scores", ShouldRemember: true, Category: "SUCCESS", MemoryTitle: "Egg", MemoryText: "Take the egg.", Status: "ACTIVE"},
		{ShouldRemember: false, Category: "NOTE", Status: "ACTIVE"},
	} {
		if _, err := s.Answer(context.Background(), turn, n); err != nil {
			t.Fatal(err)
		}
	}
	if len(rec.got) != 2 || rec.got[0].Reply.Reasoning != "the egg scores" || rec.got[1].Reply.Reasoning != NoReason {
		t.Fatalf("decisions %+v, want the note's why, then %q", rec.got, NoReason)
	}
}

// TestAskedReadsBothQuestions: what the agent's question and the memory
// role's prompt say of the turn reads back whole.
func TestAskedReadsBothQuestions(t *testing.T) {
	store, err := memory.Open(filepath.Join(t.TempDir(), "Memories.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s := New(nil, store, 3)
	turn := domain.Turn{Turn: 12, Actor: "agent", Action: "take egg. then wait", FromID: 5, FromName: "Up a Tree", ToID: 6, ToName: "Forest Path",
		ScoreBefore: 10, ScoreAfter: 15, InvBefore: []string{"leaflet"}, InvAfter: []string{"leaflet", "jewel-encrusted egg"},
		Response: "Forest Path\nThis is a path winding through a dimly lit forest. The bird chirps.", NewRoom: true}
	why := s.Why(turn)
	want := Asked{Turn: 12, Actor: "agent", Action: "take egg. then wait", FromID: 5, FromName: "Up a Tree", ToID: 6, ToName: "Forest Path",
		Changed: why, ScoreBefore: 10, ScoreAfter: 15, InvBefore: []string{"leaflet"}, InvAfter: []string{"leaflet", "jewel-encrusted egg"}}
	q, ok := ParseAsked("You play.\n\n" + s.Question(turn, why, nil))
	if !ok || !reflect.DeepEqual(q, want) {
		t.Errorf("the agent's question read back as %+v (%v), want %+v", q, ok, want)
	}
	msgs := s.prompt(turn, why, nil)
	want.Response = turn.Response
	p, ok := ParseAsked(msgs[len(msgs)-1].Content)
	if !ok || !reflect.DeepEqual(p, want) {
		t.Errorf("the memory role's prompt read back as %+v (%v), want %+v", p, ok, want)
	}
	if !p.Has("score") || !p.Has("first visit") || p.Has("death") || len(p.Gained()) != 1 {
		t.Errorf("changed %v, gained %v", p.Changed, p.Gained())
	}
	if _, ok := ParseAsked("## Game state\nTurn 3."); ok {
		t.Error("a prompt without a question read as one")
	}
}
