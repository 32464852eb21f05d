package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/lantern-if/lantern/atomicfile"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/internal/bench"
	benchshard "github.com/lantern-if/lantern/internal/bench/shard"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/sanitize"
)

// `lantern bench merge` joins the shards of one benchmark — a story's or a
// suite's — into the report one unsharded run would have made. Each shard
// is read from its work dir's manifest (bench.json), or from a lantern.db's
// last stored run; the story and configuration come from the shards.

func newBenchMergeCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "merge SHARD...",
		Short: "join the shards of one benchmark into one report",
		Long: `Joins the shards of one benchmark (lantern bench --shard i/n, or --shard auto
under a batch scheduler) into one report. Each SHARD is a shard's work dir
(--workdir: its bench.json names the stories, models and settings), a
bench.json, or a lantern.db (its last stored run). The shards must come from
the same stories, models, agent, seed, turn limit and episode count, each
shard once, each complete; otherwise merge names the culprit and exits 1.

--store adds the merged run of each story to the configured work dir's
lantern.db, where lantern bench --list and --compare find it.`,
		Example: `  lantern bench --shard 1/2 --episodes 10 --workdir A    # on one machine
  lantern bench --shard 2/2 --episodes 10 --workdir B    # on another
  lantern bench merge A B
  lantern bench merge --store --export results/ shards/*`,
	}
	fs := cmd.Flags()
	fs.String("workdir", "", "work dir that --store adds the merged runs to (default: work_dir, else $XDG_DATA_HOME/lantern)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	width := fs.Int("width", 60, "width of the charts")
	store := fs.Bool("store", false, "store the merged run in the configured work dir's lantern.db")
	export := fs.String("export", "", "write the episodes and turns as CSV and JSON Lines into this folder")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx, stdout, stderr := cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr()
		if len(args) == 0 {
			return usageErrorf("name the shards: lantern bench merge SHARD... (work dirs, bench.json or lantern.db files)")
		}
		var shards []*bench.Suite
		var sources []string
		for _, arg := range args {
			s, err := loadShard(ctx, arg)
			if err != nil {
				return err
			}
			shards = append(shards, s)
			sources = append(sources, arg)
		}
		merged, err := mergeSuites(shards, sources)
		if err != nil {
			return err
		}
		code := exitOK
		if *store {
			cfg, err := loadConfig("bench", changed(fs), a.configFile, stderr, "workdir")
			if err != nil {
				return err
			}
			if err := storeMerged(ctx, cfg, merged, stderr); err != nil {
				fmt.Fprintln(stderr, "lantern bench merge:", err)
				code = exitError
			}
		}
		if *export != "" {
			if err := exportBench(*export, merged.Runs); err != nil {
				fmt.Fprintln(stderr, "lantern bench merge:", err)
				code = exitError
			}
		}
		if len(merged.Runs) == 1 {
			// One story and model: the report a single run prints.
			r := merged.Runs[0]
			if *asJSON {
				enc := json.NewEncoder(sanitize.NewJSONWriter(stdout))
				enc.SetIndent("", "  ")
				if err := enc.Encode(r); err != nil {
					return status(exitError)
				}
			} else {
				bench.Print(stdout, r, *width)
			}
			return status(code)
		}
		if err := printSuite(stdout, merged, *asJSON, *width); err != nil {
			return err
		}
		return status(code)
	}
	return cmd
}

