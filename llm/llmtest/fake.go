// Package llmtest is a scripted fake model server for tests. On the shared
// server core (llm/chatserve) it speaks Ollama's wire format
// (/api/chat streaming NDJSON and non-streaming, /api/tags, /api/show,
// /api/version, /api/ps, /api/pull progress) and the OpenAI
// chat-completions protocol (/v1/chat/completions, /v1/models), answers chat calls from a
// script matched by role or prompt, records every request, fails the test
// on unexpected calls and (at cleanup) on scripted calls that never came,
// and injects faults: refused connections, HTTP errors, a slow first byte,
// streams cut midway or never ending, malformed JSON, empty replies.
package llmtest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/llm/chatserve"
)

// Fault is a failure the fake injects instead of (or in) a reply.
type Fault = chatserve.Fault

// The faults (see chatserve).
const (
	NoFault       = chatserve.NoFault
	HTTP500       = chatserve.HTTP500       // the server answers 500
	NotFound      = chatserve.NotFound      // 404 model not found
	BadRequest    = chatserve.BadRequest    // 400
	Unauthorized  = chatserve.Unauthorized  // 401, as a cloud model when not signed in
	SlowFirstByte = chatserve.SlowFirstByte // wait Reply.Delay before anything is sent
	CutMidStream  = chatserve.CutMidStream  // send part of the reply, then close the connection
	MalformedJSON = chatserve.MalformedJSON // send a line that is not JSON
	NeverEnds     = chatserve.NeverEnds     // stream until the client gives up
)

// Reply is one scripted answer to a chat call.
type Reply struct {
	Content      string
	Thinking     string
	ToolCalls    []ToolCall
	Fault        Fault
	Delay        time.Duration // for SlowFirstByte
	PromptTokens int           // prompt_eval_count (default: 42)
	EvalTokens   int           // eval_count (default: one per chunk)
	DoneReason   string        // done_reason (default: "stop")
	CachedTokens int           // usage.prompt_tokens_details.cached_tokens on the OpenAI protocol
	ChunkRunes   int           // the size of a streamed piece (default: 7 characters)
	Message      string        // a fault's error text (default: a plain one)
}

// ToolCall is a scripted tool call.
type ToolCall struct {
	Name string
	Args map[string]any
}

// Request is a recorded request. A chat call in either protocol is
// recorded in Ollama's shape (Chat); Path tells which protocol it came in.
type Request struct {
	Path string
	Role string // the X-Lantern-Role header
	Chat *api.ChatRequest
}

// OpenAI reports whether the request came in the OpenAI protocol.
func (r Request) OpenAI() bool { return strings.HasPrefix(r.Path, "/v1/") }

// Prompt is all message contents of a chat request, joined.
func (r Request) Prompt() string {
	if r.Chat == nil {
		return ""
	}
	var b strings.Builder
	for _, m := range r.Chat.Messages {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

// Matcher selects the chat calls an expectation answers.
type Matcher func(Request) bool

// Role matches calls made for a role.
func Role(name string) Matcher { return func(r Request) bool { return r.Role == name } }

// PromptContains matches calls whose messages contain s.
func PromptContains(s string) Matcher {
	return func(r Request) bool { return strings.Contains(r.Prompt(), s) }
}

// AnyCall matches every chat call.
func AnyCall() Matcher { return func(Request) bool { return true } }

type expectation struct {
	match   Matcher
	replies []Reply
	label   string
	always  bool // the one reply answers every matching call
}

type model struct {
	name   string
	ctxLen int
	caps   []string
	remote string // a cloud model's host
}

// Server is the fake. Make it with New.
type Server struct {
	t      testing.TB
	srv    *httptest.Server
	core   *chatserve.Server
	mu     sync.Mutex
	exps   []*expectation
	reqs   []Request
	models map[string]model
	order  []string
	drop   bool // requests are not recorded (KeepRequests(false))
	waits  []arrival
}

// arrival is a test waiting for a request (Arrived).
type arrival struct {
	m    Matcher
	seen chan struct{}
}

// Arrived returns a channel closed when a request matching m arrives (a
// test's way to know a call is in flight, without sleeping).
func (s *Server) Arrived(m Matcher) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := arrival{m: m, seen: make(chan struct{})}
	s.waits = append(s.waits, a)
	return a.seen
}

// New starts a fake server; it is closed, and checked for missing calls,
// when the test ends.
func New(t testing.TB) *Server {
	s := &Server{t: t, models: map[string]model{}}
	s.core = chatserve.New(chatserve.Options{Backend: backend{s}, ChunkRunes: 7,
		OnRequest:  func(path, role string, chat *api.ChatRequest) { s.record(Request{Path: path, Role: role, Chat: chat}) },
		Unexpected: func(method, path string) { t.Errorf("llmtest: unexpected request %s %s", method, path) }})
	s.srv = httptest.NewServer(s.core)
	t.Cleanup(func() {
		s.srv.CloseClientConnections()
		s.srv.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, e := range s.exps {
			if len(e.replies) > 0 && !e.always {
				t.Errorf("llmtest: %d scripted call(s) never came for %s", len(e.replies), e.label)
			}
		}
	})
	return s
}

// Host is the server's host:port (an OLLAMA_HOST value).
func (s *Server) Host() string { return strings.TrimPrefix(s.srv.URL, "http://") }

// BaseURL is the server's OpenAI-compatible base URL (http://HOST/v1).
func (s *Server) BaseURL() string { return s.srv.URL + "/v1" }

// AddModel registers a model for /api/show and /api/tags.
func (s *Server) AddModel(name string, ctxLen int, caps ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.models[name]; !ok {
		s.order = append(s.order, name)
	}
	s.models[name] = model{name: name, ctxLen: ctxLen, caps: caps}
}

// AddCloudModel registers a cloud model: Ollama lists it with its remote
// host and a manifest's size.
func (s *Server) AddCloudModel(name string, ctxLen int) {
	s.AddModel(name, ctxLen)
	s.mu.Lock()
	m := s.models[name]
	m.remote = "https://ollama.com:443"
	s.models[name] = m
	s.mu.Unlock()
}

// On scripts the replies to the calls that match, one reply per call, in
// order. label names the expectation in failure messages.
func (s *Server) On(label string, m Matcher, replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exps = append(s.exps, &expectation{match: m, replies: replies, label: label})
}

// Always answers every matching call with reply, for as long as the test
// runs (benchmarks, background roles); it is never reported as missing.
func (s *Server) Always(label string, m Matcher, reply Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exps = append(s.exps, &expectation{match: m, replies: []Reply{reply}, label: label, always: true})
}

// KeepRequests turns the recording of requests off (false) or back on
// (true, the default). A long run (a soak) turns it off: every request is
// otherwise kept, prompt and all, for the whole test. Requests and
// ChatRequests return only what was recorded while it was on.
func (s *Server) KeepRequests(keep bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop = !keep
}

// Requests returns the recorded requests.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// ChatRequests returns the recorded chat requests.
func (s *Server) ChatRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Chat != nil {
			out = append(out, r)
		}
	}
	return out
}

