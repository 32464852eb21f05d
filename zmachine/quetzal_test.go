package zmachine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/sharedtest"
)

// memSaver keeps the story's saves in memory; restore hands back data.
type memSaver struct {
	data  []byte
	saves int
}

func (s *memSaver) Save(d []byte) error {
	s.data = append([]byte(nil), d...)
	s.saves++
	return nil
}

func (s *memSaver) Restore() ([]byte, error) {
	if s.data == nil {
		return nil, errors.New("nothing saved")
	}
	return append([]byte(nil), s.data...), nil
}

// foldSpace compares text the way a terminal's wrapping cannot disturb.

// squashSpace drops all white space: dfrotz's dumb terminal also breaks lines
// differently around the prompt (">Your score" after a turn that leaves the
// status line alone, a blank line after one that changes it), which is no
// business of a save file.
func squashSpace(s string) string { return strings.Join(strings.Fields(s), "") }

func loadShared(t testing.TB, rel string) (*Story, string) {
	t.Helper()
	path := sharedtest.File(t, rel)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := LoadStory(data)
	if err != nil {
		t.Fatal(err)
	}
	return st, path
}

// startSeed12 makes a machine with seed 12 (as dfrotz -s 12) and runs it to input.
func startSeed12(t testing.TB, st *Story, sv Saver) (*Machine, string) {
	t.Helper()
	m, err := New(st, Options{Seed: 12, Saver: sv})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Run(); err != nil {
		t.Fatal(err)
	}
	return m, m.TakeOutput()
}

// playLines types each line and returns the output that follows it.
func playLines(t testing.TB, m *Machine, lines ...string) string {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		if err := m.SendLine(l); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if st, err := m.Run(); err != nil || st != WaitLine {
			t.Fatalf("%q: state %v, %v", l, st, err)
		}
		b.WriteString(m.TakeOutput())
	}
	return b.String()
}

// resumeState is what a Quetzal restore must bring back exactly.
type resumeState struct {
	dyn     []byte
	stack   []uint16
	frames  []frame
	pc      uint32
	state   State
	pending readRequest
}

func stateOf(m *Machine) resumeState {
	s := m.Snapshot()
	return resumeState{s.dyn, s.stack, s.frames, s.pc, s.state, s.pending}
}

func TestQuetzalRoundTripZork(t *testing.T) {
	st, _ := loadShared(t, "stories/zork1.z3")
	before := []string{"n", "n", "u", "get egg", "d", "s", "e", "open window", "w"}
	after := []string{"w", "take lamp", "move rug", "open trapdoor", "e", "u", "look", "inventory", "score"}
	cases := []struct {
		name string
		// restore brings back the save and returns the output up to the prompt.
		restore func(t *testing.T, m *Machine, saved, atPrompt []byte) string
	}{
		{"story RESTORE", func(t *testing.T, m *Machine, _, _ []byte) string {
			return playLines(t, m, "restore")
		}},
		{"host restores the story's save", func(t *testing.T, m *Machine, saved, _ []byte) string {
			if err := m.RestoreQuetzal(saved); err != nil {
				t.Fatal(err)
			}
			if m.State() != Running {
				t.Fatalf("state %v after restoring a SAVE file, want running", m.State())
			}
			if _, err := m.Run(); err != nil {
				t.Fatal(err)
			}
			return m.TakeOutput()
		}},
		{"host saved at the prompt", func(t *testing.T, m *Machine, _, atPrompt []byte) string {
			if err := m.RestoreQuetzal(atPrompt); err != nil {
				t.Fatal(err)
			}
			if m.State() != WaitLine {
				t.Fatalf("state %v after restoring at a prompt, want wait-line", m.State())
			}
			return m.TakeOutput()
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sv := &memSaver{}
			m, _ := startSeed12(t, st, sv)
			playLines(t, m, before...)
			saveOut := playLines(t, m, "save")
			if sv.saves != 1 || sharedtest.Fold(saveOut) != "Ok. >" {
				t.Fatalf("save: %d saves, output %q", sv.saves, saveOut)
			}
			if string(sv.data[8:12]) != "IFZS" {
				t.Fatalf("the story's save is FORM %q, want IFZS", sv.data[8:12])
			}
			atPrompt := m.SaveQuetzal()
			if string(atPrompt[8:12]) != "LNZS" {
				t.Fatalf("a save at the prompt is FORM %q, want LNZS", atPrompt[8:12])
			}
			want := stateOf(m)
			rng := m.rng // Quetzal does not keep the generator; replay with the same one.
			first := playLines(t, m, after...)

			out := c.restore(t, m, sv.data, atPrompt)
			if c.name != "host saved at the prompt" && sharedtest.Fold(out) != sharedtest.Fold(saveOut) {
				t.Errorf("after restore the story printed %q, want %q as after the save", out, saveOut)
			}
			if got := stateOf(m); !reflect.DeepEqual(got, want) {
				t.Errorf("state at the prompt after restore differs from after the save: pc 0x%x/0x%x, %d/%d frames, %d/%d stack words, memory equal %v",
					got.pc, want.pc, len(got.frames), len(want.frames), len(got.stack), len(want.stack), bytes.Equal(got.dyn, want.dyn))
			}
			m.rng = rng
			if second := playLines(t, m, after...); second != first {
				t.Errorf("replay after restore differs:\n--- after save\n%s\n--- after restore\n%s", first, second)
			}
		})
	}
}

