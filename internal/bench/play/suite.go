package play

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/game_files/bindings"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/bench/shard"
)

// A bench suite plays several stories (and, for a model sweep, several
// models) one after the other, each story and model a run of its own in
// the suite's work dir, and reports per game and overall. The suite's
// manifest (bench.json in its work dir) is the whole report; bench merge
// reads the shards' manifests.

// suiteStory is a story of the suite as named: path "" is the built-in
// demo.
type suiteStory struct {
	path string
	info bench.SuiteStory
}

// suiteRun is a suite being played: its stories, models, plan and report.
type suiteRun struct {
	o       Options
	shard   shard.Shard
	base    *config.Config
	live    []string // the hosts that answer (nil: the configured server)
	stories []suiteStory
	models  []string
	plan    []shard.SuiteSegment
	suite   *bench.Suite
	dir     string
}

// Suite plays a suite (or its shard) of o.Stories and o.Models, writes its
// bench.json (and the exports) and prints its report.
func Suite(ctx context.Context, o Options) error {
	s, err := newSuite(ctx, o)
	if err != nil {
		return err
	}
	if err := s.prepare(); err != nil {
		return err
	}
	code, err := s.play(ctx)
	if err != nil {
		return err
	}
	return s.report(ctx, code)
}

// newSuite reads what a suite plays: its shard, configuration, hosts,
// stories with their seeds, and models.
func newSuite(ctx context.Context, o Options) (*suiteRun, error) {
	sh, err := shard.ParseAny(o.Shard, os.Getenv)
	if err != nil {
		return nil, &UsageError{err}
	}
	s := &suiteRun{o: o, shard: sh, models: o.Models}
	if s.base, err = o.Wiring.Config("", ""); err != nil {
		return nil, err
	}
	// With several hosts that answer, the suite's games spread over them
	// (each game on one host, its prompt cache); with one, all play there.
	if _, s.live, err = benchHosts(ctx, s.base, o); err != nil {
		return nil, err
	}
	if s.stories, err = suiteStories(o.Wiring, o.Stories, s.base.Story, s.base.WorkDir); err != nil {
		return nil, err
	}
	if err := storySeeds(o.SeedFile, s.stories, s.base.Loop.Seed); err != nil {
		return nil, err
	}
	if len(s.models) == 0 {
		m := ""
		if !strings.HasPrefix(o.Agent, "script:") {
			m = s.base.Model(config.RoleAgent)
		}
		s.models = []string{m}
	}
	return s, nil
}

// prepare heads the suite's report, plans its segments and readies its
// work dir.
func (s *suiteRun) prepare() error {
	o, base := s.o, s.base
	suite := &bench.Suite{Format: bench.FormatVersion, Lantern: o.Wiring.Version, Label: o.Label, Agent: o.Agent, Models: s.models,
		Episodes: o.Episodes, Seed: base.Loop.Seed, MaxTurns: base.Loop.MaxTurnsPerEpisode, Started: time.Now()}
	if suite.Label == "" {
		if dir, ok := strings.CutPrefix(o.Agent, "script:"); ok {
			suite.Label = "script " + filepath.Base(dir)
		} else {
			suite.Label = strings.Join(s.models, ", ")
		}
	}
	for e := 1; e <= o.Episodes; e++ {
		suite.Seeds = append(suite.Seeds, suite.Seed+e-1)
	}
	var seeds []int
	for _, st := range s.stories {
		suite.Stories = append(suite.Stories, st.info)
		seeds = append(seeds, st.info.Seed)
	}
	s.suite = suite
	s.plan = shard.PlanSuite(seeds, len(s.models), o.Episodes, s.shard)
	if len(s.plan) == 0 {
		return usagef("shard %s of %d episode(s) has nothing to play: use fewer shards", s.shard, len(s.stories)*len(s.models)*o.Episodes)
	}
	if !s.shard.Whole() {
		suite.Shard = &bench.ShardInfo{Index: s.shard.Index, Count: s.shard.Count}
	}
	if err := s.workDir(); err != nil {
		return err
	}
	fmt.Fprintf(o.Stderr, "lantern bench: suite of %d game(s), %d model(s), %d episode(s) each", len(s.stories), len(s.models), o.Episodes)
	if suite.Shard != nil {
		fmt.Fprintf(o.Stderr, "; shard %s: %d run(s)", s.shard, len(s.plan))
	}
	fmt.Fprintf(o.Stderr, "; work dir %s\n", s.dir)
	return nil
}

