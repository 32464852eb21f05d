// Package oracle is a stand-in model server that knows the solution: on
// the shared server core (llm/chatserve) it speaks Ollama's HTTP API
// (/api/chat streaming and not, /api/show, /api/tags, /api/version,
// /api/pull, /api/ps and GET /) and the OpenAI chat-completions protocol
// (/v1/chat/completions, /v1/models) on one port with one model,
// "oracle", and answers each of Lantern's roles (told by the X-Lantern-Role
// header) in the reply shape the request's `format` schema asks for. As the
// agent it proposes a walkthrough's commands one by one, moving on only
// when the last proposal was played; as the critic it scores the
// walkthrough's move high and anything else from the state it is shown;
// as the memory role, and in the agent's memory field, it remembers from
// the turn's ground truth (memory.go); every other role gets a
// well-formed, plausible reply. It lets a person
// watch Lantern's whole model path play a game without a GPU, and tests
// drive that path end to end.
package oracle

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/chatserve"
	"github.com/lantern-if/lantern/managers/contextmgr"
)

// ModelName is the one model the oracle serves.
const ModelName = "oracle"

// Version is the Ollama version the oracle reports.
const Version = "0.17.4"

// ContextLength is the context the oracle's model claims.
const ContextLength = 65536

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

	once    sync.Once
	handler http.Handler

	mu sync.Mutex
	// walks are the agent's places in the walkthrough, one for each
	// conversation (concurrent games on one oracle do not mix).
	walks map[string]*walker
	made  int // walkers made so far
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
	// Memories are the memory questions answered in the agent's replies
	// (managers.memory_synthesis = "with_agent").
	Memories int
	// Remembered are the memory questions (in the agent's replies or the
	// memory role's calls) answered with a memory to keep.
	Remembered int
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
	if s.Memories > 0 {
		fmt.Fprintf(&b, "; %d memory questions answered by the agent", s.Memories)
	}
	if s.Remembered > 0 {
		fmt.Fprintf(&b, "; %d memories kept", s.Remembered)
	}
	return b.String()
}

// New makes an oracle for a walkthrough.
func New(opts Options) *Oracle {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Oracle{opts: opts, log: log, started: time.Now(), walks: map[string]*walker{}}
}

// maxConversations bounds the walkers kept: past it the oldest made is
// forgotten (a long-lived oracle serving many runs one after another).
const maxConversations = 1024

// walker is a conversation's place in the walkthrough, made on its first
// call. The caller holds o.mu.
func (o *Oracle) walker(conv string) *walker {
	if w, ok := o.walks[conv]; ok {
		return w
	}
	if len(o.walks) >= maxConversations {
		oldest := ""
		for k, w := range o.walks {
			if oldest == "" || w.made < o.walks[oldest].made {
				oldest = k
			}
		}
		delete(o.walks, oldest)
	}
	o.made++
	w := &walker{script: o.opts.Script, made: o.made}
	o.walks[conv] = w
	return w
}

// isModel reports whether a request names the oracle's model.
func isModel(name string) bool {
	return name == ModelName || name == ModelName+":latest"
}

// Handler is the oracle's HTTP server: the shared server core
// (llm/chatserve) answering Ollama's API and the OpenAI
// chat-completions protocol on one port, with the oracle as its backend.
// Pacing a reply belongs in pace (see Options.ChunkDelay).
func (o *Oracle) Handler() http.Handler {
	slots := 0
	if o.opts.Pacer != nil {
		slots = o.opts.Pacer.opts.Slots // a paced oracle says its slots, as llama.cpp's /props does
	}
	return chatserve.New(chatserve.Options{Backend: backend{o}, ChunkRunes: 16, Version: Version, Started: o.started, Pace: o.pace, Slots: slots})
}

// ServeHTTP answers both protocols (see Handler).
func (o *Oracle) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.once.Do(func() { o.handler = o.Handler() })
	o.handler.ServeHTTP(w, r)
}

// backend is the oracle as the server core sees it.
type backend struct{ o *Oracle }

func (b backend) Models() []chatserve.Model {
	caps := []string{"tools"}
	if !b.o.opts.NoThinking {
		caps = append(caps, "thinking")
	}
	return []chatserve.Model{{Name: ModelName + ":latest", ContextLength: ContextLength, Capabilities: caps, Size: 1 << 10,
		Family: "oracle", ParameterSize: "0B", Quantization: "none"}}
}

