package zmachine_test

// Fuzzing: story files from arbitrary bytes must load or fail cleanly, and a
// corrupted story must run to an error, a halt or a read without panicking.
// The seed corpora run as part of plain go test; fuzz with
//
//	go test -run='^$' -fuzz=FuzzRunStory -fuzztime=20s ./zmachine/
//	go test -run='^$' -fuzz=FuzzLoadStory -fuzztime=20s ./zmachine/

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lantern-if/lantern/sharedtest"
	"github.com/lantern-if/lantern/zmachine"
)

// ---------------------------------------------------------------------------
// A minimal story assembled in the test, so that fuzzing works without the
// shared data.

// synthAsm collects code with labels, branch and packed-address fix-ups.
type synthAsm struct {
	v      int
	base   int // address of code[0]
	code   []byte
	labels map[string]int
	fixups []synthFixup
}

type synthFixup struct {
	at     int // index into code
	label  string
	branch bool // 14-bit branch offset (with the condition bit); else packed address
	cond   bool
}

func (a *synthAsm) pc() int        { return a.base + len(a.code) }
func (a *synthAsm) emit(b ...byte) { a.code = append(a.code, b...) }
func (a *synthAsm) word(w int)     { a.code = append(a.code, byte(w>>8), byte(w)) }
func (a *synthAsm) label(n string) { a.labels[n] = a.pc() }
func (a *synthAsm) text(s string)  { a.code = append(a.code, synthZString(s)...) }
func (a *synthAsm) packed(l string) {
	a.fixups = append(a.fixups, synthFixup{at: len(a.code), label: l})
	a.word(0)
}
func (a *synthAsm) align(n int) {
	for a.pc()%n != 0 {
		a.emit(0)
	}
}
func (a *synthAsm) branch(cond bool, l string) {
	a.fixups = append(a.fixups, synthFixup{at: len(a.code), label: l, branch: true, cond: cond})
	a.word(0)
}

func (a *synthAsm) resolve() {
	for _, f := range a.fixups {
		target, ok := a.labels[f.label]
		if !ok {
			panic("synth: undefined label " + f.label)
		}
		if f.branch {
			// target = address after the branch data + offset - 2
			off := target - (a.base + f.at + 2) + 2
			w := off & 0x3fff
			if f.cond {
				w |= 0x8000
			}
			binary.BigEndian.PutUint16(a.code[f.at:], uint16(w))
			continue
		}
		shift := 1
		if a.v >= 4 {
			shift = 2
		}
		binary.BigEndian.PutUint16(a.code[f.at:], uint16(target>>shift))
	}
}

// synthZChars converts text to z-characters (v3+ alphabets).
func synthZChars(s string) []byte {
	const a2 = " \n0123456789.,!?_#'\"/\\-:()"
	var zc []byte
	for _, r := range s {
		switch {
		case r == ' ':
			zc = append(zc, 0)
		case r >= 'a' && r <= 'z':
			zc = append(zc, byte(r-'a'+6))
		case r >= 'A' && r <= 'Z':
			zc = append(zc, 4, byte(r-'A'+6))
		default:
			if i := strings.IndexRune(a2, r); i >= 1 {
				zc = append(zc, 5, byte(i+6))
			} else {
				zc = append(zc, 5, 6, byte(r>>5), byte(r&0x1f))
			}
		}
	}
	return zc
}

func synthPack(zc []byte) []byte {
	for len(zc)%3 != 0 || len(zc) == 0 {
		zc = append(zc, 5)
	}
	out := make([]byte, 0, len(zc)/3*2)
	for i := 0; i < len(zc); i += 3 {
		w := uint16(zc[i])<<10 | uint16(zc[i+1])<<5 | uint16(zc[i+2])
		if i+3 == len(zc) {
			w |= 0x8000
		}
		out = binary.BigEndian.AppendUint16(out, w)
	}
	return out
}

func synthZString(s string) []byte { return synthPack(synthZChars(s)) }

// synthDictWord encodes a dictionary word: 6 z-characters (v3) or 9 (v4+).
func synthDictWord(v int, s string) []byte {
	n := 6
	if v >= 4 {
		n = 9
	}
	zc := synthZChars(s)
	if len(zc) > n {
		zc = zc[:n]
	}
	for len(zc) < n {
		zc = append(zc, 5)
	}
	return synthPack(zc)
}

// Layout of the synthetic story.
const (
	synthAbbrevs = 0x040
	synthObjects = 0x100
	synthProps   = 0x1a0
	synthGlobals = 0x200
	synthText    = 0x3e0
	synthParse   = 0x3f0
	synthStatic  = 0x400
	synthDict    = 0x400
	synthCode    = 0x420
	synthSize    = 0x800
)

