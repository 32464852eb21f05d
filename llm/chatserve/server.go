// Package chatserve is the HTTP core of Lantern's stand-in model servers
// (the oracle and the tests' scripted fake). It speaks Ollama's API
// (/api/chat streaming and not, /api/tags, /api/show, /api/version,
// /api/ps, /api/pull and GET /) and the OpenAI chat-completions protocol
// (/v1/chat/completions streaming and not, /v1/models) on one handler, and
// leaves what to answer to a Backend: every chat call, whichever protocol
// carried it, reaches the backend as one Ollama-shaped request, and the
// backend's Answer is written back in the caller's protocol by one
// chunker. A Pacer, when set, times each reply (before its first byte and
// before each streamed piece) and can inject faults of its own by failing.
package chatserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Protocols a chat call can arrive in.
const (
	Ollama = "ollama"
	OpenAI = "openai"
)

// RoleHeader carries the calling role (Lantern's client sets it).
const RoleHeader = "X-Lantern-Role"

// Model is one served model as the listing endpoints describe it.
type Model struct {
	Name          string // as listed; a request may add or leave out ":latest"
	ContextLength int
	Capabilities  []string // beside "completion", which every model has
	Size          int64
	Family        string
	ParameterSize string
	Quantization  string
	// RemoteHost marks a cloud model (Ollama lists it with its remote
	// host and a size of a few hundred bytes).
	RemoteHost string
	// Digest is what /api/tags and /api/ps give as the model's digest
	// ("": one made from its name).
	Digest string
}

// Request is one chat call: the protocol it came in, the role header, and
// the call in Ollama's terms (an OpenAI call is translated).
type Request struct {
	Protocol string
	Role     string
	Chat     *api.ChatRequest
	HTTP     *http.Request
	// IncludeUsage: an OpenAI stream ends with a usage chunk.
	IncludeUsage bool
}

// Fault is a failure the core injects instead of (or in) an answer.
type Fault int

// The faults.
const (
	NoFault       Fault = iota
	HTTP500             // the server answers 500
	NotFound            // 404 model not found
	BadRequest          // 400
	Unauthorized        // 401, as a cloud model answers when not signed in
	SlowFirstByte       // wait Answer.Delay before anything is sent
	CutMidStream        // send part of the reply, then close the connection
	MalformedJSON       // send a line that is not JSON
	NeverEnds           // stream until the client gives up
)

// Answer is what a backend says to a chat call.
type Answer struct {
	Content   string
	Thinking  string
	ToolCalls []ToolCall
	Fault     Fault
	Delay     time.Duration // for SlowFirstByte
	// Counts: 0 lets the core estimate them (prompt characters / 4, one
	// token a streamed piece).
	PromptTokens int
	EvalTokens   int
	CachedTokens int    // sent as usage.prompt_tokens_details.cached_tokens
	DoneReason   string // "stop" (default) or "length"
	// Load is reported as the call's load_duration.
	Load time.Duration
	// PromptEval and Eval, when set, are reported as the call's prompt
	// evaluation and generation (a paced reply's model time, its queueing
	// left out); otherwise they are measured.
	PromptEval, Eval time.Duration
	// Message is a fault's error text (default: a plain one).
	Message string
	// ChunkRunes, if set, is this answer's piece size (a test's giant
	// reply in few pieces).
	ChunkRunes int
}

// ToolCall is a tool call in an answer.
type ToolCall struct {
	Name string
	Args map[string]any
}

// Backend decides what the server says.
type Backend interface {
	// Models are the served models, in listing order.
	Models() []Model
	// Chat answers a chat call. An error is sent as HTTP 400 with its
	// text (a *StatusError chooses the code).
	Chat(req *Request) (Answer, error)
}

// StatusError is a backend's refusal with its own HTTP status.
type StatusError struct {
	Code int
	Msg  string
}

func (e *StatusError) Error() string { return e.Msg }

// Pacer times one reply. Wait is called with piece 0 before the first
// byte and with 1, 2, … before each streamed piece (a whole, unstreamed
// reply gets only piece 0); it returns the context's error when the
// client goes. Done is called once the reply is written or abandoned.
type Pacer interface {
	Wait(ctx context.Context, piece, pieces int) error
	Done()
}

// Options configure a Server.
type Options struct {
	Backend Backend
	// Pace, if set, gives each chat reply its pacer (nil: unpaced).
	Pace func(req *Request, ans *Answer) Pacer
	// ChunkRunes is the size of a streamed piece in characters (0: 7).
	ChunkRunes int
	// Version is what /api/version reports (default "0.17.4").
	Version string
	// Started is the models' modification time in listings.
	Started time.Time
	// OnRequest, if set, sees every request before it is answered, with
	// the chat call decoded (nil for other endpoints); it is the fake's
	// recorder.
	OnRequest func(path, role string, chat *api.ChatRequest)
	// Unexpected, if set, is told of requests to unknown paths.
	Unexpected func(method, path string)
	// Slots, when above 0, is what GET /props reports as total_slots (as
	// llama.cpp's server does): the requests served at once. 0: /props is
	// not found, as on Ollama.
	Slots int
}