// workDir readies where the suite plays: the --workdir given (a shard's,
// cleared), else a fresh folder under the configured work dir.
func (s *suiteRun) workDir() error {
	s.dir = s.base.WorkDir
	if s.o.WorkdirSet {
		if err := prepareShardDir(s.dir, s.o.Wiring.Version, s.o.Stderr); err != nil {
			return err
		}
	} else {
		parent := filepath.Join(s.base.WorkDir, "bench")
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return fmt.Errorf("bench work dir: %w", err)
		}
		var err error
		if s.dir, err = os.MkdirTemp(parent, time.Now().UTC().Format("20060102-150405")+"-suite-"); err != nil {
			return fmt.Errorf("bench work dir: %w", err)
		}
	}
	s.suite.WorkDir = s.dir
	return nil
}

// played is a planned segment's outcome.
type played struct {
	rep  *bench.Report
	code int
	err  error
	done bool // played (a segment not begun after a failure is not)
}

// play plays the planned segments: one after another, or, with several
// hosts that answer, on all of them at once, each host taking the next
// segment as it comes free. The runs are kept in the plan's order; the
// first that fails ends the suite there (the segments not begun by then
// are not played).
func (s *suiteRun) play(ctx context.Context) (int, error) {
	results := make([]played, len(s.plan))
	hosts := s.live
	if len(hosts) < 2 {
		for i := range s.plan {
			host := ""
			if len(hosts) == 1 {
				host = hosts[0]
			}
			results[i] = s.playAt(ctx, i, host, s.o.Stderr)
			if failed(ctx, results[i]) {
				break
			}
		}
	} else {
		s.playSpread(ctx, hosts, results)
	}
	for i, r := range results {
		if !r.done {
			break
		}
		name := s.stories[s.plan[i].Story].info.Name
		if r.err != nil {
			s.suite.Error = fmt.Sprintf("%s: %v", name, r.err)
			return exitError, nil
		}
		s.suite.Runs = append(s.suite.Runs, r.rep)
		if r.rep.Error != "" || r.code != exitOK || !r.rep.Complete {
			s.suite.Error = fmt.Sprintf("%s: %s", name, firstOf(r.rep.Error, "incomplete"))
			return max(r.code, exitError), nil
		}
	}
	return exitOK, nil
}