// dfrotz runs Debian's dfrotz as the reference does (80 columns, seed 12)
// in dir, typing lines, and returns what it printed.
func dfrotz(t *testing.T, dir, story string, lines ...string) string {
	t.Helper()
	return sharedtest.RunDfrotz(t, dir, story, 12, strings.Join(lines, "\n")+"\n")
}

// afterFilePrompt is dfrotz's output after it asked for a file name.
func afterFilePrompt(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "Please enter a filename [")
	j := -1
	if i >= 0 {
		j = strings.Index(out[i:], "]: ")
	}
	if j < 0 {
		t.Fatalf("dfrotz asked for no file name:\n%s", out)
	}
	return out[i+j+3:]
}

func TestQuetzalDfrotz(t *testing.T) {
	st, story := loadShared(t, "stories/zork1.z3")
	dir := t.TempDir()
	before := []string{"n", "n", "u", "get egg", "d", "s", "e", "open window", "w", "w"}
	after := []string{"look", "take lamp", "move rug", "open trapdoor", "e", "u", "inventory", "score", "e", "take all", "n"}

	// The same game saved by both interpreters.
	dfrotz(t, dir, story, append(append([]string(nil), before...), "save", "dfrotz.qzl")...)
	fromDfrotz, err := os.ReadFile(filepath.Join(dir, "dfrotz.qzl"))
	if err != nil {
		t.Fatal(err)
	}
	sv := &memSaver{}
	m, _ := startSeed12(t, st, sv)
	playLines(t, m, before...)
	if out := playLines(t, m, "save"); sharedtest.Fold(out) != "Ok. >" {
		t.Fatalf("save in Lantern: %q", out)
	}
	fromLantern := sv.data
	if err := os.WriteFile(filepath.Join(dir, "lantern.qzl"), fromLantern, 0o644); err != nil {
		t.Fatal(err)
	}

	// inLantern restores data with the story's RESTORE in a new machine and
	// plays on; inDfrotz does the same in dfrotz.
	inLantern := func(t *testing.T, data []byte) string {
		m, _ := startSeed12(t, st, &memSaver{data: data})
		return playLines(t, m, append([]string{"restore"}, after...)...)
	}
	inDfrotz := func(t *testing.T, file string) string {
		return afterFilePrompt(t, dfrotz(t, dir, story, append([]string{"restore", file}, after...)...))
	}

	t.Run("same file as dfrotz", func(t *testing.T) {
		if !bytes.Equal(fromLantern, fromDfrotz) {
			i := 0
			for i < len(fromLantern) && i < len(fromDfrotz) && fromLantern[i] == fromDfrotz[i] {
				i++
			}
			t.Errorf("Lantern's save (%d bytes) and dfrotz's (%d bytes) first differ at byte %d", len(fromLantern), len(fromDfrotz), i)
		}
	})
	t.Run("dfrotz save restored in Lantern", func(t *testing.T) {
		want := inDfrotz(t, "dfrotz.qzl")
		got := inLantern(t, fromDfrotz)
		if !strings.HasPrefix(squashSpace(got), "Ok.>LivingRoom") {
			t.Errorf("restore in Lantern did not resume the game:\n%s", got)
		}
		if squashSpace(got) != squashSpace(want) {
			t.Errorf("Lantern after restoring dfrotz's save:\n%s\n--- dfrotz after restoring it:\n%s", got, want)
		}
	})
	t.Run("Lantern save restored in dfrotz", func(t *testing.T) {
		want := inLantern(t, fromLantern)
		got := inDfrotz(t, "lantern.qzl")
		if !strings.HasPrefix(squashSpace(got), "Ok.>LivingRoom") {
			t.Errorf("dfrotz did not restore Lantern's save:\n%s", got)
		}
		if squashSpace(got) != squashSpace(want) {
			t.Errorf("dfrotz after restoring Lantern's save:\n%s\n--- Lantern after restoring it:\n%s", got, want)
		}
	})
}

