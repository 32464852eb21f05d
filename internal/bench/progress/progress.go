// Package progress shows how far a headless benchmark has got: a live
// status line (spinner, progress bar, episode, turn, score, model calls,
// latency, time left) when the output is a terminal, and a plain line at a
// fixed interval otherwise, so that hours of play are never silent.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Status is the benchmark's state at one moment.
type Status struct {
	Episode  int // the episode being played, 1-based, in the whole benchmark
	Episodes int // the last episode this run plays
	Done     int // episodes finished by this run
	Count    int // episodes this run plays
	Turn     int // turns played in the current episode
	MaxTurns int
	Score    int
	MaxScore int // 0 when unknown
	Calls    int // model calls so far in the run
	// Latency is the mean latency of the model calls so far.
	Latency time.Duration
	// TurnsPlayed counts the run's turns over every episode.
	TurnsPlayed int
	Elapsed     time.Duration
}

// Fraction is how much of the run's turn budget is behind it: finished
// episodes count whole, the current one by its turns.
func (s Status) Fraction() float64 {
	if s.Count <= 0 {
		return 0
	}
	f := float64(s.Done)
	if s.MaxTurns > 0 && s.Done < s.Count {
		f += min(float64(s.Turn)/float64(s.MaxTurns), 1)
	}
	return min(f/float64(s.Count), 1)
}

// Left estimates the time still to run at the pace so far, assuming every
// remaining episode uses its whole turn budget (so it is an upper bound on
// the usual run); false until a turn has been played.
func (s Status) Left() (time.Duration, bool) {
	if s.TurnsPlayed == 0 || s.Elapsed <= 0 || s.MaxTurns <= 0 {
		return 0, false
	}
	remaining := (s.Count-s.Done)*s.MaxTurns - s.Turn
	if remaining < 0 {
		remaining = 0
	}
	per := s.Elapsed / time.Duration(s.TurnsPlayed)
	return per * time.Duration(remaining), true
}

// Fields writes the status's facts as short "name value" parts, the most
// wanted first (a narrow terminal cuts the end).
func (s Status) Fields() []string {
	score := fmt.Sprint(s.Score)
	if s.MaxScore > 0 {
		score = fmt.Sprintf("%d/%d", s.Score, s.MaxScore)
	}
	parts := []string{
		fmt.Sprintf("episode %d (%d/%d)", s.Episode, min(s.Done+1, s.Count), s.Count),
		fmt.Sprintf("turn %d/%d", s.Turn, s.MaxTurns),
		"score " + score,
	}
	if left, ok := s.Left(); ok {
		parts = append(parts, "left ≤"+Duration(left))
	} else {
		parts = append(parts, "left ?")
	}
	parts = append(parts, fmt.Sprintf("calls %d", s.Calls))
	if s.Calls > 0 {
		parts = append(parts, "latency "+Duration(s.Latency))
	}
	return parts
}

// Duration writes a duration briefly: 850ms, 12.3s, 4m05s, 2h10m.
func Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// Reporter shows statuses and the benchmark's own lines (an episode's end,
// an error) on one output.
type Reporter interface {
	// Update records the newest status.
	Update(Status)
	// Line writes a whole line that stays (an episode's result).
	Line(text string)
	// Close ends the display; the output is left at the start of a line.
	Close()
}

// Plain writes a status line when at least every has passed since the
// last one: at an update, and (once Start has run) on a clock between
// updates, so a slow model call does not silence it. For logs and pipes.
type Plain struct {
	mu     sync.Mutex
	w      io.Writer
	every  time.Duration
	now    func() time.Time
	last   time.Time // the last status line
	status Status
	at     time.Time // when status came
	have   bool
	ticker // the writes between updates, once started
}

// NewPlain writes to w at most once per every; now is the clock (nil:
// time.Now).
func NewPlain(w io.Writer, every time.Duration, now func() time.Time) *Plain {
	if now == nil {
		now = time.Now
	}
	return &Plain{w: w, every: every, now: now, last: now(), ticker: newTicker()}
}

// Start writes the newest status every interval until Close, updates or
// not.
func (p *Plain) Start() *Plain {
	p.run(p.every, p.Tick)
	return p
}

// Update records the status and writes it when the interval has passed.
func (p *Plain) Update(s Status) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status, p.at, p.have = s, p.now(), true
	p.write()
}

// Tick writes the newest status, its clock moved on, when the interval has
// passed.
func (p *Plain) Tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.write()
}

// write prints the status when due; the caller holds the lock.
func (p *Plain) write() {
	t := p.now()
	if !p.have || t.Sub(p.last) < p.every {
		return
	}
	p.last = t
	s := p.status
	s.Elapsed += t.Sub(p.at)
	fmt.Fprintf(p.w, "lantern bench: %s\n", strings.Join(s.Fields(), ", "))
}

// Line writes text as it is.
func (p *Plain) Line(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.w, text)
}

// Close stops the clock; every line written is complete.
func (p *Plain) Close() { p.end() }
