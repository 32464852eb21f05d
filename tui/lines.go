package tui

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine"
)

// A line of play (domain.Line) has one written form, EPISODE/BRANCH
// ("1/main", "1/no-bar", "1/#4"), and a turn of it EPISODE/BRANCH:TURN
// ("1/no-bar:96"): the TUI names lines and turns only so, on the status
// bar, in the notes and in the lists, so that what the person reads is
// what `lantern run --from` and `lantern episodes show` take.

// lineName is a line's written form. A branch whose episode is not known
// is written by its #ID alone, which the commands take as well; the
// controls an old name may hold are left out.
func lineName(l domain.Line) string {
	if l.Episode == 0 && l.Parent != 0 {
		return "#" + strconv.FormatInt(l.ID, 10)
	}
	return clean(l.String())
}

// lineAt is a turn of a line in its written form.
func lineAt(l domain.Line, turn int) string { return lineName(l) + ":" + strconv.Itoa(turn) }

// known reports whether a line names anything (an event of an engine
// that knows no lines leaves it zero).
func known(l domain.Line) bool { return l.Episode != 0 || l.ID != 0 }

// forkedFrom is where a line forked, as a turn of its parent line (""
// for an episode's main line); lines has the episode's lines by ID, and a
// parent it lacks is written by its #ID.
func forkedFrom(l domain.Line, lines map[int64]domain.Line) string {
	if l.Parent == 0 {
		return ""
	}
	if p, ok := lines[l.Parent]; ok {
		return lineAt(p, l.ForkTurn)
	}
	return "#" + strconv.FormatInt(l.Parent, 10) + ":" + strconv.Itoa(l.ForkTurn)
}

// rewindAsk is a rewind (or a switch of branch) the person asked for,
// kept until the engine answers so that the outcome names the lines as
// the person picked them: from is the line whose turn was picked (the
// branch switched to, for a switch).
type rewindAsk struct {
	from      domain.Line
	turn      int
	undo      bool
	switching bool
}

// progress is what the footer says while the engine works on it.
func (a rewindAsk) progress() string {
	switch {
	case a.switching:
		return fmt.Sprintf("switching to %s at turn %d…", lineName(a.from), a.turn)
	case a.undo:
		return fmt.Sprintf("rewinding to %s, withdrawing memories…", lineAt(a.from, a.turn))
	}
	return fmt.Sprintf("rewinding to %s…", lineAt(a.from, a.turn))
}

// failed reports whether an engine error is this rewind's failure (the
// engine names the turn it could not go back to).
func (a rewindAsk) failed(err error) bool {
	var re *engine.RewindError
	return errors.Is(err, engine.ErrNoRewind) || (errors.As(err, &re) && re.Turn == a.turn)
}

// withdrawn says how many memories a rewind withdrew, 0 included.
func withdrawn(n int) string { return plural(n, "memory", "memories") + " withdrawn" }

// rewoundOutcome is what a rewound EpisodeStarted did: a note for the
// transcript and a word for the footer (short, to fit beside the footer's
// keys at 80 columns; the status bar names the new line). to is the line
// play goes on on, ask the rewind asked for (nil: unknown) and left the
// line played before.
func rewoundOutcome(ev engine.EpisodeStarted, to domain.Line, ask *rewindAsk, left domain.Line) (note, flash string) {
	toName := lineName(to)
	var from string // the line the turn was picked on; "" for a switch
	switch {
	case ask != nil && to.ID == ask.from.ID:
		// Play goes on on the line picked, from its last turn.
	case ask != nil && !ask.switching && to.Parent == ask.from.ID:
		from = lineName(ask.from)
	case to.Parent != 0 && to.ForkTurn == ev.Turn && to.ID != left.ID:
		// A new branch, not asked for here: its parent is named by what
		// is known of it.
		from = "#" + strconv.FormatInt(to.Parent, 10)
		if left.ID == to.Parent {
			from = lineName(left)
		}
	}
	if from == "" {
		note = fmt.Sprintf("Switched to %s at turn %d", toName, ev.Turn)
		if known(left) && left.ID != to.ID {
			note += fmt.Sprintf("; %s stays as it was", lineName(left))
		}
		note += "."
		flash = fmt.Sprintf("switched to %s at turn %d", toName, ev.Turn)
	} else {
		at := from + ":" + strconv.Itoa(ev.Turn)
		note = fmt.Sprintf("Rewound to %s: play goes on, paused, on the new branch %s; the turns after %d stay on %s.", at, toName, ev.Turn, from)
		flash = "rewound to " + at
	}
	if ev.Undone {
		note += fmt.Sprintf(" %s (the agent's, written after turn %d; kept in Memories.md as superseded).", withdrawn(ev.Withdrawn), ev.Turn)
		flash += " · " + withdrawn(ev.Withdrawn)
	}
	return note, flash
}
