package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
)

// TestNoticesNameTheServersProtocol: a server that cannot be reached or
// lacks the model is named as what it is, with what to do about that kind
// of server; Ollama's advice is never given for an OpenAI-compatible one.
func TestNoticesNameTheServersProtocol(t *testing.T) {
	unreach := func(api string) error {
		return &llm.Error{Role: "agent", Model: "m", Host: "h:1", API: api, Err: fmt.Errorf("%w: refused", llm.ErrUnreachable)}
	}
	missing := func(api string) error {
		return &llm.Error{Role: "agent", Model: "m", Host: "h:1", API: api, Err: fmt.Errorf("%w: no such model", llm.ErrModelNotFound)}
	}
	other := fmt.Errorf("%w: 500", llm.ErrServer)
	tests := []struct {
		name, api string
		err       error
		want      []string
		never     []string
	}{
		{"ollama unreachable", config.APIOllama, unreach(config.APIOllama), []string{"Ollama is not reachable at h:1", "ollama serve"}, nil},
		{"openai unreachable", config.APIOpenAI, unreach(config.APIOpenAI), []string{"No OpenAI-compatible server answers at h:1", "--base-url"}, []string{"Ollama", "ollama"}},
		{"ollama missing model", config.APIOllama, missing(config.APIOllama), []string{"Ollama at h:1 does not have the model m", "P pulls it"}, nil},
		{"openai missing model", config.APIOpenAI, missing(config.APIOpenAI), []string{"OpenAI-compatible server at h:1 does not serve the model m", "load it on the server"}, []string{"Ollama", "pull"}},
		{"openai other error", config.APIOpenAI, other, []string{"OpenAI-compatible server at h:2"}, []string{"Ollama"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := modelNotice("h:2", tt.api, "m", tt.err)
			for _, w := range tt.want {
				if !strings.Contains(n.text, w) {
					t.Errorf("notice %q lacks %q", n.text, w)
				}
			}
			for _, w := range tt.never {
				if strings.Contains(n.text, w) {
					t.Errorf("notice %q says %q", n.text, w)
				}
			}
		})
	}
	if got := readyText(config.APIOpenAI, "", "h:1"); got != "the OpenAI-compatible server at h:1 is ready" {
		t.Errorf("ready: %q", got)
	}
	if got := readyText(config.APIOllama, "0.17.4", "h:1"); got != "Ollama 0.17.4 at h:1 is ready" {
		t.Errorf("ready: %q", got)
	}
}
