package zasm

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
)

// Assembly of routines (branch sizing) and the layout of the story file.

// encoded is one instruction in bytes, its branch or jump still open.
type encoded struct {
	head   []byte  // opcode, operand types, operands, store byte
	fixes  []fixup // offsets within head
	branch *branchInfo
	long   bool   // two-byte branch offset
	jump   string // jump target label
	text   []byte // inline Z-string
	off    int    // offset in the routine
}

func (e *encoded) size() int {
	n := len(e.head) + len(e.text)
	switch {
	case e.jump != "":
		n += 2
	case e.branch != nil && e.long:
		n += 2
	case e.branch != nil:
		n++
	}
	return n
}

// encodeInstr turns an instruction into bytes (branch and jump offsets
// excepted).
func encodeInstr(in *Instr, enc *encoder) (*encoded, error) {
	op := in.op
	e := &encoded{}
	if op.store && in.store == nil {
		return nil, fmt.Errorf("%w: %s stores a result: give it a Store target", ErrStore, in.name)
	}
	if op.branch && in.branch == nil {
		return nil, fmt.Errorf("%w: %s branches: give it a Branch label", ErrBranch, in.name)
	}
	args := in.args
	typeByte := func(list []Operand) byte {
		var t byte
		for k := 0; k < 4; k++ {
			t <<= 2
			if k < len(list) {
				t |= list[k].typeBits()
			} else {
				t |= 3
			}
		}
		return t
	}
	switch op.form {
	case form0:
		e.head = append(e.head, 0xb0|op.num)
	case form1:
		if op.label {
			e.head = append(e.head, 0x8c)
			e.jump = in.target
			break
		}
		e.head = append(e.head, 0x80|args[0].typeBits()<<4|op.num)
	case form2:
		if len(args) == 2 && args[0].typeBits() != 0 && args[1].typeBits() != 0 {
			b := op.num
			if args[0].typeBits() == 2 {
				b |= 0x40
			}
			if args[1].typeBits() == 2 {
				b |= 0x20
			}
			e.head = append(e.head, b)
		} else {
			e.head = append(e.head, 0xc0|op.num, typeByte(args))
		}
	case formVar:
		e.head = append(e.head, 0xe0|op.num)
		if op.maxA > 4 {
			lo := []Operand(nil)
			if len(args) > 4 {
				lo = args[4:]
			}
			e.head = append(e.head, typeByte(args[:min(4, len(args))]), typeByte(lo))
		} else {
			e.head = append(e.head, typeByte(args))
		}
	case formExt:
		e.head = append(e.head, 0xbe, op.num, typeByte(args))
	}
	for _, a := range args {
		switch a.typeBits() {
		case 0:
			if a.v.ref != nil {
				e.fixes = append(e.fixes, fixup{off: len(e.head), v: a.v})
				e.head = append(e.head, 0, 0)
			} else {
				e.head = append(e.head, byte(a.v.n>>8), byte(a.v.n))
			}
		default:
			e.head = append(e.head, byte(a.v.n))
		}
	}
	if in.store != nil {
		e.head = append(e.head, byte(in.store.v.n))
	}
	e.branch = in.branch
	if op.text {
		t, err := enc.encodeString(in.text, true)
		if err != nil {
			return nil, err
		}
		e.text = t
	}
	return e, nil
}

