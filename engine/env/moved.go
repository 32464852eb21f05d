package env

import "github.com/lantern-if/lantern/zmachine"

// Where in a step's text the player moved. A story often prints something
// before it moves the player (an implicit action, the journey, another
// character's reaction) and names the new room after the move. During a
// step the environment follows the location as the binding reads it: a
// store to the location global, or a move of the player (or of what holds
// the player) in the object tree. Each change of the location's value is
// marked with the length of the text printed so far. The step's MovedAt is
// the first mark that reached the final location: a move that passes
// through a room counts from its last leg, and a story that points its
// location global elsewhere for a moment (while it lists what the room
// holds) and back is not taken for a second move.

// maxMoveMarks bounds the location changes kept per step; a step that
// changes the location more often keeps its first ones.
const maxMoveMarks = 64

// moveMark is one change of location during a step.
type moveMark struct {
	loc uint16
	at  int // the length of the step's output when it happened
}

// moveWatch follows the location during one step.
type moveWatch struct {
	on     bool
	global bool   // the location is a global: object moves cannot change it
	start  uint16 // the location when the step began
	cur    uint16 // the location after the last change seen
	marks  []moveMark
	skip   int // bytes trimmed from the front of the step's output
}

// armMoveWatch starts following the location for a step. It stays off
// while the facts are not resolved (the generic path's first
// observations): the location cannot be read then.
func (e *Env) armMoveWatch() {
	t := &e.truth
	w := &e.watch
	*w = moveWatch{marks: w.marks[:0]}
	g := -1
	if t.resolved {
		id := e.locationID()
		w.on, w.start, w.cur = true, id, id
		if e.locFromGlobal() {
			w.global, g = true, t.locGlobal
		}
	}
	e.m.SetHooks(e.hooksWatching(g))
}

// hooksWatching is the environment's hooks watching global g (none when
// g is negative).
func (e *Env) hooksWatching(g int) zmachine.Hooks {
	h := e.hooks
	if g < 0 {
		h.GlobalChanged = nil
	}
	h.WatchGlobal = g
	return h
}

// locationGlobalChanged is the GlobalChanged hook on the location global.
func (e *Env) locationGlobalChanged(_, _ uint16) { e.noteLocation() }

// noteLocation marks a change of the location's value.
func (e *Env) noteLocation() {
	w := &e.watch
	if !w.on {
		return
	}
	id := e.locationID()
	if id == w.cur {
		return
	}
	w.cur = id
	if len(w.marks) < maxMoveMarks {
		w.marks = append(w.marks, moveMark{loc: id, at: e.m.OutputLen()})
	}
}

// movedAt ends the step's watch and places the move in its text (the
// step's output less the bytes trimmed from its front): the byte offset of
// the first change that reached the final location. It is -1 when the
// location ends where it began, and 0 when it changed in a way the watch
// does not see (a restore or an undo puts the whole memory back at once).
func (e *Env) movedAt(text string) int {
	w := &e.watch
	if !w.on {
		return -1
	}
	w.on = false
	final := e.locationID()
	if final == w.start {
		return -1
	}
	for _, mk := range w.marks {
		if mk.loc == final {
			return min(max(mk.at-w.skip, 0), len(text))
		}
	}
	return 0
}