// tinyV5 assembles a version 5 story that saves inside a routine called with
// one argument and discarding its result, with a word on the routine's
// evaluation stack:
//
//	main: call_vn R 7; quit
//	R(2 locals): push 1234; save -> L1; print_num L1; new_line
//	             read_char 1 -> L2; restore -> L1; print_num L1; new_line; quit
//
// It runs to read_char having printed "1"; a successful restore goes back to
// the save, which stores 2 and prints "2"; a failed one prints "0" and quits.
func tinyV5(serial string) *Story {
	d := make([]byte, 0x340)
	d[hVersion] = 5
	binary.BigEndian.PutUint16(d[hRelease:], 1)
	binary.BigEndian.PutUint16(d[hHighMem:], 0x300)
	binary.BigEndian.PutUint16(d[hInitialPC:], 0x300)
	binary.BigEndian.PutUint16(d[hDictionary:], 0x220)
	binary.BigEndian.PutUint16(d[hObjects:], 0x230)
	binary.BigEndian.PutUint16(d[hGlobals:], 0x40)
	binary.BigEndian.PutUint16(d[hStaticMem:], 0x220)
	copy(d[hSerial:], serial)
	binary.BigEndian.PutUint16(d[hAbbrevs:], 0x2b0)
	binary.BigEndian.PutUint16(d[hChecksum:], 0x1234)
	copy(d[0x220:], []byte{0, 7, 0, 0}) // empty dictionary
	copy(d[0x300:], []byte{
		0xf9, 0x1f, 0x00, 0xc4, 0x07, // call_vn R 7
		0xba, // quit
	})
	copy(d[0x310:], []byte{
		0x02,                   // R: two locals
		0xe8, 0x3f, 0x04, 0xd2, // push 1234
		0xbe, 0x00, 0xff, 0x01, // save -> L1 (store byte at 0x318)
		0xe6, 0xbf, 0x01, // print_num L1
		0xbb,                   // new_line
		0xf6, 0x7f, 0x01, 0x02, // read_char 1 -> L2
		0xbe, 0x01, 0xff, 0x01, // restore -> L1
		0xe6, 0xbf, 0x01, // print_num L1
		0xbb, // new_line
		0xba, // quit
	})
	st, err := LoadStory(d)
	if err != nil {
		panic(err)
	}
	return st
}

const tinySavePC = 0x318

