// Package llmtest is a scripted fake Ollama server for tests. It speaks the
// real wire format (/api/chat streaming NDJSON and non-streaming, /api/tags,
// /api/show, /api/version, /api/pull progress), answers chat calls from a
// script matched by role or prompt, records every request, fails the test
// on unexpected calls and (at cleanup) on scripted calls that never came,
// and injects faults: refused connections, HTTP errors, a slow first byte,
// streams cut midway or never ending, malformed JSON, empty replies.
package llmtest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// Fault is a failure the fake injects instead of (or in) a reply.
type Fault int

const (
	NoFault       Fault = iota
	HTTP500             // the server answers 500
	NotFound            // 404 model not found
	BadRequest          // 400
	SlowFirstByte       // wait Reply.Delay before anything is sent
	CutMidStream        // send part of the reply, then close the connection
	MalformedJSON       // send a line that is not JSON
	NeverEnds           // stream until the client gives up
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
}

// ToolCall is a scripted tool call.
type ToolCall struct {
	Name string
	Args map[string]any
}

// Request is a recorded request.
type Request struct {
	Path string
	Role string // the X-Lantern-Role header
	Chat *api.ChatRequest
}

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
}

// Server is the fake. Make it with New.
type Server struct {
	t      testing.TB
	srv    *httptest.Server
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
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
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

// AddModel registers a model for /api/show and /api/tags.
func (s *Server) AddModel(name string, ctxLen int, caps ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.models[name]; !ok {
		s.order = append(s.order, name)
	}
	s.models[name] = model{name: name, ctxLen: ctxLen, caps: caps}
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

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	rec := Request{Path: r.URL.Path, Role: r.Header.Get("X-Lantern-Role")}
	switch r.URL.Path {
	case "/api/version":
		s.record(rec)
		writeJSON(w, 200, map[string]string{"version": "0.17.4"})
	case "/api/tags":
		s.record(rec)
		s.tags(w)
	case "/api/show":
		s.record(rec)
		var req api.ShowRequest
		json.NewDecoder(r.Body).Decode(&req)
		s.show(w, req.Model)
	case "/api/pull":
		s.record(rec)
		var req api.PullRequest
		json.NewDecoder(r.Body).Decode(&req)
		s.pull(w, req.Model)
	case "/api/chat":
		var req api.ChatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			writeJSON(w, 400, map[string]string{"error": "bad request: " + err.Error()})
			return
		}
		rec.Chat = &req
		s.record(rec)
		s.chat(w, r, rec)
	default:
		s.t.Errorf("llmtest: unexpected request %s %s", r.Method, r.URL.Path)
		writeJSON(w, 404, map[string]string{"error": "not found"})
	}
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

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func (s *Server) tags(w http.ResponseWriter) {
	s.mu.Lock()
	var list api.ListResponse
	for _, n := range s.order {
		list.Models = append(list.Models, api.ListModelResponse{Name: n, Model: n, Size: 1 << 20, Details: api.ModelDetails{Family: "llama", ParameterSize: "1M", QuantizationLevel: "F32"}})
	}
	s.mu.Unlock()
	writeJSON(w, 200, list)
}

func (s *Server) show(w http.ResponseWriter, name string) {
	s.mu.Lock()
	m, ok := s.models[name]
	s.mu.Unlock()
	if !ok {
		writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model '%s' not found", name)})
		return
	}
	caps := []string{"completion"}
	caps = append(caps, m.caps...)
	writeJSON(w, 200, map[string]any{
		"details":      map[string]string{"family": "llama", "parameter_size": "1M", "quantization_level": "F32"},
		"model_info":   map[string]any{"general.architecture": "llama", "llama.context_length": m.ctxLen},
		"capabilities": caps,
	})
}

func (s *Server) pull(w http.ResponseWriter, name string) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	enc := json.NewEncoder(w)
	enc.Encode(api.ProgressResponse{Status: "pulling manifest"})
	for i := int64(1); i <= 4; i++ {
		enc.Encode(api.ProgressResponse{Status: "pulling layer", Digest: "sha256:fake", Total: 400, Completed: 100 * i})
		flush(w)
	}
	enc.Encode(api.ProgressResponse{Status: "success"})
	s.AddModel(name, 4096)
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
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

func (s *Server) chat(w http.ResponseWriter, hr *http.Request, r Request) {
	rep, ok := s.next(r)
	if !ok {
		s.t.Errorf("llmtest: unexpected chat call (role %q, model %q): %.200s", r.Role, r.Chat.Model, r.Prompt())
		writeJSON(w, 500, map[string]string{"error": "llmtest: unexpected call"})
		return
	}
	switch rep.Fault {
	case HTTP500:
		writeJSON(w, 500, map[string]string{"error": "llmtest: internal server error"})
		return
	case NotFound:
		writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model '%s' not found", r.Chat.Model)})
		return
	case BadRequest:
		writeJSON(w, 400, map[string]string{"error": "llmtest: invalid options"})
		return
	case SlowFirstByte:
		select {
		case <-time.After(rep.Delay):
		case <-hr.Context().Done():
			return
		}
	}
	stream := r.Chat.Stream == nil || *r.Chat.Stream
	chunks := split(rep)
	final := s.final(r, rep, len(chunks))
	if !stream {
		msg := api.Message{Role: "assistant", Content: rep.Content, Thinking: rep.Thinking, ToolCalls: apiCalls(rep.ToolCalls)}
		final.Message = msg
		writeJSON(w, 200, final)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(200)
	enc := json.NewEncoder(w)
	for i, c := range chunks {
		if rep.Fault == CutMidStream && i == len(chunks)/2 {
			cut(w)
			return
		}
		if rep.Fault == MalformedJSON && i == len(chunks)/2 {
			w.Write([]byte("{\"message\": {\"content\": \"oops\"\n"))
			flush(w)
			return
		}
		enc.Encode(api.ChatResponse{Model: r.Chat.Model, CreatedAt: time.Now(), Message: c})
		flush(w)
	}
	if rep.Fault == NeverEnds {
		for {
			select {
			case <-hr.Context().Done():
				return
			case <-time.After(5 * time.Millisecond):
				enc.Encode(api.ChatResponse{Model: r.Chat.Model, Message: api.Message{Role: "assistant", Content: "and "}})
				flush(w)
			}
		}
	}
	if len(rep.ToolCalls) > 0 {
		enc.Encode(api.ChatResponse{Model: r.Chat.Model, Message: api.Message{Role: "assistant", ToolCalls: apiCalls(rep.ToolCalls)}})
	}
	enc.Encode(final)
	flush(w)
}

// cut closes the connection in the middle of the response.
func cut(w http.ResponseWriter) {
	flush(w)
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
		}
	}
}

