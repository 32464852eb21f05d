package lineplay

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/sharedtest"
	"github.com/lantern-if/lantern/zmachine"
	"github.com/lantern-if/lantern/zmachine/zasm"
)

// Regression stories built with zasm, each played in Lantern and in dfrotz:
// one per play difference once found on the Jericho suite.

// buildStory assembles a story whose main routine calls body (which may
// have locals) and quits.
func buildStory(t *testing.T, v int, body func(b *zasm.Builder, r *zasm.Routine)) []byte {
	t.Helper()
	b := zasm.New(v)
	main := b.Routine("main")
	b.SetMain(main)
	r := b.Routine("body", "i", "j", "k")
	main.Call(r)
	main.Op("quit")
	body(b, r)
	r.RTrue()
	img, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// againstDfrotz plays img in Lantern and in dfrotz with the same input and
// requires the same transcript once white space is folded. It returns ours.
func againstDfrotz(t *testing.T, img []byte, input string) string {
	t.Helper()
	story, err := zmachine.LoadStory(img)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	ours := play(t, story, 0, input)
	sharedtest.Dfrotz(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "story.z")
	if err := os.WriteFile(p, img, 0o644); err != nil {
		t.Fatal(err)
	}
	theirs := sharedtest.RunDfrotz(t, dir, p, 0, input, "-Z", "0")
	if a, b := sharedtest.Fold(ours), sharedtest.Fold(theirs); a != b {
		t.Fatalf("differs from dfrotz %s\nours:\n%s\ndfrotz:\n%s", sharedtest.FirstDiff(a, b), ours, theirs)
	}
	return ours
}

// A story with no abbreviations table (its header address 0) loads and plays.
func TestAbbreviationsAtZeroPlay(t *testing.T) {
	for _, v := range []int{3, 5} {
		img := buildStory(t, v, func(b *zasm.Builder, r *zasm.Routine) {
			r.Print("No abbreviations here.\n")
		})
		img[0x18], img[0x19] = 0, 0
		out := againstDfrotz(t, img, "")
		if !strings.Contains(out, "No abbreviations here.") {
			t.Fatalf("v%d: story text missing:\n%s", v, out)
		}
	}
}

// Keys typed on one line serve several read_char calls; the screen is shown
// only when a new line is read, so text printed and erased in between never
// appears.
func TestKeysFromOneLineShowNoScreen(t *testing.T) {
	img := buildStory(t, 5, func(b *zasm.Builder, r *zasm.Routine) {
		r.Print("Press a key.\n")
		r.Op("read_char", 1).Store(zasm.SP)
		r.Op("erase_window", -1)
		r.Print("Hidden text, erased before the next key is read.\n")
		r.Op("read_char", 1).Store(zasm.SP)
		r.Op("erase_window", -1)
		r.Print("Shown text.\n")
		r.Op("read_char", 1).Store(zasm.SP)
	})
	out := againstDfrotz(t, img, "xy\nz\n")
	if strings.Contains(out, "Hidden") || !strings.Contains(out, "Shown text.") {
		t.Fatalf("screen shown at the wrong reads:\n%s", out)
	}
}

// Sound effects 1 and 2 (and sound_effect with no operand) print dfrotz's
// visual bell; other sounds print nothing.
func TestBeepsPrinted(t *testing.T) {
	for _, v := range []int{3, 5} {
		img := buildStory(t, v, func(b *zasm.Builder, r *zasm.Routine) {
			r.Print("before ")
			r.Op("sound_effect", 1)
			r.Print("one\n")
			r.Op("sound_effect", 2)
			r.Op("sound_effect", 3, 2)
			if v >= 5 {
				r.Op("sound_effect")
			}
			r.Print("end\n")
		})
		out := againstDfrotz(t, img, "")
		if !strings.Contains(out, "[HIGH-PITCHED BEEP]") || !strings.Contains(out, "[LOW-PITCHED BEEP]") {
			t.Fatalf("v%d: no beeps:\n%s", v, out)
		}
	}
}

// Codes with no character (control codes, DEL, input-only and mouse codes)
// print nothing; the sentence space prints two spaces; undefined extra
// characters print '?'.
func TestUnprintableZSCII(t *testing.T) {
	codes := []int{0, 3, 8, 10, 11, 12, 27, 31, 127, 128, 154, 155, 223, 224, 251, 252, 254, 255}
	img := buildStory(t, 5, func(b *zasm.Builder, r *zasm.Routine) {
		for _, c := range codes {
			r.Print("[")
			r.Op("print_char", c)
			r.Print("]\n")
		}
	})
	out := againstDfrotz(t, img, "")
	if strings.ContainsRune(out, 127) || !strings.Contains(out, "[]") {
		t.Fatalf("DEL or control codes printed:\n%q", out)
	}
}

// Output stream 3 drops ZSCII 0, keeps '@', turns codes with no character
// into '?', and printing the table back shows exactly what was written.
func TestMemoryStreamRoundTrip(t *testing.T) {
	img := buildStory(t, 5, func(b *zasm.Builder, r *zasm.Routine) {
		tab := b.Table("tab", 64)
		r.Op("output_stream", 3, tab)
		r.Print("a@b")
		r.Op("print_char", 0)
		r.Op("print_char", '@')
		r.Op("print_char", 230)
		r.Op("print_char", 255)
		r.Print("z")
		r.Op("output_stream", -3)
		r.Op("loadw", tab, 0).Store(r.Local("j"))
		r.Print("count ")
		r.Op("print_num", r.Local("j"))
		r.Print(" [")
		r.Op("add", tab, 2).Store(r.Local("k"))
		r.Op("print_table", r.Local("k"), r.Local("j"))
		r.Print("]\n")
	})
	out := againstDfrotz(t, img, "")
	if !strings.Contains(out, "count 7 [a@b@??z]") {
		t.Fatalf("stream 3 round trip wrong:\n%s", out)
	}
}

// A status line redrawn with the same text but flushed by another
// instruction shows as changed in dfrotz (a blank line after the prompt),
// one flushed the same way does not.
func TestStatusRedrawSpacing(t *testing.T) {
	for _, moveAfter := range []bool{true, false} {
		img := buildStory(t, 5, func(b *zasm.Builder, r *zasm.Routine) {
			text := b.Table("text", 64)
			parse := b.Table("parse", 2+4*8)
			r.Op("storeb", text, 0, 60)
			r.Op("storeb", parse, 0, 8)
			for i := 0; i < 30; i++ {
				r.Print("Filler line to scroll the screen.\n")
			}
			for turn := 0; turn < 3; turn++ {
				r.Print("Turn text.\n\n>")
				r.Op("split_window", 2)
				r.Op("set_window", 1)
				r.Op("set_text_style", 1)
				r.Op("set_cursor", 2, 52)
				r.Op("print_num", 39)
				if turn == 0 && moveAfter {
					r.Op("set_cursor", 2, 60)
				}
				r.Op("set_text_style", 0)
				r.Op("set_window", 0)
				r.Op("storeb", text, 1, 0)
				r.Op("read", text, parse).Store(zasm.SP)
			}
		})
		againstDfrotz(t, img, "a\nb\nc\n")
	}
}

// A RESTORE that fails asks for the file name and says why, as dfrotz does:
// nothing for a missing or empty file, a message for one that is not a save,
// one saved from another story, or one missing required chunks.
func TestFailedRestoreReports(t *testing.T) {
	other := []byte("FORM\x00\x00\x00\x1aIFZSIFhd\x00\x00\x00\x0d\x00\x63ABCDEF\x12\x34\x00\x00\x10\x00")
	files := map[string][]byte{
		"bad.qzl":   []byte("this is not a save file at all"),
		"empty.qzl": nil,
		"form.qzl":  []byte("FORM\x00\x00\x00\x04IFZS"),
		"other.qzl": other,
	}
	input := "missing.qzl\nbad.qzl\nempty.qzl\nform.qzl\nother.qzl\n"
	for _, v := range []int{3, 5} {
		img := buildStory(t, v, func(b *zasm.Builder, r *zasm.Routine) {
			for i := 0; i < 5; i++ {
				r.Print("Restoring.\n")
				if v >= 5 {
					r.Op("restore").Store(zasm.SP)
					r.Op("print_num", zasm.SP)
				} else {
					lbl := r.NewLabel("ok")
					r.Op("restore").Branch(lbl, true)
					r.Print("failed")
					r.Label(lbl)
				}
				r.NewLine()
			}
		})
		story, err := zmachine.LoadStory(img)
		if err != nil {
			t.Fatal(err)
		}
		sharedtest.Dfrotz(t)
		ourDir, theirDir := t.TempDir(), t.TempDir()
		for name, data := range files {
			for _, d := range []string{ourDir, theirDir} {
				if err := os.WriteFile(filepath.Join(d, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		var out strings.Builder
		opts := Options{SaveDir: ourDir, DefaultSave: "story.qzl"}
		if err := Run(context.Background(), story, opts, strings.NewReader(input), &out); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(theirDir, "story.z")
		if err := os.WriteFile(p, img, 0o644); err != nil {
			t.Fatal(err)
		}
		theirs := sharedtest.RunDfrotz(t, theirDir, p, 0, input, "-Z", "0")
		ours := out.String()
		if a, b := sharedtest.Fold(ours), sharedtest.Fold(theirs); a != b {
			t.Fatalf("v%d differs from dfrotz %s", v, sharedtest.FirstDiff(a, b))
		}
		for _, want := range []string{"Please enter a filename", "This is not a saved game file!", "File was not saved from this story!", "error: no valid stack"} {
			if !strings.Contains(ours, want) {
				t.Errorf("v%d: output lacks %q:\n%s", v, want, ours)
			}
		}
	}
}

// The v3 status line is drawn into the top row's cells, and a cell counts
// as changed when its last drawing changed it: a status line drawn during
// the turn (show_status) and again, unchanged, at the read leaves the row
// unchanged, so no empty line comes between the prompt and the reply; one
// drawn with other values and then back shows; a name shortened to a prefix
// changes only blank cells; a time story's clock is drawn as frotz draws it.
func TestStatusLineRedrawnInTurn(t *testing.T) {
	tests := []struct {
		name string
		time bool
		turn func(main *zasm.Routine, loc, score, moves *zasm.Global, rooms []*zasm.Object)
	}{
		{name: "read only", turn: func(main *zasm.Routine, loc, score, moves *zasm.Global, rooms []*zasm.Object) {
			main.Op("inc", moves)
		}},
		{name: "show_status then read, unchanged", turn: func(main *zasm.Routine, loc, score, moves *zasm.Global, rooms []*zasm.Object) {
			main.Op("inc", moves)
			main.Op("show_status")
		}},
		{name: "show_status then read, changed again", turn: func(main *zasm.Routine, loc, score, moves *zasm.Global, rooms []*zasm.Object) {
			main.Op("show_status")
			main.Op("inc", moves)
		}},
		{name: "another room drawn, then back", turn: func(main *zasm.Routine, loc, score, moves *zasm.Global, rooms []*zasm.Object) {
			main.Op("store", loc, rooms[1])
			main.Op("show_status")
			main.Op("store", loc, rooms[0])
		}},
		{name: "name shortened to a prefix", turn: func(main *zasm.Routine, loc, score, moves *zasm.Global, rooms []*zasm.Object) {
			main.Op("store", loc, rooms[2])
		}},
		{name: "hyphenated name, then a long one clipped", turn: func(main *zasm.Routine, loc, score, moves *zasm.Global, rooms []*zasm.Object) {
			main.Op("store", loc, rooms[3])
			main.Op("show_status")
			main.Op("store", loc, rooms[4])
			main.Op("inc", score)
		}},
		{name: "time story", time: true, turn: func(main *zasm.Routine, loc, score, moves *zasm.Global, rooms []*zasm.Object) {
			main.Op("add", moves, 7).Store(moves)
			main.Op("inc", score)
			main.Op("show_status")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := zasm.New(3)
			if tc.time {
				b.SetFlags1(0x02)
			}
			rooms := []*zasm.Object{b.Object("Forest Path", nil), b.Object("Long Gallery of Portraits", nil), b.Object("Forest", nil),
				b.Object("North-East Fore-deck", nil), b.Object("An Exceedingly Long Room Name That Runs Past the Score Column Entirely Here", nil)}
			loc := b.Global("location", rooms[0])
			score := b.Global("score", 9)
			moves := b.Global("moves", 55)
			main := b.Routine("main")
			b.SetMain(main)
			text, parse := b.Table("text", 64), b.Table("parse", 2+4*8)
			main.Op("storeb", text, 0, 60)
			main.Op("storeb", parse, 0, 8)
			main.Print("A test of the status line.\n")
			for turn := 0; turn < 4; turn++ {
				main.Print("\n>")
				main.Op("sread", text, parse)
				tc.turn(main, loc, score, moves, rooms)
				main.Print("Time passes...\n")
			}
			main.Print("\n>")
			main.Op("sread", text, parse)
			main.Op("quit")
			img, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			out := againstDfrotz(t, img, "wait\nwait\nwait\nwait\nwait\n")
			if !strings.Contains(out, "Time passes...") {
				t.Fatalf("story text missing:\n%s", out)
			}
		})
	}
}