// startTiny runs the tiny story to its read_char, having saved once.
func startTiny(t testing.TB, st *Story, sv *memSaver) *Machine {
	t.Helper()
	m, err := New(st, Options{Seed: 12, Saver: sv, StepBudget: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := m.Run(); err != nil || s != WaitChar {
		t.Fatalf("tiny story: state %v, %v", s, err)
	}
	if out := m.TakeOutput(); out != "1\n" {
		t.Fatalf("tiny story printed %q before its read_char, want \"1\\n\"", out)
	}
	return m
}

// pressKey answers read_char and returns the output up to the next wait or halt.
func pressKey(t testing.TB, m *Machine) (string, State) {
	t.Helper()
	if err := m.SendChar('x'); err != nil {
		t.Fatal(err)
	}
	s, err := m.Run()
	if err != nil {
		t.Fatal(err)
	}
	return m.TakeOutput(), s
}

func TestQuetzalV5SaveRestore(t *testing.T) {
	st := tinyV5("250101")
	sv := &memSaver{}
	m := startTiny(t, st, sv)
	if sv.saves != 1 {
		t.Fatalf("%d saves", sv.saves)
	}
	img, err := m.parseQuetzal(sv.data)
	if err != nil {
		t.Fatal(err)
	}
	wantFrames := []frame{{store: -1}, {retPC: 0x305, store: -1, nlocals: 2, nargs: 1, locals: [15]uint16{7}}}
	if img.pc != tinySavePC || !reflect.DeepEqual(img.frames, wantFrames) || !reflect.DeepEqual(img.stack, []uint16{1234}) {
		t.Fatalf("saved pc 0x%x, frames %+v, stack %v; want pc 0x%x, frames %+v, stack [1234]", img.pc, img.frames, img.stack, tinySavePC, wantFrames)
	}

	// The story's RESTORE goes back to the save, which now stores 2, as often
	// as it likes.
	for i := 0; i < 2; i++ {
		if out, s := pressKey(t, m); out != "2\n" || s != WaitChar {
			t.Fatalf("restore %d: printed %q, state %v; want \"2\\n\", wait-char", i+1, out, s)
		}
		if got := m.frames[1]; got.nargs != 1 || got.store != -1 || got.retPC != 0x305 || m.stack[0] != 1234 {
			t.Fatalf("restore %d: frame %+v, stack %v", i+1, got, m.stack)
		}
	}

	// Saved by the host at read_char: a new machine restores it waiting there.
	atKey := m.SaveQuetzal()
	m2, err := New(st, Options{Seed: 12, Saver: sv})
	if err != nil {
		t.Fatal(err)
	}
	if err := m2.RestoreQuetzal(atKey); err != nil {
		t.Fatal(err)
	}
	if m2.State() != WaitChar {
		t.Fatalf("state %v after restoring at read_char, want wait-char", m2.State())
	}
	if out, s := pressKey(t, m2); out != "2\n" || s != WaitChar {
		t.Fatalf("after the host restore a key printed %q, state %v", out, s)
	}

	// A new machine restoring the story's save directly completes the save.
	m3, err := New(st, Options{Seed: 12})
	if err != nil {
		t.Fatal(err)
	}
	if err := m3.RestoreQuetzal(sv.data); err != nil {
		t.Fatal(err)
	}
	if s, err := m3.Run(); err != nil || s != WaitChar || m3.TakeOutput() != "2\n" {
		t.Fatalf("host restore of the story's save: state %v, %v", s, err)
	}

	// After a restore the header fields the interpreter owns are its own again,
	// whatever the saving interpreter wrote, and the transcript bit stays as it
	// is now; the story's own memory is the file's.
	dyn := append([]byte(nil), st.data[:0x220]...)
	dyn[hFlags1], dyn[hInterpNumber], dyn[hScreenCols], dyn[hStandard] = 0, 6, 40, 0
	dyn[hFlags2+1] |= 1 // transcript on when saved
	dyn[0x40], dyn[0x41] = 0xbe, 0xef
	_, cs := splitIFF(t, sv.data)
	m4, err := New(st, Options{Seed: 12})
	if err != nil {
		t.Fatal(err)
	}
	if err := m4.RestoreQuetzal(joinIFF("IFZS", cs[0], iffChunk{"UMem", dyn}, cs[2])); err != nil {
		t.Fatal(err)
	}
	if f1, in, cols, std, f2, g := m4.mem[hFlags1], m4.mem[hInterpNumber], m4.mem[hScreenCols], m4.mem[hStandard], m4.word(hFlags2), m4.Global(0); f1 != 0x80 || in != 1 || cols != 80 || std != 1 || f2&1 != 0 || m4.out.transcript || g != 0xbeef {
		t.Errorf("after restore: flags 1 0x%02x, interpreter %d, %d columns, standard %d, flags 2 0x%04x (transcript %v), global 0 0x%04x; want 0x80, 1, 80, 1, transcript off, 0xbeef",
			f1, in, cols, std, f2, m4.out.transcript, g)
	}

	// The story's RESTORE fails cleanly on what it cannot use, saying (as
	// frotz does) that a file not in the story's Quetzal form is no save.
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"garbage", []byte("not a save file at all")},
		{"save made at a prompt", atKey},
		{"another story's save", func() []byte {
			o := startTiny(t, tinyV5("991231"), &memSaver{})
			return o.SaveQuetzal()
		}()},
	} {
		t.Run("RESTORE refuses "+c.name, func(t *testing.T) {
			m := startTiny(t, st, &memSaver{})
			m.opts.Saver = &memSaver{data: c.data}
			const want = "This is not a saved game file!\n0\n"
			if out, s := pressKey(t, m); out != want || s != Halted {
				t.Errorf("printed %q, state %v; want %q and the story's quit", out, s, want)
			}
		})
	}
}

