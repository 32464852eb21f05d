package env

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/lantern-if/lantern/zmachine"
)

// Reading the ground truth: where the location, score and moves live, from
// the binding when it says, else inferred from the story's own data.
//
// The generic path knows two layouts. In a version 1–3 story the header's
// status line reads globals 0, 1 and 2 (location, score and moves; hours
// and minutes in a "time" story, whose score and moves are then unknown).
// In a later Inform story the player object is the one the library names
// ("yourself", "(self object)") that a global holds; the location is the
// outermost object around it. The library declares location, the status
// line's score and turns as consecutive globals: a global holding that room
// followed by a 0 and a 0 or 1 is a candidate, and the first candidate
// whose turns advance exactly with the turns played gives the location
// global (which reads "Darkness" in the dark, as the story does), the score
// and the moves. Until then, and if none does, score and moves are unknown.

// truthSource is where each fact is read, resolved once per machine.
type truthSource struct {
	resolved  bool
	locGlobal int // -1: not from a global
	roomOfPlr bool
	scoreGlob int // -1: unknown
	movesGlob int
	player    uint16
	facts     Facts
	// pending: score and turns candidates not yet seen counting; turnAt
	// is the turn when they were found.
	pending  bool
	cands    []counterCand
	turnAt   int
	attempts int // generic resolutions tried without finding the player
}

// maxResolveAttempts bounds how many observations the generic path looks
// for the player before it settles for unknown facts.
const maxResolveAttempts = 64

// genericVictoryTexts are the Inform library's usual victory banners.
var genericVictoryTexts = []string{"*** You have won ***", "****  You have won  ****"}

// resolveTruth settles where the facts come from. With a binding every
// fact it gives is bound; the generic path infers, and retries on later
// observations until the player and the location are found.
func (e *Env) resolveTruth() {
	t := &e.truth
	if t.resolved {
		return
	}
	b := e.b
	t.locGlobal, t.scoreGlob, t.movesGlob = -1, -1, -1
	if !b.generic {
		t.facts = Facts{Location: Bound, Score: Bound, Moves: Bound, Player: Unknown, Victory: Unknown, Death: Inferred}
		if b.Player != 0 {
			t.player, t.facts.Player = uint16(b.Player), Bound
		}
		if len(b.VictoryTexts) > 0 {
			t.facts.Victory = Bound
		}
		if len(b.DeathTexts) > 0 {
			t.facts.Death = Bound
		}
		if b.Location == "" || b.Location == "global" {
			t.locGlobal = *b.LocationGlob
		}
		t.resolved = true
		return
	}
	t.facts = Facts{Location: Unknown, Score: Unknown, Moves: Unknown, Player: Unknown, Victory: Inferred, Death: Inferred}
	if e.m.Version() <= 3 {
		t.locGlobal, t.facts.Location = 0, Inferred
		if e.m.Byte(1)&0x02 == 0 { // a score/moves status line, not a time one
			t.scoreGlob, t.movesGlob = 1, 2
			t.facts.Score, t.facts.Moves = Inferred, Inferred
		}
		t.resolved = true
		return
	}
	p := e.findPlayer()
	if p == 0 || e.m.Parent(p) == 0 {
		return // not in play yet: see giveUpResolving
	}
	t.player, t.facts.Player = p, Inferred
	room := e.roomOf(p)
	t.roomOfPlr, t.facts.Location = true, Inferred
	for g := 0; g < 240; g++ {
		if e.m.Global(g) != room {
			continue
		}
		if g <= 237 && e.m.Global(g+1) == 0 && e.m.Global(g+2) <= 1 {
			t.cands = append(t.cands, counterCand{loc: g, movesAt: int(e.m.Global(g + 2))})
		}
	}
	t.pending, t.turnAt = len(t.cands) > 0, e.turn
	t.resolved = true
}

// giveUpResolving counts the observations made without finding the
// player; after maxResolveAttempts the facts stay unknown for good.
func (e *Env) giveUpResolving() {
	t := &e.truth
	if t.resolved {
		return
	}
	t.attempts++
	t.resolved = t.attempts >= maxResolveAttempts
}

