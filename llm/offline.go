package llm

import "fmt"

// A server found unreachable by Version is remembered as down: every Chat
// then fails at once with ErrUnreachable (no connection, no retries) until
// Version reaches it again. A client that never calls Version keeps
// retrying each call on its own.

// Down reports whether the last Version check found no server.
func (c *Client) Down() bool { return c.down.Load() }

// setDown records the outcome of a reachability check.
func (c *Client) setDown(down bool) {
	if c.down.Swap(down) != down {
		c.log.Info("model server reachability", "host", c.Host(), "down", down)
	}
}

// downError is the error of a call skipped because the server is down.
func (c *Client) downError(role, model string) error {
	return c.wrap(role, model, 0, fmt.Errorf("%w: %s did not answer the last check (retry it to try again)", ErrUnreachable, c.Host()))
}
