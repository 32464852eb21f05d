package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/lantern-if/lantern/internal/sanitize"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/benchshard"
	"github.com/lantern-if/lantern/memory/rundb"
)

// A bench run plays in a work dir of its own (so Memories.md and the
// knowledge of normal play neither help nor suffer from it, and runs are
// comparable), may play one shard of a benchmark split across machines,
// and `lantern bench merge` joins the shards' databases into one report.

// benchPlan applies --shard: the episodes this run plays and the seed its
// first one takes. An unsharded run plays them all.
func benchPlan(shardText string, episodes, seed int, model string) (first, count, firstSeed int, info *bench.ShardInfo, err error) {
	s, err := benchshard.Parse(shardText)
	if err != nil {
		return 0, 0, 0, nil, err
	}
	plan := benchshard.Plan([]string{model}, episodes, seed, s)
	if len(plan) == 0 {
		return 0, 0, 0, nil, fmt.Errorf("shard %s of %d episode(s) has nothing to play: use fewer shards", s, episodes)
	}
	seg := plan[0] // one model per run: a shard is one segment
	if !s.Whole() {
		info = &bench.ShardInfo{Index: s.Index, Count: s.Count, FirstEpisode: seg.FirstEpisode, Total: episodes}
	}
	return seg.FirstEpisode, seg.Episodes, seg.Seed, info, nil
}

// benchWorkDir is where a run plays: the --workdir given, else a fresh
// directory under the story's folder of the configured work dir.
func benchWorkDir(cfg *config.Config, storyName string, release int, chosen bool) (string, error) {
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

// indexBenchRun stores an isolated run's report in the configured work
// dir's lantern.db too, where --list and --compare find every run.
func indexBenchRun(ctx context.Context, cfg *config.Config, storyName string, release int, md5 string, run rundb.BenchRun) (int64, string, error) {
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

func newBenchMergeCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "merge DB...",
		Short: "join the shards of one benchmark into one report",
		Long: `Joins the shards of one benchmark (lantern bench --shard i/n on each
machine) into one report. Each DB is a shard's lantern.db, or the work dir
its run printed; the last run stored in each is taken. The shards must come
from the same story, agent, seed and turn limit, and play every episode once.`,
		Example: `  lantern bench --shard 1/2 --episodes 10    # on one machine
  lantern bench --shard 2/2 --episodes 10    # on another
  lantern bench merge a/lantern.db b/lantern.db`,
	}
	fs := cmd.Flags()
	fs.String("story", "", "story file (default: the configured one, else the built-in demo)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	width := fs.Int("width", 60, "width of the score chart")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx, stdout, stderr := cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr()
		if len(args) == 0 {
			return usageErrorf("name the shards' databases: lantern bench merge DB...")
		}
		if err := checkIntFlags(fs, intRange{"width", 10, 1000}); err != nil {
			return err
		}
		cfg, err := loadConfig("bench", changed(fs), a.configFile, stderr, "story")
		if err != nil {
			return err
		}
		story, name, err := openStory(cfg.Story, cfg.WorkDir)
		if err != nil {
			return err
		}
		info := story.Info()
		var reps []*bench.Report
		for _, arg := range args {
			rep, err := lastBenchReport(ctx, arg, session.StoryDir(name, info.Release), info.MD5)
			if err != nil {
				return err
			}
			reps = append(reps, rep)
		}
		merged, err := mergeBenchReports(reps)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(sanitize.NewJSONWriter(stdout))
			enc.SetIndent("", "  ")
			return enc.Encode(merged)
		}
		bench.Print(stdout, merged, *width)
		return nil
	}
	return cmd
}

// lastBenchReport reads the last run stored in a shard's database: the
// lantern.db named, or the one in a work dir (directly or in its story's
// folder).
func lastBenchReport(ctx context.Context, arg, storyDir, md5 string) (*bench.Report, error) {
	path := arg
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		path = filepath.Join(arg, "lantern.db")
		if _, err := os.Stat(path); err != nil {
			path = filepath.Join(arg, storyDir, "lantern.db")
		}
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("shard %q: %w", arg, err)
	}
	db, err := rundb.OpenRunDB(path, md5)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	runs, err := db.BenchRuns(ctx)
	if err != nil {
		return nil, fmt.Errorf("shard %q: %w", arg, err)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("shard %q: no bench run of this story is stored in %s", arg, path)
	}
	rep, err := loadBenchRun(ctx, db, fmt.Sprint(runs[len(runs)-1].ID))
	if err != nil {
		return nil, fmt.Errorf("shard %q: %w", arg, err)
	}
	rep.DB = path
	return rep, nil
}

// shardKey is what every shard of one benchmark has in common.
func shardKey(r *bench.Report) string {
	total := r.Requested
	if r.Shard != nil {
		total = r.Shard.Total
	}
	var models []string
	for role, m := range r.Models {
		models = append(models, role+"="+m)
	}
	sort.Strings(models)
	return fmt.Sprintf("story %s, agent %s, label %q, seed %d, %d turns, %d episodes, models %s",
		r.StoryMD5, r.Agent, r.Label, r.Seed, r.MaxTurns, total, strings.Join(models, " "))
}

// mergeBenchReports joins shards into the report one unsharded run would
// have made: the episodes in order, the metrics computed over all of them.
func mergeBenchReports(reps []*bench.Report) (*bench.Report, error) {
	var parts []benchshard.Part
	for i, r := range reps {
		p := benchshard.Part{Source: r.DB, Key: shardKey(r), Shard: benchshard.Shard{Index: 1, Count: 1}}
		if p.Source == "" {
			p.Source = fmt.Sprintf("shard %d", i+1)
		}
		if r.Shard != nil {
			p.Shard = benchshard.Shard{Index: r.Shard.Index, Count: r.Shard.Count}
		}
		for _, e := range r.Episodes {
			p.Episodes = append(p.Episodes, e.Episode)
		}
		parts = append(parts, p)
	}
	total := reps[0].Requested
	if reps[0].Shard != nil {
		total = reps[0].Shard.Total
	}
	if _, err := benchshard.Check(parts, total); err != nil {
		return nil, err
	}
	first := reps[0]
	out := &bench.Report{Label: first.Label, Story: first.Story, StoryMD5: first.StoryMD5, Release: first.Release, MaxScore: first.MaxScore,
		Agent: first.Agent, Models: first.Models, Host: first.Host, Seed: first.Seed, MaxTurns: first.MaxTurns, Requested: total,
		Complete: true, Started: first.Started, Ended: first.Ended}
	var errs []string
	for _, r := range reps {
		out.Episodes = append(out.Episodes, r.Episodes...)
		out.Dropped += r.Dropped
		out.Complete = out.Complete && r.Complete
		if r.Error != "" {
			errs = append(errs, r.Error)
		}
		if r.Started.Before(out.Started) {
			out.Started = r.Started
		}
		if r.Ended.After(out.Ended) {
			out.Ended = r.Ended
		}
		if r.Host != out.Host {
			out.Host = "" // the shards ran against different servers
		}
	}
	slices.SortStableFunc(out.Episodes, func(a, b bench.Episode) int { return a.Episode - b.Episode })
	out.Error = strings.Join(errs, "; ")
	out.Summary = bench.Summarize(out.Episodes)
	return out, nil
}
