package play

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/bench/shard"
	"github.com/lantern-if/lantern/memory/rundb"
)

// A bench run plays in a work dir of its own (so Memories.md and the
// knowledge of normal play neither help nor suffer from it, and runs are
// comparable), may play one shard of a benchmark split across machines,
// and writes its report where bench merge and --compare read it: its
// bench.json, its row in lantern.db (and the configured work dir's index).

// runPlan applies --shard to a single story's run: the episodes this run
// plays and the seed its first one takes. An unsharded run plays them all.
func runPlan(shardText string, episodes, seed int, model string) (segment, error) {
	s, err := shard.ParseAny(shardText, os.Getenv)
	if err != nil {
		return segment{}, err
	}
	plan := shard.Plan([]string{model}, episodes, seed, s)
	if len(plan) == 0 {
		return segment{}, fmt.Errorf("shard %s of %d episode(s) has nothing to play: use fewer shards", s, episodes)
	}
	seg := plan[0] // one model per run: a shard is one segment
	out := segment{first: seg.FirstEpisode, count: seg.Episodes, seed: seg.Seed}
	if !s.Whole() {
		out.shard = &bench.ShardInfo{Index: s.Index, Count: s.Count, FirstEpisode: seg.FirstEpisode, Total: episodes}
	}
	return out, nil
}

// runWorkDir is where a run plays: the --workdir given, else a fresh
// directory under the story's folder of the configured work dir.
func runWorkDir(cfg *config.Config, storyName string, release int, chosen bool) (string, error) {
	if chosen {
		return cfg.WorkDir, nil
	}
	parent := filepath.Join(cfg.WorkDir, session.StoryDir(storyName, release), "bench")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("bench work dir: %w", err)
	}
	dir, err := os.MkdirTemp(parent, time.Now().UTC().Format("20060102-150405")+"-")
	if err != nil {
		return "", fmt.Errorf("bench work dir: %w", err)
	}
	return dir, nil
}

// prepareShardDir readies a shard's --workdir: empty (its log aside), or a
// former attempt's (it holds a manifest), which is cleared so that a
// re-run shard starts clean. A folder with other files is refused: a
// shard deletes what is in its work dir.
func prepareShardDir(dir, version string, stderr io.Writer) error {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("shard work dir: %w", err)
	}
	ours := false
	var other []string
	for _, e := range entries {
		switch {
		case e.Name() == manifestName:
			ours = true
		case strings.HasPrefix(e.Name(), "lantern.log"):
		default:
			other = append(other, e.Name())
		}
	}
	if len(other) > 0 && !ours {
		return usagef("shard work dir %s holds %s and is no shard's: a shard needs a work dir of its own (it clears it on a re-run)", dir, strings.Join(other, ", "))
	}
	if len(other) > 0 {
		fmt.Fprintf(stderr, "lantern bench: clearing the former attempt in %s\n", dir)
	}
	for _, name := range other {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("clear shard work dir: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("shard work dir: %w", err)
	}
	// Until the shard ends, its manifest says it has not.
	return writeManifest(dir, &bench.Suite{Format: bench.FormatVersion, Lantern: version, Error: "the shard is playing, or stopped before its end",
		Started: time.Now()})
}

// writeManifest writes a suite's bench.json in dir.
func writeManifest(dir string, s *bench.Suite) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, manifestName), append(data, '\n'), 0o644, false); err != nil {
		return fmt.Errorf("write the bench manifest: %w", err)
	}
	return nil
}

// writeRunManifest writes a single story's run as bench.json (a suite of
// one run, as bench merge and --compare read it): in the run's own work
// dir (a fresh one, or a shard's), else, with --workdir (a work dir that
// normal play may share), in the story's folder there, replacing the last
// run's. It says where on stderr.
func writeRunManifest(rep *bench.Report, o Options, shardDir bool) error {
	dir := rep.WorkDir
	if o.WorkdirSet && !shardDir && rep.DB != "" {
		dir = filepath.Dir(rep.DB)
	}
	if err := writeManifest(dir, singleSuite(rep, o.Episodes)); err != nil {
		return err
	}
	fmt.Fprintf(o.Stderr, "lantern bench: report in %s\n", filepath.Join(dir, manifestName))
	return nil
}

