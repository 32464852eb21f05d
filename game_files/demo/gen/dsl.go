package gen

import "github.com/lantern-if/lantern/zmachine/zasm"

// A thin layer of structured control flow over zasm routines: conditions
// that compile to one branch instruction (or a few), If and While.

// fn is a routine being written.
type fn struct {
	*zasm.Routine
}

// cond emits code that jumps to label when the condition equals when, and
// falls through otherwise.
type cond func(f fn, label string, when bool)

func eq(a any, bs ...any) cond {
	return func(f fn, l string, w bool) { f.Op("je", append([]any{a}, bs...)...).Branch(l, w) }
}

func lt(a, b any) cond { return func(f fn, l string, w bool) { f.Op("jl", a, b).Branch(l, w) } }
func gt(a, b any) cond { return func(f fn, l string, w bool) { f.Op("jg", a, b).Branch(l, w) } }
func zero(a any) cond  { return func(f fn, l string, w bool) { f.Op("jz", a).Branch(l, w) } }

// has tests an attribute.
func has(o any, attr int) cond {
	return func(f fn, l string, w bool) { f.Op("test_attr", o, attr).Branch(l, w) }
}

// in tests that o's parent is p.
func in(o, p any) cond { return func(f fn, l string, w bool) { f.Op("jin", o, p).Branch(l, w) } }

// bits tests that all of mask's bits are set in a.
func bits(a, mask any) cond {
	return func(f fn, l string, w bool) { f.Op("test", a, mask).Branch(l, w) }
}

// yes is true when routine r (called with args) returns non-zero.
func yes(r *zasm.Routine, args ...any) cond {
	return func(f fn, l string, w bool) {
		f.CallStore(zasm.SP, r, args...)
		f.Op("jz", zasm.SP).Branch(l, !w)
	}
}

func not(c cond) cond { return func(f fn, l string, w bool) { c(f, l, !w) } }

// and is true when every condition is.
func and(cs ...cond) cond {
	return func(f fn, l string, w bool) {
		if !w {
			for _, c := range cs {
				c(f, l, false)
			}
			return
		}
		skip := f.NewLabel("and")
		for _, c := range cs[:len(cs)-1] {
			c(f, skip, false)
		}
		cs[len(cs)-1](f, l, true)
		f.Label(skip)
	}
}

// or is true when any condition is.
func or(cs ...cond) cond {
	return func(f fn, l string, w bool) {
		if w {
			for _, c := range cs {
				c(f, l, true)
			}
			return
		}
		skip := f.NewLabel("or")
		for _, c := range cs[:len(cs)-1] {
			c(f, skip, true)
		}
		cs[len(cs)-1](f, l, false)
		f.Label(skip)
	}
}

// If runs then when c holds, else the optional els.
func (f fn) If(c cond, then func(), els ...func()) {
	elseL := f.NewLabel("else")
	c(f, elseL, false)
	then()
	if len(els) == 0 {
		f.Label(elseL)
		return
	}
	end := f.NewLabel("fi")
	f.Jump(end)
	f.Label(elseL)
	els[0]()
	f.Label(end)
}

// While runs body as long as c holds.
func (f fn) While(c cond, body func()) {
	top, end := f.NewLabel("while"), f.NewLabel("done")
	f.Label(top)
	c(f, end, false)
	body()
	f.Jump(top)
	f.Label(end)
}

// Children runs body for each child of parent in turn, with the child in
// local o; the next sibling is fetched before body runs, so body may move o.
func (f fn) Children(parent any, o, next zasm.Operand, body func()) {
	top, end := f.NewLabel("child"), f.NewLabel("nochild")
	f.Op("get_child", parent).Store(o).Branch(end, false)
	f.Label(top)
	after := f.NewLabel("sib")
	f.Op("get_sibling", o).Store(next).Branch(after, true)
	f.Label(after)
	body()
	f.Op("store", o, next)
	f.Op("jz", o).Branch(top, false)
	f.Label(end)
}

// Line prints text and a newline.
func (f fn) Line(text string) { f.Print(text + "\n") }

// child is true when o has a child, which is stored in into.
func child(o, into any) cond {
	return func(f fn, l string, w bool) { f.Op("get_child", o).Store(into).Branch(l, w) }
}
