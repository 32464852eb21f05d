package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

const testModel = "tiny"

func roles(timeout time.Duration) map[string]config.Role {
	rs := config.DefaultRoles()
	for k, r := range rs {
		r.Model = testModel
		r.Timeout = timeout
		rs[k] = r
	}
	return rs
}

func newClient(t *testing.T, host string, timeout time.Duration) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Options{Host: host, Roles: roles(timeout), Retry: llm.RetryPolicy{Attempts: 3, Backoff: time.Millisecond, Max: 2 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func fake(t *testing.T) *llmtest.Server {
	s := llmtest.New(t)
	s.AddModel(testModel, 8192, "tools")
	return s
}

func ask(role, prompt string) llm.Request {
	return llm.Request{Role: role, Messages: []llm.Message{llm.User(prompt)}}
}

// newClientFor makes a client on the fake in a protocol.
func newClientFor(t *testing.T, s *llmtest.Server, apiName string, timeout time.Duration) (*llm.Client, string) {
	t.Helper()
	opts := llm.Options{Host: s.Host(), Roles: roles(timeout), Retry: llm.RetryPolicy{Attempts: 3, Backoff: time.Millisecond, Max: 2 * time.Millisecond}}
	host := s.Host()
	if apiName == config.APIOpenAI {
		opts.Server = config.Server{API: config.APIOpenAI, BaseURL: s.BaseURL()}
		host += "/v1"
	}
	c, err := llm.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, host
}

// TestFaults is the model-fault matrix, on Ollama's API and on the OpenAI
// protocol alike: the same typed errors, attempts and hints.
func TestFaults(t *testing.T) {
	for _, apiName := range []string{config.APIOllama, config.APIOpenAI} {
		t.Run(apiName, func(t *testing.T) { faultMatrix(t, apiName) })
	}
}

func faultMatrix(t *testing.T, apiName string) {
	ok := llmtest.Reply{Content: "fine"}
	notFoundHint, authHint := "ollama pull tiny", "ollama signin"
	if apiName == config.APIOpenAI {
		notFoundHint, authHint = "does not serve tiny", "api_key_env"
	}
	giant := strings.Repeat("word ", llm.DefaultMaxReply/5+1000)
	tests := []struct {
		name     string
		replies  []llmtest.Reply
		timeout  time.Duration
		want     error
		attempts int
		inMsg    string
	}{
		{"server error three times", []llmtest.Reply{{Fault: llmtest.HTTP500}, {Fault: llmtest.HTTP500}, {Fault: llmtest.HTTP500}}, time.Second, llm.ErrServer, 3, "HTTP 500"},
		{"server error then success", []llmtest.Reply{{Fault: llmtest.HTTP500}, ok}, time.Second, nil, 2, ""},
		{"model not found", []llmtest.Reply{{Fault: llmtest.NotFound}}, time.Second, llm.ErrModelNotFound, 1, notFoundHint},
		{"unauthorized", []llmtest.Reply{{Fault: llmtest.Unauthorized}}, time.Second, llm.ErrUnauthorized, 1, authHint},
		{"giant reply", []llmtest.Reply{{Content: giant, ChunkRunes: 32 << 10}}, 10 * time.Second, llm.ErrReplyTooLarge, 1, "too large"},
		{"bad request", []llmtest.Reply{{Fault: llmtest.BadRequest}}, time.Second, llm.ErrBadRequest, 1, "invalid options"},
		{"slow first byte", []llmtest.Reply{{Fault: llmtest.SlowFirstByte, Delay: time.Second}}, 100 * time.Millisecond, llm.ErrTimeout, 1, "raise the role's timeout"},
		{"stream cut", []llmtest.Reply{{Content: "a long reply cut short", Fault: llmtest.CutMidStream}, {Content: "again cut short here", Fault: llmtest.CutMidStream}, {Content: "and once more cut short", Fault: llmtest.CutMidStream}}, time.Second, llm.ErrStreamCut, 3, "cut off"},
		{"stream cut then success", []llmtest.Reply{{Content: "a long reply cut short", Fault: llmtest.CutMidStream}, ok}, time.Second, nil, 2, ""},
		{"malformed JSON", []llmtest.Reply{{Content: "some words here", Fault: llmtest.MalformedJSON}, {Content: "some words here", Fault: llmtest.MalformedJSON}, {Content: "some words here", Fault: llmtest.MalformedJSON}}, time.Second, llm.ErrMalformed, 3, "malformed"},
		{"empty reply", []llmtest.Reply{{}, {}, {}}, time.Second, llm.ErrEmptyReply, 3, "empty reply"},
		{"never ends", []llmtest.Reply{{Content: "start", Fault: llmtest.NeverEnds}}, 150 * time.Millisecond, llm.ErrTimeout, 1, "timed out"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := fake(t)
			s.On(tc.name, llmtest.Role(config.RoleAgent), tc.replies...)
			c, host := newClientFor(t, s, apiName, tc.timeout)
			reply, err := c.Chat(context.Background(), ask(config.RoleAgent, "hello"))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("want success, got %v", err)
				}
				if reply.Content != "fine" {
					t.Errorf("content %q", reply.Content)
				}
			} else if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if reply.Metrics.Attempts != tc.attempts {
				t.Errorf("attempts %d, want %d", reply.Metrics.Attempts, tc.attempts)
			}
			if tc.want != nil {
				var e *llm.Error
				if !errors.As(err, &e) || e.Role != config.RoleAgent || e.Model != testModel || e.Host != host {
					t.Errorf("error %#v lacks role, model or host", err)
				}
				if !strings.Contains(err.Error(), tc.inMsg) {
					t.Errorf("message %q lacks %q", err.Error(), tc.inMsg)
				}
			}
		})
	}
}

