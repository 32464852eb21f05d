package env

import (
	"regexp"
	"sort"
	"strings"

	"github.com/lantern-if/lantern/sanitize"
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
		if w := Noun(e.nameOf(o)); w != "" && !seen[w] {
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
		w := Noun(e.nameOf(uint16(o)))
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
// for objects elsewhere) in probes: when the action changes nothing (no
// move counted, the world and the location as they were: every parser
// refusal is like that) and its reply reads like the
// reply about a control (with the control's word put back), the parser did
// not find it. ok is false when the machine cannot be probed.
func (e *Env) Refuses(action, word string, dict map[string]bool, wordLen int) (refused, ok bool) {
	controls := e.controlNouns(word, dict, wordLen, 3)
	if len(controls) == 0 {
		return false, false
	}
	return e.refuses(action, word, controls, e.refusalsCountMoves("examine "+controls[0]))
}

// nonsense are words no story knows, the controls for RefusesUnknown.
var nonsense = [...]string{"qzxjv", "vjxqzk"}

// RefusesUnknown asks the parser whether it refuses word, which its
// dictionary lacks: some verbs take any text ("say boo"), and the parser
// answers those as it answers nothing else. The controls are nonsense.
func (e *Env) RefusesUnknown(action, word string, dict map[string]bool, wordLen int) (refused, ok bool) {
	counts := true
	if c := e.controlNouns(word, dict, wordLen, 1); len(c) > 0 {
		counts = e.refusalsCountMoves("examine " + c[0])
	}
	return e.refuses(action, word, nonsense[:], counts)
}

// refuses compares the action's reply with the controls'. countsRefusals
// says whether a refusal may still count a move; when it cannot, a move
// counted means the story accepted the command.
func (e *Env) refuses(action, word string, controls []string, countsRefusals bool) (refused, ok bool) {
	if e.m.State() != zmachine.WaitLine {
		return false, false
	}
	re := wordRE(word)
	scoreBefore, movesBefore := e.scoreMoves()
	restarts := e.m.Restarts()
	worldBefore, locBefore := e.worldHash(), e.location().ID
	changed := false
	reply := func(cmd string) (string, bool) {
		out := ""
		done := e.probe(cmd, func(got string) {
			out = got
			if cmd == action {
				score, moves := e.scoreMoves()
				ended := e.m.State() != zmachine.WaitLine || e.m.Restarts() != restarts ||
					containsAny(out, e.b.VictoryTexts) || containsAny(out, e.b.DeathTexts)
				changed = ended || score != scoreBefore || e.worldHash() != worldBefore || e.location().ID != locBefore || (moves != movesBefore && !countsRefusals)
			}
		})
		return strings.Join(strings.Fields(strings.ToLower(out)), " "), done
	}
	got, ok := reply(action)
	if !ok {
		return false, false
	}
	if changed {
		// The story acted on it (a turn passed, something moved): a parser
		// that refuses a word does neither.
		return false, true
	}
	for _, c := range controls {
		alt, ok := reply(re.ReplaceAllString(action, "${1}"+c+"${2}"))
		if !ok {
			continue
		}
		// A "$" in the word is literal, not a group of the template.
		back := wordRE(c).ReplaceAllString(alt, "${1}"+strings.ReplaceAll(strings.ToLower(word), "$", "$$")+"${2}")
		if back == got {
			return true, true
		}
	}
	return false, true
}

// refusalsCountMoves reports whether the story counts a move even when its
// parser cannot find an object (Infocom's do; Inform's do not), found once
// by probing probe, a command about an object far away.
func (e *Env) refusalsCountMoves(probe string) bool {
	if e.refusalMoves != nil {
		return *e.refusalMoves
	}
	_, before := e.scoreMoves()
	counts := false
	ok := e.probe(probe, func(string) {
		_, after := e.scoreMoves()
		counts = after != before
	})
	if ok {
		e.refusalMoves = &counts
	}
	return counts
}

// Look is the room's description as the story gives it to "look", read in
// a probe (nothing changes); "" when the machine cannot be probed.
func (e *Env) Look() string {
	out := ""
	e.probe("look", func(reply string) { out = cleanText(reply) })
	return strings.TrimSpace(out)
}

// clockBytes are the move counter's two bytes (from the binding).
func (e *Env) clockBytes() []int {
	e.resolveTruth()
	global := func(n int) []int {
		a := int(e.m.Word(0x0C)) + 2*n
		return []int{a, a + 1}
	}
	switch b := e.b; {
	case !b.generic && b.MovesGlobal != nil:
		return global(*b.MovesGlobal)
	case b.MovesAddr != 0 && b.MovesSize == 1:
		return []int{b.MovesAddr}
	case b.MovesAddr != 0:
		return []int{b.MovesAddr, b.MovesAddr + 1}
	case e.truth.movesGlob >= 0:
		return global(e.truth.movesGlob)
	}
	return nil
}

// volatileBytes are the addresses that two different refused commands
// leave different: where the story keeps the words typed. Found once.
func (e *Env) volatileBytes() []int {
	if e.volatile != nil || e.m.State() != zmachine.WaitLine {
		return e.volatile
	}
	after := func(cmd string) []byte {
		var mem []byte
		e.probe(cmd, func(string) { mem = e.m.DynamicMemory() })
		return mem
	}
	a := after(strings.Repeat("qzxjv vjxqzk ", 9))
	b := after(strings.Repeat("kzqj jqkzvx xv ", 8))
	out := []int{}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			out = append(out, i)
		}
	}
	e.volatile = out
	return out
}