// iffChunk is one chunk of a FORM, for building damaged files.
type iffChunk struct {
	id   string
	body []byte
}

func splitIFF(t testing.TB, data []byte) (string, []iffChunk) {
	t.Helper()
	var cs []iffChunk
	body := data[12:]
	for len(body) >= 8 {
		n := int(binary.BigEndian.Uint32(body[4:]))
		cs = append(cs, iffChunk{string(body[:4]), append([]byte(nil), body[8:8+n]...)})
		body = body[8+n+n%2:]
	}
	if len(body) != 0 {
		t.Fatalf("splitIFF: %d bytes left", len(body))
	}
	return string(data[8:12]), cs
}

func joinIFF(form string, cs ...iffChunk) []byte {
	out := []byte("FORM\x00\x00\x00\x00" + form)
	for _, c := range cs {
		out = appendChunk(out, c.id, c.body)
	}
	binary.BigEndian.PutUint32(out[4:], uint32(len(out)-8))
	return out
}

// stkFrame encodes one Stks frame.
func stkFrame(pc uint32, flags, result, args byte, locals, stack []uint16) []byte {
	b := []byte{byte(pc >> 16), byte(pc >> 8), byte(pc), flags, result, args}
	b = binary.BigEndian.AppendUint16(b, uint16(len(stack)))
	for _, w := range append(append([]uint16(nil), locals...), stack...) {
		b = binary.BigEndian.AppendUint16(b, w)
	}
	return b
}