// counterCand is a location global followed by what may be the Inform
// library's score and turns.
type counterCand struct{ loc, movesAt int }

// confirmCounters settles the score and turns globals: the first candidate
// whose turn count has advanced by exactly the turns played wins (and its
// location global with it); after a few turns without one, they stay
// unknown.
func (e *Env) confirmCounters() {
	t := &e.truth
	if !t.pending {
		return
	}
	played := e.turn - t.turnAt
	if played <= 0 {
		return
	}
	for _, c := range t.cands {
		if int(e.m.Global(c.loc+2))-c.movesAt == played {
			t.pending = false
			t.locGlobal, t.scoreGlob, t.movesGlob, t.roomOfPlr = c.loc, c.loc+1, c.loc+2, false
			t.facts.Score, t.facts.Moves = Inferred, Inferred
			return
		}
	}
	if played >= 8 {
		t.pending, t.cands = false, nil
	}
}

// findPlayer looks for the Inform library's player object: named as the
// library names it, somewhere in play, and held by a global (the library's
// player variable).
func (e *Env) findPlayer() uint16 {
	held := map[uint16]bool{}
	for g := 0; g < 240; g++ {
		held[e.m.Global(g)] = true
	}
	n := e.m.ObjectCount()
	for o := 1; o <= n; o++ {
		switch strings.ToLower(e.nameOf(uint16(o))) {
		case "yourself", "(self object)", "self object", "you", "(player)":
			if e.m.Parent(uint16(o)) != 0 && held[uint16(o)] {
				return uint16(o)
			}
		}
	}
	return 0
}

// roomOf is the outermost object holding o (o itself when it has no
// parent).
func (e *Env) roomOf(o uint16) uint16 {
	for i := 0; i < 64; i++ {
		p := e.m.Parent(o)
		if p == 0 {
			return o
		}
		o = p
	}
	return o
}

// roomBelowRoot is the outermost object holding o below the parentless
// object that holds it (the container in which a ZIL story keeps every
// room); o itself when it has no parent.
func (e *Env) roomBelowRoot(o uint16) uint16 {
	for i := 0; i < 64; i++ {
		p := e.m.Parent(o)
		if p == 0 || e.m.Parent(p) == 0 {
			return o
		}
		o = p
	}
	return o
}

func (e *Env) location() Location {
	e.resolveTruth()
	id, ok := e.locationRead()
	if !ok {
		return Location{}
	}
	name := e.nameOf(id)
	if unnamed(name) {
		// A room named by a routine (Inform 7, or a short_name routine)
		// has no usable short name in the object table: take the name
		// the status line shows.
		if s := e.statusName(); s != "" {
			name = s
		}
	}
	if e.b.LocationName == "title_case" {
		name = titleCase(name)
	}
	return Location{ID: int(id), Name: name}
}

// titleCase capitalises the letters a–z that begin the name or follow a
// space, as stories that capitalise their room headings do.
func titleCase(name string) string {
	b := []byte(name)
	for i, c := range b {
		if c >= 'a' && c <= 'z' && (i == 0 || b[i-1] == ' ') {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// locationID is the location's object number, read where the resolved
// facts say (0: unknown).
func (e *Env) locationID() uint16 {
	id, _ := e.locationRead()
	return id
}

// locationRead reads the location's object number where the resolved facts
// say; ok is false when they give no location.
func (e *Env) locationRead() (id uint16, ok bool) {
	t := &e.truth
	switch {
	case e.b.Location == "player_parent":
		return e.m.Parent(t.player), true
	case e.b.Location == "player_room" || t.roomOfPlr:
		if t.player == 0 || e.m.Parent(t.player) == 0 {
			return 0, false
		}
		if e.b.RoomsContainer {
			return e.roomBelowRoot(t.player), true
		}
		return e.roomOf(t.player), true
	case t.locGlobal >= 0:
		return e.m.Global(t.locGlobal), true
	}
	return 0, false
}

// locFromGlobal reports whether the location is read from a global.
func (e *Env) locFromGlobal() bool {
	t := &e.truth
	return e.b.Location != "player_parent" && e.b.Location != "player_room" && !t.roomOfPlr && t.locGlobal >= 0
}

// unnamed: an empty short name, or the compiler's "(internal name)".
func unnamed(name string) bool {
	name = strings.TrimSpace(name)
	return name == "" || strings.HasPrefix(name, "(") && strings.HasSuffix(name, ")")
}

var (
	// Compiled on first use, not at every start of every command.
	statusFieldSep = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s{2,}`) })
	statusNotPlace = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(\d{1,2}:\d\d.*|.*\b(score|moves|turns|rating|time)\b.*|[-\d/:. ]+)$`)
	})
)

