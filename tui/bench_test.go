package tui

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/lantern-if/lantern/engine"
)

const benchText = "Gnarled apple trees lean together here, gossiping in the breeze. The biggest one looks easy to climb. " +
	"The lane is to the south, and a gap in the hedge leads east, behind the cottage.\n" +
	"Someone has left a packed lunch in the grass, wrapped in a checked cloth."

var dirs = []string{"north", "east", "south", "west", "up", "down", "examine tree", "take lamp"}

// manyTurns fills a model with n played turns and their reasoning.
func manyTurns(h *harness, n int) {
	scene(h)
	for i := 5; i < n+5; i++ {
		actor := engine.ActorAgent
		if i%7 == 0 {
			actor = engine.ActorHuman
		}
		h.events(
			engine.TurnStarted{Turn: i, Actor: actor},
			engine.ProposalMade{Turn: i, Attempt: 1, Action: "examine tree", Reasoning: "The tree might hold something useful."},
			engine.CriticVerdict{Turn: i, Attempt: 1, Action: "examine tree", Score: 0.3, Justification: "reasonable", Accepted: true, Stage: "model"},
			scored(turn(i, actor, dirs[i%len(dirs)], benchText, 10+i%40, fmt.Sprintf("Room %d", i%40)), i/100),
		)
	}
}

// BenchmarkView5000Turns renders the whole screen with 5,000 turns in the
// transcript (goal: at most 4 ms a frame).
func BenchmarkView5000Turns(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			h := newHarness(&testing.T{}, size[0], size[1], "dark")
			manyTurns(h, 5000)
			if n := h.m.panes.transcript.feed.len(); n < 5000 {
				b.Fatalf("transcript holds %d turns", n)
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = h.m.Render()
			}
		})
	}
	// Every frame after a new turn: the event, then the render.
	b.Run("turn+render/200x60", func(b *testing.B) {
		h := newHarness(&testing.T{}, 200, 60, "dark")
		manyTurns(h, 5000)
		b.ReportAllocs()
		i := 5005
		for b.Loop() {
			h.events(scored(turn(i, engine.ActorAgent, "wait", benchText, 4, "Orchard"), 1))
			_ = h.m.Render()
			i++
		}
	})
	// Scrolled back half way: the render walks the feed from the bottom.
	b.Run("scrolled/200x60", func(b *testing.B) {
		h := newHarness(&testing.T{}, 200, 60, "dark")
		manyTurns(h, 5000)
		h.m.panes.transcript.scroll(10000)
		b.ReportAllocs()
		for b.Loop() {
			_ = h.m.Render()
		}
	})
}

// TestMemoryBoundedAsTurnsGrow: the heap after 20,000 turns is about what it
// is after 5,000 (the transcript keeps at most maxTranscript turns, the
// reasoning maxReasoningTurns).
func TestMemoryBoundedAsTurnsGrow(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	heap := func(n int) uint64 {
		h := newHarness(t, 200, 60, "dark")
		manyTurns(h, n)
		_ = h.m.Render()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		runtime.KeepAlive(h)
		return ms.HeapAlloc
	}
	a, b := heap(maxTranscript), heap(4*maxTranscript)
	t.Logf("heap after %d turns: %.1f MB; after %d turns: %.1f MB", maxTranscript, float64(a)/1e6, 4*maxTranscript, float64(b)/1e6)
	if float64(b) > 1.5*float64(a)+4e6 {
		t.Errorf("heap grows with the turns: %d → %d bytes", a, b)
	}
}
