package zasm

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func words(b []byte) []uint16 {
	var out []uint16
	for i := 0; i+1 < len(b); i += 2 {
		out = append(out, uint16(b[i])<<8|uint16(b[i+1]))
	}
	return out
}

func TestEncodeString(t *testing.T) {
	tests := []struct {
		text string
		want []uint16
	}{
		// h e l | l o pad: 13 10 17 | 17 20 5
		{"hello", []uint16{13<<10 | 10<<5 | 17, 0x8000 | 17<<10 | 20<<5 | 5}},
		// empty: one word of padding with the end bit
		{"", []uint16{0x94a5}},
		// A: shift 4 then 6; space is 0
		{"A b", []uint16{4<<10 | 6<<5 | 0, 0x8000 | 7<<10 | 5<<5 | 5}},
		// '.' is A2 z-char 18; newline is A2 z-char 7
		{".\n", []uint16{5<<10 | 18<<5 | 5, 0x8000 | 7<<10 | 5<<5 | 5}},
		// '@' (64) is not in any alphabet: escape 5 6 then 2, 0
		{"@", []uint16{5<<10 | 6<<5 | 2, 0x8000 | 0<<10 | 5<<5 | 5}},
		// 'ä' is ZSCII 155 through the default Unicode table: 5 6 4 27
		{"ä", []uint16{5<<10 | 6<<5 | 4, 0x8000 | 27<<10 | 5<<5 | 5}},
	}
	for _, tc := range tests {
		got, err := EncodeString(tc.text)
		if err != nil {
			t.Fatalf("%q: %v", tc.text, err)
		}
		if w := words(got); !equal16(w, tc.want) {
			t.Errorf("%q: got %04x, want %04x", tc.text, w, tc.want)
		}
	}
	if _, err := EncodeString("€"); !errors.Is(err, ErrText) {
		t.Errorf("euro sign: err %v, want ErrText", err)
	}
}

