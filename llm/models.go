package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"
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
}

// Models lists the server's models (/api/tags).
func (c *Client) Models(ctx context.Context) ([]ModelSummary, error) {
	r, err := c.api.List(ctx)
	if err != nil {
		return nil, c.wrap("", "", 1, c.classify(ctx, err))
	}
	out := make([]ModelSummary, 0, len(r.Models))
	for _, m := range r.Models {
		out = append(out, ModelSummary{Name: m.Name, Size: m.Size, Family: m.Details.Family, Parameters: m.Details.ParameterSize, Quantization: m.Details.QuantizationLevel})
	}
	return out, nil
}

func (c *Client) cachedInfo(model string) (ModelInfo, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.info[model]
	return i, ok
}

// Show describes a model (/api/show), cached per client.
func (c *Client) Show(ctx context.Context, model string) (ModelInfo, error) {
	if i, ok := c.cachedInfo(model); ok {
		return i, nil
	}
	r, err := c.api.Show(ctx, &api.ShowRequest{Model: model})
	if err != nil {
		return ModelInfo{}, c.classify(ctx, err)
	}
	i := ModelInfo{Name: model, Family: r.Details.Family, Parameters: r.Details.ParameterSize, Quantization: r.Details.QuantizationLevel}
	for _, cp := range r.Capabilities {
		i.Capabilities = append(i.Capabilities, string(cp))
	}
	for k, v := range r.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			if f, ok := v.(float64); ok {
				i.ContextLength = int(f)
			}
		}
	}
	c.mu.Lock()
	c.info[model] = i
	c.mu.Unlock()
	return i, nil
}

// CheckRole verifies that a role's model exists and has what the role needs,
// with a message a user can act on.
func (c *Client) CheckRole(ctx context.Context, role string, needs ...string) error {
	r, ok := c.Role(role)
	if !ok {
		return fmt.Errorf("llm: unknown role %q", role)
	}
	info, err := c.Show(ctx, r.Model)
	if err != nil {
		return c.wrap(role, r.Model, 1, err)
	}
	for _, n := range needs {
		if !info.Has(n) {
			return &Error{Role: role, Model: r.Model, Host: c.host, Attempts: 1,
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
	err := c.api.Pull(ctx, &api.PullRequest{Model: model}, func(p api.ProgressResponse) error {
		if progress != nil {
			progress(PullProgress{Status: p.Status, Completed: p.Completed, Total: p.Total})
		}
		return nil
	})
	if err != nil {
		return c.wrap("", model, 1, c.classify(ctx, err))
	}
	c.mu.Lock()
	delete(c.info, model)
	c.mu.Unlock()
	return nil
}