// Server is the HTTP handler. Make it with New.
type Server struct {
	o Options
}

// New makes a server.
func New(o Options) *Server {
	if o.ChunkRunes <= 0 {
		o.ChunkRunes = 7
	}
	if o.Version == "" {
		o.Version = "0.17.4"
	}
	if o.Started.IsZero() {
		o.Started = time.Now()
	}
	return &Server{o: o}
}

// maxRequest bounds a request body the core decodes.
const maxRequest = 64 << 20

// ServeHTTP routes both protocols.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	role := r.Header.Get(RoleHeader)
	r.Body = http.MaxBytesReader(w, r.Body, maxRequest)
	path := r.URL.Path
	switch path {
	case "/":
		s.seen(path, role, nil)
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			ollamaError(w, http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			fmt.Fprint(w, "Ollama is running")
		}
	case "/api/version":
		s.seen(path, role, nil)
		writeJSON(w, http.StatusOK, map[string]string{"version": s.o.Version})
	case "/api/tags":
		s.seen(path, role, nil)
		writeJSON(w, http.StatusOK, s.tags())
	case "/api/ps":
		s.seen(path, role, nil)
		writeJSON(w, http.StatusOK, s.ps())
	case "/api/show":
		s.seen(path, role, nil)
		var req api.ShowRequest
		if !decode(w, r, &req, ollamaError) {
			return
		}
		m, ok := s.find(req.Model)
		if !ok {
			ollamaError(w, http.StatusNotFound, notFoundMsg(req.Model))
			return
		}
		writeJSON(w, http.StatusOK, s.show(m))
	case "/api/pull":
		s.seen(path, role, nil)
		var req api.PullRequest
		if !decode(w, r, &req, ollamaError) {
			return
		}
		s.pull(w, req.Model)
	case "/api/chat":
		var req api.ChatRequest
		if !decode(w, r, &req, ollamaError) {
			return
		}
		s.seen(path, role, &req)
		s.chat(w, &Request{Protocol: Ollama, Role: role, Chat: &req, HTTP: r})
	case "/props":
		// Asked by every session choosing where memory questions go; a
		// server that does not say answers 404, as Ollama does.
		if s.o.Slots <= 0 {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, http.StatusOK, map[string]int{"total_slots": s.o.Slots})
	case "/v1/models":
		s.seen(path, role, nil)
		writeJSON(w, http.StatusOK, s.openaiModels())
	case "/v1/chat/completions":
		req, usage, err := readOpenAI(r)
		if err != nil {
			openaiError(w, http.StatusBadRequest, err.Error())
			return
		}
		s.seen(path, role, req)
		s.chat(w, &Request{Protocol: OpenAI, Role: role, Chat: req, HTTP: r, IncludeUsage: usage})
	default:
		if s.o.Unexpected != nil {
			s.o.Unexpected(r.Method, path)
		}
		if strings.HasPrefix(path, "/v1/") {
			openaiError(w, http.StatusNotFound, "404 page not found")
			return
		}
		ollamaError(w, http.StatusNotFound, "404 page not found")
	}
}

func (s *Server) seen(path, role string, chat *api.ChatRequest) {
	if s.o.OnRequest != nil {
		s.o.OnRequest(path, role, chat)
	}
}

// Known reports whether a model is served (a backend's check before it
// answers).
func (s *Server) Known(name string) bool {
	_, ok := s.find(name)
	return ok
}

// find looks a model up by name, with or without ":latest".
func (s *Server) find(name string) (Model, bool) {
	for _, m := range s.o.Backend.Models() {
		if m.Name == name || m.Name+":latest" == name || m.Name == name+":latest" {
			return m, true
		}
	}
	return Model{}, false
}

// UnknownModel is the refusal of a chat call for a model the server
// lacks.
func UnknownModel(name string) error {
	return &StatusError{Code: http.StatusNotFound, Msg: notFoundMsg(name)}
}

func notFoundMsg(name string) string { return fmt.Sprintf("model '%s' not found", name) }

