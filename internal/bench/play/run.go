package play

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/game_files/bindings"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/bench/progress"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/sanitize"
)

// A single story's run plays its episodes headless and measures them:
// score, moves, deaths, turns to each score milestone, the repeated failed
// action rate, location coverage, LLM calls per turn, prompt tokens per
// turn (p50/p95), model latency (p50/p95) and harness overhead per turn.
// The report is stored in the story's lantern.db (bench_runs) beside the
// episodes and turns the run played, and written as bench.json.

// Run plays one story's benchmark (or its shard) with o.Config, writes
// its bench.json (and the exports), and prints its report.
func Run(ctx context.Context, o Options) error {
	cfg := o.Config
	if dir, ok := strings.CutPrefix(o.Agent, "script:"); ok && IsDir(dir) {
		_, name, err := o.Wiring.OpenStory(cfg.Story, cfg.WorkDir)
		if err != nil {
			return err
		}
		o.Agent = agentFor(o.Agent, filepath.Base(name))
	}
	seg, err := runPlan(o.Shard, o.Episodes, cfg.Loop.Seed, cfg.Model(config.RoleAgent))
	if err != nil {
		return &UsageError{err}
	}
	shardDir := o.WorkdirSet && seg.shard != nil
	if shardDir {
		// A re-run shard starts clean: what a failed attempt left goes.
		if err := prepareShardDir(cfg.WorkDir, o.Wiring.Version, o.Stderr); err != nil {
			return err
		}
	}
	rep, code, err := playRun(ctx, cfg, o, seg)
	if err != nil {
		return err
	}
	// The run's manifest: what bench merge and --compare read of it.
	if err := writeRunManifest(rep, o, shardDir); err != nil {
		fmt.Fprintln(o.Stderr, "lantern bench:", errText(err))
		code = exitError
	}
	if o.Export != "" {
		if err := export(o.Export, []*bench.Report{rep}, o.Wiring.Version); err != nil {
			fmt.Fprintln(o.Stderr, "lantern bench:", errText(err))
			code = exitError
		}
	}
	if o.JSON {
		if err := printJSON(o.Stdout, rep); err != nil {
			return err
		}
	} else {
		bench.Print(o.Stdout, rep, o.Width)
	}
	if rep.Error != "" {
		fmt.Fprintf(o.Stderr, "lantern bench: the run stopped early: %s\n", sanitize.Line(sanitize.Clip(rep.Error, 4096)))
		code = exitError
	}
	return done(code)
}

// playRun plays a run's segment on the hosts that answer: spread over
// several, or on the one.
func playRun(ctx context.Context, cfg *config.Config, o Options, seg segment) (*bench.Report, int, error) {
	cfg, hosts, err := benchHosts(ctx, cfg, o)
	if err != nil {
		return nil, exitError, err
	}
	if len(hosts) > 1 && seg.count > 1 {
		return playOnHosts(ctx, cfg, o, seg, hosts)
	}
	if len(hosts) > 0 {
		cfg = o.Wiring.PinHost(cfg, hosts[0])
	}
	return playBench(ctx, cfg, o, seg, o.Stderr)
}

// segment is the consecutive episodes one session plays: the benchmark's
// number of the first, how many, the first one's seed and the shard they
// belong to (nil: the whole run).
type segment struct {
	first, count, seed int
	shard              *bench.ShardInfo
}

// openStory opens a story with its binding (nil when it has none).
func openStory(w Wiring, path, workDir string) (Story, error) {
	story, name, err := w.OpenStory(path, workDir)
	if err != nil {
		return Story{}, err
	}
	bs, err := env.LoadBindings(bindings.FS())
	if err != nil {
		return Story{}, err
	}
	return Story{Story: story, Name: name, Binding: bs.For(story.Info().MD5)}, nil
}

// player is one segment's play: a session of its episodes, the model calls
// it makes, and its report.
type player struct {
	cfg    *config.Config
	o      Options
	seg    segment
	story  Story
	rep    *bench.Report
	agent  engine.Agent
	client *llm.Client
	queue  *bench.CallQueue
	clock  *roleClock
}

