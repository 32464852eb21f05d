package memsynth

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/memory"
)

type decisionLog struct{ got []Decision }

func (l *decisionLog) RecordDecision(_ context.Context, d Decision) error {
	l.got = append(l.got, d)
	return nil
}

// Every decision of the memory model is recorded and logged with its
// reasoning: a "don't remember" as much as a stored memory.
func TestEveryDecisionIsRecorded(t *testing.T) {
	client, fake := llmtest.NewClient(t, "fake")
	fake.On("no", llmtest.Role(config.RoleMemory), llmtest.Reply{Content: `{"should_remember": false, "category": "NOTE", "memory_title": "", "memory_text": "", "status": "ACTIVE", "supersedes_memory_titles": [], "reasoning": "a plain move, nothing new"}`})
	store, err := memory.Open(filepath.Join(t.TempDir(), "Memories.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var logBuf bytes.Buffer
	var rec decisionLog
	s := New(client, store, 3)
	s.SetTriggers(SeedTriggers())
	s.SetRecorder(&rec)
	s.SetLogger(slog.New(slog.NewTextHandler(&logBuf, nil)))
	turn := domain.Turn{Episode: 2, Turn: 5, Action: "north", FromID: 1, FromName: "West of House", ToID: 2, ToName: "North of House", Response: "North of House"}
	if _, err := s.ProcessTurn(context.Background(), turn); err != nil {
		t.Fatal(err)
	}
	fake.On("yes", llmtest.Role(config.RoleMemory), llmtest.Reply{Content: `{"should_remember": true, "category": "SUCCESS", "memory_title": "Take the lamp", "memory_text": "The lamp can be taken.", "status": "ACTIVE", "supersedes_memory_titles": [], "reasoning": "a light source"}`})
	take := domain.Turn{Episode: 2, Turn: 6, Action: "take lamp", FromID: 2, FromName: "North of House", ToID: 2, ToName: "North of House", InvAfter: []string{"lamp"}, Response: "Taken."}
	if res, err := s.ProcessTurn(context.Background(), take); err != nil || !res.Stored {
		t.Fatalf("take: %+v, %v", res, err)
	}
	if len(rec.got) != 2 {
		t.Fatalf("%d decisions recorded, want 2: %+v", len(rec.got), rec.got)
	}
	no, yes := rec.got[0], rec.got[1]
	if no.Outcome != "not remembered" || no.Reply.Reasoning != "a plain move, nothing new" || no.Turn != 5 || no.Episode != 2 || no.Location != 1 ||
		len(no.Triggers) != 1 || no.Triggers[0] != "movement to L2" {
		t.Errorf("the don't-remember decision = %+v", no)
	}
	if yes.Outcome != "stored" || yes.Location != 2 || yes.Triggers[0] != "inventory +lamp" {
		t.Errorf("the stored decision = %+v", yes)
	}
	for _, want := range []string{"a plain move, nothing new", `outcome="not remembered"`, `title="Take the lamp"`} {
		if !strings.Contains(logBuf.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logBuf.String())
		}
	}
}
