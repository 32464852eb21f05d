package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/internal/bench"
	benchshard "github.com/lantern-if/lantern/internal/bench/shard"
	"github.com/lantern-if/lantern/memory/rundb"
)

// A bench run plays in a work dir of its own (so Memories.md and the
// knowledge of normal play neither help nor suffer from it, and runs are
// comparable), may play one shard of a benchmark split across machines,
// and `lantern bench merge` joins the shards' databases into one report.

// benchPlan applies --shard: the episodes this run plays and the seed its
// first one takes. An unsharded run plays them all.
func benchPlan(shardText string, episodes, seed int, model string) (first, count, firstSeed int, info *bench.ShardInfo, err error) {
	s, err := benchshard.ParseAny(shardText, os.Getenv)
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
