package progress

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// TestLivePlainHasNoEscapes: a plain live line (NO_COLOR, a dumb
// terminal) has the same facts and bar as a coloured one but no escape
// sequence: it is cleared with spaces, not the terminal's erase.
func TestLivePlainHasNoEscapes(t *testing.T) {
	tests := []struct {
		name    string
		plain   bool
		escapes bool
	}{
		{"coloured", false, true},
		{"plain", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &clock{t: time.Unix(0, 0)}
			var out bytes.Buffer
			l := newLive(&out, 100, c.now)
			l.plain = tc.plain
			tr := NewTracker(l, Run{FirstEpisode: 1, Count: 2, MaxTurns: 50, MaxScore: 10}, c.now)
			tr.EpisodeStarted(1, 0)
			c.t = c.t.Add(20 * time.Second)
			tr.Turn(25, 7)
			tr.EpisodeEnded("episode 1: victory")
			tr.Close()
			got := out.String()
			if has := strings.Contains(got, "\x1b"); has != tc.escapes {
				t.Errorf("escape sequences %v, want %v: %q", has, tc.escapes, got)
			}
			view := ansi.Strip(got)
			for _, want := range []string{"█", "░", "turn 25/50", "score 7/10", "episode 1: victory\n"} {
				if !strings.Contains(view, want) {
					t.Errorf("output lacks %q: %q", want, view)
				}
			}
			if !tc.plain {
				return
			}
			// Every redraw covers the line to the terminal's last column
			// but one, so a shorter line leaves nothing of a longer one.
			for _, part := range strings.Split(got, "\r")[1:] {
				part = strings.TrimSuffix(part, "\n")
				if strings.Contains(part, "episode 1: victory") || part == "" {
					continue
				}
				if w := ansi.StringWidth(part); w != 99 {
					t.Errorf("a redraw %d columns wide, want 99: %q", w, part)
				}
			}
			if !strings.HasSuffix(got, "\r"+strings.Repeat(" ", 99)+"\r") {
				t.Errorf("close did not clear the line: %q", got[max(0, len(got)-120):])
			}
		})
	}
}

// TestNoColor: NO_COLOR counts with any value but the empty one.
func TestNoColor(t *testing.T) {
	tests := []struct {
		env  []string
		want bool
	}{
		{nil, false},
		{[]string{"NO_COLOR="}, false},
		{[]string{"TERM=xterm", "NO_COLOR=1"}, true},
		{[]string{"NO_COLOR=0"}, true},
		{[]string{"NO_COLOR=yes"}, true},
		{[]string{"NO_COLORS=1"}, false},
	}
	for _, tc := range tests {
		if got := noColor(tc.env); got != tc.want {
			t.Errorf("noColor(%q) = %v, want %v", tc.env, got, tc.want)
		}
	}
}

// TestNewForOffATerminal: a writer that is not a terminal gets plain
// lines, whatever the environment.
func TestNewForOffATerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, w := range []io.Writer{f, &bytes.Buffer{}} {
		r := NewFor(w, []string{"TERM=xterm-256color"})
		if _, ok := r.(*Plain); !ok {
			t.Errorf("%T: %T, want *Plain", w, r)
		}
		r.Close()
	}
}
