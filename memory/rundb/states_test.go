package rundb

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// fakeState is a state like a turn's: a machine part that changes in a few
// places each turn and an engine JSON part that grows.
func fakeState(turn, engineLen int) (machine, engine []byte) {
	rng := rand.New(rand.NewPCG(1, 2))
	machine = make([]byte, 1400)
	for i := range machine {
		machine[i] = byte(rng.IntN(256))
	}
	for i := range turn {
		machine[(i*37)%len(machine)] ^= byte(turn)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"turn":%d,"rooms":[`, turn)
	for i := 0; b.Len() < engineLen; i++ {
		fmt.Fprintf(&b, `{"id":%d,"name":"Room %d","visits":%d},`, i, i, (turn+i)%7)
	}
	b.WriteString(`]}`)
	return machine, []byte(b.String())
}

func join(m, e []byte) []byte { return append(append([]byte(nil), m...), e...) }

func TestStateCodecRoundTrips(t *testing.T) {
	big1, big2 := bytes.Repeat([]byte("abcdefgh"), 12000), bytes.Repeat([]byte("abcdefgh"), 12000)
	copy(big2[5000:], "inserted text that shifts nothing")
	big3 := append(append([]byte("a prefix that shifts every later byte by its length"), big1[:60000]...), big1[70000:]...)
	m1, e1 := fakeState(1, 9000)
	m2, e2 := fakeState(2, 9100)
	tests := []struct {
		name       string
		raw, prev  []byte
		machineLen int
		maxLen     int // the blob's length at most (0: not checked)
	}{
		{"empty keyframe", nil, nil, 0, 0},
		{"empty delta", []byte{}, []byte("before"), 0, 0},
		{"keyframe", join(m1, e1), nil, len(m1), 0},
		{"delta of the next turn", join(m2, e2), join(m1, e1), len(m2), 1500},
		{"delta against itself", join(m1, e1), join(m1, e1), len(m1), 250},
		{"delta of a large state", big2, big1, 10, 400},
		{"delta of a large shifted state", big3, big1, 0, 1200},
		{"delta against an empty state", join(m1, e1), []byte{}, len(m1), 0},
		{"delta longer than its base", big1, []byte("short"), 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			blob, err := encodeState(tc.raw, tc.machineLen, tc.prev)
			if err != nil {
				t.Fatal(err)
			}
			if isKeyframe(blob) != (tc.prev == nil) {
				t.Errorf("keyframe %v, want %v", isKeyframe(blob), tc.prev == nil)
			}
			if tc.maxLen > 0 && len(blob) > tc.maxLen {
				t.Errorf("blob of %d bytes for %d, want at most %d", len(blob), len(tc.raw), tc.maxLen)
			}
			var d stateDecoder
			raw, ml, err := d.decode(blob, tc.prev)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(raw, tc.raw) || ml != tc.machineLen {
				t.Fatalf("decoded %d bytes (machine %d), want %d (machine %d)", len(raw), ml, len(tc.raw), tc.machineLen)
			}
			t.Logf("%d bytes -> %d", len(tc.raw), len(blob))
		})
	}
}

func TestStateCodecRejectsCorruptBlobs(t *testing.T) {
	m1, e1 := fakeState(1, 9000)
	m2, e2 := fakeState(2, 9000)
	prev, raw := join(m1, e1), join(m2, e2)
	key, err := encodeState(raw, len(m2), nil)
	if err != nil {
		t.Fatal(err)
	}
	delta, err := encodeState(raw, len(m2), prev)
	if err != nil {
		t.Fatal(err)
	}
	with := func(b []byte, i int, v byte) []byte {
		b = bytes.Clone(b)
		b[i] = v
		return b
	}
	tests := []struct {
		name       string
		blob, prev []byte
		want       string
	}{
		{"empty", nil, nil, "empty"},
		{"unknown kind", with(key, 0, 'X'), nil, "unknown kind"},
		{"truncated header", key[:3], nil, "truncated header"},
		{"huge length", append([]byte{kindKey, 0, 0xff, 0xff, 0xff, 0xff, 0x7f}, key[3:]...), nil, "out of range"},
		{"machine longer than the state", append([]byte{kindKey, 0x10, 0x01}, key[3:]...), nil, "out of range"},
		{"delta without its base", delta, nil, "without its previous state"},
		{"truncated keyframe", key[:len(key)-5], nil, "unusable"},
		{"truncated delta", delta[:len(delta)-5], prev, "unusable"},
		{"trailing bytes", append(bytes.Clone(key), 0), nil, "after the state"},
		{"flipped body byte", with(key, len(key)/2, key[len(key)/2]^0x40), nil, "unusable"},
		{"flipped checksum", with(key, 5, key[5]^1), nil, "checksum"},
		{"delta against the wrong base", delta, raw, "unusable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d stateDecoder
			_, _, err := d.decode(tc.blob, tc.prev)
			if !errors.Is(err, ErrState) {
				t.Fatalf("err = %v, want ErrState", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

// FuzzDecodeState: any blob decodes to a state or to an ErrState, never a
// panic.
func FuzzDecodeState(f *testing.F) {
	m1, e1 := fakeState(1, 3000)
	m2, e2 := fakeState(2, 3000)
	prev := join(m1, e1)
	key, _ := encodeState(join(m2, e2), len(m2), nil)
	delta, _ := encodeState(join(m2, e2), len(m2), prev)
	f.Add(key, false)
	f.Add(delta, true)
	f.Add([]byte{kindDelta, 0, 1, 0, 0, 0, 0, 1, 0}, true)
	f.Fuzz(func(t *testing.T, blob []byte, withPrev bool) {
		var base []byte
		if withPrev {
			base = prev
		}
		var d stateDecoder
		raw, ml, err := d.decode(blob, base)
		if err != nil {
			if !errors.Is(err, ErrState) {
				t.Fatalf("err = %v, want ErrState", err)
			}
			return
		}
		if ml > len(raw) {
			t.Fatalf("machine length %d of a %d-byte state", ml, len(raw))
		}
	})
}

// BenchmarkEncodeState is the cost a turn's state adds to recording it: a
// delta of an 11 KB state.
func BenchmarkEncodeState(b *testing.B) {
	m1, e1 := fakeState(1, 9600)
	m2, e2 := fakeState(2, 9600)
	prev, raw := join(m1, e1), join(m2, e2)
	for b.Loop() {
		if _, err := encodeState(raw, len(m2), prev); err != nil {
			b.Fatal(err)
		}
	}
}
