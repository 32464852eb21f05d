package progress

import (
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
)

// PlainEvery is how often a benchmark writes a plain status line when its
// output is not a terminal.
const PlainEvery = 30 * time.Second

// New picks the display for w: Live on a terminal, Plain every PlainEvery
// otherwise. Close it when the run ends.
func New(w io.Writer) Reporter { return NewFor(w, os.Environ()) }

// NewFor is New in the environment environ, which chooses the live line's
// colours: none, and no escape sequence at all, under NO_COLOR (any value
// but the empty one, https://no-color.org) or on a terminal that cannot
// draw them (TERM unset or dumb); else as many as the terminal has.
func NewFor(w io.Writer, environ []string) Reporter {
	if f, ok := w.(*os.File); ok && term.IsTerminal(f.Fd()) {
		width, _, err := term.GetSize(f.Fd())
		if err != nil {
			width = 80
		}
		profile := colorprofile.Detect(f, environ)
		if profile <= colorprofile.ASCII || noColor(environ) {
			l := newLive(w, width, nil)
			l.plain = true
			return l.refresh()
		}
		return NewLive(&colorprofile.Writer{Forward: w, Profile: profile}, width, nil)
	}
	return NewPlain(w, PlainEvery, nil).Start()
}

// noColor: NO_COLOR is set to anything but the empty string.
func noColor(environ []string) bool {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "NO_COLOR="); ok && v != "" {
			return true
		}
	}
	return false
}

// Tracker turns a benchmark's events into statuses for a Reporter.
type Tracker struct {
	r      Reporter
	now    func() time.Time
	start  time.Time
	s      Status
	latSum time.Duration
}

// Run describes the run a Tracker follows.
type Run struct {
	FirstEpisode int // the benchmark's number of the run's first episode
	Count        int // episodes the run plays
	MaxTurns     int
	MaxScore     int
}

// NewTracker follows a run on r; now is the clock (nil: time.Now).
func NewTracker(r Reporter, run Run, now func() time.Time) *Tracker {
	if now == nil {
		now = time.Now
	}
	first := max(run.FirstEpisode, 1)
	return &Tracker{r: r, now: now, start: now(), s: Status{Episode: first, Episodes: first + run.Count - 1, Count: run.Count,
		MaxTurns: run.MaxTurns, MaxScore: run.MaxScore}}
}

func (t *Tracker) update() {
	t.s.Elapsed = t.now().Sub(t.start)
	t.r.Update(t.s)
}

// EpisodeStarted: episode n (the benchmark's number) begins at score.
func (t *Tracker) EpisodeStarted(n, score int) {
	t.s.Episode, t.s.Turn, t.s.Score = n, 0, score
	t.update()
}

// Turn: the current episode's turn has been played.
func (t *Tracker) Turn(turn, score int) {
	t.s.Turn, t.s.Score = turn, score
	t.s.TurnsPlayed++
	t.update()
}

// Calls: n model calls that took latency in all have finished.
func (t *Tracker) Calls(n int, latency time.Duration) {
	if n <= 0 {
		return
	}
	t.s.Calls += n
	t.latSum += latency
	t.s.Latency = t.latSum / time.Duration(t.s.Calls)
	t.update()
}

// EpisodeEnded: the current episode is over; line says how it went.
func (t *Tracker) EpisodeEnded(line string) {
	t.s.Done++
	if t.s.Done < t.s.Count {
		// Until the next episode reports its opening, the status is of
		// that episode at turn 0.
		t.s.Episode, t.s.Turn = t.s.Episode+1, 0
	}
	t.r.Line(line)
	t.update()
}

// Line writes a line that stays (an error, a note).
func (t *Tracker) Line(text string) { t.r.Line(text) }

// Status is the newest status.
func (t *Tracker) Status() Status { return t.s }

// Close ends the display.
func (t *Tracker) Close() { t.r.Close() }