func joinBytes(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestRestoreQuetzalRejects(t *testing.T) {
	st := tinyV5("250101")
	sv := &memSaver{}
	m := startTiny(t, st, sv)
	good := sv.data
	form, cs := splitIFF(t, good)
	if form != "IFZS" || len(cs) != 3 || cs[0].id != "IFhd" || cs[1].id != "CMem" || cs[2].id != "Stks" {
		t.Fatalf("the story's save is %s with %v", form, cs)
	}
	hd, cmem, stks := cs[0], cs[1], cs[2]
	mainFrame := stkFrame(0, 0, 0, 0, nil, nil)
	routine := stkFrame(0x305, 0x12, 0, 1, []uint16{7, 0}, []uint16{1234})
	if !bytes.Equal(stks.body, joinBytes(mainFrame, routine)) {
		t.Fatalf("Stks is % x, want % x", stks.body, joinBytes(mainFrame, routine))
	}
	withHd := func(f func(b []byte)) iffChunk {
		b := append([]byte(nil), hd.body...)
		f(b)
		return iffChunk{"IFhd", b}
	}
	withStks := func(parts ...[]byte) iffChunk { return iffChunk{"Stks", joinBytes(parts...)} }
	lnst := func(b ...byte) iffChunk { return iffChunk{"LnSt", b} }
	raw := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	tooManyFrames := [][]byte{mainFrame}
	for i := 0; i < maxFrames; i++ {
		tooManyFrames = append(tooManyFrames, stkFrame(0x305, 0x10, 0, 0, nil, nil))
	}

	cases := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"FORM only", []byte("FORM")},
		{"truncated header", good[:11]},
		{"truncated body", good[:len(good)-3]},
		{"chunk header cut short", raw(func(b []byte) []byte {
			b = append(b, "ANNO"...)
			binary.BigEndian.PutUint32(b[4:], uint32(len(b)-8))
			return b
		})},
		{"not IFF", raw(func(b []byte) []byte { copy(b, "RIFF"); return b })},
		{"wrong FORM type", raw(func(b []byte) []byte { copy(b[8:], "IFRS"); return b })},
		{"FORM longer than the file", raw(func(b []byte) []byte { binary.BigEndian.PutUint32(b[4:], uint32(len(b))); return b })},
		{"FORM length under 4", raw(func(b []byte) []byte { binary.BigEndian.PutUint32(b[4:], 2); return b })},
		{"chunk longer than the FORM", raw(func(b []byte) []byte { binary.BigEndian.PutUint32(b[16:], 0xfffffff0); return b })},
		{"another story's serial", joinIFF("IFZS", withHd(func(b []byte) { b[7] ^= 1 }), cmem, stks)},
		{"another story's checksum", joinIFF("IFZS", withHd(func(b []byte) { b[9]++ }), cmem, stks)},
		{"another story's release", joinIFF("IFZS", withHd(func(b []byte) { b[1] = 2 }), cmem, stks)},
		{"another story", func() []byte { o := startTiny(t, tinyV5("991231"), &memSaver{}); return o.SaveQuetzal() }()},
		{"short IFhd", joinIFF("IFZS", iffChunk{"IFhd", hd.body[:12]}, cmem, stks)},
		{"no IFhd", joinIFF("IFZS", cmem, stks)},
		{"no memory", joinIFF("IFZS", hd, stks)},
		{"no Stks", joinIFF("IFZS", hd, cmem)},
		{"two IFhd", joinIFF("IFZS", hd, hd, cmem, stks)},
		{"two Stks", joinIFF("IFZS", hd, cmem, stks, stks)},
		{"CMem longer than dynamic memory", joinIFF("IFZS", hd, iffChunk{"CMem", bytes.Repeat([]byte{1}, 0x221)}, stks)},
		{"CMem run past dynamic memory", joinIFF("IFZS", hd, iffChunk{"CMem", []byte{0, 0xff, 0, 0xff, 0, 0xff}}, stks)},
		{"CMem ends inside a run", joinIFF("IFZS", hd, iffChunk{"CMem", []byte{5, 0}}, stks)},
		{"UMem of the wrong size", joinIFF("IFZS", hd, iffChunk{"UMem", make([]byte, 0x21f)}, stks)},
		{"no frames", joinIFF("IFZS", hd, cmem, withStks())},
		{"main frame with locals", joinIFF("IFZS", hd, cmem, withStks(stkFrame(0, 1, 0, 0, []uint16{5}, nil), routine))},
		{"reserved frame flags (16 locals?)", joinIFF("IFZS", hd, cmem, withStks(mainFrame, stkFrame(0x305, 0x32, 0, 1, []uint16{7, 0}, []uint16{1234})))},
		{"frame header cut short", joinIFF("IFZS", hd, cmem, withStks(mainFrame, routine[:5]))},
		{"more locals than the chunk holds", joinIFF("IFZS", hd, cmem, withStks(mainFrame, stkFrame(0x305, 0x1f, 0, 1, []uint16{7, 0}, nil)))},
		{"more stack than the chunk holds", joinIFF("IFZS", hd, cmem, withStks(mainFrame, routine[:6], []byte{0xff, 0xff}, routine[8:]))},
		{"stack deeper than the machine's", joinIFF("IFZS", hd, cmem, withStks(stkFrame(0, 0, 0, 0, nil, make([]uint16, maxStack)), routine))},
		{"too many frames", joinIFF("IFZS", hd, cmem, withStks(tooManyFrames...))},
		{"result into a missing local", joinIFF("IFZS", hd, cmem, withStks(mainFrame, stkFrame(0x305, 0x02, 7, 1, []uint16{7, 0}, []uint16{1234})))},
		{"result variable not the call's", joinIFF("IFZS", hd, cmem, withStks(mainFrame, stkFrame(0x305, 0x02, 0x10, 1, []uint16{7, 0}, []uint16{1234})))},
		{"return PC outside the story", joinIFF("IFZS", hd, cmem, withStks(mainFrame, stkFrame(0xffffff, 0x12, 0, 1, []uint16{7, 0}, []uint16{1234})))},
		{"return PC in the header", joinIFF("IFZS", hd, cmem, withStks(mainFrame, stkFrame(0x10, 0x12, 0, 1, []uint16{7, 0}, []uint16{1234})))},
		{"PC outside the story", joinIFF("IFZS", withHd(func(b []byte) { b[10], b[11], b[12] = 0xff, 0xff, 0xff }), cmem, stks)},
		{"PC in the header", joinIFF("IFZS", withHd(func(b []byte) { b[10], b[11], b[12] = 0, 0, 0x10 }), cmem, stks)},
		{"save stores to a missing local", joinIFF("IFZS", withHd(func(b []byte) { b[12] = 0x04 }), cmem, stks)}, // PC 0x304: byte 7
		{"LNZS without its state", joinIFF("LNZS", hd, cmem, stks)},
		{"LNZS state unknown", joinIFF("LNZS", hd, cmem, stks, lnst(1, 9, 0, 0, 0, 0, 0, 0, 0, 0))},
		{"LNZS state of another format", joinIFF("LNZS", hd, cmem, stks, lnst(2, 2, 0, 0, 0, 0, 0, 0, 0, 0))},
		{"LNZS state short", joinIFF("LNZS", hd, cmem, stks, lnst(1, 2))},
		{"LNZS read buffer in static memory", joinIFF("LNZS", hd, cmem, stks, lnst(1, 1, 0x03, 0x00, 0, 0, 0, 0, 0, 0))},
		{"LNZS read buffer in the header", joinIFF("LNZS", hd, cmem, stks, lnst(1, 1, 0x00, 0x30, 0, 0, 0, 0, 0, 0))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := m.Snapshot()
			pc, nundo := m.pc, len(m.undo)
			err := m.RestoreQuetzal(c.data)
			if err == nil || !errors.Is(err, ErrBadSave) {
				t.Fatalf("got %v, want an error wrapping ErrBadSave", err)
			}
			if after := m.Snapshot(); !reflect.DeepEqual(after, before) || m.pc != pc || len(m.undo) != nundo || m.cur != &m.frames[len(m.frames)-1] {
				t.Errorf("the failed restore (%v) changed the machine", err)
			}
		})
	}

	// The good file, and ones with what a reader must skip, still restore.
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"the save", good},
		{"unknown chunks", joinIFF("IFZS", hd, iffChunk{"ANNO", []byte("odd")}, cmem, iffChunk{"IntD", make([]byte, 13)}, stks)},
		{"UMem", joinIFF("IFZS", hd, iffChunk{"UMem", st.data[:0x220]}, stks)},
		{"bad CMem then good UMem", joinIFF("IFZS", hd, iffChunk{"CMem", []byte{5, 0}}, iffChunk{"UMem", st.data[:0x220]}, stks)},
		{"LnSt in an IFZS file", joinIFF("IFZS", hd, cmem, stks, lnst(9))},
		{"trailing bytes after the FORM", append(append([]byte(nil), good...), 0, 0, 0)},
	} {
		t.Run("accepts "+c.name, func(t *testing.T) {
			m := startTiny(t, st, &memSaver{})
			if err := m.RestoreQuetzal(c.data); err != nil {
				t.Fatal(err)
			}
			if s, err := m.Run(); err != nil || s != WaitChar || m.TakeOutput() != "2\n" {
				t.Fatalf("after restore: state %v, %v", s, err)
			}
		})
	}
}

func FuzzRestoreQuetzal(f *testing.F) {
	st := tinyV5("250101")
	sv := &memSaver{}
	m := startTiny(f, st, sv)
	good, atKey := sv.data, m.SaveQuetzal()
	f.Add(good)
	f.Add(atKey)
	f.Add(good[:len(good)/2])
	for _, i := range []int{3, 9, 11, 19, 25, 28, 40, len(good) - 1} {
		b := append([]byte(nil), good...)
		b[i%len(b)] ^= 0x41
		f.Add(b)
	}
	f.Add([]byte("FORM\x00\x00\x00\x04IFZS"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		m := startTiny(t, st, &memSaver{})
		before := m.Snapshot()
		if err := m.RestoreQuetzal(data); err != nil {
			if !errors.Is(err, ErrBadSave) {
				t.Fatalf("error %v does not wrap ErrBadSave", err)
			}
			if !reflect.DeepEqual(m.Snapshot(), before) {
				t.Fatalf("the failed restore (%v) changed the machine", err)
			}
			return
		}
		m.Pending()
		m.SaveQuetzal()
		m.Run()
	})
}
