package main

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine"
)

// TestRunStopsAtAnUnrecordedTurn: the headless report exits non-zero when
// the engine pauses on a turn lantern.db could not take.
func TestRunStopsAtAnUnrecordedTurn(t *testing.T) {
	events := make(chan engine.Event, 8)
	events <- engine.TurnResult{Turn: 1, Action: "look"}
	events <- engine.TurnResult{Turn: 2, Action: "look"}
	events <- engine.ErrorEvent{Turn: 2, Err: fmt.Errorf("%w: disk full", engine.ErrNotRecorded)}
	events <- engine.Idle{Turn: 2, Mode: engine.Paused}
	close(events)
	var stderr strings.Builder
	if code := report(events, false, io.Discard, &stderr); code == exitOK {
		t.Fatalf("exit %d, want non-zero; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "turn not recorded") {
		t.Errorf("stderr does not say the turn was not recorded:\n%s", stderr.String())
	}
}
