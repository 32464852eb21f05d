package llm

import (
	"context"

	"github.com/lantern-if/lantern/config"
)

// Thinks reports whether calls for the role ask the model to think first:
// think on, or auto with a model that can (as far as /api/show tells). A
// role that thinks gets its reasoning from the thinking stream.
func (c *Client) Thinks(ctx context.Context, role string) bool {
	r, ok := c.Role(role)
	if !ok {
		return false
	}
	switch r.Think {
	case config.ThinkOn:
		return true
	case config.ThinkOff:
		return false
	}
	if _, ok, _ := c.cachedInfo(r.Model); !ok {
		if _, err := c.Show(ctx, r.Model); err != nil {
			return false
		}
	}
	th := c.think(ctx, r)
	return th != nil && th.Value != false
}
