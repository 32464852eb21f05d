package env

import (
	"crypto/sha256"
	"encoding/hex"
)

// moved and attrChanged are the machine's hooks: they record the step's
// changes to the object tree, minus what the binding says to ignore.
func (e *Env) moved(obj, from, to uint16) {
	if e.watch.on && !e.watch.global {
		e.noteLocation()
	}
	if contains(e.b.IgnoreMoved, int(obj)) || contains(e.b.IgnoreMovedTo, int(to)) || !e.worldObject(obj) {
		return
	}
	if e.b.OnlyPlayerMoves && e.b.Player != 0 && int(obj) != e.b.Player && int(to) != e.b.Player {
		return
	}
	e.changes = append(e.changes, Change{Kind: ChangeMove, Object: int(obj), Name: e.nameOf(obj), From: int(from), To: int(to)})
}

func (e *Env) attrChanged(obj uint16, attr uint8, set bool) {
	if e.b.ignoresDiff(obj, attr, set) || contains(e.b.ClearAttrs, int(attr)) || !e.worldObject(obj) {
		return
	}
	e.changes = append(e.changes, Change{Kind: ChangeAttr, Object: int(obj), Name: e.nameOf(obj), Attr: int(attr), Set: set})
}

func (e *Env) worldObject(o uint16) bool {
	return e.b.WorldObjects == 0 || int(o) <= e.b.WorldObjects
}

// worldHash digests the cleaned object tree and the watched bytes. Objects
// are hashed by parent, not by sibling order, so the same state reached by
// different orders of the same moves hashes the same. Detached objects and
// ignored or flickering attributes are left out.
func (e *Env) worldHash() string {
	pl := e.hashPlan()
	buf := make([]byte, 0, pl.n*10+2*len(e.b.Watch))
	from, _ := e.objectEntries()
	size := 9
	if e.m.Version() >= 4 {
		size = 14
	}
	var home uint16
	if e.b.Player != 0 {
		home = e.m.Parent(uint16(e.b.Player))
	}
	detached := func(o int) bool {
		if o > pl.n {
			return contains(e.b.Detach, o) || (contains(e.b.DetachWhenAway, o) && e.b.Player != 0 && e.m.Parent(uint16(o)) != home)
		}
		return pl.detach[o] || (pl.away[o] && e.b.Player != 0 && e.m.Parent(uint16(o)) != home)
	}
	for o := 1; o <= pl.n; o++ {
		if detached(o) {
			continue
		}
		// The attribute flags head the object's entry, the parent follows
		// (read here directly: this runs for every object of every probe).
		at := from + size*(o-1)
		var p uint16
		if pl.attrBytes == 4 {
			p = uint16(e.m.Byte(at + 4))
		} else {
			p = e.m.Word(at + 6)
		}
		if p != 0 && detached(int(p)) {
			p = 0
		}
		buf = append(buf, byte(o>>8), byte(o), byte(p>>8), byte(p))
		for i := range pl.attrBytes {
			buf = append(buf, e.m.Byte(at+i)&^pl.clear[o][i])
		}
	}
	for _, w := range e.b.Watch {
		buf = append(buf, e.m.Byte(w.Addr))
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:8])
}

// hashPlan is what the binding leaves out of the world hash, per object,
// worked out once: the attribute bits cleared, the objects always detached
// and those detached while away from the player.
type hashPlan struct {
	n         int
	attrBytes int
	clear     [][6]byte
	detach    []bool
	away      []bool
}

func (e *Env) hashPlan() *hashPlan {
	if e.plan != nil {
		return e.plan
	}
	n := e.b.WorldObjects
	if n == 0 {
		n = e.m.ObjectCount()
	}
	pl := &hashPlan{n: n, attrBytes: 4, clear: make([][6]byte, n+1), detach: make([]bool, n+1), away: make([]bool, n+1)}
	if e.m.Version() >= 4 {
		pl.attrBytes = 6
	}
	for o := 1; o <= n; o++ {
		pl.detach[o] = contains(e.b.Detach, o)
		pl.away[o] = contains(e.b.DetachWhenAway, o)
		attrs := pl.clear[o][:pl.attrBytes]
		set := func(a int) {
			if a >= 0 && a/8 < len(attrs) {
				attrs[a/8] |= 0x80 >> (a % 8)
			}
		}
		for _, a := range e.b.ClearAttrs {
			set(a)
		}
		for _, r := range e.b.ClearForHash {
			for _, a := range r.Attrs {
				if r.matches(uint16(o), uint8(a)) {
					set(a)
				}
			}
		}
		for _, r := range e.b.IgnoreDiff {
			if r.Object != o {
				continue
			}
			if r.All {
				for i := range attrs {
					attrs[i] = 0xff
				}
			}
			for _, a := range r.Attrs {
				set(a)
			}
		}
	}
	e.plan = pl
	return pl
}

func clearBit(attrs []byte, a int) {
	if a >= 0 && a/8 < len(attrs) {
		attrs[a/8] &^= 0x80 >> (a % 8)
	}
}
