package llm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// TestNumCtxOncePerModel: with num_ctx configured, a short and a long
// prompt get the same num_ctx (the largest of the model's roles); a prompt
// too long for it is fitted, not refused and not cut by the server.
// Without it, no num_ctx is sent and prompts are fitted to the context the
// server reports running the model with (/api/ps).
func TestNumCtxOncePerModel(t *testing.T) {
	for _, tc := range []struct {
		fixed, want int
	}{{4096, 4096}, {0, 0}} {
		t.Run(fmt.Sprint(tc.fixed), func(t *testing.T) {
			s := llmtest.New(t)
			s.AddModel(testModel, 2048)
			s.Always("ok", llmtest.AnyCall(), llmtest.Reply{Content: "ok"})
			rs := roles(time.Second)
			for k, r := range rs {
				r.NumCtx = tc.fixed
				rs[k] = r
			}
			c, err := llm.New(llm.Options{Host: s.Host(), Roles: rs, Retry: llm.RetryPolicy{Attempts: 1}})
			if err != nil {
				t.Fatal(err)
			}
			var fitted []llm.CallMetrics
			for _, p := range []string{"hi", strings.Repeat("word ", 500), strings.Repeat("a line\n", 3000)} {
				r, err := c.Chat(context.Background(), ask(config.RoleCritic, p))
				if err != nil {
					t.Fatal(err)
				}
				fitted = append(fitted, r.Metrics)
			}
			for i, r := range s.ChatRequests() {
				n, sent := r.Chat.Options["num_ctx"].(float64)
				if int(n) != tc.want || sent != (tc.want > 0) {
					t.Errorf("call %d: num_ctx %v, want %d for every call", i, r.Chat.Options["num_ctx"], tc.want)
				}
			}
			for i, m := range fitted {
				want := tc.fixed
				if want == 0 {
					want = 2048 // the fake's /api/ps
				}
				if m.NumCtx != want || m.PromptTotal > want {
					t.Errorf("call %d: fitted to %d (prompt %d tokens), want %d", i, m.NumCtx, m.PromptTotal, want)
				}
			}
		})
	}
}

// TestPromptFittedToContext: a prompt longer than the context minus the
// reply reserve loses lines from the middle of its longest message; the
// system message, the head and the tail (the question) stay.
func TestPromptFittedToContext(t *testing.T) {
	s := llmtest.New(t)
	s.AddModel(testModel, 4096)
	s.Always("ok", llmtest.AnyCall(), llmtest.Reply{Content: "ok", PromptTokens: 1000})
	var got []llm.CallMetrics
	c, err := llm.New(llm.Options{Host: s.Host(), Roles: roles(time.Second), OnCall: func(m llm.CallMetrics) { got = append(got, m) }})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("## Knowledge\nHEAD\n")
	for i := range 800 {
		fmt.Fprintf(&b, "history line %03d\n", i)
	}
	b.WriteString("## Game state\nTAIL: what now?")
	req := llm.Request{Role: config.RoleCritic, Messages: []llm.Message{llm.System("SYSTEM RULES"), llm.User(b.String())}}
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	sent := s.ChatRequests()[0].Chat.Messages
	user := sent[1].Content
	if sent[0].Content != "SYSTEM RULES" || !strings.Contains(user, "HEAD") || !strings.HasSuffix(user, "TAIL: what now?") ||
		!strings.Contains(user, "lines left out to fit the model's context") {
		t.Errorf("fitted prompt lost its ends or its marker (%d messages, system %q):\n%.300s … %.300s", len(sent), sent[0].Content, user, user[max(0, len(user)-300):])
	}
	// Before any count, a character is taken for a token: the prompt fits
	// 4096 minus the critic's 1024 reserve.
	if n := len(user) + len(sent[0].Content); n > 4096-1024 {
		t.Errorf("%d characters sent, want at most %d", n, 4096-1024)
	}
	if len(got) != 1 || got[0].TrimmedTokens == 0 || got[0].PromptTotal > 4096-1024 {
		t.Errorf("metrics %+v, want the trim recorded and the total within the budget", got)
	}
}

