package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/lantern-if/lantern/config"
)

// ServerSlots asks the agent's server how many requests it serves at once:
// llama.cpp's GET /props (total_slots), which Lantern's oracle answers too.
// Ollama has no such call: 0 then, as for any server that does not say.
func (c *Client) ServerSlots(ctx context.Context) int {
	eps := c.byRole[config.RoleAgent]
	if len(eps) == 0 {
		eps = c.def
	}
	e := eps[0]
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	u := e.ollamaRoot().JoinPath("props")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0
	}
	var props struct {
		TotalSlots int `json:"total_slots"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&props); err != nil || props.TotalSlots < 1 {
		return 0
	}
	return min(props.TotalSlots, 1024)
}

// SlotsText says how many slots a server has, for a person.
func SlotsText(n int) string {
	if n == 1 {
		return "one request at a time"
	}
	return fmt.Sprintf("%d requests at once", n)
}