// playSpread plays the plan on several hosts at once, each host's lines
// prefixed with it.
func (s *suiteRun) playSpread(ctx context.Context, hosts []string, results []played) {
	k := min(len(hosts), len(s.plan))
	fmt.Fprintf(s.o.Stderr, "lantern bench: %d run(s) on %d hosts at once, each game on one host: %v\n", len(s.plan), k, hosts[:k])
	out := &lockedLines{w: s.o.Stderr}
	var mu sync.Mutex
	next, stop := 0, false
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if stop || next == len(s.plan) || ctx.Err() != nil {
			return 0, false
		}
		next++
		return next - 1, true
	}
	var wg sync.WaitGroup
	for _, host := range hosts[:k] {
		w := out.prefixed(fmt.Sprintf("[%s] ", host))
		wg.Go(func() {
			for i, ok := take(); ok; i, ok = take() {
				r := s.playAt(ctx, i, host, w)
				mu.Lock()
				results[i] = r
				stop = stop || failed(ctx, r)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// failed reports whether a segment's outcome ends the suite.
func failed(ctx context.Context, r played) bool {
	return r.err != nil || r.rep.Error != "" || r.code != exitOK || !r.rep.Complete || ctx.Err() != nil
}

// playAt plays the plan's segment i, on host ("": the configured server),
// its lines to stderr.
func (s *suiteRun) playAt(ctx context.Context, i int, host string, stderr io.Writer) played {
	seg := s.plan[i]
	st, model := s.stories[seg.Story], s.models[seg.Model]
	cfg, err := s.o.Wiring.Config(st.path, model)
	if err != nil {
		return played{code: exitError, err: err, done: true}
	}
	if host != "" {
		cfg = s.o.Wiring.PinHost(cfg, host)
	}
	so := s.o
	so.Stderr = stderr
	rep, code, err := s.playOne(ctx, cfg, so, seg, st, model)
	return played{rep: rep, code: code, err: err, done: true}
}

// playOne plays one segment of the plan: a story's episodes with a model.
func (s *suiteRun) playOne(ctx context.Context, cfg *config.Config, so Options, seg shard.SuiteSegment, st suiteStory, model string) (*bench.Report, int, error) {
	so.Agent = agentFor(s.o.Agent, st.info.Name)
	so.Label = s.suite.Label
	so.ModelSet = model != "" && s.o.ModelSet
	so.playDir = s.dir
	if len(s.models) > 1 {
		unsafe := regexp.MustCompile(`[^A-Za-z0-9._-]+`)
		so.playDir = filepath.Join(s.dir, fmt.Sprintf("model-%d-%s", seg.Model+1, unsafe.ReplaceAllString(model, "_")))
	}
	var info *bench.ShardInfo
	if s.suite.Shard != nil {
		info = &bench.ShardInfo{Index: s.shard.Index, Count: s.shard.Count, FirstEpisode: seg.FirstEpisode, Total: s.o.Episodes}
	}
	cfg.Loop.Seed = st.info.Seed
	return playParts(ctx, cfg, so, segment{first: seg.FirstEpisode, count: seg.Episodes, seed: seg.Seed, shard: info})
}

// report ends the suite: its results, its manifest, the exports and the
// printed report.
func (s *suiteRun) report(ctx context.Context, code int) error {
	suite, o := s.suite, s.o
	suite.Ended = time.Now()
	suite.Complete = suite.Error == "" && ctx.Err() == nil && len(suite.Runs) == len(s.plan)
	if ctx.Err() != nil && suite.Error == "" {
		suite.Error = "interrupted"
		code = exitError
	}
	suite.Compute()
	if err := writeManifest(s.dir, suite); err != nil {
		fmt.Fprintln(o.Stderr, "lantern bench:", errText(err))
		code = exitError
	} else {
		fmt.Fprintf(o.Stderr, "lantern bench: report in %s\n", filepath.Join(s.dir, manifestName))
	}
	if o.Export != "" {
		if err := export(o.Export, suite.Runs, o.Wiring.Version); err != nil {
			fmt.Fprintln(o.Stderr, "lantern bench:", errText(err))
			code = exitError
		}
	}
	if err := printSuite(o.Stdout, suite, o.JSON, o.Width); err != nil {
		return err
	}
	if suite.Error != "" {
		fmt.Fprintf(o.Stderr, "lantern bench: the suite stopped early: %s\n", suite.Error)
	}
	return done(code)
}

// playParts plays a suite's segment: when a walkthrough runs out inside
// an episode (the script agent stops its session), the segment's later
// episodes play on in a new session of the same work dir, each with its
// own seed, and the parts make one report.
func playParts(ctx context.Context, cfg *config.Config, o Options, seg segment) (*bench.Report, int, error) {
	var parts []*bench.Report
	code := exitOK
	next := seg
	for next.count > 0 {
		if next.first != seg.first {
			// A later part numbers its episodes from where the last
			// stopped, as a shard does.
			sh := bench.ShardInfo{Index: 1, Count: 1, Total: o.Episodes}
			if seg.shard != nil {
				sh = *seg.shard
			}
			sh.FirstEpisode = next.first
			next.shard = &sh
		}
		rep, c, err := playBench(ctx, cfg, o, next, o.Stderr)
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
	rep := mergeRuns(parts, o.Episodes)
	rep.Requested, rep.Shard, rep.DB, rep.ID = seg.count, seg.shard, parts[0].DB, parts[len(parts)-1].ID
	rep.Complete = len(rep.Episodes) == seg.count && rep.Error == "" && ctx.Err() == nil
	return rep, code, nil
}

// suiteStories resolves the --story values: a folder stands for every
// story file in it that has a binding (sorted by name), "demo" (when no
// file goes by that name) for the built-in demo, anything else for the
// story file it names. No value: the configured story.
func suiteStories(w Wiring, args []string, configured, workDir string) ([]suiteStory, error) {
	if len(args) == 0 {
		args = []string{configured}
	}
	bs, err := env.LoadBindings(bindings.FS())
	if err != nil {
		return nil, err
	}
	var out []suiteStory
	add := func(path string) error {
		story, name, err := w.OpenStory(path, workDir)
		if err != nil {
			return err
		}
		info := story.Info()
		out = append(out, suiteStory{path: path, info: bench.SuiteStory{Name: filepath.Base(name), Path: path, MD5: info.MD5,
			Release: info.Release, MaxScore: bs.For(info.MD5).MaxScore}})
		return nil
	}
	for _, a := range args {
		if IsDir(a) {
			paths, err := folderStories(w, bs, a)
			if err != nil {
				return nil, err
			}
			for _, p := range paths {
				if err := add(p); err != nil {
					return nil, err
				}
			}
			continue
		}
		path := a
		if a == "demo" {
			if _, _, err := w.OpenStory(a, workDir); err != nil {
				path = ""
			}
		}
		if err := add(path); err != nil {
			return nil, err
		}
	}
	return out, sameStory(out)
}

// folderStories are the story files of a folder that have a binding,
// sorted by name.
func folderStories(w Wiring, bs env.Bindings, dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("story folder %q: %w", dir, err)
	}
	var out []string
	for _, e := range entries {
		ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(e.Name())), ".")
		if e.IsDir() || !slices.Contains(w.StoryExts, ext) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		st, err := w.LoadStory(p)
		if err != nil || bs.For(st.Info().MD5).IsGeneric() {
			continue // not a story, or one without a binding
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, usagef("story folder %q holds no story file with a binding", dir)
	}
	return out, nil
}

// sameStory refuses a story named twice.
func sameStory(stories []suiteStory) error {
	seen := map[string]string{}
	for _, s := range stories {
		if prev, ok := seen[s.info.MD5]; ok {
			return usagef("%s and %s are the same story (md5 %s): name it once", prev, s.info.Name, s.info.MD5)
		}
		seen[s.info.MD5] = s.info.Name
	}
	return nil
}

// StoryBase is a story's name without its extension: the name of its
// walkthrough in a script folder.
func StoryBase(name string) string {
	return strings.TrimSuffix(name, filepath.Ext(name))
}

// agentFor is the agent spec one story plays with: script:DIR stands for
// DIR/<story name>.txt.
func agentFor(spec, storyName string) string {
	dir, ok := strings.CutPrefix(spec, "script:")
	if !ok {
		return spec
	}
	if IsDir(dir) {
		return "script:" + filepath.Join(dir, StoryBase(storyName)+".txt")
	}
	return spec
}

// storySeeds gives each story its first episode's seed: the one a seed
// file names for it (by file name, or by name without extension), else
// the suite's. A seed file is a JSON object whose values are seeds or
// objects with a "seed" (Jericho's walkthroughs.json is one).
func storySeeds(path string, stories []suiteStory, seed int) error {
	named := map[string]int{}
	if path != "" {
		var err error
		if named, err = readSeeds(path); err != nil {
			return err
		}
	}
	for i := range stories {
		st := &stories[i].info
		st.Seed = seed
		if n, ok := named[st.Name]; ok {
			st.Seed = n
		} else if n, ok := named[StoryBase(st.Name)]; ok {
			st.Seed = n
		}
	}
	return nil
}

// readSeeds reads a seed file.
func readSeeds(path string) (map[string]int, error) {
	data, err := atomicfile.ReadRegular(path, maxReportBytes)
	if err != nil {
		return nil, usagef("--seed-file: %v", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, usagef("--seed-file %s: want a JSON object of story names: %v", path, err)
	}
	named := map[string]int{}
	for k, v := range raw {
		var n int
		if json.Unmarshal(v, &n) != nil {
			var obj struct {
				Seed *int `json:"seed"`
			}
			if json.Unmarshal(v, &obj) != nil || obj.Seed == nil {
				return nil, usagef("--seed-file %s: %q is neither a seed nor an object with a seed", path, k)
			}
			n = *obj.Seed
		}
		named[k] = n
	}
	return named, nil
}

func printSuite(w io.Writer, s *bench.Suite, asJSON bool, width int) error {
	if asJSON {
		return printJSON(w, s)
	}
	bench.PrintSuite(w, s, width)
	return nil
}