// singleSuite is the suite of one story and one model a single run is.
func singleSuite(r *bench.Report, episodes int) *bench.Suite {
	s := &bench.Suite{Format: bench.FormatVersion, Lantern: r.Lantern, Label: r.Label, Agent: r.Agent, Episodes: episodes, Seed: r.Seed,
		MaxTurns: r.MaxTurns, Complete: r.Complete, Error: r.Error, Started: r.Started, Ended: r.Ended, Runs: []*bench.Report{r},
		Stories: []bench.SuiteStory{{Name: r.Story, MD5: r.StoryMD5, Release: r.Release, MaxScore: r.MaxScore}}, Models: []string{agentModel(r)}}
	for e := 1; e <= episodes; e++ {
		s.Seeds = append(s.Seeds, r.Seed+e-1)
	}
	if r.Shard != nil {
		s.Shard = &bench.ShardInfo{Index: r.Shard.Index, Count: r.Shard.Count}
	}
	s.Compute()
	return s
}

// agentModel is the model a run's agent played ("": none).
func agentModel(r *bench.Report) string {
	if r.Models == nil {
		return ""
	}
	return r.Models[config.RoleAgent]
}

// runRow is a report as lantern.db stores a bench run (the range of its
// episodes rows left to the caller).
func runRow(r *bench.Report) (rundb.BenchRun, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return rundb.BenchRun{}, err
	}
	all := r.Summary[len(r.Summary)-1]
	return rundb.BenchRun{Label: r.Label, Agent: r.Agent, Model: agentModel(r), Episodes: len(r.Episodes), Score: all.Score,
		Complete: r.Complete, Started: r.Started, Ended: r.Ended, Report: data}, nil
}

// indexRun stores an isolated run's report in the configured work dir's
// lantern.db too, where --list and --compare find every run.
func indexRun(ctx context.Context, cfg *config.Config, storyName string, release int, md5 string, run rundb.BenchRun) (int64, string, error) {
	dir := filepath.Join(cfg.WorkDir, session.StoryDir(storyName, release))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, "", fmt.Errorf("index bench run: %w", err)
	}
	path := filepath.Join(dir, "lantern.db")
	db, err := rundb.OpenRunDB(path, md5)
	if err != nil {
		return 0, "", err
	}
	defer db.Close()
	run.FirstEpisode, run.LastEpisode = 0, 0 // the episodes are in the run's own database
	id, err := db.SaveBenchRun(ctx, run)
	return id, path, err
}

// export writes the runs' episodes and turns as CSV and JSON Lines into
// dir (version: Lantern's, when the runs do not say theirs).
func export(dir string, runs []*bench.Report, version string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if len(runs) > 0 && runs[0].Lantern != "" {
		version = runs[0].Lantern
	}
	eps, turns := bench.EpisodeRows(version, runs), bench.TurnRows(runs)
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"episodes.csv", func(w io.Writer) error { return bench.WriteEpisodesCSV(w, eps) }},
		{"episodes.jsonl", func(w io.Writer) error { return bench.WriteJSONL(w, eps) }},
		{"turns.csv", func(w io.Writer) error { return bench.WriteTurnsCSV(w, turns) }},
		{"turns.jsonl", func(w io.Writer) error { return bench.WriteJSONL(w, turns) }},
	}
	for _, f := range files {
		var b strings.Builder
		if err := f.write(&b); err != nil {
			return fmt.Errorf("export %s: %w", f.name, err)
		}
		if err := atomicfile.Write(filepath.Join(dir, f.name), []byte(b.String()), 0o644, false); err != nil {
			return fmt.Errorf("export %s: %w", f.name, err)
		}
	}
	return nil
}
