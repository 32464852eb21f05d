package zasm

import (
	"errors"
	"fmt"
	"strings"
)

// Errors that Build reports, wrapped in an *Error; test them with errors.Is.
var (
	ErrVersion        = errors.New("unsupported version")
	ErrUnknownOpcode  = errors.New("unknown opcode")
	ErrOperands       = errors.New("bad operands")
	ErrStore          = errors.New("bad store")
	ErrBranch         = errors.New("bad branch")
	ErrUndefinedLabel = errors.New("undefined label")
	ErrDuplicateLabel = errors.New("duplicate label")
	ErrBranchRange    = errors.New("branch out of range")
	ErrTooManyLocals  = errors.New("too many locals")
	ErrUnknownLocal   = errors.New("unknown local")
	ErrText           = errors.New("bad text")
	ErrObject         = errors.New("bad object")
	ErrProperty       = errors.New("bad property")
	ErrAttribute      = errors.New("bad attribute")
	ErrDictionary     = errors.New("bad dictionary")
	ErrTooMany        = errors.New("too many")
	ErrValue          = errors.New("bad value")
	ErrNoMain         = errors.New("no main routine")
	ErrTooLarge       = errors.New("story too large")
)

// Error is one mistake found while building a story: where (a routine and
// the index of an instruction in it, or another part of the story) and what.
type Error struct {
	Where string // "routine main, instruction 3 (je)", "object 4 (lamp)", ...
	Err   error
}

