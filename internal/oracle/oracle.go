// Package oracle is a stand-in model server that knows the solution: it
// speaks Ollama's HTTP API (/api/chat streaming and not, /api/show,
// /api/tags, /api/version, /api/pull, /api/ps and GET /) with one model,
// "oracle", and answers each of Lantern's roles (told by the X-Lantern-Role
// header) in the reply shape the request's `format` schema asks for. As the
// agent it proposes a walkthrough's commands one by one, moving on only
// when the last proposal was played; as the critic it scores the
// walkthrough's move high and anything else from the state it is shown;
// every other role gets a well-formed, plausible reply. It lets a person
// watch Lantern's whole model path play a game without a GPU, and tests
// drive that path end to end.
package oracle

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/managers/contextmgr"
	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// ModelName is the one model the oracle serves.
const ModelName = "oracle"

// Version is the Ollama version the oracle reports.
const Version = "0.17.4"

// ContextLength is the context the oracle's model claims.
const ContextLength = 65536

// roleHeader carries the calling role (the llm package sets it).
const roleHeader = "X-Lantern-Role"

// Options configure an oracle.
type Options struct {
	// Script is the walkthrough the agent role follows.
	Script []string
	// NoThinking hides the thinking capability: the agent's reasoning then
	// always comes in the JSON reply.
	NoThinking bool
	// ChunkDelay pauses between the pieces of a streamed reply, so a person
	// can watch the reasoning arrive.
	ChunkDelay time.Duration
	// Logger receives one line per request (nil: discard).
	Logger *slog.Logger
	// Pacer holds each chat reply as long as a GPU would take (nil: reply
	// at once).
	Pacer *Pacer
}

// Oracle is the server. It is safe for concurrent requests.
type Oracle struct {
	opts    Options
	log     *slog.Logger
	started time.Time

	mu    sync.Mutex
	walk  walker
	stats Stats
}

// Stats count what the oracle was asked.
type Stats struct {
	Proposals int // the agent's structured calls
	// Repeats are the proposals made again for a turn (or a later one)
	// because the last one was not played: a rejection, or another command.
	Repeats []Repeat
	Judged  int // the critic's calls
	Others  int // every other chat call
}

// Repeat is one proposal made again.
type Repeat struct {
	Turn   int
	Action string
}

// Stats returns the counts so far.
func (o *Oracle) Stats() Stats {
	o.mu.Lock()
	defer o.mu.Unlock()
	st := o.stats
	st.Repeats = append([]Repeat(nil), o.stats.Repeats...)
	return st
}

// String is a one-line summary.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d proposals, %d repeated", s.Proposals, len(s.Repeats))
	for i, r := range s.Repeats {
		if i == 0 {
			b.WriteString(" (")
		} else {
			b.WriteString(", ")
		}
		if i == 10 {
			fmt.Fprintf(&b, "%d more", len(s.Repeats)-10)
			break
		}
		fmt.Fprintf(&b, "T%d %s", r.Turn, r.Action)
	}
	if len(s.Repeats) > 0 {
		b.WriteString(")")
	}
	fmt.Fprintf(&b, "; %d critic calls, %d other calls", s.Judged, s.Others)
	return b.String()
}

// New makes an oracle for a walkthrough.
func New(opts Options) *Oracle {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Oracle{opts: opts, log: log, started: time.Now(), walk: walker{script: append([]string(nil), opts.Script...)}}
}

// isModel reports whether a request names the oracle's model.
func isModel(name string) bool {
	return name == ModelName || name == ModelName+":latest"
}

// ServeHTTP answers Ollama's API.
func (o *Oracle) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			httpError(w, http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			fmt.Fprint(w, "Ollama is running")
		}
	case "/api/version":
		writeJSON(w, http.StatusOK, map[string]string{"version": Version})
	case "/api/tags":
		writeJSON(w, http.StatusOK, api.ListResponse{Models: []api.ListModelResponse{{
			Name: ModelName + ":latest", Model: ModelName + ":latest", ModifiedAt: o.started, Size: 1 << 10,
			Digest: "0racle", Details: o.details(),
		}}})
	case "/api/ps":
		writeJSON(w, http.StatusOK, api.ProcessResponse{Models: []api.ProcessModelResponse{{
			Name: ModelName + ":latest", Model: ModelName + ":latest", Size: 1 << 10, Digest: "0racle",
			Details: o.details(), ExpiresAt: time.Now().Add(time.Hour), ContextLength: ContextLength,
		}}})
	case "/api/show":
		var req api.ShowRequest
		if !decode(w, r, &req) {
			return
		}
		if !isModel(req.Model) {
			notFound(w, req.Model)
			return
		}
		writeJSON(w, http.StatusOK, o.show())
	case "/api/pull":
		var req api.PullRequest
		if !decode(w, r, &req) {
			return
		}
		o.pull(w, req.Model)
	case "/api/chat":
		var req api.ChatRequest
		if !decode(w, r, &req) {
			return
		}
		if !isModel(req.Model) {
			notFound(w, req.Model)
			return
		}
		o.chat(w, r, &req)
	default:
		httpError(w, http.StatusNotFound, "404 page not found")
	}
}

