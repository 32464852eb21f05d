package session

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm/chatserve"
)

// slowMemory is a memory role that takes delay a call, then remembers
// the turn (rememberAll); calls counts them.
type slowMemory struct {
	delay time.Duration
	calls *atomic.Int32
}

func (slowMemory) Models() []chatserve.Model { return nil }

func (m slowMemory) Chat(req *chatserve.Request) (chatserve.Answer, error) {
	m.calls.Add(1)
	select {
	case <-time.After(m.delay):
	case <-req.HTTP.Context().Done():
		return chatserve.Answer{}, req.HTTP.Context().Err()
	}
	return rememberAll{}.Chat(req)
}

// TestSlowMemoryLeavesNothingBehind: with a memory role that takes 5 s a
// call and turn 4's memory question pending (it scored: Get egg), nothing
// of the play reaches Memories.md after the engine has moved on. A rewind
// (with the memory undo) drops the question, recorded as unanswered, and
// calls no model; a quit stops the work in flight when the session closes
// (it stays stored for a resume); the episode's end waits for the answer,
// however long it takes, before the episode is over.
func TestSlowMemoryLeavesNothingBehind(t *testing.T) {
	cases := []struct {
		name     string
		maxTurns int
		at       func(e *engine.Engine) engine.Command // sent at turn 4's result (nil: none)
		memCalls int32
		kept     bool // turn 4's memory in Memories.md at the end
	}{
		{"rewind", 0, func(*engine.Engine) engine.Command { return engine.Rewind{Turn: 2, UndoMemories: true} }, 0, false},
		{"quit", 0, func(*engine.Engine) engine.Command { return engine.Quit{} }, -1, false},
		{"episode end", 4, nil, 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := &atomic.Int32{}
			sess := oracleSessionWith(t, t.TempDir(), slowMemory{delay: 5 * time.Second, calls: calls}, func(o *Options) {
				o.MemoryWithAgent = true
				o.Engine.MaxTurns = c.maxTurns
			})
			e := sess.Engine
			go e.Run(context.Background())
			untilIdle(t, e)
			send(t, e, engine.Unpause{})
			var snapshot []byte
			snap := func() {
				var err error
				if snapshot, err = os.ReadFile(sess.Memories.Path()); err != nil {
					t.Fatal(err)
				}
			}
			sent := false
			for ev := range e.Events() {
				switch v := ev.(type) {
				case engine.TurnResult:
					if v.Turn == 4 && c.at != nil && !sent {
						sent = true
						send(t, e, c.at(e))
					}
				case engine.Idle:
					if sent && c.name == "rewind" {
						snap() // the switch is done
						send(t, e, engine.Quit{})
					}
				case engine.EpisodeEnded:
					snap()
				case engine.Stopped:
					if c.name == "quit" {
						snap()
					}
				}
			}
			if c.name == "rewind" {
				ds, err := sess.DB.Decisions(context.Background(), 0)
				if err != nil {
					t.Fatal(err)
				}
				unanswered := false
				for _, d := range ds {
					unanswered = unanswered || d.Turn == 4 && strings.HasPrefix(d.Outcome, "unanswered")
				}
				if !unanswered {
					t.Errorf("turn 4's decision is not recorded as unanswered: %+v", ds)
				}
			}
			if err := sess.Close(); err != nil { // waits for the back office
				t.Fatal(err)
			}
			after, err := os.ReadFile(sess.Memories.Path())
			if err != nil {
				t.Fatal(err)
			}
			if snapshot == nil || string(after) != string(snapshot) {
				t.Errorf("Memories.md changed after the engine moved on:\n--- then\n%s\n--- at the end\n%s", snapshot, after)
			}
			if kept := strings.Contains(string(after), "Seen at turn 4"); kept != c.kept {
				t.Errorf("turn 4's memory kept: %v, want %v", kept, c.kept)
			}
			if c.memCalls >= 0 && calls.Load() != c.memCalls {
				t.Errorf("%d memory calls, want %d", calls.Load(), c.memCalls)
			}
		})
	}
}
