package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// clock is a settable fake time.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestStatusFractionAndLeft(t *testing.T) {
	tests := []struct {
		name     string
		s        Status
		fraction float64
		left     time.Duration
		known    bool
	}{
		{"nothing played", Status{Count: 2, MaxTurns: 10}, 0, 0, false},
		{"half an episode", Status{Count: 2, MaxTurns: 10, Turn: 5, TurnsPlayed: 5, Elapsed: 5 * time.Second}, 0.25, 15 * time.Second, true},
		{"one done", Status{Count: 2, Done: 1, MaxTurns: 10, Turn: 4, TurnsPlayed: 14, Elapsed: 14 * time.Second}, 0.7, 6 * time.Second, true},
		{"all done", Status{Count: 2, Done: 2, MaxTurns: 10, Turn: 10, TurnsPlayed: 20, Elapsed: time.Minute}, 1, 0, true},
	}
	for _, tc := range tests {
		if f := tc.s.Fraction(); f != tc.fraction {
			t.Errorf("%s: fraction %v, want %v", tc.name, f, tc.fraction)
		}
		left, ok := tc.s.Left()
		if ok != tc.known || left != tc.left {
			t.Errorf("%s: left %v %v, want %v %v", tc.name, left, ok, tc.left, tc.known)
		}
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{850 * time.Millisecond: "850ms", 12300 * time.Millisecond: "12.3s",
		245 * time.Second: "4m05s", 130 * time.Minute: "2h10m"} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestPlainEveryInterval: a plain display writes a status only once the
// interval has passed, and the benchmark's own lines at once.
func TestPlainEveryInterval(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	var out bytes.Buffer
	tr := NewTracker(NewPlain(&out, 30*time.Second, c.now), Run{FirstEpisode: 3, Count: 2, MaxTurns: 10, MaxScore: 100}, c.now)
	tr.EpisodeStarted(3, 0)
	c.t = c.t.Add(10 * time.Second)
	tr.Turn(1, 5)
	if out.Len() != 0 {
		t.Fatalf("a line before the interval: %q", out.String())
	}
	c.t = c.t.Add(25 * time.Second)
	tr.Calls(2, 3*time.Second)
	want := "lantern bench: episode 3 (1/2), turn 1/10, score 5/100, left ≤11m05s, calls 2, latency 1.5s\n"
	if out.String() != want {
		t.Fatalf("status line\n got %q\nwant %q", out.String(), want)
	}
	out.Reset()
	c.t = c.t.Add(time.Second)
	tr.EpisodeEnded("lantern bench: episode 3: victory")
	if out.String() != "lantern bench: episode 3: victory\n" {
		t.Errorf("episode line: %q", out.String())
	}
	if s := tr.Status(); s.Done != 1 || s.TurnsPlayed != 1 || s.Calls != 2 {
		t.Errorf("status %+v", s)
	}
	// Between updates the clock writes the newest status, time moved on.
	out.Reset()
	p := tr.r.(*Plain)
	c.t = c.t.Add(28 * time.Second) // 29 s after the last status line
	p.Tick()
	if out.Len() != 0 {
		t.Fatalf("a tick before the interval: %q", out.String())
	}
	c.t = c.t.Add(10 * time.Second)
	p.Tick()
	want = "lantern bench: episode 4 (2/2), turn 0/10, score 5/100, left ≤12m20s, calls 2, latency 1.5s\n"
	if out.String() != want {
		t.Errorf("tick line\n got %q\nwant %q", out.String(), want)
	}
	tr.Close()
}

// TestPlainClock: started, a plain display writes on its own clock until
// closed.
func TestPlainClock(t *testing.T) {
	var out syncBuffer
	p := NewPlain(&out, 10*time.Millisecond, nil).Start()
	p.Update(Status{Episode: 1, Count: 1, MaxTurns: 10})
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(out.String(), "\n") < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	p.Close()
	p.Close()
	if n := strings.Count(out.String(), "lantern bench: episode 1"); n < 2 {
		t.Errorf("%d lines on the clock: %q", n, out.String())
	}
}

// TestLiveRedrawsInPlace: on a terminal the status is one line rewritten
// with a carriage return, carrying a bar and every fact; lines the
// benchmark writes go above it and the line is cleared at the end.
func TestLiveRedrawsInPlace(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	var out bytes.Buffer
	l := newLive(&out, 120, c.now)
	tr := NewTracker(l, Run{FirstEpisode: 1, Count: 2, MaxTurns: 50, MaxScore: 10}, c.now)
	tr.EpisodeStarted(1, 0)
	c.t = c.t.Add(20 * time.Second)
	tr.Turn(25, 7)
	tr.Calls(1, 400*time.Millisecond)
	view := ansi.Strip(l.View())
	for _, want := range []string{"█", "░", " 25%", "episode 1 (1/2)", "turn 25/50", "score 7/10", "calls 1", "latency 400ms", "left ≤25m00s"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q: %q", want, view)
		}
	}
	if w := ansi.StringWidth(l.View()); w > 119 {
		t.Errorf("view %d columns wide on a 120-column terminal", w)
	}
	tr.EpisodeEnded("episode 1: victory")
	got := out.String()
	if strings.Contains(got, "\n\r") == false || !strings.HasPrefix(got, "\r") {
		t.Errorf("not redrawn in place: %q", got)
	}
	if strings.Count(got, "\n") != 1 || !strings.Contains(got, "episode 1: victory\n") {
		t.Errorf("the episode line should be the only full line: %q", got)
	}
	out.Reset()
	l.Close()
	if out.String() != "\r\x1b[K" {
		t.Errorf("close left %q", out.String())
	}
	// At 80 columns the bar gives way; the time left is still shown.
	l80 := newLive(&out, 80, c.now)
	l80.Update(tr.Status())
	if v := ansi.Strip(l80.View()); strings.Contains(v, "█") || !strings.Contains(v, "left ≤") || ansi.StringWidth(v) > 79 {
		t.Errorf("80 columns: %q", v)
	}
	narrow := newLive(&out, 30, c.now)
	narrow.Update(tr.Status())
	if w := ansi.StringWidth(narrow.View()); w > 29 {
		t.Errorf("view %d columns wide on a 30-column terminal", w)
	}
}

// TestLiveRefreshes: the refresh goroutine redraws between updates and
// stops on Close.
func TestLiveRefreshes(t *testing.T) {
	var out syncBuffer
	l := NewLive(&out, 80, nil)
	l.Update(Status{Episode: 1, Count: 1, MaxTurns: 10})
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(out.String(), "\r") < 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	l.Close()
	if n := strings.Count(out.String(), "\r"); n < 3 {
		t.Errorf("%d redraws", n)
	}
	l.Close() // twice is harmless
}
