package zmachine

// Random numbers exactly as frotz 2.54 makes them (src/common/random.c):
// a linear congruential generator over a 32-bit state, or, after a seed below
// 1000, a counting sequence 0, 1, …, n-1, 0, … (the "predictable" mode of
// §2.4). The arithmetic here is ours; the constants and the modes are frotz's
// so that dfrotz transcripts replay identically.

type rng struct {
	a        uint32 // generator state (frotz: long A)
	interval uint16 // counting mode period, 0 in random mode
	counter  uint16
	userSeed int // the -s seed; negative for the clock
}

// seed sets up the generator as frotz does at start-up with -s seed.
func (r *rng) seed(s int) {
	r.userSeed = s
	r.reseed(0)
}

// restart reseeds as frotz's restart does.
func (r *rng) restart() { r.reseed(0) }

// reseed is frotz's seed_random: 0 asks the interface for a seed (the -s
// value, else the clock), below 1000 selects counting mode, else seeds.
func (r *rng) reseed(v int) {
	switch {
	case v == 0:
		s := r.userSeed
		if s < 0 {
			s = int(clock() & 0x7fff)
		}
		r.a = uint32(s)
		r.interval = 0
	case v < 1000:
		r.counter = 0
		r.interval = uint16(v)
	default:
		r.a = uint32(v)
		r.interval = 0
	}
}

// random is the random opcode: n > 0 gives 1..n; n <= 0 reseeds and gives 0.
func (r *rng) random(n int16) uint16 {
	if n <= 0 {
		r.reseed(-int(n))
		return 0
	}
	var x uint16
	if r.interval != 0 {
		x = r.counter
		r.counter++
		if r.counter == r.interval {
			r.counter = 0
		}
	} else {
		r.a = r.a*0x015a4e35 + 1
		x = uint16((r.a >> 16) & 0x7fff)
	}
	return x%uint16(n) + 1
}