// TestContextOverflowOnlyWhenTheLeastCannotFit: a prompt whose
// untrimmable parts (here a system message of few lines) exceed the
// context is ErrContextOverflow before any request.
func TestContextOverflowOnlyWhenTheLeastCannotFit(t *testing.T) {
	s := llmtest.New(t)
	s.AddModel(testModel, 4096)
	c := newClient(t, s.Host(), time.Second)
	huge := strings.Repeat("x", 300) // too short to trim inside
	msgs := []llm.Message{}
	for range 40 {
		msgs = append(msgs, llm.User(huge))
	}
	_, err := c.Chat(context.Background(), llm.Request{Role: config.RoleCritic, Messages: msgs})
	if !errors.Is(err, llm.ErrContextOverflow) {
		t.Errorf("error %v, want ErrContextOverflow", err)
	}
}

// TestEstimateLearnsTheModelsRatio: the server's counts teach the client
// how many tokens a character takes, so a later prompt is fitted by them.
func TestEstimateLearnsTheModelsRatio(t *testing.T) {
	s := llmtest.New(t)
	s.AddModel(testModel, 8192)
	// The server counts one token for four characters at first.
	s.Always("ok", llmtest.AnyCall(), llmtest.Reply{Content: "ok", PromptTokens: 500})
	c := newClient(t, s.Host(), time.Second)
	lines := strings.Repeat("abcdefghi\n", 200) // 2000 characters
	if _, err := c.Chat(context.Background(), ask(config.RoleCritic, lines)); err != nil {
		t.Fatal(err)
	}
	// 20,000 characters at a quarter (raised to a third) of a token each
	// is about 6,700 tokens: over 8192-1024, so trimmed, though by far
	// less than at one token a character.
	if _, err := c.Chat(context.Background(), ask(config.RoleCritic, strings.Repeat(lines, 10))); err != nil {
		t.Fatal(err)
	}
	sent := s.ChatRequests()[1].Chat.Messages[0].Content
	if n := len(sent); n < 15000 || n > 3*(8192-1024) {
		t.Errorf("%d characters sent after learning the ratio, want between 15000 and %d", n, 3*(8192-1024))
	}
}

