package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/lantern-if/lantern/config"
)

// Capabilities a role may need.
const (
	CapTools      = "tools"
	CapThinking   = "thinking"
	CapCompletion = "completion"
)

// ModelInfo is what /api/show says about a model.
type ModelInfo struct {
	Name          string   `json:"name"`
	Family        string   `json:"family"`
	Parameters    string   `json:"parameters"`
	Quantization  string   `json:"quantization"`
	ContextLength int      `json:"context_length"`
	Capabilities  []string `json:"capabilities"`
	// RunningContext is the context an OpenAI-compatible server says it
	// runs the model with (vLLM's max_model_len, llama.cpp's n_ctx); 0:
	// not said.
	RunningContext int `json:"running_context,omitempty"`
	// RemoteHost is where a cloud model runs: prompts sent to it leave the
	// machine even when the server is local.
	RemoteHost string `json:"remote_host,omitempty"`
}

// Has reports a capability.
func (i ModelInfo) Has(capability string) bool {
	for _, c := range i.Capabilities {
		if c == capability {
			return true
		}
	}
	return false
}

// ModelSummary is one line of the server's model list.
type ModelSummary struct {
	Name         string `json:"name"`
	Size         int64  `json:"size"`
	Family       string `json:"family"`
	Parameters   string `json:"parameters"`
	Quantization string `json:"quantization"`
	// RemoteHost is set for a cloud model (Ollama's "*-cloud"): it runs
	// there, and its Size is only the manifest's.
	RemoteHost string `json:"remote_host,omitempty"`
}

// Remote reports whether the model runs off this machine (a cloud model).
func (m ModelSummary) Remote() bool {
	return m.RemoteHost != "" || strings.HasSuffix(m.Name, "-cloud") || strings.Contains(m.Name, "-cloud:")
}

// Models lists the global server's models (/api/tags, or /models on an
// OpenAI-compatible server).
func (c *Client) Models(ctx context.Context) ([]ModelSummary, error) {
	e := c.def[0]
	if e.api == config.APIOpenAI {
		list, err := c.openaiModels(ctx, e)
		if err != nil {
			return nil, c.wrapAt(e, "", "", 1, c.classify(ctx, err))
		}
		out := make([]ModelSummary, 0, len(list))
		for _, m := range list {
			out = append(out, ModelSummary{Name: clipText(m.ID, 200), Family: clipText(m.OwnedBy, 40)})
		}
		return out, nil
	}
	r, err := e.ol.List(ctx)
	if err != nil {
		return nil, c.wrapAt(e, "", "", 1, c.classify(ctx, err))
	}
	out := make([]ModelSummary, 0, len(r.Models))
	for _, m := range r.Models {
		out = append(out, ModelSummary{Name: clipText(m.Name, 200), Size: m.Size, Family: clipText(m.Details.Family, 40),
			Parameters: clipText(m.Details.ParameterSize, 40), Quantization: clipText(m.Details.QuantizationLevel, 40), RemoteHost: clipText(m.RemoteHost, 200)})
	}
	return out, nil
}

func (c *Client) cachedInfo(model string) (ModelInfo, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.info[model]
	return i, ok, c.unshown[model]
}

// Show describes a model (/api/show; on an OpenAI-compatible server its
// /models entry, with /api/show when Ollama serves that base), cached per
// client.
func (c *Client) Show(ctx context.Context, model string) (ModelInfo, error) {
	if i, ok, err := c.cachedInfo(model); ok || err != nil {
		return i, err
	}
	at := c.endpointFor(model)
	var i ModelInfo
	var err error
	if at.api == config.APIOpenAI {
		i, err = c.showOpenAI(ctx, at, model)
	} else {
		i, err = c.showOllama(ctx, at, model)
	}
	if err != nil {
		err = c.classify(ctx, err)
		if errors.Is(err, ErrBodyTooLarge) {
			c.mu.Lock()
			c.unshown[model] = err
			c.mu.Unlock()
		}
		return ModelInfo{}, err
	}
	c.mu.Lock()
	c.info[model] = i
	c.mu.Unlock()
	return i, nil
}

// showOllama is Ollama's /api/show.
func (c *Client) showOllama(ctx context.Context, at *endpoint, model string) (ModelInfo, error) {
	r, err := at.ol.Show(ctx, &api.ShowRequest{Model: model})
	if err != nil {
		return ModelInfo{}, err
	}
	i := ModelInfo{Name: model, Family: clipText(r.Details.Family, 40), Parameters: clipText(r.Details.ParameterSize, 40),
		Quantization: clipText(r.Details.QuantizationLevel, 40), RemoteHost: clipText(r.RemoteHost, 200)}
	for _, cp := range r.Capabilities {
		i.Capabilities = append(i.Capabilities, clipText(string(cp), 40))
	}
	for k, v := range r.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			if f, ok := v.(float64); ok {
				i.ContextLength = int(f)
			}
		}
	}
	return i, nil
}

// CheckRole verifies that a role's model exists and has what the role needs,
// with a message a user can act on.
func (c *Client) CheckRole(ctx context.Context, role string, needs ...string) error {
	r, ok := c.Role(role)
	if !ok {
		return fmt.Errorf("llm: unknown role %q", role)
	}
	at := c.endpointFor(r.Model)
	info, err := c.Show(ctx, r.Model)
	if err != nil {
		return c.wrapAt(at, role, r.Model, 1, err)
	}
	for _, n := range needs {
		if !info.Has(n) {
			return &Error{Role: role, Model: r.Model, Host: at.label(), API: at.api, Attempts: 1,
				Err:  fmt.Errorf("%w: %s", ErrUnsupported, n),
				Hint: fmt.Sprintf("model %s does not support %s; pick another for the %s role", r.Model, n, role)}
		}
	}
	return nil
}

// PullProgress reports a pull's progress.
type PullProgress struct {
	Status    string
	Completed int64
	Total     int64
}

// Pull downloads a model, reporting progress (for a progress bar).
func (c *Client) Pull(ctx context.Context, model string, progress func(PullProgress)) error {
	at := c.endpointFor(model)
	if at.api == config.APIOpenAI {
		return c.wrapAt(at, "", model, 1, fmt.Errorf("%w: an OpenAI-compatible server cannot pull models; load %s on the server itself", ErrUnsupported, model))
	}
	err := at.ol.Pull(ctx, &api.PullRequest{Model: model}, func(p api.ProgressResponse) error {
		if progress != nil {
			progress(PullProgress{Status: clipText(p.Status, 80), Completed: p.Completed, Total: p.Total})
		}
		return nil
	})
	if err != nil {
		return c.wrapAt(at, "", model, 1, c.classify(ctx, err))
	}
	c.mu.Lock()
	delete(c.info, model)
	c.mu.Unlock()
	return nil
}