func (o *Oracle) details() api.ModelDetails {
	return api.ModelDetails{Format: "oracle", Family: "oracle", Families: []string{"oracle"}, ParameterSize: "0B", QuantizationLevel: "none"}
}

func (o *Oracle) show() api.ShowResponse {
	caps := []model.Capability{model.CapabilityCompletion, model.CapabilityTools}
	if !o.opts.NoThinking {
		caps = append(caps, model.CapabilityThinking)
	}
	return api.ShowResponse{
		Details:      o.details(),
		ModelInfo:    map[string]any{"general.architecture": "oracle", "oracle.context_length": ContextLength},
		Capabilities: caps,
		ModifiedAt:   o.started,
	}
}

// pull succeeds at once for the oracle (there is nothing to download) and
// fails for any other model.
func (o *Oracle) pull(w http.ResponseWriter, name string) {
	if !isModel(name) {
		httpError(w, http.StatusNotFound, fmt.Sprintf("pull model manifest: the oracle serves only %q, not %q", ModelName, name))
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	for _, st := range []api.ProgressResponse{{Status: "pulling manifest"}, {Status: "verifying sha256 digest"}, {Status: "success"}} {
		enc.Encode(st)
		flush(w)
	}
}

// answer is a reply before it is sent.
type answer struct {
	Content  string
	Thinking string
}

// chat answers one chat request for the role in its header.
func (o *Oracle) chat(w http.ResponseWriter, r *http.Request, req *api.ChatRequest) {
	start := time.Now()
	role := r.Header.Get(roleHeader)
	ans, err := o.respond(role, req)
	if err != nil {
		o.log.Warn("oracle: cannot answer", "role", role, "err", err)
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	o.log.Debug("oracle: chat", "role", role, "content", ans.Content)
	paced, ok := o.pace(r, role, req)
	if !ok {
		return
	}
	promptChars := 0
	for _, m := range req.Messages {
		promptChars += len(m.Content) + len(m.Thinking)
	}
	promptChars += len(req.Format)
	final := api.ChatResponse{
		Model: req.Model, CreatedAt: time.Now(), Done: true, DoneReason: "stop",
		Message: api.Message{Role: "assistant"},
		Metrics: api.Metrics{
			PromptEvalCount: max(1, promptChars/4),
			EvalCount:       max(1, (len(ans.Content)+len(ans.Thinking))/4),
		},
	}
	timing := func() {
		final.CreatedAt = time.Now()
		total := time.Since(start)
		final.TotalDuration = max(total, time.Microsecond)
		final.PromptEvalDuration = max(total/10, time.Microsecond)
		final.EvalDuration = max(total-total/10, time.Microsecond)
		paced(&final.Metrics)
	}
	if req.Stream != nil && !*req.Stream {
		final.Message.Content, final.Message.Thinking = ans.Content, ans.Thinking
		timing()
		writeJSON(w, http.StatusOK, final)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	for _, piece := range chunks(ans) {
		if o.opts.ChunkDelay > 0 {
			select {
			case <-time.After(o.opts.ChunkDelay):
			case <-r.Context().Done():
				return
			}
		}
		if err := enc.Encode(api.ChatResponse{Model: req.Model, CreatedAt: time.Now(), Message: piece}); err != nil {
			return
		}
		flush(w)
	}
	timing()
	enc.Encode(final)
	flush(w)
}

// chunks cuts a reply into streamed pieces, thinking first, a few words at
// a time.
func chunks(a answer) []api.Message {
	var out []api.Message
	cut := func(text string, thinking bool) {
		rs := []rune(text)
		for len(rs) > 0 {
			n := min(16, len(rs))
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
	cut(a.Thinking, true)
	cut(a.Content, false)
	return out
}

// respond makes the reply a role gets.
func (o *Oracle) respond(role string, req *api.ChatRequest) (answer, error) {
	s, err := parseFormat(req.Format)
	if err != nil {
		return answer{}, err
	}
	switch {
	case len(req.Tools) > 0:
		o.log.Info("oracle: research round", "role", role)
		// A research round: say so in plain words and call no tool.
		return answer{Content: plainText(role)}, nil
	case role == config.RoleAgent && s != nil:
		return o.agent(req, s)
	case role == config.RoleCritic && s != nil:
		return o.critic(allUser(req.Messages), s)
	}
	o.mu.Lock()
	o.stats.Others++
	o.mu.Unlock()
	if s == nil {
		return answer{Content: plainText(role)}, nil
	}
	return generic(role, s)
}

// agent proposes the walkthrough's command for the prompt's turn.
func (o *Oracle) agent(req *api.ChatRequest, s *schema) (answer, error) {
	o.mu.Lock()
	p := o.walk.propose(agentUser(req.Messages))
	why := o.walk.reasoning(p)
	o.stats.Proposals++
	if p.Again {
		o.stats.Repeats = append(o.stats.Repeats, Repeat{Turn: p.Turn, Action: p.Action})
	}
	o.mu.Unlock()
	o.log.Info("oracle: agent", "turn", p.Turn, "step", p.Step, "action", p.Action, "again", p.Again)
	v, err := generate(s, "", voiceOf(config.RoleAgent), 0)
	if err != nil {
		return answer{}, fmt.Errorf("agent reply: %w", err)
	}
	obj, ok := v.(object)
	if !ok {
		return answer{}, fmt.Errorf("agent reply: the format is not an object schema")
	}
	var ans answer
	if s.has("reasoning") {
		r, err := fitString(s.Properties["reasoning"], why)
		if err != nil {
			return answer{}, err
		}
		obj.set("reasoning", r)
	} else if thinks(req) {
		ans.Thinking = why
	}
	if s.has("action") {
		a, err := fitString(s.Properties["action"], p.Action)
		if err != nil {
			return answer{}, err
		}
		obj.set("action", a)
	}
	obj.set("remember", "")
	obj.set("remember_importance", integer(propOr(s, "remember_importance"), 0))
	b, err := marshal(obj)
	if err != nil {
		return answer{}, err
	}
	ans.Content = string(b)
	return ans, nil
}

// propOr is a property's schema, or an empty one.
func propOr(s *schema, prop string) *schema {
	if p := s.Properties[prop]; p != nil {
		return p
	}
	return &schema{}
}

// critic scores the proposed command.
func (o *Oracle) critic(user string, s *schema) (answer, error) {
	cmd, state := splitCritic(user)
	o.mu.Lock()
	v := judge(cmd, state, &o.walk)
	o.stats.Judged++
	o.mu.Unlock()
	o.log.Info("oracle: critic", "command", cmd, "score", v.Score)
	gen, err := generate(s, "", voice{text: func(string) string { return v.Justification }}, 0)
	if err != nil {
		return answer{}, fmt.Errorf("critic reply: %w", err)
	}
	obj, ok := gen.(object)
	if !ok {
		return answer{}, fmt.Errorf("critic reply: the format is not an object schema")
	}
	obj.set("score", integer(propOr(s, "score"), float64(v.Score)))
	b, err := marshal(obj)
	if err != nil {
		return answer{}, err
	}
	return answer{Content: string(b)}, nil
}

// thinks reports whether the request turns thinking on.
func thinks(req *api.ChatRequest) bool {
	if req.Think == nil {
		return false
	}
	if req.Think.IsBool() {
		return req.Think.Bool()
	}
	return req.Think.IsString()
}

// agentUser is the agent prompt's game-state message: the first user
// message that carries a turn number, else the first user message.
func agentUser(msgs []api.Message) string {
	for _, m := range msgs {
		if m.Role == "user" && contextmgr.Parse(m.Content).Turn > 0 {
			return m.Content
		}
	}
	return firstUser(msgs)
}

func firstUser(msgs []api.Message) string {
	for _, m := range msgs {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

// allUser joins the user messages: the critic's request continues the
// agent's prompt, so the state is in an earlier one than the proposal.
func allUser(msgs []api.Message) string {
	var parts []string
	for _, m := range msgs {
		if m.Role == "user" {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n\n")
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		httpError(w, http.StatusBadRequest, "bad request: "+err.Error())
		return false
	}
	return true
}

func notFound(w http.ResponseWriter, name string) {
	httpError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found (the oracle serves only %q)", name, ModelName))
}

func httpError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
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
