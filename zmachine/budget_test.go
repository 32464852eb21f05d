package zmachine_test

import (
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/lantern-if/lantern/zmachine"
	"github.com/lantern-if/lantern/zmachine/zasm"
)

// loopStory builds a v5 story that prints "Ready.", reads a line, then runs
// body forever: runaway code of the kind a corrupt or hostile story holds.
func loopStory(t *testing.T, body func(b *zasm.Builder, r *zasm.Routine)) *zmachine.Story {
	t.Helper()
	b := zasm.New(5)
	text := b.Table("text", 64)
	parse := b.Table("parse", 2+4*8)
	main := b.Routine("main")
	main.Print("Ready.\n")
	main.Op("storeb", text, 0, 60)
	main.Op("storeb", parse, 0, 8)
	main.Op("aread", text, parse).Store(zasm.SP)
	main.Label("loop")
	body(b, main)
	main.Jump("loop")
	b.SetMain(main)
	return loadBuilt(t, b)
}

// loadBuilt assembles b's story and loads it.
func loadBuilt(t *testing.T, b *zasm.Builder) *zmachine.Story {
	t.Helper()
	img, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	s, err := zmachine.LoadStory(img)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRunawayWorkIsBounded: a Run that prints without end stops at the
// output budget with ErrOutputLimit, having kept no more than the budget;
// table instructions that scan or copy tens of kilobytes each count against
// the instruction budget, so a loop of them stops after a bounded amount of
// work, not after StepBudget times 64 KiB. The budgets hold afresh for the
// next Run: the first Run (up to the read) is untouched by them.
func TestRunawayWorkIsBounded(t *testing.T) {
	tests := []struct {
		name string
		body func(b *zasm.Builder, r *zasm.Routine)
		opts zmachine.Options
		want error
		// output is the most characters the faulting Run may leave; the
		// table loops print one a pass, so it bounds their passes (about
		// 100,000/(bytes/64) with the charge, a third of 100,000 without).
		output int
	}{
		{
			name: "print loop",
			body: func(_ *zasm.Builder, r *zasm.Routine) { r.Print("All work and no play. ") },
			opts: zmachine.Options{OutputBudget: 10_000},
			want: zmachine.ErrOutputLimit, output: 10_000,
		},
		{
			name: "print loop, default budget",
			body: func(_ *zasm.Builder, r *zasm.Routine) { r.Print("All work and no play. ") },
			want: zmachine.ErrOutputLimit, output: 1 << 20,
		},
		{
			name: "print_table loop",
			body: func(_ *zasm.Builder, r *zasm.Routine) { r.Op("print_table", 0x40, 100, 5) },
			opts: zmachine.Options{OutputBudget: 100_000},
			want: zmachine.ErrOutputLimit, output: 100_000,
		},
		{
			name: "scan_table loop",
			// Never found: 60,000 bytes scanned each time.
			body: func(b *zasm.Builder, r *zasm.Routine) {
				found := b.Global("found", 0)
				hay := b.Table("hay", 60_000)
				r.Print(".")
				r.Op("scan_table", 0xffff, hay, 60_000, 0x01).Store(found).Branch("loop", true)
			},
			opts: zmachine.Options{StepBudget: 100_000},
			want: zmachine.ErrInstructionLimit, output: 110,
		},
		{
			name: "copy_table loop",
			body: func(b *zasm.Builder, r *zasm.Routine) {
				dst := b.Table("dst", 30_000)
				r.Print(".")
				r.Op("copy_table", 0x40, dst, 30_000)
			},
			opts: zmachine.Options{StepBudget: 100_000},
			want: zmachine.ErrInstructionLimit, output: 215,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := zmachine.New(loopStory(t, tt.body), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if st, err := m.Run(); err != nil || st != zmachine.WaitLine {
				t.Fatalf("first Run = %v, %v; want WaitLine", st, err)
			}
			if got := m.TakeOutput(); got != "Ready.\n" {
				t.Fatalf("first output %q", got)
			}
			if err := m.SendLine("go"); err != nil {
				t.Fatal(err)
			}
			st, err := m.Run()
			var rerr *zmachine.RuntimeError
			if st != zmachine.Halted || !errors.Is(err, tt.want) || !errors.As(err, &rerr) {
				t.Fatalf("Run = %v, %v; want Halted with %v in a RuntimeError", st, err, tt.want)
			}
			// SendLine ends the line of input with a newline of its own.
			if n := utf8.RuneCountInString(m.TakeOutput()) - 1; n > tt.output {
				t.Errorf("the faulting Run left %d characters, budget %d", n, tt.output)
			}
		})
	}
}
