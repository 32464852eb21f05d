package cli

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/internal/oracle"
	"github.com/lantern-if/lantern/internal/shared"
)

// TestWaitPerTurnOnAPacedServer: the oracle paced as a consumer GPU (2,500
// prompt and 60 generated tokens a second, each role's reply a fixed
// budget), Zork I with the default configuration: the critic asks its
// model only where the game cannot decide, a turn's memory question is
// answered in the agent's next reply, and the planning managers run beside
// the agent's next proposal, so a turn keeps the person waiting little
// longer than the agent's own call (bench's wall ÷ agent, the mean of the
// totals): at most 1.5× with one server slot (Ollama's default), 1.2× with
// four.
func TestWaitPerTurnOnAPacedServer(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 60 paced turns twice (about 4 minutes)")
	}
	cmds, err := oracle.LoadScript(shared.File(t, "walkthroughs/zork1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		slots int
		most  float64
	}{{1, 1.5}, {4, 1.2}} {
		t.Run(fmt.Sprintf("slots=%d", tt.slots), func(t *testing.T) {
			pacer, err := oracle.NewPacer(oracle.PaceOptions{PromptRate: 2500, GenRate: 60, Slots: tt.slots})
			if err != nil {
				t.Fatal(err)
			}
			orc := oracle.New(oracle.Options{Script: cmds, Pacer: pacer})
			srv := httptest.NewServer(orc)
			t.Cleanup(srv.Close)
			t.Setenv("OLLAMA_HOST", strings.TrimPrefix(srv.URL, "http://"))
			rep := benchJSON(t, "--model", "oracle", "--story", shared.File(t, "stories/zork1.z3"), "--seed", "12",
				"--max-turns", "60", "--episodes", "1", "--workdir", t.TempDir())
			all := rep.Summary[len(rep.Summary)-1]
			t.Logf("wall %.0f ms, agent %.0f ms a turn: %.2f× (p50 %.2f, p95 %.2f); %.2f calls a turn; oracle: %s; %s",
				all.WallPerTurnMS, all.AgentPerTurnMS, all.WaitRatio, all.WaitRatioP50, all.WaitRatioP95, all.LLMCallsPerTurn, pacer.Totals(), orc.Stats())
			if all.Turns != 60 || all.WaitRatio <= 0 {
				t.Fatalf("the bench played %d turns, wall/agent %.2f", all.Turns, all.WaitRatio)
			}
			if all.WaitRatio > tt.most {
				t.Errorf("a turn takes %.2f× the agent's call with %d slots; want at most %.1f×", all.WaitRatio, tt.slots, tt.most)
			}
		})
	}
}