func TestUnreachableNamesHost(t *testing.T) {
	host := llmtest.RefusedHost(t)
	c := newClient(t, host, time.Second)
	_, err := c.Chat(context.Background(), ask(config.RoleAgent, "hi"))
	if !errors.Is(err, llm.ErrUnreachable) {
		t.Fatalf("error %v, want ErrUnreachable", err)
	}
	var e *llm.Error
	if !errors.As(err, &e) || e.Attempts != 3 {
		t.Errorf("want 3 attempts, got %+v", e)
	}
	for _, want := range []string{"Ollama", host, "ollama serve"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

func TestModelMissingFromShow(t *testing.T) {
	s := llmtest.New(t) // no models at all
	c := newClient(t, s.Host(), time.Second)
	_, err := c.Chat(context.Background(), ask(config.RoleCritic, "hi"))
	if !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), "ollama pull tiny") {
		t.Fatalf("error %v, want not-found with a pull hint", err)
	}
	if n := len(s.ChatRequests()); n != 0 {
		t.Errorf("%d chat calls for a missing model, want none", n)
	}
}

func TestStreamingOrder(t *testing.T) {
	s := fake(t)
	s.On("agent", llmtest.Role(config.RoleAgent), llmtest.Reply{Thinking: "Let me think about the mailbox.", Content: "Open the mailbox, then read the leaflet."})
	c := newClient(t, s.Host(), time.Second)
	var content, thinking strings.Builder
	sawContent := false
	req := ask(config.RoleAgent, "what now?")
	req.OnDelta = func(d llm.Delta) {
		if d.Thinking != "" && sawContent {
			t.Error("thinking delta after content")
		}
		sawContent = sawContent || d.Content != ""
		content.WriteString(d.Content)
		thinking.WriteString(d.Thinking)
	}
	reply, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if content.String() != reply.Content || thinking.String() != reply.Thinking {
		t.Errorf("deltas %q/%q do not make the reply %q/%q", content.String(), thinking.String(), reply.Content, reply.Thinking)
	}
	if reply.Metrics.PromptTokens != 42 || reply.Metrics.EvalTokens == 0 {
		t.Errorf("token counts %+v", reply.Metrics)
	}
	if got := c.Metrics.Role(config.RoleAgent); got.Calls != 1 || got.PromptTokens != 42 {
		t.Errorf("aggregate %+v", got)
	}
}

func TestCancellationStopsStream(t *testing.T) {
	s := fake(t)
	s.On("never", llmtest.AnyCall(), llmtest.Reply{Content: "streaming", Fault: llmtest.NeverEnds})
	c := newClient(t, s.Host(), time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	req := ask(config.RoleAgent, "go")
	first := make(chan struct{}, 1)
	req.OnDelta = func(llm.Delta) {
		select {
		case first <- struct{}{}:
		default:
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Chat(ctx, req)
		done <- err
	}()
	<-first
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second): // a stream that never ends: only the cancellation stops it
		t.Fatal("cancellation did not stop the stream")
	}
}