// playBench plays a segment of one story's benchmark and stores its
// report in the run's lantern.db (and, for a run in a fresh work dir, in
// the configured work dir's index); the report comes back with the exit
// code its play earned. Its lines go to stderr.
func playBench(ctx context.Context, cfg *config.Config, o Options, seg segment, stderr io.Writer) (*bench.Report, int, error) {
	o.Stderr = stderr
	p := &player{cfg: cfg, o: o, seg: seg, queue: &bench.CallQueue{}, clock: &roleClock{}}
	if err := p.prepare(ctx); err != nil {
		return nil, exitError, err
	}
	sess, err := p.open()
	if err != nil {
		return nil, exitError, err
	}
	defer sess.Close()
	return p.play(ctx, sess)
}

// prepare opens the story, the agent and, when the run asks a model, the
// client (checked before the run starts), and heads the report.
func (p *player) prepare(ctx context.Context) error {
	var err error
	if p.story, err = openStory(p.o.Wiring, p.cfg.Story, p.cfg.WorkDir); err != nil {
		return err
	}
	info := p.story.Story.Info()
	p.rep = &bench.Report{Story: filepath.Base(p.story.Name), StoryMD5: info.MD5, Release: info.Release, MaxScore: p.story.Binding.MaxScore,
		Agent: p.o.Agent, Seed: p.cfg.Loop.Seed, MaxTurns: p.cfg.Loop.MaxTurnsPerEpisode, Label: p.o.Label, Format: bench.FormatVersion,
		Lantern: p.o.Wiring.Version, Shard: p.seg.shard, Requested: p.seg.count}
	if p.agent, err = p.o.Wiring.Agent(p.o.Agent); err != nil {
		return err
	}
	if p.agent == nil || p.o.ModelSet {
		if p.client, err = p.o.Wiring.Client(p.cfg, p.clock.add(p.queue.Add), p.o.Log); err != nil {
			return err
		}
		if err := preflight(ctx, p.client, p.cfg, p.agent == nil); err != nil {
			return err
		}
		p.rep.Host = strings.Join(p.client.Hosts(), ", ")
		p.rep.Models = map[string]string{}
		for _, r := range config.RoleNames() {
			p.rep.Models[r] = p.cfg.Model(r)
		}
	}
	p.rep.Provenance = provenance(ctx, p.cfg, p.client)
	if p.rep.Label == "" {
		if p.agent == nil {
			p.rep.Label = p.cfg.Model(config.RoleAgent)
		} else {
			p.rep.Label = "script " + filepath.Base(strings.TrimPrefix(p.o.Agent, "script:"))
		}
	}
	return nil
}

// open opens the segment's session in the run's work dir, with the seed of
// its first episode.
func (p *player) open() (*session.Session, error) {
	workDir := p.o.playDir
	if workDir == "" {
		var err error
		info := p.story.Story.Info()
		if workDir, err = runWorkDir(p.cfg, p.story.Name, info.Release, p.o.WorkdirSet); err != nil {
			return nil, err
		}
	}
	p.rep.WorkDir = workDir
	played := *p.cfg
	played.WorkDir = workDir
	played.Loop.Seed = p.seg.seed
	sess, err := p.o.Wiring.Session(&played, p.story, p.client, p.agent, p.seg.count)
	if err != nil {
		return nil, err
	}
	p.rep.DB = filepath.Join(sess.Dir, "lantern.db")
	return sess, nil
}