// synthStory assembles a small v3 or v5 story: it prints a greeting, calls a
// routine (7*7), moves and names an object, then reads lines until "quit" or
// five reads, (v5) takes an undo snapshot and reads a key, and quits.
func synthStory(v int) []byte {
	img := make([]byte, synthSize)
	put := func(a, w int) { binary.BigEndian.PutUint16(img[a:], uint16(w)) }
	img[0x00] = byte(v)
	put(0x02, 1)            // release
	put(0x04, synthCode)    // high memory
	put(0x06, synthCode)    // initial PC
	put(0x08, synthDict)    // dictionary
	put(0x0a, synthObjects) // object table
	put(0x0c, synthGlobals) // globals
	put(0x0e, synthStatic)  // static memory
	copy(img[0x12:], "000001")
	put(0x18, synthAbbrevs)

	// Objects 1 ("box", property 5 = 0x1234) and 2 (no name).
	ndefaults, objSize := 31, 9
	if v >= 4 {
		ndefaults, objSize = 63, 14
	}
	obj := func(n, props int) int {
		a := synthObjects + 2*ndefaults + (n-1)*objSize
		put(a+objSize-2, props)
		return a
	}
	obj(1, synthProps)
	obj(2, synthProps+0x10)
	name := synthZString("box")
	img[synthProps] = byte(len(name) / 2)
	p := synthProps + 1 + copy(img[synthProps+1:], name)
	if v <= 3 {
		img[p] = 1<<5 | 5
	} else {
		img[p] = 0x40 | 5
	}
	put(p+1, 0x1234)
	img[p+3] = 0
	img[synthProps+0x10], img[synthProps+0x11] = 0, 0

	// Input buffers.
	img[synthText] = 15
	img[synthParse] = 3

	// Dictionary: separators . , " ; 7-byte entries "look", "quit".
	d := synthDict
	img[d] = 3
	copy(img[d+1:], ".,\"")
	img[d+4] = 7
	put(d+5, 2)
	look, quit := d+7, d+14
	copy(img[look:], synthDictWord(v, "look"))
	copy(img[quit:], synthDictWord(v, "quit"))

	a := &synthAsm{v: v, base: synthCode, labels: map[string]int{}}
	a.emit(0xb2) // print
	a.text("Hi\n")
	a.emit(0xe0, 0x1f) // call_vs R 7 -> sp
	a.packed("R")
	a.emit(7, 0x00)
	a.emit(0xe6, 0xbf, 0x00) // print_num sp
	a.emit(0xbb)             // new_line
	a.emit(0x0e, 1, 2)       // insert_obj 1 2
	a.emit(0x11, 1, 5, 0x11) // get_prop 1 5 -> g1
	a.emit(0x9a, 1)          // print_obj 1
	a.emit(0xbb)             // new_line
	a.label("loop")
	if v >= 5 {
		a.emit(0xe2, 0x17) // storeb text 1 0: no preloaded input
		a.word(synthText)
		a.emit(1, 0)
	}
	a.emit(0xe4, 0x0f) // sread/aread text parse
	a.word(synthText)
	a.word(synthParse)
	if v >= 5 {
		a.emit(0x00) // aread stores the terminator
	}
	a.emit(0xcf, 0x1f) // loadw parse 1 -> sp
	a.word(synthParse)
	a.emit(1, 0x00)
	a.emit(0xc1, 0x8f, 0x00) // je sp quit ?done
	a.word(quit)
	a.branch(true, "done")
	a.emit(0x95, 0x10)    // inc g0
	a.emit(0x42, 0x10, 5) // jl g0 5 ?loop
	a.branch(true, "loop")
	a.label("done")
	if v >= 5 {
		a.emit(0xbe, 0x09, 0xff, 0x12) // save_undo -> g2
		a.emit(0xf6, 0x7f, 1, 0x13)    // read_char 1 -> g3
	}
	a.emit(0xb2) // print
	a.text("Bye\n")
	a.emit(0xba) // quit
	a.align(4)
	a.label("R")
	a.emit(1) // one local
	if v <= 4 {
		a.word(0)
	}
	a.emit(0x76, 1, 1, 0x00) // mul L1 L1 -> sp
	a.emit(0xb8)             // ret_popped
	a.resolve()
	copy(img[synthCode:], a.code)

	scale := 2
	if v >= 4 {
		scale = 4
	}
	put(0x1a, synthSize/scale)
	var sum uint16
	for _, b := range img[0x40:] {
		sum += uint16(b)
	}
	put(0x1c, int(sum))
	return img
}