type proposal struct {
	Reasoning string `json:"reasoning" maxLength:"200"`
	Action    string `json:"action" maxLength:"40"`
	Mood      string `json:"mood" enum:"calm,bold"`
}

func TestStructuredFormatReminder(t *testing.T) {
	s := fake(t)
	s.On("agent", llmtest.Role(config.RoleAgent),
		llmtest.Reply{Content: `{"reasoning": "x", "action": "north"}`}, // mood missing
		llmtest.Reply{Content: "<think>north is open</think>```json\n{\"reasoning\": \"the path\", \"action\": \"north\", \"mood\": \"bold\"}\n```"})
	c := newClient(t, s.Host(), time.Second)
	v, reply, err := llm.Structured[proposal](context.Background(), c, ask(config.RoleAgent, "move"))
	if err != nil {
		t.Fatal(err)
	}
	if v.Action != "north" || v.Mood != "bold" {
		t.Errorf("decoded %+v", v)
	}
	if reply.Thinking != "north is open" {
		t.Errorf("reasoning from tags %q", reply.Thinking)
	}
	if reply.Metrics.FormatRetries != 1 {
		t.Errorf("format retries %d, want 1", reply.Metrics.FormatRetries)
	}
	reqs := s.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d calls, want 2", len(reqs))
	}
	if !strings.Contains(reqs[1].Prompt(), "reply.mood: missing") {
		t.Errorf("the retry does not say what was wrong: %q", reqs[1].Prompt())
	}
	var schema map[string]any
	if err := json.Unmarshal(reqs[0].Chat.Format, &schema); err != nil || schema["type"] != "object" {
		t.Errorf("format sent %s", reqs[0].Chat.Format)
	}
}

func TestStructuredGivesUpAfterThree(t *testing.T) {
	s := fake(t)
	bad := llmtest.Reply{Content: `{"reasoning": "x", "action": "north", "mood": "angry"}`}
	s.On("agent", llmtest.Role(config.RoleAgent), bad, bad, bad)
	c := newClient(t, s.Host(), time.Second)
	_, _, err := llm.Structured[proposal](context.Background(), c, ask(config.RoleAgent, "move"))
	var e *llm.Error
	if !errors.Is(err, llm.ErrInvalidReply) || !errors.As(err, &e) || e.Attempts != 3 {
		t.Fatalf("error %v, want ErrInvalidReply after 3 attempts", err)
	}
	if !strings.Contains(err.Error(), `"angry" is not one of calm, bold`) {
		t.Errorf("message %q does not say what was wrong", err)
	}
}

type lookup struct {
	Location int `json:"location" minimum:"1"`
}

func TestToolLoop(t *testing.T) {
	s := fake(t)
	s.On("retriever", llmtest.Role(config.RoleRetriever),
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "memories_at", Args: map[string]any{"location": 64}}}},
		llmtest.Reply{Content: "The mailbox holds a leaflet."})
	c := newClient(t, s.Host(), time.Second)
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
	if len(reqs) != 2 || len(reqs[0].Chat.Tools) != 1 {
		t.Fatalf("calls %d, tools declared %d", len(reqs), len(reqs[0].Chat.Tools))
	}
	last := reqs[1].Chat.Messages[len(reqs[1].Chat.Messages)-1]
	if last.Role != "tool" || last.Content != "leaflet in mailbox" || last.ToolName != "memories_at" {
		t.Errorf("tool result fed back as %+v", last)
	}
}

func TestToolLoopBounded(t *testing.T) {
	s := fake(t)
	call := llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "memories_at", Args: map[string]any{"location": 1}}}}
	s.On("loop", llmtest.AnyCall(), call, call, call)
	c := newClient(t, s.Host(), time.Second)
	tool, _ := llm.NewTool("memories_at", "m", func(context.Context, lookup) (string, error) { return "x", nil })
	_, err := c.RunTools(context.Background(), ask(config.RoleRetriever, "?"), []llm.Tool{tool}, 2)
	if !errors.Is(err, llm.ErrToolLoop) {
		t.Fatalf("error %v, want ErrToolLoop", err)
	}
}