// assemble encodes the routine, sizing each branch as the distance needs.
func (r *Routine) assemble(enc *encoder) []error {
	var errs []error
	v := r.b.v.n
	header := []byte{byte(len(r.locals))}
	if v <= 4 {
		for _, x := range r.init {
			header = append(header, byte(x>>8), byte(x))
		}
	}
	code := make([]*encoded, 0, len(r.instrs))
	for _, in := range r.instrs {
		if in.op == nil {
			continue // already reported
		}
		e, err := encodeInstr(in, enc)
		if err != nil {
			errs = append(errs, &Error{Where: in.where(), Err: err})
			continue
		}
		if e.branch != nil && !isReturn(e.branch.label) {
			if _, ok := r.labels[e.branch.label]; !ok {
				errs = append(errs, &Error{Where: in.where(), Err: fmt.Errorf("%w: %q", ErrUndefinedLabel, e.branch.label)})
				continue
			}
		}
		if e.jump != "" {
			if _, ok := r.labels[e.jump]; !ok {
				errs = append(errs, &Error{Where: in.where(), Err: fmt.Errorf("%w: %q", ErrUndefinedLabel, e.jump)})
				continue
			}
		}
		code = append(code, e)
		// Labels name instruction indexes; map them to encoded ones below.
	}
	if len(errs) > 0 {
		return errs
	}
	if r.fallsOff() {
		code = append(code, &encoded{head: []byte{0xb0}}) // rtrue
	}
	// Every instruction was encoded, so instruction and encoded indexes agree.
	labelOff := func(name string, end int) int {
		i := r.labels[name]
		if i >= len(code) {
			return end
		}
		return code[i].off
	}
	for {
		off := len(header)
		for _, e := range code {
			e.off = off
			off += e.size()
		}
		changed := false
		for _, e := range code {
			if e.branch == nil || e.long || isReturn(e.branch.label) {
				continue
			}
			d := labelOff(e.branch.label, off) - (e.off + len(e.head) + 1) + 2
			if d < 2 || d > 63 {
				e.long, changed = true, true
			}
		}
		if !changed {
			break
		}
	}
	end := len(header)
	for _, e := range code {
		end += e.size()
	}
	buf := append([]byte(nil), header...)
	r.fixes = r.fixes[:0]
	for k, e := range code {
		for _, f := range e.fixes {
			r.fixes = append(r.fixes, fixup{off: len(buf) + f.off, v: f.v})
		}
		buf = append(buf, e.head...)
		after := e.off + e.size() - len(e.text)
		switch {
		case e.jump != "":
			d := labelOff(e.jump, end) - after + 2
			if d < -32768 || d > 32767 {
				errs = append(errs, &Error{Where: r.instrs[k].where(), Err: fmt.Errorf("%w: label %q is %d bytes away", ErrBranchRange, e.jump, d)})
			}
			buf = append(buf, byte(d>>8), byte(d))
		case e.branch != nil:
			var b byte
			if e.branch.when {
				b = 0x80
			}
			var d int
			switch e.branch.label {
			case ReturnFalse:
				d = 0
			case ReturnTrue:
				d = 1
			default:
				d = labelOff(e.branch.label, end) - after + 2
			}
			if !e.long {
				buf = append(buf, b|0x40|byte(d))
				break
			}
			if d < -8192 || d > 8191 {
				errs = append(errs, &Error{Where: r.instrs[k].where(), Err: fmt.Errorf("%w: label %q is %d bytes away (at most 8191 back or forward; use jump)", ErrBranchRange, e.branch.label, d)})
			}
			buf = append(buf, b|byte(d>>8)&0x3f, byte(d))
		}
		buf = append(buf, e.text...)
	}
	r.code = buf
	return errs
}

// fallsOff reports whether execution can run past the routine's last
// instruction: it is empty, a label marks its end, or its last instruction
// does not return, jump or stop.
func (r *Routine) fallsOff() bool {
	n := len(r.instrs)
	if n == 0 {
		return true
	}
	for _, i := range r.labels {
		if i >= n {
			return true
		}
	}
	switch r.instrs[n-1].name {
	case "ret", "rtrue", "rfalse", "ret_popped", "print_ret", "jump", "quit", "restart", "throw":
		return false
	}
	return true
}

func isReturn(label string) bool { return label == ReturnTrue || label == ReturnFalse }

// linker lays out and writes one story.
type linker struct {
	b   *Builder
	img []byte
}

func (l *linker) resolve(v value) (int, error) {
	b := l.b
	switch t := v.ref.(type) {
	case nil:
		return v.n, nil
	case *Routine:
		if t.b != b {
			return 0, fmt.Errorf("%w: routine %q belongs to another builder", ErrValue, t.name)
		}
		return t.addr >> b.v.packShift, nil
	case *String:
		if b.strings[t.text] != t {
			return 0, fmt.Errorf("%w: string %q belongs to another builder", ErrValue, t.text)
		}
		return t.addr >> b.v.packShift, nil
	case *Word:
		if b.words[string(t.key)] != t {
			return 0, fmt.Errorf("%w: word %q belongs to another builder", ErrValue, t.text)
		}
		return t.addr, nil
	case *Table:
		for _, x := range b.tables {
			if x == t {
				return t.addr, nil
			}
		}
		return 0, fmt.Errorf("%w: table %q belongs to another builder", ErrValue, t.name)
	}
	return 0, fmt.Errorf("%w: %T", ErrValue, v.ref)
}

