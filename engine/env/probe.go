package env

import (
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

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
	e.probeEach(dirs, func(i int) {
		if loc := e.location(); loc.ID != here.ID {
			out = append(out, Exit{Direction: dirs[i], To: loc})
		}
	})
	return out
}

// probeEach plays each command from the present state in one probe
// (nothing of it stays: zmachine.Machine.Probe), each from the same state
// (zmachine.ProbePoint), and hands seen each command's index while the
// machine is in the state it led to. A command the story does not take is
// skipped.
func (e *Env) probeEach(cmds []string, seen func(i int)) {
	if e.m.State() != zmachine.WaitLine || len(cmds) == 0 {
		return
	}
	e.m.Probe(func() error {
		p := e.m.ProbePoint()
		for i, cmd := range cmds {
			if playFrom(e.m, p, cmd) {
				seen(i)
			}
		}
		return nil
	})
}

// playFrom puts m in the state of p and plays cmd; false: the story did
// not take it.
func playFrom(m *zmachine.Machine, p *zmachine.ProbePoint, cmd string) bool {
	if m.ResetTo(p) != nil || m.SendLine(cmd) != nil {
		return false
	}
	_, err := m.Run()
	m.DiscardOutput()
	return err == nil
}

// minShared is the fewest commands per worker worth a second machine.
const minShared = 24

// probeAll is probeEach for many commands with a result each: it returns
// what at gives, read in the state each command led to, and whether the
// command was played. Beside the machine itself, probe copies of it
// (zmachine.Machine.ProbeCopy, kept for the next call) play a share of
// the commands on other goroutines, each read by a copy of the
// environment that reads that copy; at must read only through the Env it
// is given. With the facts not yet resolved everything runs here.
func probeAll[T any](e *Env, cmds []string, at func(w *Env) T) ([]T, []bool) {
	out, played := make([]T, len(cmds)), make([]bool, len(cmds))
	if e.m.State() != zmachine.WaitLine || len(cmds) == 0 {
		return out, played
	}
	workers := e.probeWorkers
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), 4)
	}
	workers = max(1, min(workers, len(cmds)/minShared))
	if !e.truth.resolved {
		workers = 1
	}
	e.hashPlan()
	e.m.Probe(func() error {
		p := e.m.ProbePoint()
		var next atomic.Int64
		run := func(w *Env) {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(cmds) {
					return
				}
				if playFrom(w.m, p, cmds[i]) {
					out[i], played[i] = at(w), true
				}
			}
		}
		var wg sync.WaitGroup
		for k := 1; k < workers; k++ {
			for len(e.probers) < k {
				e.probers = append(e.probers, nil)
			}
			c, err := e.m.ProbeCopy(e.probers[k-1], p)
			if err != nil {
				break
			}
			e.probers[k-1] = c
			w := *e
			w.m, w.nameOf = c, c.ObjectName
			wg.Go(func() { run(&w) })
		}
		run(e)
		wg.Wait()
		return nil
	})
	return out, played
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
	actions := e.candidateActions(uint16(here.loc.ID))
	// A probe whose object table and watched bytes are as they were here
	// is in the same world; the others are hashed once for each distinct
	// table (the hash is a function of these bytes), in each worker.
	raw := string(e.rawWorld(nil))
	states, played := probeAll(e, actions, func(w *Env) probeState {
		if w.probeMemo == nil {
			w.probeMemo = &probeMemo{hashes: map[string]string{}}
		}
		memo := w.probeMemo
		st := probeState{loc: w.location()}
		st.score, _ = w.scoreMoves()
		memo.buf = w.rawWorld(memo.buf[:0])
		if string(memo.buf) == raw {
			st.hash = here.hash
		} else if h, ok := memo.hashes[string(memo.buf)]; ok {
			st.hash = h
		} else {
			st.hash = w.worldHash()
			memo.hashes[string(memo.buf)] = st.hash
		}
		return st
	})
	e.probeMemo = nil
	return groupActions(actions, states, played, here)
}

// probeMemo is what one worker of ValidActions keeps between probes: the
// world hash of each object table seen.
type probeMemo struct {
	buf    []byte
	hashes map[string]string
}

// candidateActions are the templates filled with the nouns in scope (the
// second slot of two with the nouns the player holds in room).
func (e *Env) candidateActions(room uint16) []string {
	templates := e.b.Templates
	if len(templates) == 0 {
		templates = DefaultTemplates()
	}
	nouns := e.Scope()
	var held []string
	for _, it := range e.inventory(room) {
		if n := Noun(it.Name); n != "" && !slices.Contains(held, n) {
			held = append(held, n)
		}
	}
	var actions []string
	for _, t := range templates {
		actions = append(actions, fill(t, nouns, held)...)
	}
	return actions
}

// groupActions keeps the played actions whose state is not here, grouped
// by state in the order first seen, the groups sorted by first action.
func groupActions(actions []string, states []probeState, played []bool, here probeState) []ActionGroup {
	groups := map[probeState]*ActionGroup{}
	var order []probeState
	for i, st := range states {
		if !played[i] || st == here {
			continue
		}
		g := groups[st]
		if g == nil {
			g = &ActionGroup{Location: st.loc, Score: st.score, Hash: st.hash}
			groups[st] = g
			order = append(order, st)
		}
		g.Actions = append(g.Actions, actions[i])
	}
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
	buf = e.m.AppendBytes(buf, from, to)
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