func TestThinkSetting(t *testing.T) {
	s := llmtest.New(t)
	s.AddModel(testModel, 8192, "thinking")
	s.On("any", llmtest.AnyCall(), llmtest.Reply{Content: "a"}, llmtest.Reply{Content: "b"})
	c := newClient(t, s.Host(), time.Second)
	c.Chat(context.Background(), ask(config.RoleAgent, "auto thinks on a thinking model"))
	c.Chat(context.Background(), ask(config.RoleCritic, "off"))
	reqs := s.ChatRequests()
	if th := reqs[0].Chat.Think; th == nil || th.Value != true {
		t.Errorf("agent (auto) think = %+v, want true", th)
	}
	if th := reqs[1].Chat.Think; th == nil || th.Value != false {
		t.Errorf("critic (off) think = %+v, want false", th)
	}
}

func TestModelsPullAndCapabilities(t *testing.T) {
	s := fake(t)
	c := newClient(t, s.Host(), time.Second)
	var progress []llm.PullProgress
	if err := c.Pull(context.Background(), "newcomer", func(p llm.PullProgress) { progress = append(progress, p) }); err != nil {
		t.Fatal(err)
	}
	if len(progress) < 3 || progress[len(progress)-1].Status != "success" {
		t.Errorf("progress %+v", progress)
	}
	models, err := c.Models(context.Background())
	if err != nil || len(models) != 2 {
		t.Fatalf("models %v, %v", models, err)
	}
	c.SetModel(config.RoleAgent, "newcomer")
	err = c.CheckRole(context.Background(), config.RoleAgent, llm.CapTools)
	if !errors.Is(err, llm.ErrUnsupported) || !strings.Contains(err.Error(), "model newcomer does not support tools; pick another for the agent role") {
		t.Errorf("error %v", err)
	}
	if v, err := c.Version(context.Background()); err != nil || v != "0.17.4" {
		t.Errorf("version %q, %v", v, err)
	}
}

func TestSplitReasoning(t *testing.T) {
	tests := []struct{ in, reasoning, rest string }{
		{"<think>a</think>{}", "a", "{}"},
		{"<thinking>b</thinking> x <reflection>c</reflection>", "b\nc", "x"},
		{"plain", "", "plain"},
	}
	for _, tc := range tests {
		r, rest := llm.SplitReasoning(tc.in)
		if r != tc.reasoning || rest != tc.rest {
			t.Errorf("SplitReasoning(%q) = %q, %q", tc.in, r, rest)
		}
	}
}

func TestThinkLevelsAndKeepAliveAsOllamaReadsThem(t *testing.T) {
	s := llmtest.New(t)
	s.AddModel(testModel, 8192, "thinking")
	s.On("any", llmtest.AnyCall(), llmtest.Reply{Content: "a"}, llmtest.Reply{Content: "b"}, llmtest.Reply{Content: "c"})
	roles := roles(time.Second)
	set := func(name string, th config.Think, ka time.Duration) {
		r := roles[name]
		r.Think, r.KeepAlive = th, ka
		roles[name] = r
	}
	set(config.RoleAgent, config.ThinkHigh, -time.Second)
	set(config.RoleCritic, config.ThinkLow, 0)
	set(config.RoleMemory, config.ThinkOff, 10*time.Minute)
	c, err := llm.New(llm.Options{Host: s.Host(), Roles: roles})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{config.RoleAgent, config.RoleCritic, config.RoleMemory} {
		if _, err := c.Chat(context.Background(), ask(r, "x")); err != nil {
			t.Fatal(err)
		}
	}
	want := []struct {
		think any
		keep  time.Duration
	}{{"high", -1}, {"low", 0}, {false, 10 * time.Minute}}
	for i, r := range s.ChatRequests() {
		if r.Chat.Think == nil || r.Chat.Think.Value != want[i].think {
			t.Errorf("call %d: think %+v, want %v", i, r.Chat.Think, want[i].think)
		}
		ka := r.Chat.KeepAlive
		switch {
		case want[i].keep == 0 && ka != nil:
			t.Errorf("call %d: keep_alive %v sent, want none (the server's default)", i, ka.Duration)
		case want[i].keep == 0:
		case ka == nil:
			t.Errorf("call %d: no keep_alive sent", i)
		case want[i].keep < 0 && ka.Duration >= 0 && ka.Duration != time.Duration(math.MaxInt64),
			want[i].keep >= 0 && ka.Duration != want[i].keep:
			// Ollama decodes a negative keep_alive as "forever".
			t.Errorf("call %d: keep_alive %v, want %v", i, ka.Duration, want[i].keep)
		}
	}
}
