package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

type verdict struct {
	Score         int    `json:"score"`
	Justification string `json:"justification"`
}

// TestOpenAIStructuredReasoningUsage: on the OpenAI protocol a structured
// call sends the schema as response_format, reasoning_content streams as
// thinking, the reply decodes, and the usage (with cached tokens) reaches
// the metrics; no num_ctx or keep_alive is sent.
func TestOpenAIStructuredReasoningUsage(t *testing.T) {
	s := fake(t)
	s.On("critic", llmtest.Role(config.RoleCritic),
		llmtest.Reply{Thinking: "North is open.", Content: `{"score": 7, "justification": "a new room"}`, PromptTokens: 300, EvalTokens: 12, CachedTokens: 256})
	c, _ := newClientFor(t, s, config.APIOpenAI, time.Second)
	var thinking strings.Builder
	req := ask(config.RoleCritic, "Proposed command: north")
	req.OnDelta = func(d llm.Delta) { thinking.WriteString(d.Thinking) }
	v, reply, err := llm.Structured[verdict](context.Background(), c, req)
	if err != nil {
		t.Fatal(err)
	}
	if v.Score != 7 || v.Justification != "a new room" || reply.Thinking != "North is open." || thinking.String() != "North is open." {
		t.Errorf("verdict %+v, thinking %q (streamed %q)", v, reply.Thinking, thinking.String())
	}
	m := reply.Metrics
	if m.PromptTokens != 300 || m.EvalTokens != 12 || m.Cached != 256 || m.PromptEstimated || m.Host != s.Host()+"/v1" {
		t.Errorf("metrics %+v", m)
	}
	reqs := s.ChatRequests()
	if len(reqs) != 1 || !reqs[0].OpenAI() {
		t.Fatalf("requests %+v", reqs)
	}
	r := reqs[0].Chat
	if len(r.Format) == 0 || !strings.Contains(string(r.Format), `"justification"`) {
		t.Errorf("response_format schema %s", r.Format)
	}
	if _, sent := r.Options["num_ctx"]; sent || r.KeepAlive != nil {
		t.Errorf("options %v, keep_alive %v: want neither num_ctx nor keep_alive", r.Options, r.KeepAlive)
	}
	if agg := c.Metrics.All(); agg.Calls != 1 || agg.PromptTokens != 300 || agg.EvalTokens != 12 {
		t.Errorf("aggregate %+v", agg)
	}
}

