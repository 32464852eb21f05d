package env

import (
	"strconv"
	"strings"

	"github.com/lantern-if/lantern/sanitize"
	"github.com/lantern-if/lantern/zmachine"
)

// What the game's world model says can be done here, for the critic: the
// exits that lead elsewhere and the actions that change the world, found
// by probing and kept for the state of the world they were found in (the
// world hash and the location), so each costs at most one probing a turn;
// and the verbs the story knows.

// affordances is the cache.
type affordances struct {
	exitsAt, actionsAt, triedAt string // the state each was found in ("" : never)
	exits                       map[string]int
	actions                     map[string]bool
	tried                       map[string]Tried
	verbs                       map[string]bool // nil: not yet found
}

// Tried is what one action, probed, would do.
type Tried struct {
	Played  bool // the story took the command (a probe could run)
	Changes bool // the world, the score or the location changed
	Moves   bool // the location changed
	Dies    bool // the player died, or the game ended
}

// Try probes one action (once per state of the world and action, lower
// case with single spaces) and reports what it would do. Played false:
// the story is not waiting for a command.
func (e *Env) Try(action string) Tried {
	a := sanitize.OneLine(strings.ToLower(action))
	k := e.stateKey()
	if e.afford.triedAt != k || e.afford.tried == nil {
		e.afford.tried, e.afford.triedAt = map[string]Tried{}, k
	}
	if t, ok := e.afford.tried[a]; ok {
		return t
	}
	here := probeState{loc: e.location(), hash: e.worldHash()}
	here.score, _ = e.scoreMoves()
	restarts := e.m.Restarts()
	var t Tried
	var st probeState
	t.Played = e.probe(a, func(reply string) {
		st.loc = e.location()
		st.score, _ = e.scoreMoves()
		st.hash = e.worldHash()
		died := containsAny(reply, e.b.DeathTexts) || (len(e.b.DeathTexts) == 0 && genericDeath(reply))
		t.Dies = died || e.m.Restarts() != restarts || e.m.State() == zmachine.Halted
	})
	if t.Played {
		t.Changes, t.Moves = st != here, st.loc.ID != here.loc.ID
	}
	e.afford.tried[a] = t
	return t
}

// stateKey names the state of the world probing results belong to.
func (e *Env) stateKey() string {
	return e.worldHash() + "@" + strconv.Itoa(e.location().ID)
}

// ExitsHere maps each direction that leads elsewhere from here to the
// room it leads to (ValidExits, probed once per state of the world). The
// map is shared: do not change it.
func (e *Env) ExitsHere() map[string]int {
	k := e.stateKey()
	if e.afford.exitsAt != k || e.afford.exits == nil {
		e.afford.exits = map[string]int{}
		for _, x := range e.ValidExits() {
			e.afford.exits[x.Direction] = x.To.ID
		}
		e.afford.exitsAt = k
	}
	return e.afford.exits
}

// ValidActionSet is ValidActions as a set of actions, lower-cased with
// single spaces, probed once per state of the world. The map is shared:
// do not change it.
func (e *Env) ValidActionSet() map[string]bool {
	k := e.stateKey()
	if e.afford.actionsAt != k || e.afford.actions == nil {
		e.afford.actions = map[string]bool{}
		for _, g := range e.ValidActions() {
			for _, a := range g.Actions {
				e.afford.actions[sanitize.OneLine(strings.ToLower(a))] = true
			}
		}
		e.afford.actionsAt = k
	}
	return e.afford.actions
}

// lookingVerbs are verbs nearly every story takes on any object in scope,
// beside those of the action templates.
func lookingVerbs() []string {
	return []string{"examine", "x", "look", "read", "search", "smell", "touch", "feel", "listen", "get", "pick", "put", "give", "show", "ask", "tell", "talk", "hit", "kill", "fight", "break", "cut", "dig", "fill", "pour", "squeeze", "kick", "kiss", "knock", "follow", "hide", "jump", "board", "disembark", "launch", "tie", "untie", "unlight", "blow", "play", "count", "burn", "melt", "swim", "cross"}
}

// KnowsVerb reports whether word is a verb the story knows: the first word
// of one of the binding's action templates (or the default templates), or
// a common looking verb, and in the story's dictionary.
func (e *Env) KnowsVerb(word string) bool {
	if e.afford.verbs == nil {
		e.afford.verbs = map[string]bool{}
		templates := e.b.Templates
		if len(templates) == 0 {
			templates = DefaultTemplates()
		}
		add := func(w string) {
			if w != "" && e.m.KnowsWord(w) {
				e.afford.verbs[w] = true
			}
		}
		for _, t := range templates {
			if f := strings.Fields(strings.ToLower(t)); len(f) > 0 {
				add(f[0])
			}
		}
		for _, v := range lookingVerbs() {
			add(v)
		}
	}
	return e.afford.verbs[strings.ToLower(word)]
}
