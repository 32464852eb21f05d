package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// roRun feeds cmd's message (and what it leads to) back into the model.
func roRun(t *testing.T, m tea.Model, cmd tea.Cmd) {
	t.Helper()
	for cmd != nil {
		msg := cmd()
		if _, ok := msg.(tea.QuitMsg); ok {
			return
		}
		_, cmd = m.Update(msg)
	}
}

func roKey(t *testing.T, m tea.Model, code rune, text string) tea.Cmd {
	t.Helper()
	_, cmd := m.Update(tea.KeyPressMsg{Code: code, Text: text})
	return cmd
}

// TestReadOnlyReplayOfOwnedStory: a second Lantern refused a story's work
// dir shows the owner's PID and replays the stored episodes, read-only.
func TestReadOnlyReplayOfOwnedStory(t *testing.T) {
	m := NewReadOnly(context.Background(), ReadOnlyOptions{Episodes: sampleEpisodes(), Story: "demo.z3", OwnerPID: 4242})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	roRun(t, m, m.Init())
	ro := m.(*readOnly)
	screen := ansi.Strip(ro.Render())
	for _, want := range []string{"demo.z3 is being played by another Lantern (PID 4242): read-only replay", "2/main  #2", "1/main  #1", "read-only"} {
		if !strings.Contains(screen, want) {
			t.Errorf("episode list lacks %q:\n%s", want, screen)
		}
	}
	golden(t, "readonly_episodes_80x24", ro.Render())
	// The list is newest first: down, enter replays episode 1.
	roKey(t, m, tea.KeyDown, "")
	roRun(t, m, roKey(t, m, tea.KeyEnter, ""))
	if ro.rp == nil || ro.rp.line.ID != 1 {
		t.Fatalf("enter on the second row: replay %+v, want episode 1", ro.rp)
	}
	roKey(t, m, tea.KeyRight, "")
	screen = ansi.Strip(ro.Render())
	for _, want := range []string{"Replay of 1/main", "Orchard", "climb tree", "Up the Apple Tree"} {
		if !strings.Contains(screen, want) {
			t.Errorf("replay after one step lacks %q:\n%s", want, screen)
		}
	}
	// A terminal too small for the list still renders.
	m.Update(tea.WindowSizeMsg{Width: 12, Height: 1})
	if got := ro.Render(); got == "" {
		t.Error("a 12×1 terminal renders nothing")
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	roKey(t, m, tea.KeyEscape, "")
	if ro.rp != nil {
		t.Fatal("esc did not go back to the episode list")
	}
	if cmd := roKey(t, m, 'q', "q"); cmd == nil {
		t.Fatal("q does not quit")
	} else if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q does not quit")
	}
}
