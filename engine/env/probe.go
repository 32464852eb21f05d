package env

import (
	"bytes"
	"slices"
	"sort"
	"strings"

	"github.com/lantern-if/lantern/zmachine"
)

// Probing tries commands on the machine and puts it back exactly as it was
// (zmachine.Machine.Probe): afterwards transcript, random generator and
// memory are byte-identical to a run without probing.

// Directions are the exits probed: the ten compass and vertical directions
// plus in and out.
func Directions() []string {
	return []string{"north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest", "up", "down", "in", "out"}
}

// probeState is where a probed command leads.
type probeState struct {
	loc   Location
	score int
	hash  string
}

// ValidExits probes every direction and reports those that lead elsewhere.
func (e *Env) ValidExits() []Exit {
	here := e.location()
	var out []Exit
	dirs := Directions()
	e.probeEach(dirs, func(i int, _ string) {
		if loc := e.location(); loc.ID != here.ID {
			out = append(out, Exit{Direction: dirs[i], To: loc})
		}
	})
	return out
}

// probeEach plays each command from the present state in one probe
// (nothing of it stays: zmachine.Machine.Probe), putting the machine back
// between them from one snapshot, and hands seen each command's index and
// reply while the machine is in the state it led to. A command the story
// does not take is skipped.
func (e *Env) probeEach(cmds []string, seen func(i int, reply string)) {
	if e.m.State() != zmachine.WaitLine || len(cmds) == 0 {
		return
	}
	e.m.Probe(func() error {
		snap := e.m.Snapshot()
		for i, cmd := range cmds {
			if i > 0 {
				if err := e.m.Restore(snap); err != nil {
					return err
				}
			}
			e.m.TakeOutput()
			if err := e.m.SendLine(cmd); err != nil {
				continue
			}
			if _, err := e.m.Run(); err != nil {
				continue
			}
			seen(i, e.m.TakeOutput())
		}
		return nil
	})
}

// DefaultTemplates are tried when the binding has none. OBJ stands for an
// object in scope.
func DefaultTemplates() []string {
	return []string{
		"take OBJ", "drop OBJ", "open OBJ", "close OBJ", "read OBJ", "eat OBJ", "drink OBJ",
		"wear OBJ", "remove OBJ", "push OBJ", "pull OBJ", "move OBJ", "turn OBJ",
		"turn on OBJ", "turn off OBJ", "light OBJ", "extinguish OBJ", "enter OBJ", "climb OBJ",
		"attack OBJ", "wave OBJ", "rub OBJ", "shake OBJ", "search OBJ", "inflate OBJ",
		"deflate OBJ", "ring OBJ", "unlock OBJ", "lock OBJ", "tie OBJ", "wind OBJ",
		"put OBJ in OBJ", "put OBJ on OBJ", "unlock OBJ with OBJ", "open OBJ with OBJ",
		"give OBJ to OBJ", "attack OBJ with OBJ", "tie OBJ to OBJ", "throw OBJ at OBJ",
		"take all", "drop all", "wait",
	}
}

// Noun is the last word of an object's name, lower-cased, letters only.
func Noun(name string) string {
	f := strings.Fields(strings.ToLower(name))
	if len(f) == 0 {
		return ""
	}
	w := strings.TrimFunc(f[len(f)-1], func(r rune) bool { return r < 'a' || r > 'z' })
	if w == "" {
		return ""
	}
	return w
}

// ValidActions fills the templates with the nouns in scope, probes each, and
// keeps those that change the world, the score or the location, grouped by
// the state they lead to. In a template with two objects one of them is the
// thing used or moved (the one after "with", else the first), which the
// player must hold: that slot takes only held objects.
func (e *Env) ValidActions() []ActionGroup {
	here := probeState{loc: e.location(), hash: e.worldHash()}
	here.score, _ = e.scoreMoves()
	templates := e.b.Templates
	if len(templates) == 0 {
		templates = DefaultTemplates()
	}
	nouns := e.Scope()
	var held []string
	for _, it := range e.inventory(uint16(here.loc.ID)) {
		if n := Noun(it.Name); n != "" && !slices.Contains(held, n) {
			held = append(held, n)
		}
	}
	// A probe whose object table and watched bytes are as they were here
	// is in the same world: only the others are hashed.
	raw := e.rawWorld(nil)
	buf := make([]byte, 0, len(raw))
	var actions []string
	for _, t := range templates {
		actions = append(actions, fill(t, nouns, held)...)
	}
	groups := map[probeState]*ActionGroup{}
	var order []probeState
	e.probeEach(actions, func(i int, _ string) {
		var st probeState
		st.loc = e.location()
		st.score, _ = e.scoreMoves()
		buf = e.rawWorld(buf[:0])
		if bytes.Equal(buf, raw) {
			st.hash = here.hash
		} else {
			st.hash = e.worldHash()
		}
		if st == here {
			return
		}
		g := groups[st]
		if g == nil {
			g = &ActionGroup{Location: st.loc, Score: st.score, Hash: st.hash}
			groups[st] = g
			order = append(order, st)
		}
		g.Actions = append(g.Actions, actions[i])
	})
	out := make([]ActionGroup, 0, len(order))
	for _, st := range order {
		out = append(out, *groups[st])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Actions[0] < out[j].Actions[0] })
	return out
}

// rawWorld appends to buf what the world hash is made from, before the
// binding's rules leave parts out: the object table's entries and the
// watched bytes.
func (e *Env) rawWorld(buf []byte) []byte {
	from, to := e.objectEntries()
	for a := from; a < to; a++ {
		buf = append(buf, e.m.Byte(a))
	}
	for _, w := range e.b.Watch {
		buf = append(buf, e.m.Byte(w.Addr))
	}
	return buf
}

// fill substitutes nouns for each OBJ: in a template with two, distinct
// nouns, and held ones for the slot after "with" (else the first).
func fill(t string, nouns, held []string) []string {
	switch strings.Count(t, "OBJ") {
	case 0:
		return []string{t}
	case 1:
		out := make([]string, 0, len(nouns))
		for _, n := range nouns {
			out = append(out, strings.Replace(t, "OBJ", n, 1))
		}
		return out
	}
	firsts, seconds := held, nouns
	if strings.Contains(t, " with OBJ") {
		firsts, seconds = nouns, held
	}
	var out []string
	for _, a := range firsts {
		for _, b := range seconds {
			if a != b {
				out = append(out, strings.Replace(strings.Replace(t, "OBJ", a, 1), "OBJ", b, 1))
			}
		}
	}
	return out
}
