package zasm

import (
	"fmt"
	"strings"
)

// Operands, values, routines and instructions.

// value is a 16-bit quantity known now (n) or at link time (ref).
type value struct {
	n   int
	ref any // *Object, *Routine, *String, *Word, *Table
}

// toValue converts an integer or a reference to a value.
func toValue(x any) (value, error) {
	switch t := x.(type) {
	case int:
		return constValue(t)
	case int8:
		return constValue(int(t))
	case int16:
		return constValue(int(t))
	case int32:
		return constValue(int(t))
	case int64:
		if t < -32768 || t > 0xffff {
			return value{}, fmt.Errorf("%w: %d does not fit in 16 bits", ErrValue, t)
		}
		return constValue(int(t))
	case uint:
		if t > 0xffff {
			return value{}, fmt.Errorf("%w: %d does not fit in 16 bits", ErrValue, t)
		}
		return constValue(int(t))
	case uint8:
		return constValue(int(t))
	case uint16:
		return constValue(int(t))
	case uint32:
		if t > 0xffff {
			return value{}, fmt.Errorf("%w: %d does not fit in 16 bits", ErrValue, t)
		}
		return constValue(int(t))
	case *Object:
		if t == nil {
			return value{}, fmt.Errorf("%w: nil *Object", ErrValue)
		}
		return value{n: t.num}, nil
	case *Routine:
		if t == nil {
			return value{}, fmt.Errorf("%w: nil *Routine", ErrValue)
		}
		return value{ref: t}, nil
	case *String:
		if t == nil {
			return value{}, fmt.Errorf("%w: nil *String", ErrValue)
		}
		return value{ref: t}, nil
	case *Word:
		if t == nil {
			return value{}, fmt.Errorf("%w: nil *Word", ErrValue)
		}
		return value{ref: t}, nil
	case *Table:
		if t == nil {
			return value{}, fmt.Errorf("%w: nil *Table", ErrValue)
		}
		return value{ref: t}, nil
	}
	return value{}, fmt.Errorf("%w: %T (%v) is not a value", ErrValue, x, x)
}

func constValue(n int) (value, error) {
	if n < -32768 || n > 0xffff {
		return value{}, fmt.Errorf("%w: %d does not fit in 16 bits", ErrValue, n)
	}
	return value{n: n & 0xffff}, nil
}

type operandKind uint8

const (
	kAuto  operandKind = iota // a constant, small when it fits
	kSmall                    // a small (one-byte) constant
	kLarge                    // a large (two-byte) constant
	kVar                      // a variable
)

// Operand is one operand of an instruction: a constant or a variable.
// Instructions also take integers, *Global and references directly.
type Operand struct {
	kind operandKind
	v    value
}

// SP is the stack pointer: as an operand it pops, as a store target it
// pushes (variable 0).
var SP = Operand{kind: kVar}

// Var is variable n: 0 the stack, 1–15 the routine's locals, 16–255 the
// globals.
func Var(n int) Operand {
	if n < 0 || n > 255 {
		return Operand{kind: kVar, v: value{n: -1}}
	}
	return Operand{kind: kVar, v: value{n: n}}
}

// Small is a constant forced into the one-byte form (0–255).
func Small(n int) Operand {
	if n < 0 || n > 255 {
		return Operand{kind: kSmall, v: value{n: -1}}
	}
	return Operand{kind: kSmall, v: value{n: n}}
}

// Large is a constant forced into the two-byte form.
func Large(n int) Operand {
	v, err := constValue(n)
	if err != nil {
		return Operand{kind: kLarge, v: value{n: -1}}
	}
	return Operand{kind: kLarge, v: v}
}

// toOperand converts an instruction argument.
func toOperand(x any) (Operand, error) {
	switch t := x.(type) {
	case Operand:
		if t.v.n < 0 {
			switch t.kind {
			case kVar:
				return t, fmt.Errorf("%w: variable number out of range 0–255", ErrOperands)
			case kSmall:
				return t, fmt.Errorf("%w: small constant out of range 0–255", ErrOperands)
			default:
				return t, fmt.Errorf("%w: constant does not fit in 16 bits", ErrOperands)
			}
		}
		return t, nil
	case *Global:
		if t == nil {
			return Operand{}, fmt.Errorf("%w: nil *Global", ErrOperands)
		}
		return Var(16 + t.index), nil
	case string:
		return Operand{}, fmt.Errorf("%w: string %q is not an operand (use Routine.Local for a local, Builder.String for a packed string)", ErrOperands, t)
	}
	v, err := toValue(x)
	if err != nil {
		return Operand{}, fmt.Errorf("%w: %v", ErrOperands, err)
	}
	if v.ref != nil {
		return Operand{kind: kLarge, v: v}, nil
	}
	return Operand{kind: kAuto, v: v}, nil
}