func (e *Error) Error() string { return "zasm: " + e.Where + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// version holds what differs between story file versions.
type version struct {
	n          int
	packShift  uint // packed address = byte address >> packShift
	fileScale  int  // header file length unit
	maxSize    int
	attrs      int // attribute count
	props      int // highest property number
	objSize    int // object entry size
	maxObjects int
	maxPropLen int
	dictBytes  int // encoded text bytes in a dictionary entry
}

func versionInfo(v int) (version, bool) {
	switch v {
	case 3:
		return version{n: 3, packShift: 1, fileScale: 2, maxSize: 128 << 10, attrs: 32, props: 31, objSize: 9, maxObjects: 255, maxPropLen: 8, dictBytes: 4}, true
	case 4, 5:
		return version{n: v, packShift: 2, fileScale: 4, maxSize: 256 << 10, attrs: 48, props: 63, objSize: 14, maxObjects: 65535, maxPropLen: 64, dictBytes: 6}, true
	case 8:
		return version{n: 8, packShift: 3, fileScale: 8, maxSize: 512 << 10, attrs: 48, props: 63, objSize: 14, maxObjects: 65535, maxPropLen: 64, dictBytes: 6}, true
	}
	return version{}, false
}

// Builder collects the parts of one story. Create it with New, add parts,
// then call Build. A Builder is not safe for concurrent use.
type Builder struct {
	v    version
	errs []error

	release uint16
	serial  [6]byte
	flags1  byte

	globals  []*Global
	objects  []*Object
	defaults map[int]uint16
	words    map[string]*Word // by encoded text
	seps     []byte
	abbrevs  []string
	strings  map[string]*String
	strList  []*String
	tables   []*Table
	routines []*Routine
	rnames   map[string]*Routine
	main     *Routine
}

// New starts a story of the given version (3, 4, 5 or 8). An unsupported
// version is reported by Build.
func New(v int) *Builder {
	b := &Builder{
		defaults: map[int]uint16{},
		words:    map[string]*Word{},
		strings:  map[string]*String{},
		rnames:   map[string]*Routine{},
	}
	copy(b.serial[:], "000000")
	info, ok := versionInfo(v)
	if !ok {
		b.fail("story", fmt.Errorf("%w: %d (want 3, 4, 5 or 8)", ErrVersion, v))
		info, _ = versionInfo(5)
		info.n = v
	}
	b.v = info
	return b
}

// Version is the story's version.
func (b *Builder) Version() int { return b.v.n }

func (b *Builder) fail(where string, err error) {
	b.errs = append(b.errs, &Error{Where: where, Err: err})
}

// Err returns the mistakes recorded so far (nil if none); Build returns
// them too.
func (b *Builder) Err() error { return errors.Join(b.errs...) }

// SetRelease sets the release number in the header.
func (b *Builder) SetRelease(n int) {
	if n < 0 || n > 0xffff {
		b.fail("header", fmt.Errorf("%w: release %d", ErrValue, n))
		return
	}
	b.release = uint16(n)
}

// SetSerial sets the six-character serial code in the header (by
// convention the compile date as YYMMDD).
func (b *Builder) SetSerial(s string) {
	if len(s) != 6 {
		b.fail("header", fmt.Errorf("%w: serial %q is not six characters", ErrValue, s))
		return
	}
	for i := 0; i < 6; i++ {
		if s[i] < 32 || s[i] > 126 {
			b.fail("header", fmt.Errorf("%w: serial %q is not printable ASCII", ErrValue, s))
			return
		}
	}
	copy(b.serial[:], s)
}

// SetFlags1 sets the story's bits of header Flags 1 (in v3, bit 1 asks for
// an hours:minutes status line instead of score and moves).
func (b *Builder) SetFlags1(f byte) { b.flags1 = f }

// Global is a global variable (variable number 16 + its index).
type Global struct {
	name  string
	index int
	init  value
}

// Global adds the next global variable with its initial value (an integer,
// or a *Routine, *String, *Word, *Table or *Object). Globals 0, 1 and 2 are
// what a v3 status line shows: the location object, the score, the moves.
func (b *Builder) Global(name string, init any) *Global {
	g := &Global{name: name, index: len(b.globals)}
	if len(b.globals) >= 240 {
		b.fail("global "+name, fmt.Errorf("%w: more than 240 globals", ErrTooMany))
		g.index = 239
		return g
	}
	v, err := toValue(init)
	if err != nil {
		b.fail("global "+name, err)
	}
	g.init = v
	b.globals = append(b.globals, g)
	return g
}

// Index is the global's index (0–239); its variable number is 16 + Index.
func (g *Global) Index() int { return g.index }

// Name is the name the global was declared with.
func (g *Global) Name() string { return g.name }

// Object is one object of the object tree; objects are numbered from 1 in
// the order they are created.
type Object struct {
	b        *Builder
	num      int
	name     string
	parent   *Object
	children []*Object
	attrs    [48]bool
	props    map[int]*prop
}

type prop struct {
	words []value // 16-bit values, or
	bytes []byte  // raw bytes
}

// Object adds an object with the given short name, as the last child of
// parent (nil for none).
func (b *Builder) Object(name string, parent *Object) *Object {
	o := &Object{b: b, num: len(b.objects) + 1, name: name, props: map[int]*prop{}}
	if len(b.objects) >= b.v.maxObjects {
		b.fail(o.where(), fmt.Errorf("%w: more than %d objects", ErrTooMany, b.v.maxObjects))
	}
	b.objects = append(b.objects, o)
	if parent != nil {
		if parent.b != b {
			b.fail(o.where(), fmt.Errorf("%w: parent belongs to another builder", ErrObject))
		} else {
			o.parent = parent
			parent.children = append(parent.children, o)
		}
	}
	return o
}

func (o *Object) where() string { return fmt.Sprintf("object %d (%s)", o.num, o.name) }

// Number is the object's number.
func (o *Object) Number() int { return o.num }

// Name is the object's short name.
func (o *Object) Name() string { return o.name }

// Attr gives the object attributes (0–31 in v3, 0–47 in v4+).
func (o *Object) Attr(attrs ...int) *Object {
	for _, a := range attrs {
		if a < 0 || a >= o.b.v.attrs {
			o.b.fail(o.where(), fmt.Errorf("%w: %d (0–%d in version %d)", ErrAttribute, a, o.b.v.attrs-1, o.b.v.n))
			continue
		}
		o.attrs[a] = true
	}
	return o
}

// Prop sets property num to 16-bit words: integers, or a *Routine, *String,
// *Word, *Table or *Object each.
func (o *Object) Prop(num int, vals ...any) *Object {
	p := &prop{}
	for _, x := range vals {
		v, err := toValue(x)
		if err != nil {
			o.b.fail(fmt.Sprintf("%s property %d", o.where(), num), err)
		}
		p.words = append(p.words, v)
	}
	return o.setProp(num, p, 2*len(vals))
}

// PropBytes sets property num to raw bytes.
func (o *Object) PropBytes(num int, data ...byte) *Object {
	return o.setProp(num, &prop{bytes: append([]byte(nil), data...)}, len(data))
}

func (o *Object) setProp(num int, p *prop, n int) *Object {
	switch {
	case num < 1 || num > o.b.v.props:
		o.b.fail(o.where(), fmt.Errorf("%w: number %d (1–%d in version %d)", ErrProperty, num, o.b.v.props, o.b.v.n))
	case n < 1 || n > o.b.v.maxPropLen:
		o.b.fail(o.where(), fmt.Errorf("%w: property %d has %d bytes (1–%d in version %d)", ErrProperty, num, n, o.b.v.maxPropLen, o.b.v.n))
	default:
		o.props[num] = p
	}
	return o
}

// PropDefault sets the default value of property num.
func (b *Builder) PropDefault(num int, val int) {
	if num < 1 || num > b.v.props || val < -32768 || val > 0xffff {
		b.fail("property defaults", fmt.Errorf("%w: default %d for property %d", ErrProperty, val, num))
		return
	}
	b.defaults[num] = uint16(val)
}

// Word is a dictionary entry; as an operand or value it is its address.
type Word struct {
	text string
	key  []byte
	data []byte
	addr int
}

// Word adds a dictionary word (lower case; cut to 6 letters in v3, 9 in
// v4+ as the interpreter cuts typed words) with optional data bytes after
// the text. Words that encode alike are one entry: the same *Word is
// returned, and different data for them is an error.
func (b *Builder) Word(text string, data ...byte) *Word {
	key, err := dictKey(text, b.v.n)
	if err == nil && text == "" {
		err = fmt.Errorf("%w: empty dictionary word", ErrDictionary)
	}
	if err != nil {
		b.fail("dictionary", err)
		return &Word{text: text}
	}
	if w, ok := b.words[string(key)]; ok {
		if data != nil && string(data) != string(w.data) {
			b.fail("dictionary", fmt.Errorf("%w: %q and %q are the same entry but have different data", ErrDictionary, w.text, text))
		}
		return w
	}
	w := &Word{text: strings.ToLower(text), key: key, data: append([]byte(nil), data...)}
	b.words[string(key)] = w
	return w
}

// Text is the word as it was added (lower case).
func (w *Word) Text() string { return w.text }

// Separators sets the word separators of the dictionary (such as ".,\"").
// Typed separators are words of their own; add them with Word to make them
// known.
func (b *Builder) Separators(s string) {
	for i := 0; i < len(s); i++ {
		if s[i] < 33 || s[i] > 126 {
			b.fail("dictionary", fmt.Errorf("%w: separator %q", ErrDictionary, s[i]))
			return
		}
	}
	b.seps = []byte(s)
}

// Abbreviations sets up to 96 abbreviations. Build uses them in every string
// (not in dictionary words), taking the longest that fits at each position.
func (b *Builder) Abbreviations(list ...string) {
	if len(list) > 96 {
		b.fail("abbreviations", fmt.Errorf("%w: %d abbreviations (at most 96)", ErrTooMany, len(list)))
		list = list[:96]
	}
	for _, a := range list {
		if _, err := toZSCII(a); err != nil {
			b.fail("abbreviations", err)
			return
		}
	}
	b.abbrevs = append([]string(nil), list...)
}

// String is a Z-string in high memory; as an operand or value it is its
// packed address (for print_paddr).
type String struct {
	text string
	addr int
}

// String adds a string to high memory; the same text gives the same *String.
func (b *Builder) String(text string) *String {
	if s, ok := b.strings[text]; ok {
		return s
	}
	if _, err := toZSCII(text); err != nil {
		b.fail("string", err)
	}
	s := &String{text: text}
	b.strings[text] = s
	b.strList = append(b.strList, s)
	return s
}

// Table is a block of memory; as an operand or value it is its address.
type Table struct {
	name   string
	data   []byte
	words  map[int]value // word offsets to resolve at build
	static bool
	addr   int
}

// Table adds size zero bytes of dynamic memory.
func (b *Builder) Table(name string, size int) *Table {
	if size < 0 || size > 0xffff {
		b.fail("table "+name, fmt.Errorf("%w: size %d", ErrValue, size))
		size = 0
	}
	t := &Table{name: name, data: make([]byte, size)}
	b.tables = append(b.tables, t)
	return t
}

// ByteTable adds a table of bytes in dynamic memory.
func (b *Builder) ByteTable(name string, data ...byte) *Table {
	t := b.Table(name, 0)
	t.data = append([]byte(nil), data...)
	return t
}

// WordTable adds a table of 16-bit words (integers or references) in
// dynamic memory.
func (b *Builder) WordTable(name string, vals ...any) *Table {
	t := b.Table(name, 2*len(vals))
	t.words = map[int]value{}
	for i, x := range vals {
		v, err := toValue(x)
		if err != nil {
			b.fail("table "+name, err)
		}
		t.words[2*i] = v
	}
	return t
}

// Static moves the table to static memory (readable, not writable).
func (t *Table) Static() *Table { t.static = true; return t }

// Len is the table's size in bytes.
func (t *Table) Len() int { return len(t.data) }

// SetMain names the routine the story starts in. It must have no locals
// and must never return (it ends with quit or loops).
func (b *Builder) SetMain(r *Routine) { b.main = r }

// Address is the word's byte address in the story last built (0 before
// Build).
func (w *Word) Address() int { return w.addr }

// Address is the string's byte address in the story last built (0 before
// Build).
func (s *String) Address() int { return s.addr }

// Address is the table's byte address in the story last built (0 before
// Build).
func (t *Table) Address() int { return t.addr }

// Routines lists the routines in the order they were added (and are laid
// out in high memory).
func (b *Builder) Routines() []*Routine { return append([]*Routine(nil), b.routines...) }
