package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/game_files/bindings"
	"github.com/lantern-if/lantern/internal/bench"
	benchshard "github.com/lantern-if/lantern/internal/bench/shard"
	"github.com/lantern-if/lantern/internal/logfile"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/sanitize"
	"github.com/spf13/pflag"
)

// A bench suite plays several stories (and, for a model sweep, several
// models) one after the other, each story and model a run of its own in
// the suite's work dir, and reports per game and overall. The suite's
// manifest (bench.json in its work dir) is the whole report; bench merge
// reads the shards' manifests.

// manifestName is the suite's report in its work dir.
const manifestName = "bench.json"

// roleClock sums the time spent waiting on each role's model calls, and
// their prompt tokens.
type roleClock struct {
	mu     sync.Mutex
	by     map[string]time.Duration
	tokens map[string]int
	any    bool
}

// add wraps a call observer so that each call's latency and prompt tokens
// are counted too.
func (c *roleClock) add(next func(llm.CallMetrics)) func(llm.CallMetrics) {
	return func(m llm.CallMetrics) {
		c.mu.Lock()
		if c.by == nil {
			c.by, c.tokens = map[string]time.Duration{}, map[string]int{}
		}
		c.by[m.Role] += m.Latency
		c.tokens[m.Role] += m.PromptTokens
		c.tokens["all"] += m.PromptTokens
		c.any = true
		c.mu.Unlock()
		next(m)
	}
}

// prompt is each role's prompt tokens, and "all" (nil: no call).
func (c *roleClock) prompt() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.any {
		return nil
	}
	out := make(map[string]int, len(c.tokens))
	for r, n := range c.tokens {
		out[r] = n
	}
	return out
}

func (c *roleClock) ms() map[string]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.any {
		return nil
	}
	out := map[string]float64{}
	for r, d := range c.by {
		out[r] = float64(d.Microseconds()) / 1000
	}
	return out
}

// suiteStory is a story of the suite as named: path "" is the built-in
// demo.
type suiteStory struct {
	path string
	info bench.SuiteStory
}

// storyExt reports whether a file name ends like a story file.
func storyExt(name string) bool {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(name)), ".")
	for _, e := range storyExtensions() {
		if ext == e {
			return true
		}
	}
	return false
}

// suiteStories resolves the --story values: a folder stands for every
// story file in it that has a binding (sorted by name), "demo" (when no
// file goes by that name) for the built-in demo, anything else for the
// story file it names. No value: the configured story.
func suiteStories(args []string, configured, workDir string) ([]suiteStory, error) {
	if len(args) == 0 {
		args = []string{configured}
	}
	bs, err := env.LoadBindings(bindings.FS())
	if err != nil {
		return nil, err
	}
	var out []suiteStory
	add := func(path string) error {
		story, name, err := openStory(path, workDir)
		if err != nil {
			return err
		}
		info := story.Info()
		b := bs.For(info.MD5)
		out = append(out, suiteStory{path: path, info: bench.SuiteStory{Name: filepath.Base(name), Path: path, MD5: info.MD5,
			Release: info.Release, MaxScore: b.MaxScore}})
		return nil
	}
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			entries, err := os.ReadDir(a)
			if err != nil {
				return nil, fmt.Errorf("story folder %q: %w", a, err)
			}
			n := len(out)
			for _, e := range entries {
				if e.IsDir() || !storyExt(e.Name()) {
					continue
				}
				p := filepath.Join(a, e.Name())
				st, err := loadStory(p)
				if err != nil || bs.For(st.Info().MD5).IsGeneric() {
					continue // not a story, or one without a binding
				}
				if err := add(p); err != nil {
					return nil, err
				}
			}
			if len(out) == n {
				return nil, usageErrorf("story folder %q holds no story file with a binding", a)
			}
			continue
		}
		path := a
		if a == "demo" {
			if _, _, err := openStory(a, workDir); err != nil {
				path = ""
			}
		}
		if err := add(path); err != nil {
			return nil, err
		}
	}
	seen := map[string]string{}
	for _, s := range out {
		if prev, ok := seen[s.info.MD5]; ok {
			return nil, usageErrorf("%s and %s are the same story (md5 %s): name it once", prev, s.info.Name, s.info.MD5)
		}
		seen[s.info.MD5] = s.info.Name
	}
	return out, nil
}