// chat asks the backend and writes its answer in the request's protocol.
func (s *Server) chat(w http.ResponseWriter, req *Request) {
	errorOut := ollamaError
	if req.Protocol == OpenAI {
		errorOut = openaiError
	}
	start := time.Now()
	ans, err := s.o.Backend.Chat(req)
	if err != nil {
		code := http.StatusBadRequest
		var se *StatusError
		if errors.As(err, &se) {
			code = se.Code
		}
		errorOut(w, code, err.Error())
		return
	}
	if faultStatus(w, req, ans, errorOut) {
		return
	}
	ctx := req.HTTP.Context()
	if ans.Fault == SlowFirstByte {
		select {
		case <-time.After(ans.Delay):
		case <-ctx.Done():
			return
		}
	}
	size := s.o.ChunkRunes
	if ans.ChunkRunes > 0 {
		size = ans.ChunkRunes
	}
	pieces := split(ans, size)
	var pacer Pacer
	if s.o.Pace != nil {
		pacer = s.o.Pace(req, &ans)
	}
	if pacer != nil {
		defer pacer.Done()
	}
	wait := func(i int) bool {
		return pacer == nil || pacer.Wait(ctx, i, len(pieces)) == nil
	}
	if !wait(0) {
		return
	}
	first := time.Now()
	tally := tallyOf(req.Chat, ans, len(pieces))
	stream := req.Chat.Stream == nil || *req.Chat.Stream
	out := writerFor(w, req, tally)
	if !stream {
		tally.timing(start, first)
		out.whole(ans)
		return
	}
	out.begin()
	for i, p := range pieces {
		switch {
		case ans.Fault == CutMidStream && i == len(pieces)/2:
			cut(w)
			return
		case ans.Fault == MalformedJSON && i == len(pieces)/2:
			w.Write([]byte(out.malformed()))
			flush(w)
			return
		}
		if i > 0 && !wait(i) {
			return
		}
		if !out.piece(p) {
			return
		}
	}
	if ans.Fault == NeverEnds {
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
				if !out.piece(piece{content: "and "}) {
					return
				}
			}
		}
	}
	if len(ans.ToolCalls) > 0 {
		out.tools(ans.ToolCalls)
	}
	tally.timing(start, first)
	out.end()
}

// faultStatus answers the status faults; true when it did.
func faultStatus(w http.ResponseWriter, req *Request, ans Answer, errorOut func(http.ResponseWriter, int, string)) bool {
	msg := func(def string) string {
		if ans.Message != "" {
			return ans.Message
		}
		return def
	}
	switch ans.Fault {
	case HTTP500:
		errorOut(w, http.StatusInternalServerError, msg("internal server error"))
	case NotFound:
		errorOut(w, http.StatusNotFound, msg(notFoundMsg(req.Chat.Model)))
	case BadRequest:
		errorOut(w, http.StatusBadRequest, msg("invalid options"))
	case Unauthorized:
		errorOut(w, http.StatusUnauthorized, msg("unauthorized"))
	default:
		return false
	}
	return true
}

// tally is a reply's counts and durations.
type tally struct {
	promptTokens, evalTokens, cached int
	reason                           string
	load, promptEval, eval, total    time.Duration
	givenPrompt, givenEval           time.Duration // Answer.PromptEval, Eval
}

func tallyOf(req *api.ChatRequest, ans Answer, pieces int) *tally {
	t := &tally{promptTokens: ans.PromptTokens, evalTokens: ans.EvalTokens, cached: ans.CachedTokens, reason: ans.DoneReason, load: ans.Load,
		givenPrompt: ans.PromptEval, givenEval: ans.Eval}
	if t.promptTokens == 0 {
		chars := len(req.Format)
		for _, m := range req.Messages {
			chars += len(m.Content) + len(m.Thinking)
		}
		t.promptTokens = max(1, chars/4)
	}
	if t.evalTokens == 0 {
		t.evalTokens = max(1, pieces)
	}
	if t.reason == "" {
		t.reason = "stop"
	}
	return t
}

// timing fills the durations: prompt evaluation until the first piece,
// generation after it.
func (t *tally) timing(start, first time.Time) {
	now := time.Now()
	t.total = max(now.Sub(start), time.Microsecond)
	t.promptEval = max(first.Sub(start), time.Microsecond)
	t.eval = max(now.Sub(first), time.Microsecond)
	if t.givenPrompt > 0 || t.givenEval > 0 {
		t.promptEval, t.eval = max(t.givenPrompt, time.Microsecond), max(t.givenEval, time.Microsecond)
	}
}

// piece is one streamed part of a reply.
type piece struct{ content, thinking string }

// split cuts an answer into streamed pieces of n characters, thinking
// first, then content.
func split(a Answer, n int) []piece {
	var out []piece
	cutText := func(text string, thinking bool) {
		rs := []rune(text)
		for len(rs) > 0 {
			k := min(n, len(rs))
			if thinking {
				out = append(out, piece{thinking: string(rs[:k])})
			} else {
				out = append(out, piece{content: string(rs[:k])})
			}
			rs = rs[k:]
		}
	}
	cutText(a.Thinking, true)
	cutText(a.Content, false)
	return out
}

// writer writes one reply in a protocol.
type writer interface {
	whole(a Answer)
	begin()
	piece(p piece) bool
	tools(calls []ToolCall)
	end()
	malformed() string
}

func writerFor(w http.ResponseWriter, req *Request, t *tally) writer {
	if req.Protocol == OpenAI {
		return &openaiWriter{w: w, model: req.Chat.Model, t: t, usage: req.IncludeUsage, id: fmt.Sprintf("chatcmpl-%d", time.Now().UnixNano())}
	}
	return &ollamaWriter{w: w, model: req.Chat.Model, t: t, enc: json.NewEncoder(w)}
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

func decode(w http.ResponseWriter, r *http.Request, v any, errorOut func(http.ResponseWriter, int, string)) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		errorOut(w, http.StatusBadRequest, "bad request: "+err.Error())
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