func (l *linker) put16(a, v int) { l.img[a], l.img[a+1] = byte(v>>8), byte(v) }

// Build lays the story out and returns the story file image, or every
// mistake recorded while building it.
func (b *Builder) Build() ([]byte, error) {
	if b.main == nil {
		b.fail("story", ErrNoMain)
	} else if len(b.main.locals) > 0 {
		b.fail("routine "+b.main.name, fmt.Errorf("%w: the main routine may not have locals (it has %d)", ErrTooManyLocals, len(b.main.locals)))
	}
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	v := b.v
	enc := &encoder{}
	for i, a := range b.abbrevs {
		zs, _ := toZSCII(a)
		enc.abbrevs = append(enc.abbrevs, abbrev{text: zs, index: i})
	}
	sort.SliceStable(enc.abbrevs, func(i, j int) bool { return len(enc.abbrevs[i].text) > len(enc.abbrevs[j].text) })

	var errs []error
	for _, r := range b.routines {
		errs = append(errs, r.assemble(enc)...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	// Low memory: header, abbreviations, object table, globals, tables.
	var img []byte
	grow := func(n int) int { a := len(img); img = append(img, make([]byte, n)...); return a }
	align := func(n int) {
		for len(img)%n != 0 {
			img = append(img, 0)
		}
	}
	grow(64)
	var abbrevAddrs []int
	for _, a := range b.abbrevs {
		s, _ := enc.encodeString(a, false)
		align(2)
		abbrevAddrs = append(abbrevAddrs, len(img))
		img = append(img, s...)
	}
	align(2)
	abbrevTable := grow(2 * 96)
	for i, a := range abbrevAddrs {
		img[abbrevTable+2*i], img[abbrevTable+2*i+1] = byte(a>>9), byte(a>>1)
	}

	objTable := grow(2 * v.props)
	for n, d := range b.defaults {
		img[objTable+2*(n-1)], img[objTable+2*(n-1)+1] = byte(d>>8), byte(d)
	}
	entries := grow(v.objSize * len(b.objects))
	type propFix struct {
		off int
		v   value
		obj *Object
	}
	var pfix []propFix
	for k, o := range b.objects {
		e := entries + k*v.objSize
		for a := 0; a < v.attrs; a++ {
			if o.attrs[a] {
				img[e+a/8] |= 0x80 >> (a % 8)
			}
		}
		link := func(i int, x *Object) {
			n := 0
			if x != nil {
				n = x.num
			}
			if v.n <= 3 {
				img[e+4+i] = byte(n)
			} else {
				img[e+6+2*i], img[e+6+2*i+1] = byte(n>>8), byte(n)
			}
		}
		link(0, o.parent)
		if o.parent != nil {
			sib := o.parent.children
			for i, c := range sib {
				if c == o && i+1 < len(sib) {
					link(1, sib[i+1])
				}
			}
		}
		if len(o.children) > 0 {
			link(2, o.children[0])
		}
		pt := len(img)
		img[e+v.objSize-2], img[e+v.objSize-1] = byte(pt>>8), byte(pt)
		name, err := enc.encodeString(o.name, true)
		if err != nil {
			errs = append(errs, &Error{Where: o.where(), Err: err})
			continue
		}
		if o.name == "" {
			name = nil
		}
		if len(name)/2 > 255 {
			errs = append(errs, &Error{Where: o.where(), Err: fmt.Errorf("%w: short name too long", ErrObject)})
			continue
		}
		img = append(img, byte(len(name)/2))
		img = append(img, name...)
		nums := make([]int, 0, len(o.props))
		for n := range o.props {
			nums = append(nums, n)
		}
		sort.Sort(sort.Reverse(sort.IntSlice(nums)))
		for _, n := range nums {
			p := o.props[n]
			size := len(p.bytes) + 2*len(p.words)
			switch {
			case v.n <= 3:
				img = append(img, byte(32*(size-1)+n))
			case size == 1:
				img = append(img, byte(n))
			case size == 2:
				img = append(img, 0x40|byte(n))
			default:
				img = append(img, 0x80|byte(n), 0x80|byte(size&63))
			}
			if p.bytes != nil {
				img = append(img, p.bytes...)
				continue
			}
			for _, w := range p.words {
				pfix = append(pfix, propFix{off: len(img), v: w, obj: o})
				img = append(img, 0, 0)
			}
		}
		img = append(img, 0)
	}

	align(2)
	globals := grow(480)
	for _, t := range b.tables {
		if !t.static {
			t.addr = len(img)
			img = append(img, t.data...)
		}
	}
	align(2)
	static := len(img)
	for _, t := range b.tables {
		if t.static {
			t.addr = len(img)
			img = append(img, t.data...)
		}
	}

	// The dictionary, sorted by encoded text.
	dict := len(img)
	words := make([]*Word, 0, len(b.words))
	dataLen := 0
	for _, w := range b.words {
		words = append(words, w)
		dataLen = max(dataLen, len(w.data))
	}
	sort.Slice(words, func(i, j int) bool { return bytes.Compare(words[i].key, words[j].key) < 0 })
	img = append(img, byte(len(b.seps)))
	img = append(img, b.seps...)
	img = append(img, byte(v.dictBytes+dataLen), byte(len(words)>>8), byte(len(words)))
	for _, w := range words {
		w.addr = len(img)
		img = append(img, w.key...)
		img = append(img, w.data...)
		img = append(img, make([]byte, dataLen-len(w.data))...)
	}
	if len(img) > 0x10000 {
		errs = append(errs, &Error{Where: "story", Err: fmt.Errorf("%w: dynamic and static memory take 0x%x bytes (at most 0x10000)", ErrTooLarge, len(img))})
	}

	// High memory: routines, then strings, each at a packable address.
	unit := 1 << v.packShift
	align(unit)
	high := len(img)
	for _, r := range b.routines {
		align(unit)
		r.addr = len(img)
		img = append(img, r.code...)
	}
	for _, s := range b.strList {
		align(unit)
		s.addr = len(img)
		t, err := enc.encodeString(s.text, true)
		if err != nil {
			errs = append(errs, &Error{Where: "string", Err: err})
			continue
		}
		img = append(img, t...)
	}
	align(v.fileScale)
	if len(img) > v.maxSize {
		errs = append(errs, &Error{Where: "story", Err: fmt.Errorf("%w: %d bytes (at most %d in version %d)", ErrTooLarge, len(img), v.maxSize, v.n)})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	// Resolve references.
	l := &linker{b: b, img: img}
	resolveAt := func(where string, a int, val value) {
		n, err := l.resolve(val)
		if err != nil {
			errs = append(errs, &Error{Where: where, Err: err})
			return
		}
		l.put16(a, n)
	}
	for _, f := range pfix {
		resolveAt(f.obj.where(), f.off, f.v)
	}
	for _, g := range b.globals {
		resolveAt("global "+g.name, globals+2*g.index, g.init)
	}
	for _, t := range b.tables {
		for off, val := range t.words {
			resolveAt("table "+t.name, t.addr+off, val)
		}
	}
	for _, r := range b.routines {
		for _, f := range r.fixes {
			resolveAt("routine "+r.name, r.addr+f.off, f.v)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	// The header.
	img[0x00] = byte(v.n)
	img[0x01] = b.flags1
	l.put16(0x02, int(b.release))
	l.put16(0x04, high)
	l.put16(0x06, b.main.addr+1)
	l.put16(0x08, dict)
	l.put16(0x0a, objTable)
	l.put16(0x0c, globals)
	l.put16(0x0e, static)
	copy(img[0x12:0x18], b.serial[:])
	l.put16(0x18, abbrevTable)
	l.put16(0x1a, len(img)/v.fileScale)
	var sum uint16
	for _, c := range img[0x40:] {
		sum += uint16(c)
	}
	l.put16(0x1c, int(sum))
	return img, nil
}