// Chat answers one chat call for the role in its header.
func (b backend) Chat(req *chatserve.Request) (chatserve.Answer, error) {
	o := b.o
	if !isModel(req.Chat.Model) {
		return chatserve.Answer{}, &chatserve.StatusError{Code: http.StatusNotFound,
			Msg: fmt.Sprintf("model '%s' not found (the oracle serves only %q)", req.Chat.Model, ModelName)}
	}
	ans, err := o.respond(req.HTTP.Header.Get(llm.ConversationHeader), req.Role, req.Chat)
	if err != nil {
		o.log.Warn("oracle: cannot answer", "role", req.Role, "err", err)
		return chatserve.Answer{}, err
	}
	o.log.Debug("oracle: chat", "role", req.Role, "protocol", req.Protocol, "content", ans.Content)
	return chatserve.Answer{Content: ans.Content, Thinking: ans.Thinking}, nil
}

// pace times a reply: the latency model first (Options.Pacer: the reply
// held as long as a GPU would take, its counts and model time reported as
// such), then ChunkDelay before each streamed piece, so a person can watch
// the reasoning arrive. The core calls the returned Pacer before the first
// byte and before each piece.
func (o *Oracle) pace(req *chatserve.Request, ans *chatserve.Answer) chatserve.Pacer {
	if o.opts.ChunkDelay <= 0 && o.opts.Pacer == nil {
		return nil
	}
	return &replyPace{o: o, req: req, ans: ans, delay: o.opts.ChunkDelay}
}

// answer is a reply before it is sent.
type answer struct {
	Content  string
	Thinking string
}

// respond makes the reply a role gets in a conversation (a client's
// llm.ConversationHeader; "" for a client that sends none).
func (o *Oracle) respond(conv, role string, req *api.ChatRequest) (answer, error) {
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
		return o.agent(conv, req, s)
	case role == config.RoleCritic && s != nil:
		return o.critic(conv, allUser(req.Messages), s)
	case role == config.RoleMemory && s != nil && s.has("should_remember"):
		return o.memory(allUser(req.Messages), s)
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
func (o *Oracle) agent(conv string, req *api.ChatRequest, s *schema) (answer, error) {
	o.mu.Lock()
	w := o.walker(conv)
	p := w.propose(agentUser(req.Messages))
	why := w.reasoning(p)
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
	} else if o.thinks(req) {
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
	if ms := s.Properties["memory"]; ms != nil {
		// The last turn's memory question, answered as the memory role
		// would answer it: from the turn's ground truth.
		n := askedIn(allUser(req.Messages))
		m, err := noteValue(ms, n)
		if err != nil {
			return answer{}, fmt.Errorf("agent reply's memory: %w", err)
		}
		obj = obj.put("memory", m) // the field is optional: generate left it out
		o.mu.Lock()
		o.stats.Memories++
		if n.ShouldRemember {
			o.stats.Remembered++
		}
		o.mu.Unlock()
	}
	b, err := marshal(obj)
	if err != nil {
		return answer{}, err
	}
	ans.Content = string(b)
	return ans, nil
}

// memory answers the memory role's own call from the turn's ground truth.
func (o *Oracle) memory(user string, s *schema) (answer, error) {
	n := askedIn(user)
	o.mu.Lock()
	o.stats.Others++
	if n.ShouldRemember {
		o.stats.Remembered++
	}
	o.mu.Unlock()
	obj, err := noteValue(s, n)
	if err != nil {
		return answer{}, fmt.Errorf("memory reply: %w", err)
	}
	b, err := marshal(obj)
	if err != nil {
		return answer{}, err
	}
	return answer{Content: string(b)}, nil
}

// propOr is a property's schema, or an empty one.
func propOr(s *schema, prop string) *schema {
	if p := s.Properties[prop]; p != nil {
		return p
	}
	return &schema{}
}

// critic scores the proposed command.
func (o *Oracle) critic(conv, user string, s *schema) (answer, error) {
	cmd, state := splitCritic(user)
	o.mu.Lock()
	v := judge(cmd, state, o.walker(conv))
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

// thinks reports whether the request turns thinking on. A request that
// says nothing thinks when the model can, as Ollama (v0.12 and later)
// thinks by default, on /api/chat and on /v1 alike: the OpenAI protocol
// has no "think": true, only reasoning_effort, which Lantern sends for
// the effort levels and "off" alone.
func (o *Oracle) thinks(req *api.ChatRequest) bool {
	if req.Think == nil {
		return !o.opts.NoThinking
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