func equal16(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDictKey(t *testing.T) {
	k, err := dictKey("North", 3)
	if err != nil {
		t.Fatal(err)
	}
	// n o r | t h pad
	if w := words(k); !equal16(w, []uint16{19<<10 | 20<<5 | 23, 0x8000 | 25<<10 | 13<<5 | 5}) {
		t.Errorf("north: %04x", w)
	}
	// Cut to six z-characters: "examine" and "examin" are one key.
	a, _ := dictKey("examine", 3)
	b, _ := dictKey("examin", 3)
	if !bytes.Equal(a, b) {
		t.Error("examine and examin differ in v3")
	}
	a, _ = dictKey("examine", 5)
	b, _ = dictKey("examin", 5)
	if bytes.Equal(a, b) || len(a) != 6 {
		t.Errorf("v5 keys: %x %x", a, b)
	}
	if _, err := dictKey("two words", 3); !errors.Is(err, ErrText) {
		t.Errorf("space in a word: %v", err)
	}
}

func TestAbbreviationsChooseLongest(t *testing.T) {
	e := &encoder{}
	for i, a := range []string{"the", "the lamp", "xy"} {
		zs, _ := toZSCII(a)
		e.abbrevs = append(e.abbrevs, abbrev{text: zs, index: i})
	}
	// Longest first, as Build sorts them.
	e.abbrevs[0], e.abbrevs[1] = e.abbrevs[1], e.abbrevs[0]
	zs, _ := toZSCII("see the lamp")
	got := e.zchars(zs, true)
	want := []byte{24, 10, 10, 0, 1, 1} // s e e space, abbreviation 1 ("the lamp")
	if !bytes.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// "xy" costs two z-characters: an abbreviation would not save anything.
	zs, _ = toZSCII("xy")
	if got := e.zchars(zs, true); !bytes.Equal(got, []byte{29, 30}) {
		t.Errorf("xy: %v", got)
	}
	if got := e.zchars(zs, false); len(got) != 2 {
		t.Errorf("without abbreviations: %v", got)
	}
}

func build(t *testing.T, b *Builder) []byte {
	t.Helper()
	img, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestBranchSizes(t *testing.T) {
	// A short forward branch takes one byte, a long one two, a backward one
	// two; offsets 0 and 1 return.
	b := New(3)
	m := b.Routine("main")
	m.Op("jz", 0).Branch("near", true) // 0x90 0x00 + 1 byte
	m.Op("nop")
	m.Label("near")
	m.Op("jz", 0).Branch("far", true) // 2 bytes
	for i := 0; i < 70; i++ {
		m.Op("nop")
	}
	m.Label("far")
	m.Op("jz", 0).Branch("near", false) // backward: 2 bytes
	m.Op("jz", 0).Branch(ReturnTrue, true)
	m.Op("quit")
	b.SetMain(m)
	img := build(t, b)
	pc := int(img[6])<<8 | int(img[7])
	code := img[pc:]
	// jz small 0: 0x90 0x00, branch byte: on true, short, offset 3 (skip nop)
	if !bytes.Equal(code[:3], []byte{0x90, 0x00, 0xc0 | 3}) {
		t.Fatalf("short branch: % x", code[:3])
	}
	code = code[4:]
	// long: offset = 70 nops + 2
	if !bytes.Equal(code[:4], []byte{0x90, 0x00, 0x80, 72}) {
		t.Fatalf("long branch: % x", code[:4])
	}
	code = code[4+70:]
	// back to "near" (4 + 70 bytes before this one, which is 4 long): -(74+4)+2
	d := -(74 + 4) + 2
	if !bytes.Equal(code[:4], []byte{0x90, 0x00, byte(d>>8) & 0x3f, byte(d)}) {
		t.Fatalf("backward branch: % x", code[:4])
	}
	if !bytes.Equal(code[4:7], []byte{0x90, 0x00, 0xc1}) {
		t.Fatalf("rtrue branch: % x", code[4:7])
	}
}

func TestOperandForms(t *testing.T) {
	b := New(5)
	g := b.Global("g", 0)
	m := b.Routine("main")
	f := b.Routine("f", "x")
	f.RTrue()
	m.Op("add", 1, g).Store(SP)                  // long form: small, variable
	m.Op("add", 1000, g).Store(SP)               // variable form: large, variable
	m.Op("inc", g)                               // indirect: small constant 16
	m.Op("call_vs2", f, 1, 2, 3, 4, 5).Store(SP) // two type bytes
	m.Op("je", SP, 1, 2, 3).Branch("x", true)
	m.Label("x")
	m.Op("quit")
	b.SetMain(m)
	img := build(t, b)
	pc := int(img[6])<<8 | int(img[7])
	c := img[pc:]
	want := [][]byte{
		{0x34, 1, 16, 0},                // add 1 g -> sp
		{0xd4, 0x2f, 0x03, 0xe8, 16, 0}, // add #1000 g -> sp
		{0x95, 16},                      // inc g
	}
	for _, w := range want {
		if !bytes.Equal(c[:len(w)], w) {
			t.Fatalf("got % x, want % x", c[:len(w)], w)
		}
		c = c[len(w):]
	}
	// call_vs2 f 1 2 3 4 5: 0xec, types (large small small small)(small small 3 3)
	if c[0] != 0xec || c[1] != 0x15 || c[2] != 0x5f {
		t.Fatalf("call_vs2: % x", c[:3])
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		want error
		f    func(b *Builder, m *Routine)
	}{
		{"undefined label", ErrUndefinedLabel, func(b *Builder, m *Routine) { m.Op("jz", 0).Branch("nowhere", true) }},
		{"undefined jump label", ErrUndefinedLabel, func(b *Builder, m *Routine) { m.Jump("nowhere") }},
		{"duplicate label", ErrDuplicateLabel, func(b *Builder, m *Routine) { m.Label("a"); m.Label("a") }},
		{"branch out of range", ErrBranchRange, func(b *Builder, m *Routine) {
			m.Op("jz", 0).Branch("far", true)
			for i := 0; i < 400; i++ {
				m.Print("a line of text that is long enough")
			}
			m.Label("far")
		}},
		{"too many locals", ErrTooManyLocals, func(b *Builder, m *Routine) {
			b.Routine("many", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p")
		}},
		{"main with locals", ErrTooManyLocals, func(b *Builder, m *Routine) { b.SetMain(b.Routine("main2", "x")) }},
		{"unknown opcode", ErrUnknownOpcode, func(b *Builder, m *Routine) { m.Op("frobnicate") }},
		{"opcode of another version", ErrUnknownOpcode, func(b *Builder, m *Routine) { m.Op("call_1s", m).Store(SP) }},
		{"missing store", ErrStore, func(b *Builder, m *Routine) { m.Op("add", 1, 2) }},
		{"store on a non-storing opcode", ErrStore, func(b *Builder, m *Routine) { m.Op("print_num", 1).Store(SP) }},
		{"store to a constant", ErrStore, func(b *Builder, m *Routine) { m.Op("add", 1, 2).Store(3) }},
		{"missing branch", ErrBranch, func(b *Builder, m *Routine) { m.Op("je", 1, 2) }},
		{"branch on a non-branching opcode", ErrBranch, func(b *Builder, m *Routine) { m.Op("add", 1, 2).Store(SP).Branch("x", true) }},
		{"operand count", ErrOperands, func(b *Builder, m *Routine) { m.Op("add", 1).Store(SP) }},
		{"string operand", ErrOperands, func(b *Builder, m *Routine) { m.Op("print_num", "x") }},
		{"print without text", ErrOperands, func(b *Builder, m *Routine) { m.Op("print", 3) }},
		{"constant too large", ErrOperands, func(b *Builder, m *Routine) { m.Op("print_num", 70000) }},
		{"small out of range", ErrOperands, func(b *Builder, m *Routine) { m.Op("print_num", Small(300)) }},
		{"variable out of range", ErrOperands, func(b *Builder, m *Routine) { m.Op("print_num", Var(256)) }},
		{"indirect needs a variable", ErrOperands, func(b *Builder, m *Routine) { m.Op("inc", 1000) }},
		{"unknown local", ErrUnknownLocal, func(b *Builder, m *Routine) { m.Op("print_num", m.Local("nope")) }},
		{"bad text", ErrText, func(b *Builder, m *Routine) { m.Print("price: 5€") }},
		{"bad packed string", ErrText, func(b *Builder, m *Routine) { b.String("€") }},
		{"attribute out of range", ErrAttribute, func(b *Builder, m *Routine) { b.Object("x", nil).Attr(32) }},
		{"property too long", ErrProperty, func(b *Builder, m *Routine) { b.Object("x", nil).Prop(1, 1, 2, 3, 4, 5) }},
		{"property number", ErrProperty, func(b *Builder, m *Routine) { b.Object("x", nil).Prop(32, 1) }},
		{"too many globals", ErrTooMany, func(b *Builder, m *Routine) {
			for i := 0; i < 241; i++ {
				b.Global("g", 0)
			}
		}},
		{"bad global value", ErrValue, func(b *Builder, m *Routine) { b.Global("g", "text") }},
		{"dictionary collision", ErrDictionary, func(b *Builder, m *Routine) { b.Word("examine", 1); b.Word("examines", 2) }},
		{"dictionary space", ErrText, func(b *Builder, m *Routine) { b.Word("two words") }},
		{"serial", ErrValue, func(b *Builder, m *Routine) { b.SetSerial("1234567") }},
		{"too many abbreviations", ErrTooMany, func(b *Builder, m *Routine) { b.Abbreviations(make([]string, 97)...) }},
		{"nil routine", ErrOperands, func(b *Builder, m *Routine) { m.Call((*Routine)(nil)) }},
		{"foreign routine", ErrValue, func(b *Builder, m *Routine) { m.Call(New(3).Routine("other")) }},
		{"story too large", ErrTooLarge, func(b *Builder, m *Routine) {
			for i := 0; i < 3000; i++ {
				b.String(strings.Repeat("x", 60) + string(rune('a'+i%26)) + strings.Repeat("y", i%50))
			}
			for i := 0; i < 40; i++ {
				r := b.Routine("r" + string(rune('a'+i%26)) + string(rune('a'+i/26)))
				for k := 0; k < 100; k++ {
					r.Print(strings.Repeat("z", 60))
				}
				r.RTrue()
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := New(3)
			m := b.Routine("main")
			b.SetMain(m)
			tc.f(b, m)
			m.Label("x")
			m.Op("quit")
			img, err := b.Build()
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if img != nil {
				t.Error("an image came back with an error")
			}
			var ze *Error
			if !errors.As(err, &ze) || ze.Where == "" {
				t.Errorf("error %v is not a located *Error", err)
			}
		})
	}
}

func TestNoMainAndBadVersion(t *testing.T) {
	if _, err := New(3).Build(); !errors.Is(err, ErrNoMain) {
		t.Errorf("no main: %v", err)
	}
	b := New(6)
	m := b.Routine("main")
	m.Op("quit")
	b.SetMain(m)
	if _, err := b.Build(); !errors.Is(err, ErrVersion) {
		t.Errorf("version 6: %v", err)
	}
}

func TestErrorNamesInstruction(t *testing.T) {
	b := New(3)
	m := b.Routine("main")
	m.Op("nop")
	m.Op("jz", 0).Branch("missing", true)
	m.Op("quit")
	b.SetMain(m)
	_, err := b.Build()
	if err == nil || !strings.Contains(err.Error(), "routine main, instruction 1 (jz)") || !strings.Contains(err.Error(), `"missing"`) {
		t.Fatalf("error does not locate the instruction: %v", err)
	}
}

// TestMisuseNeverPanics throws nonsense at every entry point.
func TestMisuseNeverPanics(t *testing.T) {
	for _, v := range []int{0, 3, 5, 8, 9} {
		b := New(v)
		b.SetRelease(-1)
		b.SetSerial("")
		b.Separators("\x00")
		b.Abbreviations("€")
		b.PropDefault(99, 1)
		b.Word("")
		b.Word("€")
		b.Table("t", -5)
		b.WordTable("w", struct{}{}, nil)
		var nilObj *Object
		o := b.Object("", nilObj)
		o.Attr(-1, 99).Prop(0).Prop(99, 1).PropBytes(1).PropBytes(2, make([]byte, 100)...)
		r := b.Routine("r", "a", "a")
		r.Init("zz", 1)
		r.Init("a", 99999)
		r.Label("")
		r.Label("~x")
		r.Op("")
		r.Op("je")
		r.Op("jump", 5)
		r.Op("print")
		r.Op("add", nil, nil).Store(nil).Store(SP).Branch("", true)
		r.Op("je", 1, 2).Branch("q", true).Branch("q", false)
		r.Call(nil)
		r.CallStore(5, r, 1, 2, 3, 4, 5, 6, 7, 8)
		r.Op("inc", r)
		b.SetMain(r)
		if _, err := b.Build(); err == nil {
			t.Errorf("version %d: nonsense built without error", v)
		}
	}
}

func TestOpcodesList(t *testing.T) {
	v3 := strings.Join(Opcodes(3), " ")
	v5 := strings.Join(Opcodes(5), " ")
	for _, name := range []string{"show_status", "sread", "pop", "not", "save"} {
		if !strings.Contains(" "+v3+" ", " "+name+" ") {
			t.Errorf("v3 lacks %s", name)
		}
	}
	for _, name := range []string{"call_vn2", "aread", "catch", "check_unicode", "save_undo"} {
		if !strings.Contains(" "+v5+" ", " "+name+" ") {
			t.Errorf("v5 lacks %s", name)
		}
	}
	if strings.Contains(" "+v3+" ", " call_1s ") || strings.Contains(" "+v5+" ", " show_status ") {
		t.Error("opcodes listed outside their versions")
	}
}