// TestReplyLength: done_reason "length" is ErrReplyLength for a structured
// reply (or WholeReply), retried once with twice num_predict; a free-text
// reply cut at num_predict comes back whole as the caller chose it, marked
// Cut.
func TestReplyLength(t *testing.T) {
	type answer struct {
		A string `json:"a"`
	}
	for _, tc := range []struct {
		name       string
		structured bool
		whole      bool
		replies    []llmtest.Reply
		wantErr    bool
		wantCalls  int
	}{
		{"structured, second fits", true, false, []llmtest.Reply{{Content: `{"a": "cu`, DoneReason: "length"}, {Content: `{"a": "whole"}`}}, false, 2},
		{"structured, both cut", true, false, []llmtest.Reply{{Content: `{"a"`, DoneReason: "length"}, {Content: `{"a": "`, DoneReason: "length"}}, true, 2},
		{"whole reply asked", false, true, []llmtest.Reply{{Content: "cut", DoneReason: "length"}, {Content: "cut again", DoneReason: "length"}}, true, 2},
		{"free text", false, false, []llmtest.Reply{{Content: "stopped at num_predict", DoneReason: "length"}}, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := llmtest.New(t)
			s.AddModel(testModel, 8192)
			s.On("r", llmtest.AnyCall(), tc.replies...)
			rs := roles(time.Second)
			r := rs[config.RoleCritic]
			r.NumPredict = 100
			rs[config.RoleCritic] = r
			c, err := llm.New(llm.Options{Host: s.Host(), Roles: rs, Retry: llm.RetryPolicy{Attempts: 1}})
			if err != nil {
				t.Fatal(err)
			}
			req := ask(config.RoleCritic, "hi")
			req.WholeReply = tc.whole
			var rep llm.Reply
			if tc.structured {
				_, rep, err = llm.Structured[answer](context.Background(), c, req)
			} else {
				rep, err = c.Chat(context.Background(), req)
			}
			reqs := s.ChatRequests()
			if len(reqs) != tc.wantCalls {
				t.Fatalf("%d requests, want %d", len(reqs), tc.wantCalls)
			}
			if tc.wantCalls == 2 {
				if n, _ := reqs[1].Chat.Options["num_predict"].(float64); n != 200 {
					t.Errorf("retry num_predict %v, want 200", reqs[1].Chat.Options["num_predict"])
				}
			}
			if tc.wantErr {
				var le *llm.Error
				if !errors.Is(err, llm.ErrReplyLength) || !errors.As(err, &le) || le.Role != config.RoleCritic || le.Model != testModel ||
					!strings.Contains(err.Error(), "num_predict 200") {
					t.Errorf("error %v, want ErrReplyLength naming role, model and num_predict", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if !tc.structured && (!rep.Cut || rep.Content != "stopped at num_predict" || !rep.Metrics.Cut) {
				t.Errorf("free text: reply %+v, want it whole and marked Cut", rep)
			}
			if tc.structured && !rep.Metrics.LengthRetried {
				t.Errorf("structured: metrics %+v, want LengthRetried", rep.Metrics)
			}
		})
	}
}

// TestCacheShareFollowsTheServersSlots: the cached part of a prompt is its
// common prefix with the slot Ollama's runner would give it. With one
// slot, or several without the multi-user cache (every prompt shares the
// template's first tokens with the last slot used), two roles evict each
// other; with several and the multi-user cache each keeps its own.
func TestCacheShareFollowsTheServersSlots(t *testing.T) {
	stable := strings.Repeat("the rules of the game, unchanged from turn to turn\n", 40) // 2040 characters
	for _, tc := range []struct {
		slots      int
		multiUser  bool
		wantCached bool
	}{{1, false, false}, {1, true, false}, {4, false, false}, {2, true, true}, {4, true, true}} {
		t.Run(fmt.Sprint(tc.slots, tc.multiUser), func(t *testing.T) {
			s := llmtest.New(t)
			s.AddModel(testModel, 8192)
			s.Always("ok", llmtest.AnyCall(), llmtest.Reply{Content: "ok"})
			var calls []llm.CallMetrics
			c, err := llm.New(llm.Options{Host: s.Host(), Roles: roles(time.Second), CacheSlots: tc.slots, MultiUserCache: tc.multiUser,
				OnCall: func(m llm.CallMetrics) { calls = append(calls, m) }})
			if err != nil {
				t.Fatal(err)
			}
			for turn := 1; turn <= 3; turn++ {
				agent := llm.Request{Role: config.RoleAgent, Messages: []llm.Message{llm.System(stable), llm.User(fmt.Sprintf("turn %d", turn))}}
				critic := llm.Request{Role: config.RoleCritic, Messages: []llm.Message{llm.System("judge"), llm.User(fmt.Sprintf("turn %d", turn))}}
				for _, r := range []llm.Request{agent, critic} {
					if _, err := c.Chat(context.Background(), r); err != nil {
						t.Fatal(err)
					}
				}
			}
			// The agent's calls of turns 2 and 3 could reuse the stable
			// 2,040 characters.
			for _, m := range []llm.CallMetrics{calls[2], calls[4]} {
				if m.Role != config.RoleAgent || tc.wantCached != (2*m.Cached > m.PromptTotal) {
					t.Errorf("%s call: %d of %d tokens cached with %d slot(s), multi-user %v", m.Role, m.Cached, m.PromptTotal, tc.slots, tc.multiUser)
				}
			}
			if calls[0].Cached != 0 {
				t.Errorf("the first call found %d tokens cached", calls[0].Cached)
			}
		})
	}
}