// loadShard reads one shard: a work dir's (or a named) bench.json, or the
// last run stored in a lantern.db (named, or the only one in a work dir).
func loadShard(ctx context.Context, arg string) (*bench.Suite, error) {
	path := arg
	fi, err := os.Stat(path)
	if err != nil && filepath.Base(path) == "lantern.db" {
		// A work dir's lantern.db sits in its story's folder: the work
		// dir itself holds the manifest.
		if m := filepath.Join(filepath.Dir(path), manifestName); fileExists(m) {
			path, fi, err = m, nil, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("shard %q: %w", arg, err)
	}
	if fi != nil && fi.IsDir() {
		switch m := filepath.Join(path, manifestName); {
		case fileExists(m):
			path = m
		case fileExists(filepath.Join(path, "lantern.db")):
			path = filepath.Join(path, "lantern.db")
		default:
			dbs, _ := filepath.Glob(filepath.Join(path, "*", "lantern.db"))
			if len(dbs) != 1 {
				return nil, fmt.Errorf("shard %q: no %s and not one story's lantern.db in it (found %d): not a bench work dir", arg, manifestName, len(dbs))
			}
			path = dbs[0]
		}
	}
	if filepath.Base(path) == manifestName || strings.HasSuffix(path, ".json") {
		data, err := atomicfile.ReadRegular(path, maxReportBytes)
		if err != nil {
			return nil, fmt.Errorf("shard %q: %w", arg, err)
		}
		rep, s, err := bench.Read(data)
		if err != nil {
			return nil, fmt.Errorf("shard %q: %s: %w", arg, path, err)
		}
		if s == nil { // a report --json printed
			s = singleSuite(rep, shardTotal(rep))
		}
		return s, nil
	}
	rep, err := lastBenchReport(ctx, arg, path)
	if err != nil {
		return nil, err
	}
	return singleSuite(rep, shardTotal(rep)), nil
}

// shardTotal is the episodes of the benchmark a run played a part of.
func shardTotal(rep *bench.Report) int {
	if rep.Shard != nil {
		return rep.Shard.Total
	}
	return rep.Requested
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// lastBenchReport reads the last bench run stored in a lantern.db, of
// whichever story it is.
func lastBenchReport(ctx context.Context, arg, path string) (*bench.Report, error) {
	md5, err := lastBenchStory(ctx, path)
	if err != nil {
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
		return nil, fmt.Errorf("shard %q: no bench run is stored in %s", arg, path)
	}
	rep, err := storedReport(ctx, db, runs[len(runs)-1].ID)
	if err != nil {
		return nil, fmt.Errorf("shard %q: %w", arg, err)
	}
	rep.DB = path
	return rep, nil
}

// lastBenchStory is the story md5 of the last bench run in a lantern.db.
func lastBenchStory(ctx context.Context, path string) (string, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return "", err
	}
	defer db.Close()
	var md5 string
	err = db.QueryRowContext(ctx, `SELECT story_md5 FROM bench_runs ORDER BY id DESC LIMIT 1`).Scan(&md5)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("no bench run is stored in %s", path)
	}
	if err != nil {
		return "", fmt.Errorf("%s: not a Lantern database with bench runs: %w", path, err)
	}
	return md5, nil
}

// suiteKey is what every shard of one benchmark has in common.
func suiteKey(s *bench.Suite) string {
	var stories []string
	for _, st := range s.Stories {
		stories = append(stories, st.Name+"="+st.MD5)
	}
	return fmt.Sprintf("stories %s, models %q, agent %s, label %q, seed %d, %d turns, %d episodes",
		strings.Join(stories, " "), s.Models, s.Agent, s.Label, s.Seed, s.MaxTurns, s.Episodes)
}

// mergeSuites joins shards into the suite one unsharded run would have
// made: every story and model's episodes in order, the results computed
// over all of them. Shards that are not all the parts of one benchmark,
// each once and complete, are refused.
func mergeSuites(shards []*bench.Suite, sources []string) (*bench.Suite, error) {
	for i, s := range shards {
		if !s.Complete {
			why := firstOf(s.Error, "it did not finish")
			return nil, fmt.Errorf("%s: the shard is incomplete (%s); re-run it: %w", sources[i], why, benchshard.ErrIncomplete)
		}
	}
	first := shards[0]
	units := len(first.Stories) * max(len(first.Models), 1) * first.Episodes
	var parts []benchshard.Part
	for i, s := range shards {
		p := benchshard.Part{Source: sources[i], Key: suiteKey(s), Shard: benchshard.Shard{Index: 1, Count: 1}}
		if s.Shard != nil {
			p.Shard = benchshard.Shard{Index: s.Shard.Index, Count: s.Shard.Count}
		}
		for _, r := range s.Runs {
			si, mi := runPlace(s, r)
			if si < 0 || mi < 0 {
				return nil, fmt.Errorf("%s: a run of %s (model %q) is not one of the shard's stories and models: %w", sources[i], r.Story, benchModel(r), benchshard.ErrMismatch)
			}
			for _, e := range r.Episodes {
				p.Episodes = append(p.Episodes, (si*max(len(s.Models), 1)+mi)*s.Episodes+e.Episode)
			}
		}
		parts = append(parts, p)
	}
	if _, err := benchshard.Check(parts, units); err != nil {
		return nil, err
	}
	if err := sameSetup(shards, sources); err != nil {
		return nil, err
	}
	out := &bench.Suite{Format: bench.FormatVersion, Lantern: first.Lantern, Label: first.Label, Agent: first.Agent, Stories: first.Stories,
		Models: first.Models, Episodes: first.Episodes, Seed: first.Seed, Seeds: first.Seeds, MaxTurns: first.MaxTurns, Complete: true,
		Started: first.Started, Ended: first.Ended}
	groups := map[[2]int][]*bench.Report{}
	for _, s := range shards {
		if s.Started.Before(out.Started) {
			out.Started = s.Started
		}
		if s.Ended.After(out.Ended) {
			out.Ended = s.Ended
		}
		if s.Lantern != out.Lantern {
			out.Lantern = "mixed: " + out.Lantern + ", " + s.Lantern
		}
		for _, r := range s.Runs {
			si, mi := runPlace(s, r)
			groups[[2]int{si, mi}] = append(groups[[2]int{si, mi}], r)
		}
	}
	for si := range first.Stories {
		for mi := range max(len(first.Models), 1) {
			if g := groups[[2]int{si, mi}]; len(g) > 0 {
				out.Runs = append(out.Runs, mergeRuns(g, first.Episodes))
			}
		}
	}
	out.Compute()
	return out, nil
}

