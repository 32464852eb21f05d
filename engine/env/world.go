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
	n := e.b.WorldObjects
	if n == 0 {
		n = e.m.ObjectCount()
	}
	buf := make([]byte, 0, n*9+2*len(e.b.Watch))
	detached := func(o int) bool {
		if contains(e.b.Detach, o) {
			return true
		}
		if contains(e.b.DetachWhenAway, o) && e.b.Player != 0 {
			return e.m.Parent(uint16(o)) != e.m.Parent(uint16(e.b.Player))
		}
		return false
	}
	for o := 1; o <= n; o++ {
		obj := uint16(o)
		if detached(o) {
			continue
		}
		p := e.m.Parent(obj)
		if p != 0 && detached(int(p)) {
			p = 0
		}
		buf = append(buf, byte(o>>8), byte(o), byte(p>>8), byte(p))
		attrs := e.m.AttributeBytes(obj)
		for _, a := range e.b.ClearAttrs {
			clearBit(attrs, a)
		}
		for _, r := range e.b.ClearForHash {
			for _, a := range r.Attrs {
				if r.matches(obj, uint8(a)) {
					clearBit(attrs, a)
				}
			}
		}
		for _, r := range e.b.IgnoreDiff {
			if r.Object != o {
				continue
			}
			if r.All {
				clear(attrs)
			}
			for _, a := range r.Attrs {
				clearBit(attrs, a)
			}
		}
		buf = append(buf, attrs...)
	}
	for _, w := range e.b.Watch {
		buf = append(buf, e.m.Byte(w.Addr))
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:8])
}

func clearBit(attrs []byte, a int) {
	if a >= 0 && a/8 < len(attrs) {
		attrs[a/8] &^= 0x80 >> (a % 8)
	}
}
