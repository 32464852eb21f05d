package cli

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/oracle"
)

// TestMemorySynthesisFollowsTheServer: managers.memory_synthesis = auto
// puts memory questions in the agent's reply on a server that serves one
// request at a time, and in the memory role's own call beside the next
// proposal on one that serves several, whichever says so first:
// server.slots, OLLAMA_NUM_PARALLEL, the server's /props (the paced
// oracle's here), else one slot; the explicit settings win.
func TestMemorySynthesisFollowsTheServer(t *testing.T) {
	serve := func(slots int) string {
		var p *oracle.Pacer
		if slots > 0 {
			var err error
			if p, err = oracle.NewPacer(oracle.PaceOptions{PromptRate: 1e9, GenRate: 1e9, Slots: slots}); err != nil {
				t.Fatal(err)
			}
		}
		srv := httptest.NewServer(oracle.New(oracle.Options{Script: []string{"look"}, Pacer: p}))
		t.Cleanup(srv.Close)
		return strings.TrimPrefix(srv.URL, "http://")
	}
	for _, c := range []struct {
		name      string
		mode      string
		slots     int    // server.slots
		env       string // OLLAMA_NUM_PARALLEL
		served    int    // the oracle's paced slots (/props); 0: unpaced, no /props
		withAgent bool
		says      string
	}{
		{"auto, nothing said", config.MemoryAuto, 0, "", 0, true, "one request at a time (assumed"},
		{"auto, the server's /props", config.MemoryAuto, 0, "", 4, false, "4 requests at once (the server's /props)"},
		{"auto, one slot in /props", config.MemoryAuto, 0, "", 1, true, "one request at a time (the server's /props)"},
		{"auto, OLLAMA_NUM_PARALLEL", config.MemoryAuto, 0, "2", 4, false, "2 requests at once (OLLAMA_NUM_PARALLEL)"},
		{"auto, server.slots first", config.MemoryAuto, 1, "2", 4, true, "one request at a time (server.slots)"},
		{"with_agent", config.MemoryWithAgent, 0, "", 4, true, "with_agent"},
		{"separate", config.MemorySeparate, 0, "", 1, false, "separate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := config.Defaults()
			cfg.Managers.MemorySynthesis, cfg.Server.Slots = c.mode, c.slots
			client, err := llm.New(llm.Options{Host: serve(c.served), Roles: cfg.Roles})
			if err != nil {
				t.Fatal(err)
			}
			getenv := func(k string) string {
				if k == "OLLAMA_NUM_PARALLEL" {
					return c.env
				}
				return ""
			}
			withAgent, why := memorySynthesis(cfg, client, getenv)
			if withAgent != c.withAgent || !strings.Contains(why, c.says) {
				t.Errorf("with the agent %v (%s), want %v saying %q", withAgent, why, c.withAgent, c.says)
			}
		})
	}
}