// typeBits is the operand's two-bit type: 0 large, 1 small, 2 variable.
func (o Operand) typeBits() byte {
	switch {
	case o.kind == kVar:
		return 2
	case o.kind == kSmall, o.kind == kAuto && o.v.ref == nil && o.v.n <= 255:
		return 1
	}
	return 0
}

// Special branch targets.
const (
	ReturnTrue  = "~rtrue"  // branch target that returns true
	ReturnFalse = "~rfalse" // branch target that returns false
)

// Routine is a routine: locals and a list of instructions and labels. As an
// operand or value it is its packed address.
type Routine struct {
	b      *Builder
	name   string
	locals []string
	init   []int
	instrs []*Instr
	labels map[string]int // label → index of the instruction it precedes
	fresh  int

	addr  int // after Build
	code  []byte
	fixes []fixup
}

// fixup is a value to write at an offset once addresses are known.
type fixup struct {
	off int
	v   value
}

// Routine adds a routine with named locals (at most 15), all starting at 0.
func (b *Builder) Routine(name string, locals ...string) *Routine {
	r := &Routine{b: b, name: name, labels: map[string]int{}}
	if _, dup := b.rnames[name]; dup {
		b.fail("routine "+name, fmt.Errorf("%w: a routine named %q already exists", ErrValue, name))
	}
	b.rnames[name] = r
	b.routines = append(b.routines, r)
	if len(locals) > 15 {
		b.fail("routine "+name, fmt.Errorf("%w: %d locals (at most 15)", ErrTooManyLocals, len(locals)))
		locals = locals[:15]
	}
	seen := map[string]bool{}
	for _, l := range locals {
		if seen[l] {
			b.fail("routine "+name, fmt.Errorf("%w: local %q declared twice", ErrValue, l))
		}
		seen[l] = true
	}
	r.locals = append([]string(nil), locals...)
	r.init = make([]int, len(locals))
	return r
}

// Name is the routine's name.
func (r *Routine) Name() string { return r.name }

// Init sets a local's initial value (versions 1–4 only; in v5+ locals start
// at 0 or at the argument passed).
func (r *Routine) Init(local string, val int) *Routine {
	i := r.localIndex(local)
	switch {
	case i < 0:
	case r.b.v.n >= 5 && val != 0:
		r.b.fail("routine "+r.name, fmt.Errorf("%w: initial values of locals exist only in versions 1–4", ErrValue))
	case val < -32768 || val > 0xffff:
		r.b.fail("routine "+r.name, fmt.Errorf("%w: initial value %d", ErrValue, val))
	default:
		r.init[i] = val & 0xffff
	}
	return r
}

func (r *Routine) localIndex(name string) int {
	for i, l := range r.locals {
		if l == name {
			return i
		}
	}
	r.b.fail("routine "+r.name, fmt.Errorf("%w: %q", ErrUnknownLocal, name))
	return -1
}

// Local is the named local as a variable operand (or store target).
func (r *Routine) Local(name string) Operand {
	i := r.localIndex(name)
	if i < 0 {
		return Operand{kind: kVar}
	}
	return Var(1 + i)
}

// Label places a label before the next instruction. Label names are local
// to the routine and may not begin with '~'.
func (r *Routine) Label(name string) {
	switch {
	case name == "" || strings.HasPrefix(name, "~"):
		r.b.fail("routine "+r.name, fmt.Errorf("%w: label name %q", ErrValue, name))
	default:
		if _, dup := r.labels[name]; dup {
			r.b.fail("routine "+r.name, fmt.Errorf("%w: %q", ErrDuplicateLabel, name))
			return
		}
		r.labels[name] = len(r.instrs)
	}
}

// NewLabel returns a label name not used before in this routine (it still
// has to be placed with Label).
func (r *Routine) NewLabel(prefix string) string {
	r.fresh++
	return fmt.Sprintf("%s.%d", prefix, r.fresh)
}

// Instr is one instruction, returned by Routine.Op so that its store target
// and branch can be given.
type Instr struct {
	r      *Routine
	index  int
	name   string
	op     *opcode
	args   []Operand
	text   string // print, print_ret
	target string // jump label
	store  *Operand
	branch *branchInfo
}

type branchInfo struct {
	label string
	when  bool
}

func (i *Instr) where() string {
	return fmt.Sprintf("routine %s, instruction %d (%s)", i.r.name, i.index, i.name)
}

func (i *Instr) fail(err error) { i.r.b.fail(i.where(), err) }

