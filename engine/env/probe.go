package env

import (
	"sort"
	"strings"
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

// try runs cmd in a probe and reports the resulting state.
func (e *Env) try(cmd string) (probeState, bool) {
	var st probeState
	ok := e.probe(cmd, func(string) {
		st.loc = e.location()
		st.score, _ = e.scoreMoves()
		st.hash = e.worldHash()
	})
	return st, ok
}

// ValidExits probes every direction and reports those that lead elsewhere.
func (e *Env) ValidExits() []Exit {
	here := e.location()
	var out []Exit
	for _, d := range Directions() {
		if st, ok := e.try(d); ok && st.loc.ID != here.ID {
			out = append(out, Exit{Direction: d, To: st.loc})
		}
	}
	return out
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
// the state they lead to.
func (e *Env) ValidActions() []ActionGroup {
	here := probeState{loc: e.location(), hash: e.worldHash()}
	here.score, _ = e.scoreMoves()
	templates := e.b.Templates
	if len(templates) == 0 {
		templates = DefaultTemplates()
	}
	nouns := e.Scope()
	groups := map[probeState]*ActionGroup{}
	var order []probeState
	for _, t := range templates {
		for _, a := range fill(t, nouns) {
			st, ok := e.try(a)
			if !ok || st == here {
				continue
			}
			g := groups[st]
			if g == nil {
				g = &ActionGroup{Location: st.loc, Score: st.score, Hash: st.hash}
				groups[st] = g
				order = append(order, st)
			}
			g.Actions = append(g.Actions, a)
		}
	}
	out := make([]ActionGroup, 0, len(order))
	for _, st := range order {
		out = append(out, *groups[st])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Actions[0] < out[j].Actions[0] })
	return out
}

// fill substitutes nouns for each OBJ (distinct nouns for two slots).
func fill(t string, nouns []string) []string {
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
	var out []string
	for _, a := range nouns {
		for _, b := range nouns {
			if a != b {
				out = append(out, strings.Replace(strings.Replace(t, "OBJ", a, 1), "OBJ", b, 1))
			}
		}
	}
	return out
}