// statusName is the location name on the status line: the first field of
// the upper window's first row that is not a time, a score or a count.
func (e *Env) statusName() string {
	rows := e.m.UpperWindow()
	if e.m.Version() <= 3 {
		return ""
	}
	if len(rows) == 0 {
		return ""
	}
	for _, f := range statusFieldSep().Split(strings.TrimSpace(rows[0]), -1) {
		if f != "" && !statusNotPlace().MatchString(f) {
			return f
		}
	}
	return ""
}

// scoreMoves reads the score and the move count without reading the status
// line again (probes).
func (e *Env) scoreMoves() (score, moves int) { return e.readScoreMoves(false) }

// readScoreMoves reads the score and the move count (0 where unknown);
// status says to read a score shown on the status line afresh.
func (e *Env) readScoreMoves(status bool) (score, moves int) {
	e.resolveTruth()
	b, t := e.b, &e.truth
	if status {
		e.confirmCounters()
		e.giveUpResolving()
	}
	if t.pending || (b.generic && t.scoreGlob < 0 && e.m.Version() > 3) {
		return 0, 0
	}
	switch {
	case b.ScoreFrom == "victory":
		if e.won && b.ScoreOnVictory != nil {
			score = *b.ScoreOnVictory
		} else if e.won {
			score = 1
		}
	case b.ScoreFrom == "status":
		if m := b.scoreRe.FindAllStringSubmatch(strings.Join(e.m.UpperWindow(), "\n"), -1); status && len(m) > 0 {
			if v, err := strconv.Atoi(m[len(m)-1][1]); err == nil {
				if b.ScoreTextNegate {
					v = -v
				}
				e.textScore = v
			}
		}
		score = e.textScore
	case !b.generic && b.ScoreGlobal != nil:
		score = int(int16(e.m.Global(*b.ScoreGlobal)))
	case b.ScoreAddr != 0:
		score = readCounter(e.m, b.ScoreAddr, b.ScoreSize, true, b.ScoreSigned)
	case t.scoreGlob >= 0:
		score = int(int16(e.m.Global(t.scoreGlob)))
	}
	if e.won && b.ScoreOnVictory != nil {
		score = *b.ScoreOnVictory
	}
	switch {
	case !b.generic && b.MovesGlobal != nil:
		moves = int(e.m.Global(*b.MovesGlobal))
	case b.MovesAddr != 0:
		moves = readCounter(e.m, b.MovesAddr, b.MovesSize, false, false)
	case t.movesGlob >= 0:
		moves = int(e.m.Global(t.movesGlob))
	default:
		return score, 0
	}
	return score, moves + b.MovesOffset
}

// readCounter reads a word (signed when wordSigned) or a byte (signed when
// byteSigned) at addr.
func readCounter(m *zmachine.Machine, addr, size int, wordSigned, byteSigned bool) int {
	if size == 1 {
		if byteSigned {
			return int(int8(m.Byte(addr)))
		}
		return int(m.Byte(addr))
	}
	if wordSigned {
		return int(int16(m.Word(addr)))
	}
	return int(m.Word(addr))
}

// victoryTexts are the binding's, or the usual banners on the generic path.
func (e *Env) victoryTexts() []string {
	if len(e.b.VictoryTexts) > 0 || !e.b.generic {
		return e.b.VictoryTexts
	}
	return genericVictoryTexts
}
