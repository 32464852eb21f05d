package engine

import (
	"regexp"
	"sort"
	"strings"

	"github.com/lantern-if/lantern/zmachine"
)

// What the parser can refer to is more than the room's children. Infocom
// stories give each room a list of "local globals" (a property holding
// object numbers: the window and the house around the white house), and
// keep objects that are everywhere (the ground, the player's hands) in a
// container outside every room; Inform stories move found_in objects into
// the room as the player arrives, so the object tree already holds them.
// What neither rule covers, the parser itself decides: Refuses asks it.

// scopeObjects lists the objects in scope: the location's contents and
// what they hold (three levels deep), the player's inventory, and the
// room's local globals; the player is left out.
func (e *Env) scopeObjects() []uint16 {
	loc := uint16(e.location().ID)
	player := e.playerObject(loc)
	seen := map[uint16]bool{player: true, loc: true}
	var out []uint16
	var walk func(o uint16, depth int)
	walk = func(o uint16, depth int) {
		for _, c := range e.m.Children(o) {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
			if depth < 3 {
				walk(c, depth+1)
			}
		}
	}
	walk(loc, 1)
	if player != 0 {
		walk(player, 1)
	}
	for _, g := range e.localGlobals(loc) {
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
			walk(g, 2)
		}
	}
	return out
}

// Scope lists the nouns in scope (scopeObjects), each named by the last
// word of its short name.
func (e *Env) Scope() []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range e.scopeObjects() {
		if w := noun(e.nameOf(o)); w != "" && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// ScopeNames lists the short names of the objects in scope, for the agent.
func (e *Env) ScopeNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range e.scopeObjects() {
		n := strings.TrimSpace(e.nameOf(o))
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

// localGlobals finds the room's local globals: a property whose entries
// (bytes in version 3, words later) are all objects that are not rooms,
// share one parent, and that parent is a top-level container or sits in
// one (Infocom's LOCAL-GLOBALS inside GLOBAL-OBJECTS). Exits, which name
// rooms, and numeric properties never pass.
func (e *Env) localGlobals(room uint16) []uint16 {
	if room == 0 {
		return nil
	}
	rooms := e.m.Parent(room)
	count := e.m.ObjectCount()
	for _, p := range e.m.Properties(room) {
		for _, wide := range []bool{false, true} {
			if wide && (e.m.Version() <= 3 || len(p.Data)%2 != 0) {
				continue
			}
			objs := entries(p.Data, wide)
			if len(objs) == 0 {
				continue
			}
			if ok := e.sameContainer(objs, room, rooms, count); ok {
				return objs
			}
		}
	}
	return nil
}

func entries(data []byte, wide bool) []uint16 {
	var out []uint16
	if wide {
		for i := 0; i+1 < len(data); i += 2 {
			out = append(out, uint16(data[i])<<8|uint16(data[i+1]))
		}
		return out
	}
	for _, b := range data {
		out = append(out, uint16(b))
	}
	return out
}

func (e *Env) sameContainer(objs []uint16, room, rooms uint16, count int) bool {
	var parent uint16
	for i, o := range objs {
		if o == 0 || int(o) > count || o == room {
			return false
		}
		p := e.m.Parent(o)
		if p == 0 || p == rooms || p == room || (rooms != 0 && e.m.Parent(p) == rooms) {
			return false
		}
		if i == 0 {
			parent = p
		} else if p != parent {
			return false
		}
	}
	grand := e.m.Parent(parent)
	return grand == 0 || e.m.Parent(grand) == 0
}

// controlNouns are nouns of objects far from here, for Refuses: words the
// story knows that name no object in scope. They are chosen in a fixed
// order so the same state always gives the same answer.
func (e *Env) controlNouns(word string, dict map[string]bool, wordLen int, n int) []string {
	in := map[string]bool{}
	for _, w := range e.Scope() {
		in[w] = true
	}
	var cands []string
	seen := map[string]bool{}
	for o := 1; o <= e.m.ObjectCount(); o++ {
		w := noun(e.nameOf(uint16(o)))
		if len(w) < 3 || w == word || in[w] || seen[w] {
			continue
		}
		seen[w] = true
		look := w
		if wordLen > 0 && len(look) > wordLen {
			look = look[:wordLen]
		}
		if len(dict) > 0 && !dict[look] {
			continue
		}
		cands = append(cands, w)
	}
	sort.Strings(cands)
	if len(cands) <= n {
		return cands
	}
	// Spread the picks over the list rather than taking neighbours.
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, cands[i*len(cands)/n])
	}
	return out
}

// Refuses asks the parser whether word, as used in action, names nothing
// here. It plays the action and the same action with control nouns (words
// for objects elsewhere) in probes: when the reply about word reads like
// the reply about a control (with the control's word put back), the
// parser did not find it. ok is false when the machine cannot be probed.
func (e *Env) Refuses(action, word string, dict map[string]bool, wordLen int) (refused, ok bool) {
	if e.m.State() != zmachine.WaitLine {
		return false, false
	}
	re := regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(word) + `\b`)
	reply := func(cmd string) (string, bool) {
		out := ""
		done := false
		e.m.Probe(func() error {
			e.m.TakeOutput()
			if err := e.m.SendLine(cmd); err != nil {
				return err
			}
			if _, err := e.m.Run(); err != nil {
				return err
			}
			out = e.m.TakeOutput()
			done = true
			return nil
		})
		return strings.Join(strings.Fields(strings.ToLower(out)), " "), done
	}
	got, ok := reply(action)
	if !ok {
		return false, false
	}
	for _, c := range e.controlNouns(word, dict, wordLen, 3) {
		alt, ok := reply(re.ReplaceAllString(action, c))
		if !ok {
			continue
		}
		back := regexp.MustCompile(`\b`+regexp.QuoteMeta(strings.ToLower(c))+`\b`).ReplaceAllString(alt, strings.ToLower(word))
		if back == got {
			return true, true
		}
	}
	return false, true
}

// Look is the room's description as the story gives it to "look", read in
// a probe (nothing changes); "" when the machine cannot be probed.
func (e *Env) Look() string {
	if e.m.State() != zmachine.WaitLine {
		return ""
	}
	out := ""
	e.m.Probe(func() error {
		e.m.TakeOutput()
		if err := e.m.SendLine("look"); err != nil {
			return err
		}
		if _, err := e.m.Run(); err != nil {
			return err
		}
		out = cleanText(e.m.TakeOutput())
		return nil
	})
	return strings.TrimSpace(out)
}
