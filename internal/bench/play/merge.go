package play

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/bench/shard"
	"github.com/lantern-if/lantern/memory/rundb"
)

// `lantern bench merge` joins the shards of one benchmark — a story's or a
// suite's — into the report one unsharded run would have made. Each shard
// is read from its work dir's manifest (bench.json), or from a lantern.db's
// last stored run; the story and configuration come from the shards.

// MergeOptions are bench merge's.
type MergeOptions struct {
	Shards []string // work dirs, bench.json or lantern.db files
	// Store, when set, gives the configuration whose work dir's lantern.db
	// the merged runs are added to.
	Store   func() (*config.Config, error)
	Export  string // a folder for the CSV and JSON Lines ("": none)
	JSON    bool
	Width   int
	Version string // Lantern's
	Stdout  io.Writer
	Stderr  io.Writer
}

// Merge joins the shards into one report, stores and exports it as asked,
// and prints it: a single run's report for one story and model, else the
// suite's.
func Merge(ctx context.Context, o MergeOptions) error {
	if len(o.Shards) == 0 {
		return usagef("name the shards: lantern bench merge SHARD... (work dirs, bench.json or lantern.db files)")
	}
	var shards []*bench.Suite
	for _, arg := range o.Shards {
		s, err := loadShard(ctx, arg)
		if err != nil {
			return err
		}
		shards = append(shards, s)
	}
	merged, err := mergeSuites(shards, o.Shards)
	if err != nil {
		return err
	}
	code := exitOK
	if o.Store != nil {
		cfg, err := o.Store()
		if err != nil {
			return err
		}
		if err := storeMerged(ctx, cfg, merged, o.Stderr); err != nil {
			fmt.Fprintln(o.Stderr, "lantern bench merge:", err)
			code = exitError
		}
	}
	if o.Export != "" {
		if err := export(o.Export, merged.Runs, o.Version); err != nil {
			fmt.Fprintln(o.Stderr, "lantern bench merge:", err)
			code = exitError
		}
	}
	if len(merged.Runs) == 1 {
		// One story and model: the report a single run prints.
		r := merged.Runs[0]
		if o.JSON {
			if err := printJSON(o.Stdout, r); err != nil {
				return err
			}
		} else {
			bench.Print(o.Stdout, r, o.Width)
		}
		return done(code)
	}
	if err := printSuite(o.Stdout, merged, o.JSON, o.Width); err != nil {
		return err
	}
	return done(code)
}

// loadShard reads one shard: a work dir's (or a named) bench.json, or the
// last run stored in a lantern.db (named, or the only one in a work dir).
func loadShard(ctx context.Context, arg string) (*bench.Suite, error) {
	path, err := shardFile(arg)
	if err != nil {
		return nil, err
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
	rep, err := lastReport(ctx, arg, path)
	if err != nil {
		return nil, err
	}
	return singleSuite(rep, shardTotal(rep)), nil
}

// shardFile is the file a shard argument names: its bench.json, or a
// lantern.db.
func shardFile(arg string) (string, error) {
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
		return "", fmt.Errorf("shard %q: %w", arg, err)
	}
	if fi == nil || !fi.IsDir() {
		return path, nil
	}
	if m := filepath.Join(path, manifestName); fileExists(m) {
		return m, nil
	}
	if db := filepath.Join(path, "lantern.db"); fileExists(db) {
		return db, nil
	}
	dbs, _ := filepath.Glob(filepath.Join(path, "*", "lantern.db"))
	if len(dbs) != 1 {
		return "", fmt.Errorf("shard %q: no %s and not one story's lantern.db in it (found %d): not a bench work dir", arg, manifestName, len(dbs))
	}
	return dbs[0], nil
}

// shardTotal is the episodes of the benchmark a run played a part of.
func shardTotal(rep *bench.Report) int {
	if rep.Shard != nil {
		return rep.Shard.Total
	}
	return rep.Requested
}

// lastReport reads the last bench run stored in a lantern.db, of
// whichever story it is.
func lastReport(ctx context.Context, arg, path string) (*bench.Report, error) {
	md5, err := lastStory(ctx, path)
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

// lastStory is the story md5 of the last bench run in a lantern.db.
func lastStory(ctx context.Context, path string) (string, error) {
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
	if err := checkShards(shards, sources); err != nil {
		return nil, err
	}
	first := shards[0]
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

// checkShards refuses shards that are not all the parts of one benchmark,
// each once and complete, made the same way.
func checkShards(shards []*bench.Suite, sources []string) error {
	for i, s := range shards {
		if !s.Complete {
			why := firstOf(s.Error, "it did not finish")
			return fmt.Errorf("%s: the shard is incomplete (%s); re-run it: %w", sources[i], why, shard.ErrIncomplete)
		}
	}
	first := shards[0]
	units := len(first.Stories) * max(len(first.Models), 1) * first.Episodes
	var parts []shard.Part
	for i, s := range shards {
		p := shard.Part{Source: sources[i], Key: suiteKey(s), Shard: shard.Shard{Index: 1, Count: 1}}
		if s.Shard != nil {
			p.Shard = shard.Shard{Index: s.Shard.Index, Count: s.Shard.Count}
		}
		for _, r := range s.Runs {
			si, mi := runPlace(s, r)
			if si < 0 || mi < 0 {
				return fmt.Errorf("%s: a run of %s (model %q) is not one of the shard's stories and models: %w", sources[i], r.Story, agentModel(r), shard.ErrMismatch)
			}
			for _, e := range r.Episodes {
				p.Episodes = append(p.Episodes, (si*max(len(s.Models), 1)+mi)*s.Episodes+e.Episode)
			}
		}
		parts = append(parts, p)
	}
	if _, err := shard.Check(parts, units); err != nil {
		return err
	}
	return sameSetup(shards, sources)
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
				return fmt.Errorf("%s: %s was played otherwise than in %s (%s): %w", sources[i], r.Story, f.source, d, shard.ErrMismatch)
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
		if m == agentModel(r) {
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

// storeMerged adds each merged run to the configured work dir's index.
func storeMerged(ctx context.Context, cfg *config.Config, s *bench.Suite, stderr io.Writer) error {
	for _, r := range s.Runs {
		run, err := runRow(r)
		if err != nil {
			return err
		}
		id, path, err := indexRun(ctx, cfg, r.Story, r.Release, r.StoryMD5, run)
		if err != nil {
			return err
		}
		r.ID, r.Index = id, path
		fmt.Fprintf(stderr, "lantern bench merge: %s stored as run %d in %s\n", r.Story, id, path)
	}
	return nil
}