// TestOpenAIToolLoop: tool calls come back as OpenAI tool_calls, run, and
// their results go back as tool messages.
func TestOpenAIToolLoop(t *testing.T) {
	s := fake(t)
	s.On("retriever", llmtest.Role(config.RoleRetriever),
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "memories_at", Args: map[string]any{"location": 64}}}},
		llmtest.Reply{Content: "The mailbox holds a leaflet."})
	c, _ := newClientFor(t, s, config.APIOpenAI, time.Second)
	var got int
	tool, err := llm.NewTool("memories_at", "memories at a location", func(_ context.Context, a lookup) (string, error) {
		got = a.Location
		return "leaflet in mailbox", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := c.RunTools(context.Background(), ask(config.RoleRetriever, "what is at 64?"), []llm.Tool{tool}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got != 64 || reply.Content != "The mailbox holds a leaflet." {
		t.Errorf("tool got %d, reply %q", got, reply.Content)
	}
	reqs := s.ChatRequests()
	if len(reqs) != 2 || len(reqs[0].Chat.Tools) != 1 || reqs[0].Chat.Tools[0].Function.Name != "memories_at" {
		t.Fatalf("calls %d, tools %+v", len(reqs), reqs[0].Chat.Tools)
	}
	msgs := reqs[1].Chat.Messages
	call, last := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if len(call.ToolCalls) != 1 || call.ToolCalls[0].Function.Name != "memories_at" {
		t.Errorf("assistant tool call fed back as %+v", call)
	}
	if last.Role != "tool" || last.Content != "leaflet in mailbox" || last.ToolName != "memories_at" {
		t.Errorf("tool result fed back as %+v", last)
	}
}

// TestOpenAIModelsAndShow: the model list comes from /models, and a base
// Ollama serves adds /api/show's capabilities and length.
func TestOpenAIModelsAndShow(t *testing.T) {
	s := fake(t)
	c, _ := newClientFor(t, s, config.APIOpenAI, time.Second)
	ms, err := c.Models(context.Background())
	if err != nil || len(ms) != 1 || ms[0].Name != testModel {
		t.Fatalf("models %+v, %v", ms, err)
	}
	info, err := c.Show(context.Background(), testModel)
	if err != nil || info.ContextLength != 8192 || !info.Has(llm.CapTools) {
		t.Errorf("show %+v, %v", info, err)
	}
	if v, err := c.Version(context.Background()); err != nil || !strings.Contains(v, "OpenAI-compatible") {
		t.Errorf("version %q, %v", v, err)
	}
}

// TestHostsLeastBusy: a role with two servers sends concurrent calls to
// both, and sequential ones alternate.
func TestHostsLeastBusy(t *testing.T) {
	a, b := fake(t), fake(t)
	for _, s := range []*llmtest.Server{a, b} {
		s.Always("slow", llmtest.AnyCall(), llmtest.Reply{Content: "ok", Fault: llmtest.SlowFirstByte, Delay: 50 * time.Millisecond})
	}
	c, err := llm.New(llm.Options{Server: config.Server{Hosts: a.Host() + ", " + b.Host()}, Roles: roles(5 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 6)
	for range 6 {
		go func() {
			_, err := c.Chat(context.Background(), ask(config.RoleCritic, "hi"))
			done <- err
		}()
	}
	for range 6 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	na, nb := len(a.ChatRequests()), len(b.ChatRequests())
	if na != 3 || nb != 3 {
		t.Errorf("requests per host %d and %d, want 3 and 3", na, nb)
	}
	if per := c.RequestsPerHost(); per[a.Host()] != 3 || per[b.Host()] != 3 {
		t.Errorf("counted per host %v", per)
	}
}

// TestStructuredIgnoresUnknownFields: on either protocol, a reply with a
// field the schema did not ask for decodes at the first attempt (no format
// retry), the field left out; one that lacks a required field is still
// refused, naming the server by its protocol.
func TestStructuredIgnoresUnknownFields(t *testing.T) {
	for _, apiName := range []string{config.APIOllama, config.APIOpenAI} {
		t.Run(apiName, func(t *testing.T) {
			s := fake(t)
			s.On("critic", llmtest.Role(config.RoleCritic),
				llmtest.Reply{Content: `{"score": 3, "justification": "ok", "memory": {"title": "x"}, "Score": 9}`})
			c, _ := newClientFor(t, s, apiName, time.Second)
			v, reply, err := llm.Structured[verdict](context.Background(), c, ask(config.RoleCritic, "judge"))
			if err != nil {
				t.Fatal(err)
			}
			if v.Score != 3 || v.Justification != "ok" || reply.Metrics.FormatRetries != 0 || len(s.ChatRequests()) != 1 {
				t.Errorf("verdict %+v, %d retries, %d requests", v, reply.Metrics.FormatRetries, len(s.ChatRequests()))
			}
			s.Always("critic without its score", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"justification": "ok", "memory": {}}`})
			_, _, err = llm.Structured[verdict](context.Background(), c, ask(config.RoleCritic, "judge"))
			want := "Ollama at"
			if apiName == config.APIOpenAI {
				want = "server at"
			}
			if !errors.Is(err, llm.ErrInvalidReply) || !strings.Contains(err.Error(), "reply.score: missing") || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want ErrInvalidReply naming reply.score and %q", err, want)
			}
		})
	}
}
