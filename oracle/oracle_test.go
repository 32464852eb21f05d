package oracle

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/chatserve"
	"github.com/lantern-if/lantern/managers/contextmgr"
	"github.com/lantern-if/lantern/managers/knowledge"
	"github.com/lantern-if/lantern/managers/memsynth"
	"github.com/lantern-if/lantern/managers/objectives"
	"github.com/lantern-if/lantern/managers/supervisor"
)

// serve starts an oracle on a test server and returns a client whose every
// role uses the oracle model.
func serve(t *testing.T, opts Options, think config.Think) (*llm.Client, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(New(opts))
	t.Cleanup(srv.Close)
	roles := config.DefaultRoles()
	for k, r := range roles {
		r.Model, r.Timeout = ModelName, 10*time.Second
		if k == config.RoleAgent {
			r.Think = think
		}
		roles[k] = r
	}
	c, err := llm.New(llm.Options{Host: strings.TrimPrefix(srv.URL, "http://"), Roles: roles,
		Retry: llm.RetryPolicy{Attempts: 1, Backoff: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

func TestAgentStreamsThroughTheClient(t *testing.T) {
	c, _ := serve(t, Options{Script: []string{"N", "Open window"}}, config.ThinkOff)
	ctx := context.Background()
	var deltas []llm.Delta
	msgs := contextmgr.Build(contextmgr.Input{Turn: 1, LocationName: "West of House"})
	p, reply, err := llm.Structured[engine.Proposal](ctx, c, llm.Request{Role: config.RoleAgent, Messages: msgs,
		OnDelta: func(d llm.Delta) { deltas = append(deltas, d) }})
	if err != nil {
		t.Fatal(err)
	}
	if p.Action != "N" || !strings.Contains(p.Reasoning, "Step 1 of 2") || p.Remember != "" || p.RememberImportance != 0 {
		t.Errorf("proposal %+v", p)
	}
	if len(deltas) < 3 {
		t.Errorf("streamed in %d pieces, want several", len(deltas))
	}
	m := reply.Metrics
	if m.PromptTokens <= 0 || m.PromptEstimated || m.EvalTokens <= 0 || m.Total <= 0 || m.Eval <= 0 || m.FormatRetries != 0 {
		t.Errorf("metrics %+v", m)
	}
	// The next turn, after N was played, moves on.
	msgs = contextmgr.Build(contextmgr.Input{Turn: 2, LocationName: "North of House",
		Recent: []contextmgr.HistoryEntry{{Turn: 1, Actor: "agent", Action: "N"}}})
	p, _, err = llm.Structured[engine.Proposal](ctx, c, llm.Request{Role: config.RoleAgent, Messages: msgs})
	if err != nil || p.Action != "Open window" {
		t.Fatalf("turn 2: %+v, %v", p, err)
	}
}

// thinkingProposal is the agent's reply shape for a thinking model: no
// reasoning field.
type thinkingProposal struct {
	Action             string `json:"action" maxLength:"80"`
	Remember           string `json:"remember" maxLength:"200"`
	RememberImportance int    `json:"remember_importance" minimum:"0" maximum:"1000"`
}

func TestThinkingAgentReasonsInTheThinkingStream(t *testing.T) {
	c, _ := serve(t, Options{Script: []string{"open mailbox"}}, config.ThinkAuto)
	ctx := context.Background()
	if err := c.CheckRole(ctx, config.RoleAgent, llm.CapThinking, llm.CapTools); err != nil {
		t.Fatal(err)
	}
	var thought strings.Builder
	msgs := contextmgr.Build(contextmgr.Input{Turn: 1, Thinking: true})
	p, reply, err := llm.Structured[thinkingProposal](ctx, c, llm.Request{Role: config.RoleAgent, Messages: msgs,
		OnDelta: func(d llm.Delta) { thought.WriteString(d.Thinking) }})
	if err != nil {
		t.Fatal(err)
	}
	if p.Action != "open mailbox" || !strings.Contains(reply.Thinking, "Step 1 of 1") || thought.String() != reply.Thinking {
		t.Errorf("action %q, thinking %q, streamed thinking %q", p.Action, reply.Thinking, thought.String())
	}
}

func TestNoThinkingHidesTheCapability(t *testing.T) {
	c, _ := serve(t, Options{Script: []string{"N"}, NoThinking: true}, config.ThinkAuto)
	err := c.CheckRole(context.Background(), config.RoleAgent, llm.CapThinking)
	if !errors.Is(err, llm.ErrUnsupported) {
		t.Fatalf("CheckRole thinking: %v, want ErrUnsupported", err)
	}
}

func TestCriticThroughTheClient(t *testing.T) {
	c, _ := serve(t, Options{Script: []string{"Open window", "W"}}, config.ThinkOff)
	ctx := context.Background()
	msgs := contextmgr.Build(contextmgr.Input{Turn: 1, LastText: "You are behind the white house. A small window is ajar."})
	if _, _, err := llm.Structured[engine.Proposal](ctx, c, llm.Request{Role: config.RoleAgent, Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		command string
		score   int
	}{{"Open window", ScoreKnownStep}, {"examine window", ScoreSeen}, {"take sword", ScoreUnseen}} {
		critic := []llm.Message{llm.System("You judge a proposed command."),
			llm.User(msgs[1].Content + "\n\nThe agent's reasoning: it looks right\nProposed command: " + tc.command)}
		r, _, err := llm.Structured[engine.CriticReply](ctx, c, llm.Request{Role: config.RoleCritic, Messages: critic})
		if err != nil {
			t.Fatal(err)
		}
		if r.Score != tc.score || r.Justification == "" {
			t.Errorf("%s: %+v, want score %d", tc.command, r, tc.score)
		}
	}
}

// extractorReply mirrors the extractor's unexported reply shape.
type extractorReply struct {
	Exits    []string `json:"exits" maxItems:"10" maxLength:"12"`
	InCombat bool     `json:"in_combat"`
}

// structured asks the oracle for a T as role and checks it decodes at the
// first try.
func structured[T any](t *testing.T, c *llm.Client, role string) T {
	t.Helper()
	v, reply, err := llm.Structured[T](context.Background(), c, llm.Request{Role: role, Messages: []llm.Message{
		llm.System("Reply with JSON."), llm.User("Turn 9. Something happened.")}})
	if err != nil {
		t.Fatalf("%s %T: %v", role, v, err)
	}
	if reply.Metrics.FormatRetries != 0 {
		t.Errorf("%s %T: %d format retries", role, v, reply.Metrics.FormatRetries)
	}
	return v
}

func TestEveryRoleReplyFitsItsSchema(t *testing.T) {
	c, _ := serve(t, Options{Script: []string{"N"}}, config.ThinkOff)
	if m := structured[memsynth.Reply](t, c, config.RoleMemory); m.ShouldRemember || m.Category == "" || m.Status == "" {
		t.Errorf("memory: %+v", m)
	}
	if x := structured[extractorReply](t, c, config.RoleExtractor); len(x.Exits) != 0 || x.InCombat {
		t.Errorf("extractor: %+v", x)
	}
	if e := structured[supervisor.Evaluation](t, c, config.RoleSupervisor); e.Assessment == "" || e.TrustLevel != 3 {
		t.Errorf("supervisor evaluation: %+v", e)
	}
	if f := structured[supervisor.FeedbackReply](t, c, config.RoleSupervisor); f.Feedback == "" {
		t.Errorf("supervisor feedback: %+v", f)
	}
	structured[supervisor.SummaryReply](t, c, config.RoleSupervisor)
	if d := structured[objectives.Discovery](t, c, config.RoleObjectives); len(d.Objectives) != 1 {
		t.Errorf("objectives discovery: %+v", d)
	}
	if cc := structured[objectives.CompletionCheck](t, c, config.RoleObjectives); len(cc.Completed) != 0 {
		t.Errorf("objectives completion: %+v", cc)
	}
	structured[objectives.Refinement](t, c, config.RoleObjectives)
	if u := structured[knowledge.Update](t, c, config.RoleKnowledge); !strings.HasPrefix(u.Strategy, "- ") {
		t.Errorf("knowledge update: %+v", u)
	}
	structured[knowledge.Synthesis](t, c, config.RoleKnowledge)
	structured[knowledge.Condensed](t, c, config.RoleKnowledge)
	// A role's model answer without a format is plain text.
	r, err := c.Chat(context.Background(), llm.Request{Role: config.RoleRetriever, Messages: []llm.Message{llm.User("Which note matters?")}})
	if err != nil || r.Content == "" || strings.HasPrefix(r.Content, "{") {
		t.Errorf("retriever: %q, %v", r.Content, err)
	}
}

func TestResearchGetsTextAndNoToolCalls(t *testing.T) {
	c, _ := serve(t, Options{Script: []string{"N"}}, config.ThinkOff)
	type query struct {
		Q string `json:"q"`
	}
	tool, err := llm.NewTool("search_notes", "search the notes", func(context.Context, query) (string, error) {
		t.Error("the oracle called a tool")
		return "", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.RunTools(context.Background(), llm.Request{Role: config.RoleAgent, Messages: []llm.Message{llm.User("Turn 3. Research first.")}}, []llm.Tool{tool}, 2)
	if err != nil || r.Content == "" || len(r.ToolCalls) != 0 {
		t.Fatalf("research: %+v, %v", r, err)
	}
}

func TestOtherModelsAreNotFound(t *testing.T) {
	c, _ := serve(t, Options{Script: []string{"N"}}, config.ThinkOff)
	if err := c.SetModel(config.RoleMemory, "qwen3:4b"); err != nil {
		t.Fatal(err)
	}
	_, err := c.Chat(context.Background(), llm.Request{Role: config.RoleMemory, Messages: []llm.Message{llm.User("hi")}})
	if !errors.Is(err, llm.ErrModelNotFound) {
		t.Errorf("chat with another model: %v, want ErrModelNotFound", err)
	}
	if err := c.Pull(context.Background(), "oracle", nil); err != nil {
		t.Errorf("pull oracle: %v", err)
	}
	if err := c.Pull(context.Background(), "qwen3:4b", nil); err == nil {
		t.Error("pull of another model succeeded")
	}
}

func TestHTTPEndpoints(t *testing.T) {
	c, srv := serve(t, Options{Script: []string{"N"}}, config.ThinkOff)
	ctx := context.Background()
	if v, err := c.Version(ctx); err != nil || v != Version {
		t.Errorf("version %q, %v", v, err)
	}
	ms, err := c.Models(ctx)
	if err != nil || len(ms) != 1 || ms[0].Name != "oracle:latest" {
		t.Errorf("models %+v, %v", ms, err)
	}
	info, err := c.Show(ctx, "oracle:latest")
	if err != nil || info.ContextLength != ContextLength || !info.Has(llm.CapTools) {
		t.Errorf("show %+v, %v", info, err)
	}
	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	if code, body := get("/"); code != 200 || body != "Ollama is running" {
		t.Errorf("GET / = %d %q", code, body)
	}
	if code, body := get("/api/ps"); code != 200 || !strings.Contains(body, `"oracle:latest"`) {
		t.Errorf("GET /api/ps = %d %q", code, body)
	}
	if code, _ := get("/api/nothing"); code != 404 {
		t.Errorf("unknown path: %d", code)
	}
}

func TestNonStreamingChat(t *testing.T) {
	_, srv := serve(t, Options{Script: []string{"N"}}, config.ThinkOff)
	stream := false
	body, _ := json.Marshal(api.ChatRequest{Model: ModelName, Stream: &stream,
		Messages: []api.Message{{Role: "user", Content: "Turn 1. Location: L1 West of House."}},
		Format:   json.RawMessage(`{"type":"object","properties":{"reasoning":{"type":"string"},"action":{"type":"string"}},"required":["reasoning","action"]}`)})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/chat", bytes.NewReader(body))
	req.Header.Set(chatserve.RoleHeader, config.RoleAgent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 1 {
		t.Fatalf("non-streaming reply in %d lines: %q", len(lines), lines)
	}
	var r api.ChatResponse
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil {
		t.Fatal(err)
	}
	var got struct{ Reasoning, Action string }
	if err := json.Unmarshal([]byte(r.Message.Content), &got); err != nil || !r.Done || r.DoneReason != "stop" || got.Action != "N" || r.EvalCount <= 0 {
		t.Errorf("reply %+v (content %+v, %v)", r, got, err)
	}
}

func TestConcurrentRequests(t *testing.T) {
	c, _ := serve(t, Options{Script: []string{"N", "S"}}, config.ThinkOff)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				var err error
				switch (i + j) % 3 {
				case 0:
					_, _, err = llm.Structured[engine.Proposal](context.Background(), c, llm.Request{Role: config.RoleAgent,
						Messages: contextmgr.Build(contextmgr.Input{Turn: 1 + j})})
				case 1:
					_, _, err = llm.Structured[engine.CriticReply](context.Background(), c, llm.Request{Role: config.RoleCritic,
						Messages: []llm.Message{llm.User(fmt.Sprintf("Turn %d.\nProposed command: N", j+1))}})
				default:
					_, _, err = llm.Structured[memsynth.Reply](context.Background(), c, llm.Request{Role: config.RoleMemory,
						Messages: []llm.Message{llm.User("a turn")}})
				}
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
