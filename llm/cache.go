package llm

import (
	"encoding/json"
)

// Estimating what Ollama's prompt cache serves.
//
// Ollama's runner keeps one cache per parallel slot (OLLAMA_NUM_PARALLEL,
// 1 by default), gives each request a slot (see cachedPrefix) and
// evaluates only what follows the prefix the slot already holds. Its
// prompt_eval_count is the whole prompt's length all the same (the
// runner counts its inputs before the cache is consulted), so the share
// the cache served cannot be read from a reply. The client keeps, per
// model, the text of the last prompt in each of the server's slots as
// the runner picks them, and counts the common prefix of each new prompt
// with the slot it would get, in tokens at the model's learned ratio.

// promptText is a request as the model's template sees it, in order: the
// tool declarations, then each message's role and text. The schema in
// Format is not part of the prompt (it constrains sampling only).
func promptText(req Request) []byte {
	var b []byte
	for _, t := range req.Tools {
		b = append(b, t.Name...)
		b = append(b, 0)
		b = append(b, t.Description...)
		if p, err := json.Marshal(t.Params); err == nil {
			b = append(b, p...)
		}
		b = append(b, 0)
	}
	for _, m := range req.Messages {
		b = append(b, m.Role...)
		b = append(b, 0)
		b = append(b, m.Thinking...)
		b = append(b, 0)
		b = append(b, m.Content...)
		for _, tc := range m.ToolCalls {
			b = append(b, tc.Name...)
			b = append(b, tc.Arguments...)
		}
		b = append(b, 0)
	}
	return b
}

// cachedPrefix picks the model's slot for the prompt as the runner does,
// puts the prompt in it and returns the cached prefix in bytes. The slots
// are kept least recently used first. Without the multi-user cache the
// runner takes the slot sharing the longest prefix (the first on a tie);
// with it, a slot the prompt extends whole, else the least recently used
// one, into which the longest prefix any slot shares is copied.
func (c *Client) cachedPrefix(model string, prompt []byte) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	slots := c.slots[model]
	if slots == nil {
		slots = make([][]byte, c.cacheSlots)
	}
	best, at := -1, 0
	for i, s := range slots {
		if n := commonPrefix(s, prompt); n > best {
			best, at = n, i
		}
	}
	if c.multiUser && best < len(slots[at]) {
		at = 0 // the least recently used
	}
	slots = append(append(slots[:at:at], slots[at+1:]...), prompt)
	c.slots[model] = slots
	return best
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// cachedTokens is the estimated prompt tokens the cache served: the shared
// prefix at the model's ratio, less than the whole prompt (the runner
// always evaluates at least the last input).
func (c *Client) cachedTokens(model string, prefix, total int) int {
	n := int(float64(prefix) * c.ratio(model))
	return max(0, min(n, total-1))
}
