package tui

import (
	"testing"

	"github.com/lantern-if/lantern/engine"
)

// TestSettlingIsShown: before a rewind the engine waits for the last
// turns' work, however long it takes; the transcript says so.
func TestSettlingIsShown(t *testing.T) {
	h := newHarness(t, 120, 40, "dark")
	h.events(opening(), engine.Settling{Turns: 2})
	h.mustSee("Finishing the work of the last 2 turn(s) before going back")
}