// Idle reports whether action, played now, would do nothing but let time
// pass, and get before, the reply it got when it last did nothing. It plays "wait" and the action in probes: what waiting changes
// (the clock, timers, wandering characters, the parser's record of the
// verb) is set aside, and the action is idle when it changes nothing else
// and its reply is not the reply to waiting (waiting is a move of its own).
// Pressing a button that cycles a display is not idle. ok is false when
// the machine cannot be probed.
func (e *Env) Idle(action, before string) (idle, ok bool) {
	if e.m.State() != zmachine.WaitLine {
		return false, false
	}
	e.volatileBytes() // found outside the probes below
	try := func(cmd string) (mem []byte, world, reply string, ok bool) {
		ok = e.probe(cmd, func(got string) {
			reply = sanitize.OneLine(cleanText(got))
			mem = e.m.DynamicMemory()
			world = e.worldHash()
		})
		return mem, world, reply, ok
	}
	now := e.m.DynamicMemory()
	waited, _, rw, ok1 := try("wait")
	acted, world, ra, ok2 := try(action)
	if !ok1 || !ok2 || len(waited) != len(now) || len(acted) != len(now) {
		return false, false
	}
	if ra == rw || world != e.worldHash() || ra != sanitize.OneLine(cleanText(before)) {
		return false, true
	}
	// The object tree is unchanged (the world hash, which already sets
	// wandering characters aside); now everything else: globals,
	// properties, arrays.
	skip := map[int]bool{}
	for _, a := range e.volatileBytes() {
		skip[a] = true
	}
	for _, a := range e.clockBytes() {
		skip[a] = true
	}
	tree, treeEnd := e.objectEntries()
	for i := range now {
		if skip[i] || waited[i] != now[i] || (i >= tree && i < treeEnd) {
			continue
		}
		if acted[i] != now[i] {
			return false, true
		}
	}
	return true, true
}

// objectEntries is the address range of the object table's entries
// (parents, siblings, children, attributes), which the world hash covers.
func (e *Env) objectEntries() (from, to int) {
	defaults, size := 31*2, 9
	if e.m.Version() >= 4 {
		defaults, size = 63*2, 14
	}
	from = int(e.m.Word(0x0A)) + defaults
	return from, from + size*e.m.ObjectCount()
}

// wordRE matches word as a whole word (case aside), keeping what bounds it
// in groups 1 and 2; words may hold punctuation ("cat_robot->desist();").
func wordRE(word string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[\s.,!?"'])` + regexp.QuoteMeta(word) + `($|[\s.,!?"'])`)
}

// probe plays cmd in a probe (nothing of it stays: zmachine.Machine.Probe)
// and hands seen the story's reply while the machine is still in the
// probed state; it reports whether the command could be played.
func (e *Env) probe(cmd string, seen func(reply string)) bool {
	if e.m.State() != zmachine.WaitLine {
		return false
	}
	played := false
	e.m.Probe(func() error {
		e.m.TakeOutput()
		if err := e.m.SendLine(cmd); err != nil {
			return err
		}
		if _, err := e.m.Run(); err != nil {
			return err
		}
		played = true
		if seen != nil {
			seen(e.m.TakeOutput())
		}
		return nil
	})
	return played
}

// oneLine joins s's words with single spaces.
