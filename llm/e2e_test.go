package llm_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
)

// End-to-end tests against a real Ollama server with the tiny local models
// (scripts/ollama-test-server.sh). They run when LANTERN_OLLAMA_E2E=1 and
// OLLAMA_HOST are set (.ci/run sets both).

const (
	tinyModel  = "lantern-tiny"
	thinkModel = "lantern-tiny-think"
)

func e2eClient(t *testing.T, model string, think config.Think) *llm.Client {
	t.Helper()
	if os.Getenv("LANTERN_OLLAMA_E2E") != "1" || os.Getenv("OLLAMA_HOST") == "" {
		t.Skip("set LANTERN_OLLAMA_E2E=1 and OLLAMA_HOST (scripts/ollama-test-server.sh start)")
	}
	roles := config.DefaultRoles()
	for k, r := range roles {
		r.Model, r.Think, r.NumPredict, r.Seed, r.Timeout = model, think, 384, 7, 2*time.Minute
		roles[k] = r
	}
	c, err := llm.New(llm.Options{Host: os.Getenv("OLLAMA_HOST"), Roles: roles})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// e2eProposal is shaped like the agent's reply; every string is bounded, as
// grammar-constrained decoding from random weights needs.
type e2eProposal struct {
	Reasoning  string `json:"reasoning" maxLength:"120"`
	Action     string `json:"action" maxLength:"40"`
	Importance int    `json:"importance" minimum:"0" maximum:"1000"`
	Category   string `json:"category" enum:"SUCCESS,FAILURE,DISCOVERY,DANGER,NOTE"`
}

func TestE2EStructuredDecodes20Of20(t *testing.T) {
	c := e2eClient(t, tinyModel, config.ThinkOff)
	for i := 0; i < 20; i++ {
		v, _, err := llm.Structured[e2eProposal](context.Background(), c, llm.Request{Role: config.RoleAgent, Messages: []llm.Message{llm.User("You are west of a house. What now?")}, Turn: i})
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		if v.Category == "" || v.Importance < 0 || v.Importance > 1000 {
			t.Fatalf("call %d decoded %+v", i+1, v)
		}
	}
	if s := c.Metrics.Role(config.RoleAgent); s.FormatRetries != 0 || s.Calls != 20 {
		t.Errorf("metrics %+v", s)
	}
}

func TestE2EStreamedDeltasMakeTheMessage(t *testing.T) {
	c := e2eClient(t, tinyModel, config.ThinkOff)
	var b strings.Builder
	deltas := 0
	reply, err := c.Chat(context.Background(), llm.Request{Role: config.RoleAgent, Messages: []llm.Message{llm.User("Say something.")},
		OnDelta: func(d llm.Delta) { b.WriteString(d.Content); deltas++ }})
	if err != nil {
		t.Fatal(err)
	}
	if deltas < 2 || b.String() != reply.Content {
		t.Fatalf("%d deltas made %q, the reply is %q", deltas, b.String(), reply.Content)
	}
	if reply.Metrics.PromptTokens == 0 || reply.Metrics.EvalTokens == 0 || reply.Metrics.PromptEstimated {
		t.Errorf("token counts not recorded: %+v", reply.Metrics)
	}
}

func TestE2EThinkingDeltas(t *testing.T) {
	c := e2eClient(t, thinkModel, config.ThinkOn)
	var thinking strings.Builder
	reply, err := c.Chat(context.Background(), llm.Request{Role: config.RoleAgent, Messages: []llm.Message{llm.User("Think, then answer.")},
		OnDelta: func(d llm.Delta) { thinking.WriteString(d.Thinking) }})
	if err != nil {
		t.Fatal(err)
	}
	if thinking.Len() == 0 || thinking.String() != reply.Thinking {
		t.Fatalf("thinking deltas %q, reply thinking %q", thinking.String(), reply.Thinking)
	}
}

func TestE2ECancellationStopsTheStream(t *testing.T) {
	c := e2eClient(t, tinyModel, config.ThinkOff)
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		_, err := c.Chat(ctx, llm.Request{Role: config.RoleAgent, Messages: []llm.Message{llm.User("Tell a very long story.")},
			OnDelta: func(llm.Delta) {
				select {
				case first <- struct{}{}:
				default:
				}
			}})
		done <- err
	}()
	select {
	case <-first:
	case err := <-done:
		t.Skipf("the reply ended before it could be cancelled: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
		// context.Canceled, not a finished reply: the cancellation, not the
		// reply's end, stopped the stream.
	case <-time.After(30 * time.Second):
		t.Fatal("cancelling did not end the stream")
	}
}

// recallArgs are a tool's arguments; the pattern keeps braces out of the
// strings (Ollama's tool parser counts braces inside strings).
type recallArgs struct {
	Location string `json:"location" pattern:"^[A-Za-z0-9 ]{1,20}$"`
}

// callShape is a format shaped like a tool call, which makes even a random
// model call the tool.
type callShape struct {
	Name      string     `json:"name" enum:"recall_memories"`
	Arguments recallArgs `json:"arguments"`
}

func TestE2EToolCallRoundTrip(t *testing.T) {
	c := e2eClient(t, tinyModel, config.ThinkOff)
	var got string
	tool, err := llm.NewTool("recall_memories", "memories about a location", func(_ context.Context, a recallArgs) (string, error) {
		got = a.Location
		return "The mailbox holds a leaflet.", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	shape, err := llm.SchemaOf(callShape{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := llm.Request{Role: config.RoleRetriever, Messages: []llm.Message{llm.User("What do you remember about West of House?")}, Tools: []llm.Tool{tool}, Format: shape}
	first, err := c.Chat(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.ToolCalls) != 1 || first.ToolCalls[0].Name != "recall_memories" {
		t.Fatalf("want one real tool call, got %+v (content %q)", first.ToolCalls, first.Content)
	}
	result, err := tool.Run(ctx, first.ToolCalls[0].Arguments)
	if err != nil || got == "" {
		t.Fatalf("tool run: %q, %v (arguments %s)", result, err, first.ToolCalls[0].Arguments)
	}
	msgs := append(req.Messages, llm.Message{Role: "assistant", ToolCalls: first.ToolCalls},
		llm.Message{Role: "tool", ToolName: "recall_memories", Content: result})
	answer, _, err := llm.Structured[e2eProposal](ctx, c, llm.Request{Role: config.RoleRetriever, Messages: msgs})
	if err != nil {
		t.Fatalf("answer after the tool result: %v", err)
	}
	if answer.Category == "" {
		t.Errorf("answer %+v", answer)
	}
}

func TestE2EMissingModel(t *testing.T) {
	c := e2eClient(t, "lantern-no-such-model", config.ThinkOff)
	_, err := c.Chat(context.Background(), llm.Request{Role: config.RoleCritic, Messages: []llm.Message{llm.User("hi")}})
	if !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), "ollama pull lantern-no-such-model") {
		t.Fatalf("error %v, want not found with a pull hint", err)
	}
}

func TestE2EModelsAndCapabilities(t *testing.T) {
	c := e2eClient(t, tinyModel, config.ThinkOff)
	models, err := c.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, m := range models {
		names[strings.TrimSuffix(m.Name, ":latest")] = true
	}
	if !names[tinyModel] || !names[thinkModel] {
		t.Fatalf("models %v", models)
	}
	info, err := c.Show(context.Background(), tinyModel)
	if err != nil || info.ContextLength == 0 || !info.Has(llm.CapTools) {
		t.Errorf("show %+v, %v", info, err)
	}
	if err := c.CheckRole(context.Background(), config.RoleAgent, llm.CapTools); err != nil {
		t.Errorf("lantern-tiny should support tools: %v", err)
	}
}
