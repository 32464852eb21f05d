package shard

import (
	"errors"
	"reflect"
	"strings"
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

func TestAuto(t *testing.T) {
	tests := []struct {
		name string
		text string
		env  map[string]string
		want Shard
		err  string
	}{
		{"slurm 0-based", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "4"}, Shard{1, 4}, ""},
		{"slurm last", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3"}, Shard{4, 4}, ""},
		{"slurm from 1", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4"}, Shard{2, 4}, ""},
		{"slurm gaps", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "2"}, Shard{}, "gaps"},
		{"slurm no count", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "2"}, Shard{}, "no task count"},
		{"slurm count given", "auto/8", map[string]string{"SLURM_ARRAY_TASK_ID": "7"}, Shard{8, 8}, ""},
		{"kubernetes", "auto", map[string]string{"JOB_COMPLETION_INDEX": "0", "LANTERN_SHARD_COUNT": "3"}, Shard{1, 3}, ""},
		{"kubernetes count given", "auto/3", map[string]string{"JOB_COMPLETION_INDEX": "2"}, Shard{3, 3}, ""},
		{"kubernetes out of range", "auto", map[string]string{"JOB_COMPLETION_INDEX": "3", "LANTERN_SHARD_COUNT": "3"}, Shard{}, "not one of 0..2"},
		{"not a number", "auto", map[string]string{"JOB_COMPLETION_INDEX": "x"}, Shard{}, "not a number"},
		{"no scheduler", "auto", nil, Shard{}, "no scheduler index"},
		{"bad count", "auto/0", map[string]string{"JOB_COMPLETION_INDEX": "0"}, Shard{}, "auto/N"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseAny(tc.text, func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, %v; want an error saying %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	if _, err := ParseAny("0/4", func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "--shard auto") {
		t.Errorf("0/4: %v, want a pointer to --shard auto", err)
	}
}

// TestPlanSuiteCoversEveryUnitOnce: the shards' segments of a suite play
// every (story, model, episode) once, in contiguous runs with their seeds.
func TestPlanSuiteCoversEveryUnitOnce(t *testing.T) {
	for _, tc := range []struct{ stories, models, episodes, shards int }{{2, 1, 2, 4}, {3, 2, 3, 5}, {1, 1, 1, 1}, {38, 1, 2, 4}, {2, 3, 1, 7}} {
		seeds := make([]int, tc.stories)
		for i := range seeds {
			seeds[i] = 10 + 3*i
		}
		units := SuiteUnits(seeds, tc.models, tc.episodes)
		seen := make([]int, len(units))
		sizes := []int{}
		for i := 1; i <= tc.shards; i++ {
			n := 0
			for _, seg := range PlanSuite(seeds, tc.models, tc.episodes, Shard{i, tc.shards}) {
				for k := 0; k < seg.Episodes; k++ {
					u := units[seg.FirstUnit+k]
					if u.Story != seg.Story || u.Model != seg.Model || u.Episode != seg.FirstEpisode+k || u.Seed != seg.Seed+k {
						t.Fatalf("%+v: segment %+v, unit %d is %+v", tc, seg, k, u)
					}
					seen[seg.FirstUnit+k]++
					n++
				}
			}
			sizes = append(sizes, n)
		}
		for k, c := range seen {
			if c != 1 {
				t.Errorf("%+v: unit %d played %d times", tc, k, c)
			}
		}
		lo, hi := len(units), 0
		for _, s := range sizes {
			lo, hi = min(lo, s), max(hi, s)
		}
		if hi-lo > 1 {
			t.Errorf("%+v: unbalanced shards %v", tc, sizes)
		}
	}
}
