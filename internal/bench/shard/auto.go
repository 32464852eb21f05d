package shard

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrNoScheduler: --shard auto where no batch scheduler's index is set.
var ErrNoScheduler = errors.New("no scheduler index: want SLURM_ARRAY_TASK_ID (a Slurm job array) or JOB_COMPLETION_INDEX with LANTERN_SHARD_COUNT (a Kubernetes Indexed Job)")

// Auto reads the shard from a batch scheduler's environment (getenv is
// os.Getenv or a fake), for --shard auto or --shard auto/N. Schedulers
// number tasks from 0 (or from the array's first ID); shards count from
// 1, so task k of n is shard k+1 of n.
//
//   - Slurm job array: SLURM_ARRAY_TASK_ID, counted from
//     SLURM_ARRAY_TASK_MIN (0 when unset); the count is
//     SLURM_ARRAY_TASK_COUNT, else MAX-MIN+1. An array with gaps
//     (--array=0,2) is refused: its IDs are not 0..n-1.
//   - Kubernetes Indexed Job: JOB_COMPLETION_INDEX (0-based); the count is
//     LANTERN_SHARD_COUNT (the Job's completions, which Kubernetes does not
//     export itself).
//
// N in auto/N overrides the count the environment gives.
func Auto(text string, getenv func(string) string) (Shard, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), "auto")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: not auto", text)
	}
	want := 0
	if rest != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(rest, "/"))
		if !strings.HasPrefix(rest, "/") || err != nil || n < 1 {
			return Shard{}, fmt.Errorf("shard %q: want auto or auto/N: %w", text, ErrBadShard)
		}
		want = n
	}
	num := func(name string) (int, bool, error) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, false, fmt.Errorf("%s=%q is not a number: %w", name, v, ErrBadShard)
		}
		return n, true, nil
	}
	var index, count int
	if id, ok, err := num("SLURM_ARRAY_TASK_ID"); err != nil {
		return Shard{}, err
	} else if ok {
		lo, _, err := num("SLURM_ARRAY_TASK_MIN")
		if err != nil {
			return Shard{}, err
		}
		hi, hiOK, err := num("SLURM_ARRAY_TASK_MAX")
		if err != nil {
			return Shard{}, err
		}
		n, nOK, err := num("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return Shard{}, err
		}
		index = id - lo
		switch {
		case nOK && hiOK && n != hi-lo+1:
			return Shard{}, fmt.Errorf("the Slurm array has gaps (%d tasks from %d to %d): use --array=0-%d: %w", n, lo, hi, n-1, ErrBadShard)
		case nOK:
			count = n
		case hiOK:
			count = hi - lo + 1
		}
	} else if k, ok, err := num("JOB_COMPLETION_INDEX"); err != nil {
		return Shard{}, err
	} else if ok {
		index = k
		n, _, err := num("LANTERN_SHARD_COUNT")
		if err != nil {
			return Shard{}, err
		}
		count = n
	} else {
		return Shard{}, ErrNoScheduler
	}
	if want > 0 {
		count = want
	}
	if count < 1 {
		return Shard{}, fmt.Errorf("the scheduler gives task %d but no task count (set LANTERN_SHARD_COUNT or use --shard auto/N): %w", index, ErrBadShard)
	}
	if index < 0 || index >= count {
		return Shard{}, fmt.Errorf("task %d is not one of 0..%d: %w", index, count-1, ErrBadShard)
	}
	return Shard{Index: index + 1, Count: count}, nil
}

// ParseAny reads --shard: "i/n" (1-based), "auto" or "auto/N" (from the
// scheduler's environment), or "" (the whole benchmark).
func ParseAny(text string, getenv func(string) string) (Shard, error) {
	if strings.HasPrefix(strings.TrimSpace(text), "auto") {
		return Auto(text, getenv)
	}
	s, err := Parse(text)
	if err != nil && strings.HasPrefix(strings.TrimSpace(text), "0/") {
		return Shard{}, fmt.Errorf("%w (shards count from 1; for a scheduler's 0-based task index use --shard auto)", err)
	}
	return s, err
}

// SuiteUnit is one episode of one story with one model.
type SuiteUnit struct {
	Story   int // index into the suite's stories
	Model   int // index into the suite's models
	Episode int // 1-based
	Seed    int
}

// SuiteUnits lists a suite's work in its fixed order: story by story,
// model by model, episode by episode; seeds holds each story's seed (its
// first episode's).
func SuiteUnits(seeds []int, models, episodes int) []SuiteUnit {
	var out []SuiteUnit
	for s, seed := range seeds {
		for m := 0; m < max(models, 1); m++ {
			for e := 1; e <= episodes; e++ {
				out = append(out, SuiteUnit{Story: s, Model: m, Episode: e, Seed: seed + e - 1})
			}
		}
	}
	return out
}

// SuiteSegment is consecutive episodes of one story with one model: what
// one engine session plays.
type SuiteSegment struct {
	Story, Model int
	FirstEpisode int
	Episodes     int
	Seed         int // the first episode's
	FirstUnit    int // the position of its first unit in SuiteUnits, 0-based
}

// PlanSuite is the shard's part of a suite: a contiguous, balanced slice of
// SuiteUnits (the first len%n shards take one more), grouped into segments.
func PlanSuite(seeds []int, models, episodes int, s Shard) []SuiteSegment {
	units := SuiteUnits(seeds, models, episodes)
	lo, hi := s.bounds(len(units))
	var out []SuiteSegment
	for k := lo; k < hi; k++ {
		u := units[k]
		if j := len(out) - 1; j >= 0 && out[j].Story == u.Story && out[j].Model == u.Model && out[j].FirstEpisode+out[j].Episodes == u.Episode {
			out[j].Episodes++
			continue
		}
		out = append(out, SuiteSegment{Story: u.Story, Model: u.Model, FirstEpisode: u.Episode, Episodes: 1, Seed: u.Seed, FirstUnit: k})
	}
	return out
}