// sameSetup refuses shards whose runs with one model were made
// differently (protocol, profile, roles' sampling, settings, a model's
// digest): they are not parts of one benchmark. Their servers may differ.
func sameSetup(shards []*bench.Suite, sources []string) error {
	type first struct {
		p      *bench.Provenance
		source string
	}
	seen := map[int]first{}
	for i, s := range shards {
		for _, r := range s.Runs {
			_, mi := runPlace(s, r)
			f, ok := seen[mi]
			if !ok || f.p == nil {
				seen[mi] = first{r.Provenance, sources[i]}
				continue
			}
			if d := bench.SetupDiffers(f.p, r.Provenance); d != "" {
				return fmt.Errorf("%s: %s was played otherwise than in %s (%s): %w", sources[i], r.Story, f.source, d, benchshard.ErrMismatch)
			}
		}
	}
	return nil
}

// runPlace is the index of a run's story and model in its suite (-1: not
// there).
func runPlace(s *bench.Suite, r *bench.Report) (int, int) {
	si, mi := -1, -1
	for i, st := range s.Stories {
		if st.MD5 == r.StoryMD5 {
			si = i
		}
	}
	for i, m := range s.Models {
		if m == benchModel(r) {
			mi = i
		}
	}
	if len(s.Models) == 0 {
		mi = 0
	}
	return si, mi
}

// mergeRuns joins the parts of one story and model's episodes into the
// report of the run that played them all.
func mergeRuns(reps []*bench.Report, total int) *bench.Report {
	first := reps[0]
	out := &bench.Report{Label: first.Label, Story: first.Story, StoryMD5: first.StoryMD5, Release: first.Release, MaxScore: first.MaxScore,
		Agent: first.Agent, Models: first.Models, Host: first.Host, Seed: first.Seed, MaxTurns: first.MaxTurns, Requested: total,
		Complete: true, Started: first.Started, Ended: first.Ended, Format: bench.FormatVersion, Lantern: first.Lantern, WorkDir: first.WorkDir}
	var errs []string
	var provs []*bench.Provenance
	for _, r := range reps {
		out.Episodes = append(out.Episodes, r.Episodes...)
		out.Dropped += r.Dropped
		out.DroppedPrompt += r.DroppedPrompt
		provs = append(provs, r.Provenance)
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
		if r.WorkDir != out.WorkDir {
			out.WorkDir = "" // and in work dirs of their own
		}
		for role, ms := range r.RoleWallMS {
			if out.RoleWallMS == nil {
				out.RoleWallMS = map[string]float64{}
			}
			out.RoleWallMS[role] += ms
		}
	}
	slices.SortStableFunc(out.Episodes, func(a, b bench.Episode) int { return a.Episode - b.Episode })
	for _, e := range out.Episodes {
		out.Seeds = append(out.Seeds, out.EpisodeSeed(e))
	}
	out.Error = strings.Join(errs, "; ")
	out.Summary = bench.Summarize(out.Episodes)
	out.Roles = bench.MergeRoles(reps)
	out.RolePrompt = bench.MergeRolePrompt(reps)
	bench.CountedPrompt(out)
	out.Provenance = bench.MergeProvenance(provs)
	return out
}

// benchRunRow is a report as lantern.db stores a bench run (the range of
// its episodes rows left to the caller).
func benchRunRow(r *bench.Report) (rundb.BenchRun, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return rundb.BenchRun{}, err
	}
	all := r.Summary[len(r.Summary)-1]
	return rundb.BenchRun{Label: r.Label, Agent: r.Agent, Model: benchModel(r), Episodes: len(r.Episodes), Score: all.Score,
		Complete: r.Complete, Started: r.Started, Ended: r.Ended, Report: data}, nil
}

// storeMerged adds each merged run to the configured work dir's index.
func storeMerged(ctx context.Context, cfg *config.Config, s *bench.Suite, stderr io.Writer) error {
	for _, r := range s.Runs {
		run, err := benchRunRow(r)
		if err != nil {
			return err
		}
		id, path, err := indexBenchRun(ctx, cfg, r.Story, r.Release, r.StoryMD5, run)
		if err != nil {
			return err
		}
		r.ID, r.Index = id, path
		fmt.Fprintf(stderr, "lantern bench merge: %s stored as run %d in %s\n", r.Story, id, path)
	}
	return nil
}