func TestSynthStory(t *testing.T) {
	for _, v := range []int{3, 5} {
		s, err := zmachine.LoadStory(synthStory(v))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		m, err := zmachine.New(s, zmachine.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		st, err := m.Run()
		if err != nil || st != zmachine.WaitLine {
			t.Fatalf("v%d: first run: %v %v", v, st, err)
		}
		if got, want := m.TakeOutput(), "Hi\n49\nbox\n"; got != want {
			t.Errorf("v%d: output %q, want %q", v, got, want)
		}
		if m.Parent(1) != 2 || m.Global(1) != 0x1234 {
			t.Errorf("v%d: parent(1)=%d g1=%#x", v, m.Parent(1), m.Global(1))
		}
		for _, in := range []string{"look", "quit"} {
			if err := m.SendLine(in); err != nil {
				t.Fatal(err)
			}
			if st, err = m.Run(); err != nil {
				t.Fatalf("v%d: after %q: %v", v, in, err)
			}
		}
		if m.Global(0) != 1 {
			t.Errorf("v%d: g0=%d after one other line", v, m.Global(0))
		}
		if v >= 5 {
			if st != zmachine.WaitChar {
				t.Fatalf("v%d: state %v, want wait-char", v, st)
			}
			if m.UndoDepth() != 1 {
				t.Errorf("v%d: undo depth %d", v, m.UndoDepth())
			}
			if err := m.SendChar(' '); err != nil {
				t.Fatal(err)
			}
			st, err = m.Run()
		}
		if err != nil || st != zmachine.Halted {
			t.Fatalf("v%d: end state %v %v", v, st, err)
		}
		if got := m.TakeOutput(); !strings.HasSuffix(got, "Bye\n") {
			t.Errorf("v%d: final output %q", v, got)
		}
	}
}

// ---------------------------------------------------------------------------
// Base stories for FuzzRunStory, by index: the synthetic v3 and v5 stories
// always; Zork I, CZECH v5 and TerpEtude when the shared data is present
// (otherwise the index falls back to a synthetic story).

var fuzzBases = sync.OnceValue(func() [][]byte {
	bases := [][]byte{synthStory(3), synthStory(5)}
	dir, err := sharedtest.Locate()
	for _, rel := range []string{"stories/zork1.z3", "conformance/czech/czech.z5", "conformance/etude/etude.z5"} {
		var data []byte
		if err == nil {
			data, _ = os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		}
		bases = append(bases, data) // nil when absent
	}
	return bases
})

func fuzzBase(which uint8) []byte {
	bases := fuzzBases()
	b := bases[int(which)%len(bases)]
	if b == nil {
		b = bases[int(which)%2]
	}
	return b
}

// fuzzRun loads img and drives it for a few reads with a small budget,
// calling the introspection API on the way. Only panics matter; errors are
// expected.
func fuzzRun(t *testing.T, img []byte, input string, budget int) {
	s, err := zmachine.LoadStory(img)
	if err != nil {
		if !errors.Is(err, zmachine.ErrTruncated) && !errors.Is(err, zmachine.ErrCorrupt) && !errors.Is(err, zmachine.ErrUnsupportedVersion) {
			t.Fatalf("LoadStory error wraps no load sentinel: %v", err)
		}
		if s != nil {
			t.Fatalf("LoadStory returned a story with error %v", err)
		}
		return
	}
	_ = s.Info()
	m, err := zmachine.New(s, zmachine.Options{Seed: 7, StepBudget: budget, UndoLevels: 3})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	lines := strings.Split(input, "\n")
	var snap *zmachine.Snapshot
	// A fault is fine; ErrInternal is not: it means a Go runtime panic (an
	// unchecked access) inside the interpreter, recovered but misreported.
	internal := func(what string, err error) {
		if errors.Is(err, zmachine.ErrInternal) {
			t.Fatalf("%s: %v", what, err)
		}
	}
	for i := 0; i < 8; i++ {
		st, err := m.Run()
		internal("Run", err)
		_ = m.TakeOutput()
		_ = m.Status()
		_ = m.UpperWindow()
		_, _ = m.Pending()
		if i == 1 {
			snap = m.Snapshot()
		}
		if err != nil || st == zmachine.Halted {
			break
		}
		line := lines[i%len(lines)]
		switch st {
		case zmachine.WaitLine:
			err = m.SendLine(line)
		case zmachine.WaitChar:
			if line == "" {
				err = m.SendChar(13)
			} else {
				err = m.SendKey([]rune(line)[0])
			}
		}
		internal("input", err)
		if err != nil {
			break
		}
	}
	if snap != nil {
		if err := m.Restore(snap); err != nil {
			t.Fatalf("Restore of own snapshot: %v", err)
		}
		_, err := m.Run()
		internal("Run after Restore", err)
	}
	_ = m.ObjectCount()
	for o := uint16(0); o < 4; o++ {
		_ = m.ObjectName(o)
		_ = m.Children(o)
		_ = m.Attributes(o)
		_ = m.AttributeBytes(o)
		_ = m.Properties(o)
	}
	_ = m.Separators()
	_ = m.DynamicMemory()
	_ = m.PC()
	q := m.SaveQuetzal()
	_ = m.RestoreQuetzal(q)
}

func FuzzRunStory(f *testing.F) {
	// which selects the base story; patch is a list of 4-byte edits
	// (3-byte position modulo the size, new value); input feeds the reads.
	f.Add(uint8(0), []byte(nil), "look\nquit\n")
	f.Add(uint8(1), []byte(nil), "look\nquit\nx")
	f.Add(uint8(0), []byte{0, 0x04, 0x21, 0xff}, "look")                   // code
	f.Add(uint8(1), []byte{0, 0x04, 0x40, 0x00, 0, 0x00, 0x0e, 0x08}, "q") // code, static base
	f.Add(uint8(1), []byte{0, 0x03, 0xe0, 0xff, 0, 0x03, 0xf0, 0xff}, "a very long line of input, with, separators.\n\"quit\"")
	f.Add(uint8(0), []byte{0, 0x00, 0x08, 0x00, 0, 0x01, 0x05, 0xff}, "look") // dictionary, object links
	f.Add(uint8(1), []byte{0, 0x04, 0x52, 0x0c, 0, 0x04, 0x53, 0xbf}, "")     // code into a routine
	f.Add(uint8(2), []byte(nil), "open mailbox\nread leaflet\nn\nn\nclimb tree\nget egg")
	f.Add(uint8(2), []byte{0, 0x50, 0x00, 0xb3, 1, 0x23, 0x45, 0x00}, "look\ninventory")
	f.Add(uint8(2), []byte{0, 0x00, 0x0c, 0x00, 0, 0x00, 0x0d, 0x40}, "n") // globals address
	f.Add(uint8(3), []byte(nil), "")
	f.Add(uint8(3), []byte{0, 0x10, 0x00, 0x00, 0, 0x20, 0x00, 0xe0}, "")
	f.Add(uint8(4), []byte(nil), "3\n7\n.\n13\nx\nx\n.")
	f.Add(uint8(4), []byte{0, 0x30, 0x00, 0xbe, 0, 0x30, 0x01, 0x0b}, "8\nab\n.")
	// Found by fuzzing: a read whose text buffer lies beyond memory made
	// Pending index out of range.
	f.Add(uint8('V'), []byte("0$A0"), "0")
	// Found by fuzzing: call_vn with no operands sliced ops[1:0].
	f.Add(uint8('\x17'), []byte("8aZ\xc8"), "0")
	f.Fuzz(func(t *testing.T, which uint8, patch []byte, input string) {
		base := fuzzBase(which)
		img := append([]byte(nil), base...)
		for i := 0; i+4 <= len(patch) && i < 4*64; i += 4 {
			pos := (int(patch[i])<<16 | int(patch[i+1])<<8 | int(patch[i+2])) % len(img)
			img[pos] = patch[i+3]
		}
		fuzzRun(t, img, input, 200_000)
	})
}

func FuzzLoadStory(f *testing.F) {
	f.Add([]byte(nil), false)
	f.Add(make([]byte, 64), false)
	f.Add(synthStory(3), false)
	f.Add(synthStory(5)[:0x200], false)
	f.Add([]byte{6, 0, 0, 0}, true)
	f.Add(synthStory(5)[0x40:], true)
	f.Add([]byte{0xe0, 0x3f, 0xff, 0xff, 0x00, 0xba}, true)
	f.Fuzz(func(t *testing.T, data []byte, withHeader bool) {
		img := data
		if withHeader {
			// A valid header (the synthetic story's, version 3 or 5 by the
			// length's parity) over a random body, zero-padded to the
			// synthetic story's size so that it loads and runs.
			v := 3
			if len(data)%2 == 1 {
				v = 5
			}
			img = append(synthStory(v)[:0x40:0x40], data...)
			if len(img) < synthSize {
				img = append(img, make([]byte, synthSize-len(img))...)
			}
			binary.BigEndian.PutUint16(img[0x1a:], 0) // no file length: the body decides
		}
		fuzzRun(t, img, "look\nquit", 5_000)
	})
}