// Op appends the instruction called name with its operands. The text of
// print and print_ret and the label of jump are given as a string operand.
func (r *Routine) Op(name string, args ...any) *Instr {
	in := &Instr{r: r, index: len(r.instrs), name: name}
	r.instrs = append(r.instrs, in)
	op, known := lookup(name, r.b.v.n)
	if op == nil {
		if known {
			in.fail(fmt.Errorf("%w: %s does not exist in version %d", ErrUnknownOpcode, name, r.b.v.n))
		} else {
			in.fail(fmt.Errorf("%w: %q", ErrUnknownOpcode, name))
		}
		return in
	}
	in.op = op
	if op.text || op.label {
		s, ok := "", len(args) == 1
		if ok {
			s, ok = args[0].(string)
		}
		if !ok {
			what := "label"
			if op.text {
				what = "text"
			}
			in.fail(fmt.Errorf("%w: %s takes one string, its %s", ErrOperands, name, what))
			return in
		}
		if op.text {
			if _, err := toZSCII(s); err != nil {
				in.fail(err)
			}
			in.text = s
		} else {
			in.target = s
		}
		return in
	}
	if len(args) < op.minA || len(args) > op.maxA {
		want := fmt.Sprint(op.minA)
		if op.maxA != op.minA {
			want = fmt.Sprintf("%d to %d", op.minA, op.maxA)
		}
		in.fail(fmt.Errorf("%w: %d operand(s), %s takes %s", ErrOperands, len(args), name, want))
		return in
	}
	for k, a := range args {
		o, err := toOperand(a)
		if err != nil {
			in.fail(fmt.Errorf("operand %d: %w", k+1, err))
			return in
		}
		if k == 0 && op.indirect {
			// The variable operand of inc, store, pull... is its number.
			switch {
			case o.kind == kVar:
				o = Operand{kind: kSmall, v: o.v}
			case o.v.ref != nil || o.v.n > 255:
				in.fail(fmt.Errorf("%w: %s needs a variable", ErrOperands, name))
				return in
			}
		}
		in.args = append(in.args, o)
	}
	return in
}

// Store names the variable the instruction stores its result in: SP, a
// local, a *Global or Var(n).
func (i *Instr) Store(dst any) *Instr {
	o, err := toOperand(dst)
	switch {
	case err != nil:
		i.fail(fmt.Errorf("%w: %v", ErrStore, err))
	case o.kind != kVar:
		i.fail(fmt.Errorf("%w: the store target must be a variable", ErrStore))
	case i.op != nil && !i.op.store:
		i.fail(fmt.Errorf("%w: %s does not store a result", ErrStore, i.name))
	case i.store != nil:
		i.fail(fmt.Errorf("%w: store target given twice", ErrStore))
	default:
		i.store = &o
	}
	return i
}

// Branch names the label the instruction branches to when its condition
// equals when; ReturnTrue and ReturnFalse return from the routine instead.
func (i *Instr) Branch(label string, when bool) *Instr {
	switch {
	case i.op != nil && !i.op.branch:
		i.fail(fmt.Errorf("%w: %s does not branch", ErrBranch, i.name))
	case i.branch != nil:
		i.fail(fmt.Errorf("%w: branch given twice", ErrBranch))
	default:
		i.branch = &branchInfo{label: label, when: when}
	}
	return i
}

// Print prints text (print).
func (r *Routine) Print(text string) { r.Op("print", text) }

// PrintRet prints text and a newline and returns true (print_ret).
func (r *Routine) PrintRet(text string) { r.Op("print_ret", text) }

// NewLine prints a newline.
func (r *Routine) NewLine() { r.Op("new_line") }

// Jump jumps to label.
func (r *Routine) Jump(label string) { r.Op("jump", label) }

// Ret returns v.
func (r *Routine) Ret(v any) { r.Op("ret", v) }

// RTrue returns true.
func (r *Routine) RTrue() { r.Op("rtrue") }

// RFalse returns false.
func (r *Routine) RFalse() { r.Op("rfalse") }

// Call calls fn (a *Routine or an operand holding a packed address) with
// args and discards the result: call_vn/call_vn2 in v5+, a call that
// pushes its result and a pop before.
func (r *Routine) Call(fn any, args ...any) {
	ops := append([]any{fn}, args...)
	switch {
	case r.b.v.n >= 5 && len(args) > 3:
		r.Op("call_vn2", ops...)
	case r.b.v.n >= 5:
		r.Op("call_vn", ops...)
	case len(args) > 3 && r.b.v.n == 4:
		r.Op("call_vs2", ops...).Store(SP)
		r.Op("pop")
	default:
		r.Op("call_vs", ops...).Store(SP)
		r.Op("pop")
	}
}

// CallStore calls fn with args and stores the result in dst.
func (r *Routine) CallStore(dst any, fn any, args ...any) {
	ops := append([]any{fn}, args...)
	if len(args) > 3 && r.b.v.n >= 4 {
		r.Op("call_vs2", ops...).Store(dst)
		return
	}
	r.Op("call_vs", ops...).Store(dst)
}

// Address is the routine's byte address in the story last built (0 before
// Build).
func (r *Routine) Address() int { return r.addr }
