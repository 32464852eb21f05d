// Package shard splits a benchmark's work (models × episodes, each
// episode with its own seed) across machines deterministically, and checks
// that the parts stored by the shards join back into the whole run.
package shard

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ErrBadShard: a --shard value that is not i/n with 1 <= i <= n.
var ErrBadShard = errors.New("want --shard i/n with 1 <= i <= n")

// ErrMismatch: shards that did not come from the same benchmark.
var ErrMismatch = errors.New("the shards are not parts of one benchmark")

// ErrIncomplete: shards that leave a part of the benchmark out or play a
// part twice.
var ErrIncomplete = errors.New("the shards do not cover the benchmark exactly once")

// Shard is one part of n; the zero value (and 1/1) is the whole.
type Shard struct {
	Index int `json:"index"` // 1-based
	Count int `json:"count"`
}

// Whole reports whether the shard is the entire benchmark.
func (s Shard) Whole() bool { return s.Count <= 1 }

func (s Shard) String() string {
	if s.Whole() {
		return "1/1"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Parse reads "i/n"; "" is the whole benchmark.
func Parse(text string) (Shard, error) {
	if strings.TrimSpace(text) == "" {
		return Shard{Index: 1, Count: 1}, nil
	}
	a, b, ok := strings.Cut(strings.TrimSpace(text), "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: %w", text, ErrBadShard)
	}
	return Shard{Index: i, Count: n}, nil
}

// Unit is one episode of one model: the smallest piece of work a shard
// plays.
type Unit struct {
	Model   string `json:"model"`
	Episode int    `json:"episode"` // 1-based, within the model's episodes
	Seed    int    `json:"seed"`    // the benchmark's seed + episode - 1
}

// Units lists the benchmark's work in its fixed order: model by model (in
// the order given), episode by episode.
func Units(models []string, episodes, seed int) []Unit {
	if len(models) == 0 {
		models = []string{""}
	}
	var out []Unit
	for _, m := range models {
		for e := 1; e <= episodes; e++ {
			out = append(out, Unit{Model: m, Episode: e, Seed: seed + e - 1})
		}
	}
	return out
}

// Segment is a run of consecutive episodes of one model: what one engine
// session plays (its seed is the first episode's, and each later episode
// takes the next seed).
type Segment struct {
	Model        string `json:"model"`
	FirstEpisode int    `json:"first_episode"`
	Episodes     int    `json:"episodes"`
	Seed         int    `json:"seed"`
}

// bounds is the shard's contiguous, balanced slice [lo, hi) of n units:
// the first n%Count shards take one more.
func (s Shard) bounds(n int) (lo, hi int) {
	count := max(s.Count, 1)
	i := min(max(s.Index, 1), count) - 1
	size, extra := n/count, n%count
	lo = i*size + min(i, extra)
	hi = lo + size
	if i < extra {
		hi++
	}
	return lo, hi
}

// Plan is the shard's part of the benchmark: a contiguous, balanced slice
// of the units (the first len%n shards take one more), grouped into
// segments. Every unit belongs to exactly one shard of n; a shard may be
// empty when there are fewer units than shards.
func Plan(models []string, episodes, seed int, s Shard) []Segment {
	units := Units(models, episodes, seed)
	lo, hi := s.bounds(len(units))
	var out []Segment
	for _, u := range units[lo:hi] {
		if k := len(out) - 1; k >= 0 && out[k].Model == u.Model && out[k].FirstEpisode+out[k].Episodes == u.Episode {
			out[k].Episodes++
			continue
		}
		out = append(out, Segment{Model: u.Model, FirstEpisode: u.Episode, Episodes: 1, Seed: u.Seed})
	}
	return out
}

// Part describes what one stored shard says about itself.
type Part struct {
	Source   string // where it was read from, for messages
	Key      string // what every shard of one benchmark shares (story, seed, turns, episodes, agent...)
	Shard    Shard
	Episodes []int // the benchmark's episode numbers it played
}

// Check verifies that parts are the shards of one benchmark of episodes
// episodes, each shard once, and together play every episode once. The
// parts come back ordered by shard.
func Check(parts []Part, episodes int) ([]Part, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no shards: %w", ErrIncomplete)
	}
	sorted := append([]Part(nil), parts...)
	sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].Shard.Index < sorted[b].Shard.Index })
	first := sorted[0]
	seen := map[int]string{}
	played := map[int]string{}
	for _, p := range sorted {
		if p.Key != first.Key {
			return nil, fmt.Errorf("%s and %s: %w (%s / %s)", first.Source, p.Source, ErrMismatch, first.Key, p.Key)
		}
		if p.Shard.Count != first.Shard.Count {
			return nil, fmt.Errorf("%s is shard %s but %s is shard %s: %w", first.Source, first.Shard, p.Source, p.Shard, ErrMismatch)
		}
		if src, ok := seen[p.Shard.Index]; ok {
			return nil, fmt.Errorf("%s and %s are both shard %s: %w", src, p.Source, p.Shard, ErrIncomplete)
		}
		seen[p.Shard.Index] = p.Source
		for _, e := range p.Episodes {
			if src, ok := played[e]; ok {
				return nil, fmt.Errorf("episode %d is in %s and %s: %w", e, src, p.Source, ErrIncomplete)
			}
			played[e] = p.Source
		}
	}
	n := max(first.Shard.Count, 1)
	var missing []string
	for i := 1; i <= n; i++ {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("shard %s missing: %w", strings.Join(missing, ", "), ErrIncomplete)
	}
	for e := 1; e <= episodes; e++ {
		if _, ok := played[e]; !ok {
			return nil, fmt.Errorf("episode %d was played by no shard (a shard stopped early?): %w", e, ErrIncomplete)
		}
	}
	return sorted, nil
}