// storyBase is a story's name without its extension: the name of its
// walkthrough in a script folder.
func storyBase(name string) string {
	return strings.TrimSuffix(name, filepath.Ext(name))
}

// agentFor is the agent spec one story plays with: script:DIR stands for
// DIR/<story name>.txt.
func agentFor(spec, storyName string) string {
	dir, ok := strings.CutPrefix(spec, "script:")
	if !ok {
		return spec
	}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return "script:" + filepath.Join(dir, storyBase(storyName)+".txt")
	}
	return spec
}

// splitModels reads --model a,b,c; "" is one run with the configured
// models.
func splitModels(v string) []string {
	var out []string
	for _, m := range strings.Split(v, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// prepareShardDir readies a shard's --workdir: empty (its log aside), or a
// former attempt's (it holds a manifest), which is cleared so that a
// re-run shard starts clean. A folder with other files is refused: a
// shard deletes what is in its work dir.
func prepareShardDir(dir string, stderr io.Writer) error {
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
		return usageErrorf("shard work dir %s holds %s and is no shard's: a shard needs a work dir of its own (it clears it on a re-run)", dir, strings.Join(other, ", "))
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
	return writeSuiteManifest(dir, &bench.Suite{Format: bench.FormatVersion, Lantern: version(), Error: "the shard is playing, or stopped before its end",
		Started: time.Now()})
}

func writeSuiteManifest(dir string, s *bench.Suite) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, manifestName), append(data, '\n'), 0o644, false); err != nil {
		return fmt.Errorf("write the bench manifest: %w", err)
	}
	return nil
}

// singleSuite is the suite of one story and one model a single run is.
func singleSuite(r *bench.Report, episodes int) *bench.Suite {
	s := &bench.Suite{Format: bench.FormatVersion, Lantern: r.Lantern, Label: r.Label, Agent: r.Agent, Episodes: episodes, Seed: r.Seed,
		MaxTurns: r.MaxTurns, Complete: r.Complete, Error: r.Error, Started: r.Started, Ended: r.Ended, Runs: []*bench.Report{r},
		Stories: []bench.SuiteStory{{Name: r.Story, MD5: r.StoryMD5, Release: r.Release, MaxScore: r.MaxScore}}, Models: []string{benchModel(r)}}
	for e := 1; e <= episodes; e++ {
		s.Seeds = append(s.Seeds, r.Seed+e-1)
	}
	if r.Shard != nil {
		s.Shard = &bench.ShardInfo{Index: r.Shard.Index, Count: r.Shard.Count}
	}
	s.Compute()
	return s
}

func benchModel(r *bench.Report) string {
	if r.Models == nil {
		return ""
	}
	return r.Models[config.RoleAgent]
}

