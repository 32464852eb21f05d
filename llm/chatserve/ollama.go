package chatserve

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Ollama's native API: the listings and the NDJSON chat stream.

func (s *Server) details(m Model) api.ModelDetails {
	return api.ModelDetails{Format: "gguf", Family: m.Family, Families: []string{m.Family}, ParameterSize: m.ParameterSize, QuantizationLevel: m.Quantization}
}

func (s *Server) tags() api.ListResponse {
	list := api.ListResponse{Models: []api.ListModelResponse{}}
	for _, m := range s.o.Backend.Models() {
		list.Models = append(list.Models, api.ListModelResponse{Name: m.Name, Model: m.Name, ModifiedAt: s.o.Started,
			Size: m.Size, Digest: digest(m), Details: s.details(m), RemoteHost: m.RemoteHost, RemoteModel: remoteModel(m)})
	}
	return list
}

// digest is the model's digest: its own, else one made from its name (64
// hex digits, as Ollama's sha256 manifest digests are), the same on every
// run.
func digest(m Model) string {
	if m.Digest != "" {
		return m.Digest
	}
	sum := sha256.Sum256([]byte("chatserve model " + m.Name))
	return hex.EncodeToString(sum[:])
}

func remoteModel(m Model) string {
	if m.RemoteHost == "" {
		return ""
	}
	return m.Name
}

func (s *Server) ps() api.ProcessResponse {
	ps := api.ProcessResponse{Models: []api.ProcessModelResponse{}}
	for _, m := range s.o.Backend.Models() {
		if m.RemoteHost != "" {
			continue
		}
		ps.Models = append(ps.Models, api.ProcessModelResponse{Name: m.Name, Model: m.Name, Size: m.Size, Digest: digest(m),
			Details: s.details(m), ExpiresAt: time.Now().Add(time.Hour), ContextLength: m.ContextLength})
	}
	return ps
}

func (s *Server) show(m Model) api.ShowResponse {
	caps := []model.Capability{model.CapabilityCompletion}
	for _, c := range m.Capabilities {
		caps = append(caps, model.Capability(c))
	}
	arch := m.Family
	if arch == "" {
		arch = "llama"
	}
	return api.ShowResponse{
		Details:      s.details(m),
		ModelInfo:    map[string]any{"general.architecture": arch, arch + ".context_length": m.ContextLength},
		Capabilities: caps,
		ModifiedAt:   s.o.Started,
		RemoteHost:   m.RemoteHost,
		RemoteModel:  remoteModel(m),
	}
}

// Puller is a backend that can be asked for models it does not serve
// yet: Pull reports whether the model now is.
type Puller interface {
	Pull(name string) bool
}

// pull succeeds at once for a served model (there is nothing to
// download), or one the backend's Puller adds, and fails for any other.
func (s *Server) pull(w http.ResponseWriter, name string) {
	_, ok := s.find(name)
	if p, isPuller := s.o.Backend.(Puller); !ok && isPuller {
		ok = p.Pull(name)
	}
	if !ok {
		ollamaError(w, http.StatusNotFound, "pull model manifest: file does not exist: "+name)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	steps := []api.ProgressResponse{{Status: "pulling manifest"}}
	for i := int64(1); i <= 4; i++ {
		steps = append(steps, api.ProgressResponse{Status: "pulling layer", Digest: "sha256:0000", Total: 400, Completed: 100 * i})
	}
	steps = append(steps, api.ProgressResponse{Status: "verifying sha256 digest"}, api.ProgressResponse{Status: "success"})
	for _, st := range steps {
		enc.Encode(st)
		flush(w)
	}
}

func ollamaError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

type ollamaWriter struct {
	w     http.ResponseWriter
	model string
	t     *tally
	enc   *json.Encoder
}

func (o *ollamaWriter) final() api.ChatResponse {
	return api.ChatResponse{
		Model: o.model, CreatedAt: time.Now(), Done: true, DoneReason: o.t.reason,
		Message: api.Message{Role: "assistant"},
		Metrics: api.Metrics{TotalDuration: o.t.total, LoadDuration: o.t.load, PromptEvalCount: o.t.promptTokens,
			PromptEvalDuration: o.t.promptEval, EvalCount: o.t.evalTokens, EvalDuration: o.t.eval},
	}
}

func (o *ollamaWriter) whole(a Answer) {
	f := o.final()
	f.Message = api.Message{Role: "assistant", Content: a.Content, Thinking: a.Thinking, ToolCalls: apiCalls(a.ToolCalls)}
	writeJSON(o.w, http.StatusOK, f)
}

func (o *ollamaWriter) begin() {
	o.w.Header().Set("Content-Type", "application/x-ndjson")
	o.w.WriteHeader(http.StatusOK)
}

func (o *ollamaWriter) piece(p piece) bool {
	err := o.enc.Encode(api.ChatResponse{Model: o.model, CreatedAt: time.Now(), Message: api.Message{Role: "assistant", Content: p.content, Thinking: p.thinking}})
	flush(o.w)
	return err == nil
}

func (o *ollamaWriter) tools(calls []ToolCall) {
	o.enc.Encode(api.ChatResponse{Model: o.model, CreatedAt: time.Now(), Message: api.Message{Role: "assistant", ToolCalls: apiCalls(calls)}})
}

func (o *ollamaWriter) end() {
	o.enc.Encode(o.final())
	flush(o.w)
}

func (o *ollamaWriter) malformed() string { return "{\"message\": {\"content\": \"oops\"\n" }

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