// RefusedHost returns a loopback address where nothing listens.
func RefusedHost(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	if !s.drop {
		s.reqs = append(s.reqs, r)
	}
	kept := s.waits[:0]
	for _, a := range s.waits {
		if a.m(r) {
			close(a.seen)
		} else {
			kept = append(kept, a)
		}
	}
	s.waits = kept
	s.mu.Unlock()
}

// backend answers the core from the script.
type backend struct{ s *Server }

func (b backend) Models() []chatserve.Model {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	var out []chatserve.Model
	for _, n := range b.s.order {
		m := b.s.models[n]
		cm := chatserve.Model{Name: n, ContextLength: m.ctxLen, Capabilities: m.caps, Size: 1 << 20,
			Family: "llama", ParameterSize: "1M", Quantization: "F32", RemoteHost: m.remote}
		if m.remote != "" {
			cm.Size = 384
		}
		out = append(out, cm)
	}
	return out
}

func (b backend) Chat(req *chatserve.Request) (chatserve.Answer, error) {
	r := Request{Path: req.HTTP.URL.Path, Role: req.Role, Chat: req.Chat}
	rep, ok := b.s.next(r)
	if !ok {
		b.s.t.Errorf("llmtest: unexpected chat call (role %q, model %q): %.200s", r.Role, r.Chat.Model, r.Prompt())
		return chatserve.Answer{}, &chatserve.StatusError{Code: http.StatusInternalServerError, Msg: "llmtest: unexpected call"}
	}
	pt := rep.PromptTokens
	if pt == 0 {
		pt = 42
	}
	ans := chatserve.Answer{Content: rep.Content, Thinking: rep.Thinking, Fault: rep.Fault, Delay: rep.Delay,
		PromptTokens: pt, EvalTokens: rep.EvalTokens, CachedTokens: rep.CachedTokens, ChunkRunes: rep.ChunkRunes, DoneReason: rep.DoneReason, Load: time.Millisecond, Message: rep.Message}
	for _, tc := range rep.ToolCalls {
		ans.ToolCalls = append(ans.ToolCalls, chatserve.ToolCall{Name: tc.Name, Args: tc.Args})
	}
	switch rep.Fault {
	case HTTP500:
		ans.Message = "llmtest: internal server error"
	case BadRequest:
		ans.Message = "llmtest: invalid options"
	}
	if rep.Message != "" {
		ans.Message = rep.Message
	}
	return ans, nil
}

// Pull adds any model pulled, with a context of 4096.
func (b backend) Pull(name string) bool {
	b.s.AddModel(name, 4096)
	return true
}

// next finds the scripted reply for a chat call.
func (s *Server) next(r Request) (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.exps {
		if len(e.replies) > 0 && e.match(r) {
			rep := e.replies[0]
			if !e.always {
				e.replies = e.replies[1:]
			}
			return rep, true
		}
	}
	return Reply{}, false
}
