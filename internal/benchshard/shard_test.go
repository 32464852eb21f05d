package benchshard

import (
	"errors"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		err  bool
	}{
		{"", Shard{1, 1}, false},
		{"1/2", Shard{1, 2}, false},
		{" 3/3 ", Shard{3, 3}, false},
		{"0/2", Shard{}, true},
		{"3/2", Shard{}, true},
		{"1/0", Shard{}, true},
		{"a/2", Shard{}, true},
		{"2", Shard{}, true},
	}
	for _, tc := range tests {
		got, err := Parse(tc.in)
		if tc.err {
			if !errors.Is(err, ErrBadShard) {
				t.Errorf("Parse(%q) = %v, %v; want ErrBadShard", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// TestPlanCoversEveryUnitOnce: for any number of shards, the shards' plans
// together play each model's episodes exactly once, with the seed the
// unsharded run would give them, and no shard differs from another by more
// than one episode.
func TestPlanCoversEveryUnitOnce(t *testing.T) {
	for _, models := range [][]string{nil, {"a"}, {"a", "b", "c"}} {
		for episodes := 1; episodes <= 7; episodes++ {
			for n := 1; n <= 9; n++ {
				want := Units(models, episodes, 40)
				var got []Unit
				lo, hi := len(want), 0
				for i := 1; i <= n; i++ {
					k := 0
					for _, s := range Plan(models, episodes, 40, Shard{i, n}) {
						for e := 0; e < s.Episodes; e++ {
							got = append(got, Unit{Model: s.Model, Episode: s.FirstEpisode + e, Seed: s.Seed + e})
							k++
						}
					}
					lo, hi = min(lo, k), max(hi, k)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("models %v, %d episodes, %d shards: plans play %v, want %v", models, episodes, n, got, want)
				}
				if hi-lo > 1 {
					t.Errorf("models %v, %d episodes, %d shards: shard sizes from %d to %d", models, episodes, n, lo, hi)
				}
			}
		}
	}
}

func TestPlanExample(t *testing.T) {
	got := Plan([]string{"m"}, 5, 10, Shard{2, 2})
	want := []Segment{{Model: "m", FirstEpisode: 4, Episodes: 2, Seed: 13}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Plan = %+v, want %+v", got, want)
	}
	got = Plan([]string{"a", "b"}, 3, 0, Shard{1, 2})
	want = []Segment{{Model: "a", FirstEpisode: 1, Episodes: 3, Seed: 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Plan = %+v, want %+v", got, want)
	}
}

func TestCheck(t *testing.T) {
	p := func(src, key string, i, n int, eps ...int) Part {
		return Part{Source: src, Key: key, Shard: Shard{i, n}, Episodes: eps}
	}
	tests := []struct {
		name  string
		parts []Part
		want  error
	}{
		{"whole", []Part{p("b", "k", 2, 2, 3, 4), p("a", "k", 1, 2, 1, 2)}, nil},
		{"different benchmarks", []Part{p("a", "k", 1, 2, 1, 2), p("b", "other", 2, 2, 3, 4)}, ErrMismatch},
		{"different counts", []Part{p("a", "k", 1, 2, 1, 2), p("b", "k", 2, 3, 3, 4)}, ErrMismatch},
		{"same shard twice", []Part{p("a", "k", 1, 2, 1, 2), p("b", "k", 1, 2, 3, 4)}, ErrIncomplete},
		{"shard missing", []Part{p("a", "k", 1, 2, 1, 2)}, ErrIncomplete},
		{"episode missing", []Part{p("a", "k", 1, 2, 1, 2), p("b", "k", 2, 2, 3)}, ErrIncomplete},
		{"episode twice", []Part{p("a", "k", 1, 2, 1, 2), p("b", "k", 2, 2, 2, 3, 4)}, ErrIncomplete},
		{"none", nil, ErrIncomplete},
	}
	for _, tc := range tests {
		got, err := Check(tc.parts, 4)
		if tc.want == nil {
			if err != nil || got[0].Source != "a" || got[1].Source != "b" {
				t.Errorf("%s: %v, %v", tc.name, got, err)
			}
			continue
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
}
