package memsynth

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/memory"
)

func openStore(t *testing.T) *memory.Store {
	t.Helper()
	store, err := memory.Open(filepath.Join(t.TempDir(), "Memories.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// A memory's span is what its answer says (first_turn, one of the recent
// turns shown), else the turn alone; staying in one room never makes one.
// Its score is written when it changed, and as the design's "+0" on every
// category but a failure; its level is the answer's, PERMANENT (none
// written) by default.
func TestAnswerSpanScoreAndLevel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		note  Note
		score int
		want  string // the entry's header in Memories.md
	}{
		{"single action", Note{Category: "SUCCESS", MemoryTitle: "Take bell"}, 0, "**[SUCCESS] Take bell** *(Ep1, T83, +0)*"},
		{"procedure", Note{Category: "SUCCESS", MemoryTitle: "Window entry", FirstTurn: 81}, 0, "**[SUCCESS] Window entry** *(Ep1, T81-83, +0)*"},
		{"first turn outside the window", Note{Category: "SUCCESS", MemoryTitle: "Long way", FirstTurn: 70}, 0, "**[SUCCESS] Long way** *(Ep1, T83, +0)*"},
		{"first turn is this one", Note{Category: "DISCOVERY", MemoryTitle: "Bell rings", FirstTurn: 83}, 0, "**[DISCOVERY] Bell rings** *(Ep1, T83, +0)*"},
		{"first turn after this one", Note{Category: "DISCOVERY", MemoryTitle: "Later", FirstTurn: 90}, 0, "**[DISCOVERY] Later** *(Ep1, T83, +0)*"},
		{"scoring", Note{Category: "SUCCESS", MemoryTitle: "Egg", Persistence: "CORE"}, 5, "**[SUCCESS - CORE] Egg** *(Ep1, T83, +5)*"},
		{"failure", Note{Category: "FAILURE", MemoryTitle: "Break window"}, 0, "**[FAILURE] Break window** *(Ep1, T83)*"},
		{"failure that costs", Note{Category: "FAILURE", MemoryTitle: "Cursed", Persistence: "EPHEMERAL"}, -2, "**[FAILURE - EPHEMERAL] Cursed** *(Ep1, T83, -2)*"},
		{"danger", Note{Category: "DANGER", MemoryTitle: "Grue", Persistence: "PERMANENT"}, 0, "**[DANGER - PERMANENT] Grue** *(Ep1, T83, +0)*"},
		{"note", Note{Category: "NOTE", MemoryTitle: "Hub"}, 0, "**[NOTE] Hub** *(Ep1, T83, +0)*"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := openStore(t)
			s := New(nil, store, 3)
			for turn := 79; turn < 83; turn++ { // in one room all along
				s.remember(domain.Turn{Episode: 1, Turn: turn, FromID: 7, ToID: 7, Action: "wait"})
			}
			n := tc.note
			n.ShouldRemember, n.Status, n.MemoryText = true, "ACTIVE", "Text."
			turn := domain.Turn{Episode: 1, Turn: 83, Actor: "agent", Action: "ring bell", FromID: 7, FromName: "Temple", ToID: 7,
				ScoreBefore: 10, ScoreAfter: 10 + tc.score}
			res, err := s.Answer(context.Background(), turn, n)
			if err != nil || !res.Stored {
				t.Fatalf("stored %v, err %v", res.Stored, err)
			}
			data, _ := readFile(store.Path())
			if !strings.Contains(data, tc.want+"\n") {
				t.Errorf("Memories.md:\n%s\nwant %s", data, tc.want)
			}
		})
	}
}

// ITEM is the game's: a model's answer with it is refused.
func TestModelCannotWriteItems(t *testing.T) {
	s := New(nil, openStore(t), 3)
	turn := domain.Turn{Episode: 1, Turn: 2, Action: "get lamp", FromID: 7, FromName: "Living Room", ToID: 7}
	if _, err := s.Answer(context.Background(), turn, Note{ShouldRemember: true, Category: "ITEM", MemoryTitle: "lamp", Status: "ACTIVE"}); err == nil {
		t.Fatal("a model's ITEM memory was stored")
	}
}

// The memory role's schema offers the level and the span, both optional:
// an answer without them is read (an older model, the oracle).
func TestReplyWithoutLevelOrSpan(t *testing.T) {
	client, fake := llmtest.NewClient(t, "fake")
	fake.On("memory", llmtest.Role(config.RoleMemory), llmtest.Reply{Content: `{"should_remember": true, "category": "SUCCESS", "memory_title": "Lamp lit", "memory_text": "It glows.", "status": "ACTIVE", "supersedes_memory_titles": [], "reasoning": "r"}`})
	store := openStore(t)
	s := New(client, store, 3)
	turn := domain.Turn{Episode: 1, Turn: 4, Action: "light lamp", FromID: 7, FromName: "Attic", ToID: 7, ScoreBefore: 0, ScoreAfter: 1}
	res, err := s.ProcessTurn(context.Background(), turn)
	if err != nil || !res.Stored {
		t.Fatalf("stored %v, err %v", res.Stored, err)
	}
	m := store.List(7)[0]
	if m.Persistence != "" || m.Level() != memory.PersistencePermanent || m.TurnEnd != 0 {
		t.Errorf("memory %+v: want no level written (PERMANENT) and a single turn", m)
	}
	reqs := fake.ChatRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	prompt := reqs[0].Chat.Messages[0].Content
	for _, want := range []string{levelGuide, spanGuide} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the memory prompt lacks %q", want)
		}
	}
}

func readFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	return string(data), err
}