// play runs the session to its end, completes the report and stores it.
func (p *player) play(ctx context.Context, sess *session.Session) (*bench.Report, int, error) {
	rep, seg, stderr := p.rep, p.seg, p.o.Stderr
	before, err := sess.DB.LastEpisodeID(context.Background())
	if err != nil {
		return nil, exitError, err
	}
	fmt.Fprintf(stderr, "lantern bench: %s, %s, %d episode(s) of at most %d turns\n", rep.Story, rep.Label, seg.count, rep.MaxTurns)
	if rep.Shard != nil {
		fmt.Fprintf(stderr, "lantern bench: shard %d/%d: episodes %d to %d of %d\n", rep.Shard.Index, rep.Shard.Count, seg.first, seg.first+seg.count-1, rep.Shard.Total)
	}
	fmt.Fprintf(stderr, "lantern bench: work dir %s\n", rep.WorkDir)
	if p.client != nil {
		rep.MemoryMode = sess.MemoryMode()
		fmt.Fprintf(stderr, "lantern bench: memories decided %s\n", rep.MemoryMode)
	}
	rep.Started = time.Now()
	if err := sess.Start(ctx, session.StartOptions{}); err != nil {
		return nil, exitError, err
	}
	tracker := progress.NewTracker(progress.New(stderr), progress.Run{FirstEpisode: seg.first, Count: seg.count,
		MaxTurns: rep.MaxTurns, MaxScore: rep.MaxScore}, nil)
	code := collect(ctx, sess, p.queue, rep, tracker)
	tracker.Close()
	if err := sess.Stop(10 * time.Second); err != nil && rep.Error == "" {
		rep.Error = err.Error()
	}
	dropCalls(rep, p.queue.Rest()) // made while the session stopped
	p.complete(ctx)
	return p.store(sess, before, code)
}

// complete fills in the report's ending, results and cost.
func (p *player) complete(ctx context.Context) {
	rep := p.rep
	rep.Ended = time.Now()
	rep.Complete = len(rep.Episodes) == p.seg.count && rep.Error == "" && ctx.Err() == nil
	if ctx.Err() != nil && rep.Error == "" {
		rep.Error = "interrupted"
	}
	rep.Summary = bench.Summarize(rep.Episodes)
	rep.Roles = bench.RoleStats(p.client, rep.Summary)
	rep.RoleWallMS = p.clock.ms()
	rep.RolePrompt = p.clock.prompt()
	bench.CountedPrompt(rep)
	for _, e := range rep.Episodes {
		rep.Seeds = append(rep.Seeds, rep.EpisodeSeed(e))
	}
}

// store saves the run in its lantern.db, and for a run in a fresh work dir
// in the configured work dir's index too.
func (p *player) store(sess *session.Session, before int64, code int) (*bench.Report, int, error) {
	rep := p.rep
	after, _ := sess.DB.LastEpisodeID(context.Background())
	run, err := runRow(rep)
	if err != nil {
		return nil, exitError, err
	}
	if after > before {
		run.FirstEpisode, run.LastEpisode = before+1, after
	}
	id, err := sess.DB.SaveBenchRun(context.Background(), run)
	if err == nil && !p.o.WorkdirSet && p.o.playDir == "" && rep.Shard == nil {
		// A shard writes its own work dir only: its nodes may share the
		// configured one (NFS), where SQLite's locks do not hold.
		info := p.story.Story.Info()
		id, rep.Index, err = indexRun(context.Background(), p.cfg, p.story.Name, info.Release, info.MD5, run)
	}
	if err != nil {
		fmt.Fprintln(p.o.Stderr, "lantern bench:", errText(err))
		code = exitError
	}
	rep.ID = id
	return rep, code, nil
}

// preflight fails fast when the server or a model the run needs is
// missing, with the host or model named.
func preflight(ctx context.Context, client *llm.Client, cfg *config.Config, llmAgent bool) error {
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := client.Version(tctx); err != nil {
		return err
	}
	roles := []string{config.RoleCritic, config.RoleMemory}
	if llmAgent {
		roles = append([]string{config.RoleAgent}, roles...)
	}
	for _, r := range roles {
		if err := client.CheckRole(tctx, r); err != nil {
			return err
		}
	}
	return nil
}

// provenance records how a run is made: the configuration's profile and
// settings, and with a model the roles' setup, the server and what it says
// each model is (asked within ten seconds; a server that does not answer
// leaves the identities' errors, not the run's).
func provenance(ctx context.Context, cfg *config.Config, client *llm.Client) *bench.Provenance {
	p := bench.NewProvenance(cfg, client != nil)
	if client == nil {
		return p
	}
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p.SetServer(client.API(), client.ServerURL(), client.Hosts(), client.ModelIdentities(tctx))
	return p
}
