package oracle

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/contextmgr"
)

// fakeClock is a pacer's time: sleeping advances it and records how long.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	slept  []time.Duration
	inside int // sleeps in progress
	most   int // the most at once
	gate   chan struct{}
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.inside++
	c.most = max(c.most, c.inside)
	c.slept = append(c.slept, d)
	c.mu.Unlock()
	if c.gate != nil {
		select {
		case <-c.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	c.mu.Lock()
	c.inside--
	c.t = c.t.Add(d)
	c.mu.Unlock()
	return nil
}

func testPacer(t *testing.T, slots int) (*Pacer, *fakeClock) {
	t.Helper()
	p, err := NewPacer(PaceOptions{PromptRate: 2000, GenRate: 50, Slots: slots})
	if err != nil {
		t.Fatal(err)
	}
	c := &fakeClock{t: time.Unix(0, 0)}
	p.sleep, p.now = c.sleep, c.now
	return p, c
}

func TestPacerCachesThePrefixPerSlot(t *testing.T) {
	p, _ := testPacer(t, 1)
	ctx := context.Background()
	base := strings.Repeat("s", 4000)
	tests := []struct {
		name, role, prompt string
		prompt2, cached    int
	}{
		{"cold", config.RoleAgent, base + "turn 1", 1002, 0},
		{"the critic continues the agent's prompt", config.RoleCritic, base + "turn 1" + strings.Repeat("c", 400), 1102, 1001},
		{"the next turn shares the system part", config.RoleAgent, base + "turn 2", 1002, 1001},
		{"an unrelated prompt", config.RoleMemory, strings.Repeat("m", 800), 200, 0},
	}
	for _, tt := range tests {
		r, err := p.Serve(ctx, tt.role, tt.prompt)
		if err != nil {
			t.Fatal(err)
		}
		if r.Prompt != tt.prompt2 || r.Cached != tt.cached {
			t.Errorf("%s: prompt %d cached %d, want %d and %d", tt.name, r.Prompt, r.Cached, tt.prompt2, tt.cached)
		}
		if r.Generated != DefaultBudget()[tt.role] {
			t.Errorf("%s: generated %d, want the %s budget %d", tt.name, r.Generated, tt.role, DefaultBudget()[tt.role])
		}
		want := time.Duration(float64(r.Evaluated())/2000*float64(time.Second)) + time.Duration(float64(r.Generated)/50*float64(time.Second))
		if got := r.PromptEval + r.Eval; got != want {
			t.Errorf("%s: took %v, want %v", tt.name, got, want)
		}
	}
	if tot := p.Totals(); tot.Requests != 4 || tot.Prompt != 1002+1102+1002+200 || tot.Cached != 2002 {
		t.Errorf("totals %+v", tot)
	}
}

func TestPacerPicksTheSlotWithTheLongestPrefix(t *testing.T) {
	p, _ := testPacer(t, 2)
	ctx := context.Background()
	agent := strings.Repeat("a", 2000)
	memory := strings.Repeat("m", 2000)
	first, _ := p.Serve(ctx, config.RoleAgent, agent+"1")
	second, _ := p.Serve(ctx, config.RoleMemory, memory+"1")
	if first.Slot == second.Slot {
		t.Fatalf("two free slots, both requests went to slot %d", first.Slot)
	}
	again, _ := p.Serve(ctx, config.RoleAgent, agent+"2")
	if again.Slot != first.Slot || again.Cached != 500 {
		t.Errorf("the agent's next prompt went to slot %d with %d cached, want slot %d with 500", again.Slot, again.Cached, first.Slot)
	}
}

func TestPacerQueuesBeyondItsSlots(t *testing.T) {
	for _, slots := range []int{1, 3} {
		p, c := testPacer(t, slots)
		c.gate = make(chan struct{})
		ctx := context.Background()
		var wg sync.WaitGroup
		for i := range 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := p.Serve(ctx, config.RoleAgent, strings.Repeat("x", 100*i)); err != nil {
					t.Error(err)
				}
			}()
		}
		for range 5 {
			c.gate <- struct{}{}
		}
		wg.Wait()
		if c.most > slots {
			t.Errorf("%d slots served %d requests at once", slots, c.most)
		}
		if len(c.slept) != 5 {
			t.Errorf("%d slots: %d requests served, want 5", slots, len(c.slept))
		}
	}
}