func (s *Server) final(r Request, rep Reply, chunks int) api.ChatResponse {
	pt, et := rep.PromptTokens, rep.EvalTokens
	if pt == 0 {
		pt = 42
	}
	if et == 0 {
		et = chunks
	}
	reason := rep.DoneReason
	if reason == "" {
		reason = "stop"
	}
	return api.ChatResponse{
		Model: r.Chat.Model, CreatedAt: time.Now(), Done: true, DoneReason: reason,
		Message: api.Message{Role: "assistant"},
		Metrics: api.Metrics{TotalDuration: 3 * time.Millisecond, LoadDuration: time.Millisecond,
			PromptEvalCount: pt, PromptEvalDuration: time.Millisecond, EvalCount: et, EvalDuration: time.Millisecond},
	}
}

// split cuts a reply into streaming chunks: thinking first, then content,
// a few characters at a time.
func split(rep Reply) []api.Message {
	var out []api.Message
	piece := func(text string, thinking bool) {
		rs := []rune(text)
		for len(rs) > 0 {
			n := min(7, len(rs))
			m := api.Message{Role: "assistant"}
			if thinking {
				m.Thinking = string(rs[:n])
			} else {
				m.Content = string(rs[:n])
			}
			out = append(out, m)
			rs = rs[n:]
		}
	}
	piece(rep.Thinking, true)
	piece(rep.Content, false)
	return out
}

func apiCalls(calls []ToolCall) []api.ToolCall {
	var out []api.ToolCall
	for i, c := range calls {
		args := api.NewToolCallFunctionArguments()
		for k, v := range c.Args {
			args.Set(k, v)
		}
		out = append(out, api.ToolCall{Function: api.ToolCallFunction{Index: i, Name: c.Name, Arguments: args}})
	}
	return out
}
