package zmachine_test

import (
	"bytes"
	"testing"

	"github.com/lantern-if/lantern/zmachine"
)

// A probe copy plays a command as the machine itself would from the same
// point, and leaves the machine untouched; ResetTo brings either back.
func TestProbeCopyPlaysAsTheMachine(t *testing.T) {
	s, cmds := zork1(t)
	m, err := zmachine.New(s, zmachine.Options{Seed: zork1Seed})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds[:5] {
		m.Run()
		if err := m.SendLine(c); err != nil {
			t.Fatal(err)
		}
	}
	m.Run()
	m.TakeOutput()
	before := m.DynamicMemory()
	p := m.ProbePoint()
	c, err := m.ProbeCopy(nil, p)
	if err != nil {
		t.Fatal(err)
	}
	play := func(x *zmachine.Machine, cmd string) (string, []byte) {
		if err := x.SendLine(cmd); err != nil {
			t.Fatal(err)
		}
		if _, err := x.Run(); err != nil {
			t.Fatal(err)
		}
		return x.TakeOutput(), x.DynamicMemory()
	}
	for _, cmd := range []string{"take leaflet", "read leaflet", "north"} {
		got, gotMem := play(c, cmd)
		if !bytes.Equal(m.DynamicMemory(), before) {
			t.Fatalf("%q on the copy changed the machine", cmd)
		}
		want, wantMem := play(m, cmd)
		if got != want || !bytes.Equal(gotMem, wantMem) {
			t.Errorf("%q: copy says %q, machine %q (memory equal: %v)", cmd, got, want, bytes.Equal(gotMem, wantMem))
		}
		for _, x := range []*zmachine.Machine{m, c} {
			if err := x.ResetTo(p); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(x.DynamicMemory(), before) {
				t.Fatalf("after %q ResetTo left memory changed", cmd)
			}
		}
	}
	if again, err := m.ProbeCopy(c, p); err != nil || again != c {
		t.Errorf("ProbeCopy did not reuse the copy: %v", err)
	}
	if got := m.AppendBytes(nil, -2, 3); !bytes.Equal(got, []byte{0, 0, m.Byte(0), m.Byte(1), m.Byte(2)}) {
		t.Errorf("AppendBytes(-2, 3) = %v", got)
	}
}
