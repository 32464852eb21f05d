package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/progress"
	"charm.land/bubbles/v2/spinner"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Live redraws one status line in place on a terminal: a spinner, a
// progress bar of the run's turn budget and the status's facts, refreshed
// at the spinner's pace so the clock and spinner move between turns.
type Live struct {
	mu     sync.Mutex
	w      io.Writer
	width  int
	status Status
	frame  int
	bar    progress.Model
	spin   spinner.Spinner
	start  time.Time
	now    func() time.Time
	drawn  bool
	ticker // the redraws between updates (not started: tests draw by hand)
	// plain: no colour and no escape sequence (NO_COLOR, a dumb
	// terminal); the line is cleared with spaces.
	plain bool
}

// NewLive draws on w, a terminal width columns wide (0: 80); the refresh
// starts at once and ends with Close.
func NewLive(w io.Writer, width int, now func() time.Time) *Live {
	return newLive(w, width, now).refresh()
}

// refresh starts the redraws between updates.
func (l *Live) refresh() *Live {
	l.run(l.spin.FPS, l.nextFrame)
	return l
}

func newLive(w io.Writer, width int, now func() time.Time) *Live {
	if width <= 0 {
		width = 80
	}
	if now == nil {
		now = time.Now
	}
	return &Live{w: w, width: width, now: now, start: now(), spin: spinner.MiniDot,
		bar:    progress.New(progress.WithWidth(30), progress.WithoutPercentage(), progress.WithFillCharacters('█', '░')),
		ticker: newTicker()}
}

// nextFrame turns the spinner and redraws the line.
func (l *Live) nextFrame() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.frame++
	if l.drawn {
		l.draw()
	}
}

// View is the status line as it is drawn now: the facts first, then as
// wide a bar as the terminal leaves room for (none when narrow), cut to the
// width.
func (l *Live) View() string {
	s := l.status
	if s.Elapsed == 0 {
		s.Elapsed = l.now().Sub(l.start)
	}
	spin := lipgloss.NewStyle().Foreground(lipgloss.Color("6")).Render(l.spin.Frames[l.frame%len(l.spin.Frames)])
	facts := fmt.Sprintf("%3.0f%%  ", 100*s.Fraction()) + strings.Join(s.Fields(), " · ")
	line := spin + " " + facts
	if room := l.width - 1 - ansi.StringWidth(line) - 1; room >= 8 {
		l.bar.SetWidth(min(room, 30))
		line = spin + " " + l.bar.ViewAs(s.Fraction()) + " " + facts
	}
	line = ansi.Truncate(line, l.width-1, "…")
	if l.plain {
		return ansi.Strip(line)
	}
	return line
}

// draw rewrites the line; the caller holds the lock.
func (l *Live) draw() {
	view := l.View()
	fmt.Fprint(l.w, "\r"+view+l.eraseRight(ansi.StringWidth(view)))
}

// eraseRight clears the rest of a line drawn used columns wide: the
// terminal's erase, or on a plain line spaces to the line's width.
func (l *Live) eraseRight(used int) string {
	if !l.plain {
		return ansi.EraseLineRight
	}
	return strings.Repeat(" ", max(l.width-1-used, 0))
}

// clearLine empties the line the cursor is at the start of, leaving it
// there.
func (l *Live) clearLine() string {
	if !l.plain {
		return ansi.EraseLineRight
	}
	return l.eraseRight(0) + "\r"
}

// Update redraws with the new status.
func (l *Live) Update(s Status) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.status = s
	l.drawn = true
	l.draw()
}

// Line writes text above the status line, which is drawn again below it.
func (l *Live) Line(text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprint(l.w, "\r"+l.clearLine()+text+"\n")
	if l.drawn {
		l.draw()
	}
}

// Close stops the refresh and clears the status line.
func (l *Live) Close() {
	if !l.end() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.drawn {
		fmt.Fprint(l.w, "\r"+l.clearLine())
		l.drawn = false
	}
}