// exportBench writes the runs' episodes and turns as CSV and JSON Lines
// into dir.
func exportBench(dir string, runs []*bench.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	lantern := version()
	if len(runs) > 0 && runs[0].Lantern != "" {
		lantern = runs[0].Lantern
	}
	eps, turns := bench.EpisodeRows(lantern, runs), bench.TurnRows(runs)
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

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// suiteRequest is what a suite run was asked to play.
type suiteRequest struct {
	set      map[string]string // the flags given, story and model aside
	stories  []string
	models   []string
	cfgFile  string
	seedFile string
}

// playSegment plays a suite's segment: when a walkthrough runs out inside
// an episode (the script agent stops its session), the segment's later
// episodes play on in a new session of the same work dir, each with its
// own seed, and the parts make one report.
func playSegment(ctx context.Context, cfg *config.Config, o benchOptions, seg benchSegment, stderr io.Writer) (*bench.Report, int, error) {
	var parts []*bench.Report
	code := exitOK
	next := seg
	for next.count > 0 {
		if next.first != seg.first {
			// A later part numbers its episodes from where the last
			// stopped, as a shard does.
			sh := bench.ShardInfo{Index: 1, Count: 1, Total: o.episodes}
			if seg.shard != nil {
				sh = *seg.shard
			}
			sh.FirstEpisode = next.first
			next.shard = &sh
		}
		rep, c, err := playBench(ctx, cfg, o, next, stderr)
		if err != nil {
			return nil, c, err
		}
		parts = append(parts, rep)
		code = max(code, c)
		n := len(rep.Episodes)
		if c != exitOK || rep.Error != "" || ctx.Err() != nil || n == 0 || n >= next.count || rep.Episodes[n-1].Ending != "script ended" {
			break
		}
		next.first, next.count, next.seed = next.first+n, next.count-n, next.seed+n
	}
	if len(parts) == 1 {
		return parts[0], code, nil
	}
	rep := mergeRuns(parts, o.episodes)
	rep.Requested, rep.Shard, rep.DB, rep.ID = seg.count, seg.shard, parts[0].DB, parts[len(parts)-1].ID
	rep.Complete = len(rep.Episodes) == seg.count && rep.Error == "" && ctx.Err() == nil
	return rep, code, nil
}

// storySeeds gives each story its first episode's seed: the one a seed
// file names for it (by file name, or by name without extension), else
// the suite's. A seed file is a JSON object whose values are seeds or
// objects with a "seed" (Jericho's walkthroughs.json is one).
func storySeeds(path string, stories []suiteStory, seed int) error {
	named := map[string]int{}
	if path != "" {
		data, err := atomicfile.ReadRegular(path, maxReportBytes)
		if err != nil {
			return usageErrorf("--seed-file: %v", err)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return usageErrorf("--seed-file %s: want a JSON object of story names: %v", path, err)
		}
		for k, v := range raw {
			var n int
			if json.Unmarshal(v, &n) != nil {
				var obj struct {
					Seed *int `json:"seed"`
				}
				if json.Unmarshal(v, &obj) != nil || obj.Seed == nil {
					return usageErrorf("--seed-file %s: %q is neither a seed nor an object with a seed", path, k)
				}
				n = *obj.Seed
			}
			named[k] = n
		}
	}
	for i := range stories {
		st := &stories[i].info
		st.Seed = seed
		if n, ok := named[st.Name]; ok {
			st.Seed = n
		} else if n, ok := named[storyBase(st.Name)]; ok {
			st.Seed = n
		}
	}
	return nil
}

// runSuite plays a suite (or its shard) and reports it.
func runSuite(ctx context.Context, req suiteRequest, o benchOptions, stdout, stderr io.Writer) error {
	shard, err := benchshard.ParseAny(o.shard, os.Getenv)
	if err != nil {
		return usageErrorf("%v", err)
	}
	load := func(story, model string) (*config.Config, error) {
		set := map[string]string{}
		for k, v := range req.set {
			set[k] = v
		}
		delete(set, "story")
		delete(set, "model")
		if story != "" {
			set["story"] = story
		}
		if model != "" {
			set["model"] = model
		}
		return loadConfig("bench", set, req.cfgFile, io.Discard, "workdir", "story", "model", "max-turns", "seed", "profile", "api", "base-url")
	}
	base, err := load("", "")
	if err != nil {
		return err
	}
	// A suite plays its segments one after another, on the first host of
	// the list that answers (each game on one host, its prompt cache).
	_, live, err := benchHosts(ctx, base, o, stderr)
	if err != nil {
		return err
	}
	if len(live) > 1 {
		fmt.Fprintf(stderr, "lantern bench: a suite plays on one host, %s; a single story's episodes spread over several\n", live[0])
	}
	stories, err := suiteStories(req.stories, base.Story, base.WorkDir)
	if err != nil {
		return err
	}
	if err := storySeeds(req.seedFile, stories, base.Loop.Seed); err != nil {
		return err
	}
	models := req.models
	if len(models) == 0 {
		m := ""
		if !strings.HasPrefix(o.agent, "script:") {
			m = base.Model(config.RoleAgent)
		}
		models = []string{m}
	}
	suite := &bench.Suite{Format: bench.FormatVersion, Lantern: version(), Label: o.label, Agent: o.agent, Models: models, Episodes: o.episodes,
		Seed: base.Loop.Seed, MaxTurns: base.Loop.MaxTurnsPerEpisode, Started: time.Now()}
	if suite.Label == "" {
		if dir, ok := strings.CutPrefix(o.agent, "script:"); ok {
			suite.Label = "script " + filepath.Base(dir)
		} else {
			suite.Label = strings.Join(models, ", ")
		}
	}
	for e := 1; e <= o.episodes; e++ {
		suite.Seeds = append(suite.Seeds, suite.Seed+e-1)
	}
	for _, s := range stories {
		suite.Stories = append(suite.Stories, s.info)
	}
	var seeds []int
	for _, st := range stories {
		seeds = append(seeds, st.info.Seed)
	}
	plan := benchshard.PlanSuite(seeds, len(models), o.episodes, shard)
	if len(plan) == 0 {
		return usageErrorf("shard %s of %d episode(s) has nothing to play: use fewer shards", shard, len(stories)*len(models)*o.episodes)
	}
	if !shard.Whole() {
		suite.Shard = &bench.ShardInfo{Index: shard.Index, Count: shard.Count}
	}
	dir := base.WorkDir
	if o.workdirSet {
		if err := prepareShardDir(dir, stderr); err != nil {
			return err
		}
	} else {
		parent := filepath.Join(base.WorkDir, "bench")
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return fmt.Errorf("bench work dir: %w", err)
		}
		if dir, err = os.MkdirTemp(parent, time.Now().UTC().Format("20060102-150405")+"-suite-"); err != nil {
			return fmt.Errorf("bench work dir: %w", err)
		}
	}
	suite.WorkDir = dir
	fmt.Fprintf(stderr, "lantern bench: suite of %d game(s), %d model(s), %d episode(s) each", len(stories), len(models), o.episodes)
	if suite.Shard != nil {
		fmt.Fprintf(stderr, "; shard %s: %d run(s)", shard, len(plan))
	}
	fmt.Fprintf(stderr, "; work dir %s\n", dir)
	code := exitOK
	for _, seg := range plan {
		st, model := stories[seg.Story], models[seg.Model]
		cfg, err := load(st.path, model)
		if err != nil {
			return err
		}
		if len(live) > 0 {
			cfg = pinHost(cfg, live[0])
		}
		so := o
		so.agent = agentFor(o.agent, st.info.Name)
		so.label = suite.Label
		so.modelSet = model != "" && o.modelSet
		so.playDir = dir
		if len(models) > 1 {
			so.playDir = filepath.Join(dir, fmt.Sprintf("model-%d-%s", seg.Model+1, unsafeName.ReplaceAllString(model, "_")))
		}
		var info *bench.ShardInfo
		if suite.Shard != nil {
			info = &bench.ShardInfo{Index: shard.Index, Count: shard.Count, FirstEpisode: seg.FirstEpisode, Total: o.episodes}
		}
		cfg.Loop.Seed = st.info.Seed
		rep, c, err := playSegment(ctx, cfg, so, benchSegment{first: seg.FirstEpisode, count: seg.Episodes, seed: seg.Seed, shard: info}, stderr)
		if err != nil {
			suite.Error = fmt.Sprintf("%s: %v", st.info.Name, err)
			code = exitError
			break
		}
		suite.Runs = append(suite.Runs, rep)
		if rep.Error != "" || c != exitOK || !rep.Complete {
			suite.Error = fmt.Sprintf("%s: %s", st.info.Name, firstOf(rep.Error, "incomplete"))
			code = max(code, c, exitError)
			break
		}
		if ctx.Err() != nil {
			break
		}
	}
	suite.Ended = time.Now()
	suite.Complete = suite.Error == "" && ctx.Err() == nil && len(suite.Runs) == len(plan)
	if ctx.Err() != nil && suite.Error == "" {
		suite.Error = "interrupted"
		code = exitError
	}
	suite.Compute()
	if err := writeSuiteManifest(dir, suite); err != nil {
		fmt.Fprintln(stderr, "lantern bench:", errText(err))
		code = exitError
	} else {
		fmt.Fprintf(stderr, "lantern bench: report in %s\n", filepath.Join(dir, manifestName))
	}
	if o.export != "" {
		if err := exportBench(o.export, suite.Runs); err != nil {
			fmt.Fprintln(stderr, "lantern bench:", errText(err))
			code = exitError
		}
	}
	if err := printSuite(stdout, suite, o.json, o.width); err != nil {
		return err
	}
	if suite.Error != "" {
		fmt.Fprintf(stderr, "lantern bench: the suite stopped early: %s\n", suite.Error)
	}
	return status(code)
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func printSuite(w io.Writer, s *bench.Suite, asJSON bool, width int) error {
	if asJSON {
		enc := json.NewEncoder(sanitize.NewJSONWriter(w))
		enc.SetIndent("", "  ")
		if err := enc.Encode(s); err != nil {
			return status(exitError)
		}
		return nil
	}
	bench.PrintSuite(w, s, width)
	return nil
}

// suiteFlags are bench's flags for stories, logging and exports (and the
// session flags it shares with run, --story repeatable).
func suiteFlags(fs *pflag.FlagSet) (stories *[]string, logFile, export *string) {
	stories = fs.StringArray("story", nil, "story file, or a folder of them (every story with a binding); repeat for a suite (default: story in the configuration, else the built-in demo)")
	fs.String("workdir", "", "work dir, one folder per story inside (default: work_dir, else $XDG_DATA_HOME/lantern)")
	fs.String("model", "", "model for every role; a,b,c sweeps the models in one report (default: the configured ones)")
	fs.Int("seed", 0, "random seed (frotz -s semantics); episode n uses seed+n-1 (default: loop.seed)")
	logFile = fs.String("log-file", "", "write the log here, - for stderr (default: lantern.log in the work dir)")
	export = fs.String("export", "", "write the episodes and turns as CSV and JSON Lines into this folder")
	fs.String("seed-file", "", "a suite's seeds by story: a JSON object of story name to seed (or to an object with a seed, as Jericho's walkthroughs.json)")
	return stories, logFile, export
}

// isDir reports whether the only value names a folder.
func isDir(values []string) bool {
	if len(values) != 1 {
		return false
	}
	fi, err := os.Stat(values[0])
	return err == nil && fi.IsDir()
}

// benchLog is bench's log: --log-file's file, stderr for "-" (where batch
// schedulers collect it), else the work dir's lantern.log.
func benchLog(path, workDir, level string, cfg *config.Config, stderr io.Writer) (*slog.Logger, func(), error) {
	switch path {
	case "":
		return commandLog("bench", workDir, level, cfg)
	case "-":
		lv, err := logfile.Level(level, os.LookupEnv)
		if err != nil {
			return nil, nil, err
		}
		log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lv})).With("cmd", "bench")
		log.Info("start", "version", version(), "pid", os.Getpid(), "workdir", workDir, "level", lv.String())
		return log, func() {}, nil
	}
	lv, err := logfile.Level(level, os.LookupEnv)
	if err != nil {
		return nil, nil, err
	}
	log, c, err := logfile.New(path, lv, logfile.DefaultMaxBytes)
	if err != nil {
		return nil, nil, err
	}
	log = log.With("cmd", "bench")
	log.Info("start", "version", version(), "pid", os.Getpid(), "workdir", workDir, "level", lv.String())
	return log, func() { c.Close() }, nil
}
