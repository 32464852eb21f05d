package zasm

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/lantern-if/lantern/zmachine"
)

// FuzzBuild assembles instruction streams chosen by the fuzzer, mostly well
// formed and sometimes not: the assembler must never panic, its errors must
// be located *Errors, and whatever it builds must load in our interpreter
// and run (to a fault, an input, a halt or the step budget) without
// panicking.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{1, 40, 3, 200, 7, 9, 13, 0, 0, 255, 12, 99, 4, 4, 4})
	f.Add([]byte{2, 5, 17, 33, 65, 129, 250, 3, 3, 3, 3, 90, 91, 92})
	f.Fuzz(func(t *testing.T, data []byte) { randomProgram(t, data) })
}

// TestRandomPrograms runs the fuzz body on fixed random inputs and checks
// that most of them build, so that the interpreter side is exercised too.
func TestRandomPrograms(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	built := 0
	const n = 1000
	for i := 0; i < n; i++ {
		data := make([]byte, 1+rng.Intn(200))
		rng.Read(data)
		if randomProgram(t, data) {
			built++
		}
	}
	if built < n/2 {
		t.Errorf("only %d of %d random programs built", built, n)
	}
	t.Logf("%d of %d random programs built and ran", built, n)
}

// randomProgram assembles a program chosen by data and reports whether it
// built (and then ran).
func randomProgram(t *testing.T, data []byte) bool {
	if len(data) == 0 {
		return false
	}
	v := []int{3, 5, 8}[int(data[0])%3]
	data = data[1:]
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	b := New(v)
	g := b.Global("g", 7)
	room := b.Object("room", nil).Attr(1).Prop(3, 300)
	b.Object("thing", room).PropBytes(2, 1, 2)
	tab := b.Table("tab", 64)
	word := b.Word("word", 1)
	str := b.String("a string")
	main := b.Routine("main")
	sub := b.Routine("sub", "a", "b")
	b.SetMain(main)
	names := Opcodes(v)
	labels := []string{"l0", "l1", "l2", ReturnTrue, ReturnFalse}
	for _, r := range []*Routine{main, sub} {
		vars := []any{SP, g}
		if r == sub {
			vars = append(vars, r.Local("a"), r.Local("b"))
		}
		values := append([]any{room, tab, word, str, sub, 0, 1, 255, 256, -1, 40000, Small(3), Large(4)}, vars...)
		placed := map[string]bool{}
		for n := 0; n < 16 && len(data) > 0; n++ {
			name := names[next()%len(names)]
			misuse := next()%64 == 0
			if k := next(); k%4 == 0 && !placed[labels[k%3]] {
				placed[labels[k%3]] = true
				r.Label(labels[k%3])
			}
			op, _ := lookup(name, v)
			var in *Instr
			switch {
			case op.text:
				in = r.Op(name, fmt.Sprint("text ", next()))
			case op.label:
				in = r.Op(name, labels[next()%3])
			default:
				count := op.minA + next()%(op.maxA-op.minA+1)
				if misuse {
					count = next() % 6
				}
				var ops []any
				for a := 0; a < count; a++ {
					if a == 0 && op.indirect {
						ops = append(ops, vars[next()%len(vars)])
						continue
					}
					ops = append(ops, values[next()%len(values)])
				}
				in = r.Op(name, ops...)
			}
			if op.store != misuse {
				in.Store(vars[next()%len(vars)])
			}
			if op.branch != misuse {
				k := next()
				in.Branch(labels[k%len(labels)], k%2 == 0)
			}
		}
		r.Op("quit")
		for _, l := range labels[:3] {
			if !placed[l] {
				r.Label(l)
			}
		}
	}
	img, err := b.Build()
	if err != nil {
		var ze *Error
		if !errors.As(err, &ze) {
			t.Fatalf("error is not a *Error: %v", err)
		}
		return false
	}
	story, err := zmachine.LoadStory(img)
	if err != nil {
		t.Fatalf("built a story our interpreter rejects: %v", err)
	}
	m, err := zmachine.New(story, zmachine.Options{Seed: 1, StepBudget: 10000})
	if err != nil {
		t.Fatal(err)
	}
	m.Run() // faults come back as errors, never as panics
	return true
}