func TestPacerWaiterGivesUp(t *testing.T) {
	p, c := testPacer(t, 1)
	c.gate = make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := p.Serve(context.Background(), config.RoleAgent, "first")
		done <- err
	}()
	// Wait until the first request holds the slot.
	for {
		p.mu.Lock()
		busy := p.slots[0].busy
		p.mu.Unlock()
		if busy {
			break
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan error, 1)
	go func() {
		_, err := p.Serve(ctx, config.RoleCritic, "second")
		waited <- err
	}()
	cancel()
	if err := <-waited; err == nil {
		t.Error("a cancelled waiter was served")
	}
	c.gate <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	c.gate = nil
	if r, err := p.Serve(context.Background(), config.RoleAgent, "third"); err != nil || r.Slot != 0 {
		t.Errorf("after a waiter gave up the slot is not free: %+v, %v", r, err)
	}
}

func TestNewPacerRefusesBadOptions(t *testing.T) {
	for _, o := range []PaceOptions{{PromptRate: 0, GenRate: 60, Slots: 1}, {PromptRate: 2500, GenRate: 60, Slots: 0}} {
		if _, err := NewPacer(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestPacedRepliesReportTheModelsCounts plays two agent calls through the
// client against a paced oracle: the reply's counts are the role's budget
// and the whole prompt, its durations the pacer's.
func TestPacedRepliesReportTheModelsCounts(t *testing.T) {
	pacer, c := testPacer(t, 1)
	client, _ := serve(t, Options{Script: []string{"N", "S"}, Pacer: pacer}, config.ThinkOff)
	ctx := context.Background()
	msgs := contextmgr.Build(contextmgr.Input{Turn: 1, LocationName: "West of House"})
	_, reply, err := llm.Structured[engine.Proposal](ctx, client, llm.Request{Role: config.RoleAgent, Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	m := reply.Metrics
	if m.EvalTokens != DefaultBudget()[config.RoleAgent] {
		t.Errorf("eval_count %d, want the agent's budget %d", m.EvalTokens, DefaultBudget()[config.RoleAgent])
	}
	if len(c.slept) != 1 || m.Eval+m.PromptEval != c.slept[0] {
		t.Errorf("durations %v + %v, the pacer slept %v", m.PromptEval, m.Eval, c.slept)
	}
	if want := tokens(len(PromptText(&api.ChatRequest{Messages: apiMessages(msgs)}))); m.PromptTokens != want {
		t.Errorf("prompt_eval_count %d, want the whole prompt %d", m.PromptTokens, want)
	}
}

func apiMessages(msgs []llm.Message) []api.Message {
	out := make([]api.Message, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, api.Message{Role: m.Role, Content: m.Content})
	}
	return out
}

// TestReplyChargedWhatItCarries: a reply that carries a memory decision is
// paced by what it carries (a memory kept, or nothing); other replies by
// their role.
func TestReplyChargedWhatItCarries(t *testing.T) {
	withMemory := json.RawMessage(`{"type":"object","properties":{"memory":{"type":"object"},"action":{"type":"string"}}}`)
	plain := json.RawMessage(`{"type":"object","properties":{"action":{"type":"string"}}}`)
	for _, c := range []struct {
		role    string
		format  json.RawMessage
		content string
		want    string
	}{
		{config.RoleAgent, withMemory, `{"memory": {"should_remember": true}, "action": "n"}`, BudgetAgentMemory},
		{config.RoleAgent, withMemory, `{"memory": {"should_remember": false}, "action": "n"}`, BudgetAgentNothing},
		{config.RoleAgent, withMemory, `{"action": "n"}`, BudgetAgentMemory},
		{config.RoleAgent, plain, `{"action": "n"}`, config.RoleAgent},
		{config.RoleMemory, nil, `{"should_remember": true}`, config.RoleMemory},
		{config.RoleMemory, nil, `{"should_remember": false}`, BudgetMemoryNothing},
		{config.RoleCritic, nil, `{"score": 3}`, config.RoleCritic},
	} {
		if got := budgetKey(c.role, c.format, c.content); got != c.want {
			t.Errorf("%s %s: budget %q, want %q", c.role, c.content, got, c.want)
		}
	}
	b := DefaultBudget()
	if !(b[BudgetAgentNothing] < b[BudgetAgentMemory] && b[BudgetMemoryNothing] < b[config.RoleMemory]) {
		t.Errorf("budgets %v: keeping nothing must cost less than keeping a memory", b)
	}
}
