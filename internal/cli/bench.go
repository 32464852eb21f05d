package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/lantern-if/lantern/sanitize"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/internal/bench"
	benchprogress "github.com/lantern-if/lantern/internal/bench/progress"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/memsynth"
	"github.com/lantern-if/lantern/managers/objectives"
	"github.com/lantern-if/lantern/memory/rundb"
)

// `lantern bench` plays episodes headless and measures them: score, moves,
// deaths, turns to each score milestone, the repeated
// failed action rate, location coverage, LLM calls per turn, prompt tokens
// per turn (p50/p95), model latency (p50/p95) and harness overhead per
// turn. The report is stored in the story's lantern.db (bench_runs) beside
// the episodes and turns the run played.

func newBenchCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench [--compare A B | --list]",
		Short: "measure the agent over episodes",
		Long: `Plays episodes headless, wired as lantern run is, and prints, per episode
and overall: score, moves, deaths, turns to each score milestone, repeated
failed action rate, location coverage, LLM calls per turn, prompt tokens per
turn p50/p95, model latency p50/p95 and harness overhead per turn; then a
chart of score over turns. An episode a stop cut short (an interruption, a
failure: its ending is "stopped") is shown and counted, but left out of the
means. Prompt tokens are counted once, as the server counted them, over
every model call of the run (turns, episode ends, calls of no turn): the
per-role table's total, a suite's games table and the exports all show that
figure. The run is stored in the story's lantern.db (in the work dir), where
--compare finds it by the number printed, and written as bench.json (where,
is printed at the end) with how it was made: the protocol (ollama or
openai), server URL, profile, each role's model and sampling as configured
(temperature, top_p, top_k, min_p, repeat_penalty, seed, num_predict,
num_ctx, keep_alive, think), what the server says each model is (Ollama's
digest, parameter size and quantisation; an OpenAI-compatible server's
/v1/models id) and the loop's, managers' and budgets' settings. The report
format is 2; every reader takes format 1 too.

--compare A B sets two runs side by side with the difference; each of A and
B is a stored run's number, "last", "prev", a file saved from --json, a
bench.json, or a work dir holding one. Two runs of one story compare metric
by metric. When either is a suite (several stories or models), the two
compare game by game: A's model against B's when each played one model (two
models, or two settings, over the same games), else story by story and
model by model; for each game and overall (over the games both played, each
game weighing the same) the score as a share of the maximum and in points,
each side's mean ± standard error over its episodes, and the difference
B - A ± its standard error (√(s.e.A² + s.e.B²)). Games only one side played
are named and left out.

Each run plays in a fresh work dir of its own (printed at the start), so the
memories and knowledge of normal play are not shared and runs compare;
--workdir D plays in D instead (its bench.json then goes in the story's
folder there). A terminal shows a live status line; other outputs get a
status line every 30 seconds.

--shard i/n plays the i-th of n equal parts of the episodes (each with the
seed the whole run gives it), for splitting a benchmark across machines;
--shard auto takes i and n from a Slurm job array (SLURM_ARRAY_TASK_ID) or a
Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with LANTERN_SHARD_COUNT), both
counted from 0. Give each shard a --workdir of its own (a re-run clears it);
lantern bench merge joins the shards into one report.

--story repeated, or a folder (every story in it with a binding), plays a
suite: per game and overall, the score as a share of the maximum (mean ±
standard error over the episodes), highscore, steps, deaths and model cost,
and a chart; --agent script:DIR plays DIR/<story name>.txt for each story,
--seed-file gives stories their own seeds, --model a,b,c sweeps models in one
report. --export DIR writes the episodes and turns as CSV and JSON Lines,
each row with the format version, an episode's with the run's provenance.`,
		Example: `  lantern bench --episodes 3 --max-turns 100 --model qwen3:4b
  lantern bench --agent script:game_files/demo/walkthrough.txt --episodes 2
  lantern bench --compare prev last
  lantern bench --compare qwen3-4b-suite/bench.json qwen3-8b-suite/bench.json
  lantern bench --json --model qwen3:8b > qwen3-8b.json
  lantern bench --shard 2/3 --episodes 9 --model qwen3:4b --workdir shard-2
  lantern bench --story games/ --agent script:walkthroughs/ --episodes 2
  lantern bench --story a.z5 --story b.z8 --model qwen3:4b,qwen3:8b --export out/`,
	}
	cmd.AddCommand(newBenchMergeCmd(a))
	fs := cmd.Flags()
	storyArgs, logFile, export := suiteFlags(fs)
	episodes := episodeFlags(fs, 3)
	fs.String("profile", "", "the managers' cadence: lean or zorkgpt (default: profile, else lean)")
	serverFlags(fs)
	agentSpec := fs.String("agent", "llm", "who plays: llm (the configured model), or script:FILE to replay a walkthrough (restarted each episode)")
	label := fs.String("label", "", "a name for the run (default: the agent's model, or the script)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	compare := fs.Bool("compare", false, "compare two runs or suites: lantern bench --compare A B (stored runs, --json files, bench.json files or work dirs)")
	list := fs.Bool("list", false, "list the stored runs of the story")
	width := fs.Int("width", 60, "width of the score chart")
	shard := fs.String("shard", "", "play shard i/n of the episodes (join the shards with lantern bench merge)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx, stdout, stderr := cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr()
		if *compare && *list {
			return usageErrorf("--compare and --list do not go together")
		}
		if *compare && fs.NArg() != 2 {
			return usageErrorf("--compare takes two runs: lantern bench --compare A B")
		}
		if !*compare && fs.NArg() > 0 {
			return usageErrorf("unexpected %q", fs.Arg(0))
		}
		if *episodes < 1 {
			return usageErrorf("--episodes must be at least 1")
		}
		if err := checkIntFlags(fs, intRange{"episodes", 1, maxEpisodes}, intRange{"width", 10, 1000}); err != nil {
			return err
		}
		set := changed(fs)
		models := splitModels(set["model"])
		delete(set, "story")
		delete(set, "model")
		if len(*storyArgs) == 1 && !isDir(*storyArgs) {
			set["story"] = (*storyArgs)[0]
		}
		if len(models) == 1 {
			set["model"] = models[0]
		}
		cfg, err := loadConfig("bench", set, a.configFile, stderr, "workdir", "story", "model", "max-turns", "seed", "profile", "api", "base-url")
		if err != nil {
			return err
		}
		suite := len(*storyArgs) > 1 || isDir(*storyArgs) || len(models) > 1 || fs.Changed("seed-file")
		if *list && suite {
			return usageErrorf("--list reads one story's runs: name one --story")
		}
		if *compare {
			refs := &benchRefs{cfg: cfg}
			defer refs.close()
			return compareBench(ctx, refs, fs.Arg(0), fs.Arg(1), *asJSON, *width, stdout)
		}
		if *list {
			db, closeDB, err := openBenchDB(cfg)
			if err != nil {
				return err
			}
			defer closeDB()
			return listBenchRuns(ctx, db, stdout, stderr)
		}
		modelSet := fs.Changed("model")
		log, closeLog, err := benchLog(*logFile, cfg.WorkDir, a.logLevel, cfg, stderr)
		if err != nil {
			return err
		}
		defer closeLog()
		log.Info("bench", "episodes", *episodes, "agent", *agentSpec, "label", *label, "stories", *storyArgs, "models", models, "shard", *shard)
		o := benchOptions{episodes: *episodes, agent: *agentSpec, label: *label, modelSet: modelSet, json: *asJSON, width: *width,
			shard: *shard, workdirSet: fs.Changed("workdir"), log: log, export: *export}
		if suite {
			seedFile, _ := fs.GetString("seed-file")
			return runSuite(ctx, suiteRequest{set: changed(fs), stories: *storyArgs, models: models, cfgFile: a.configFile, seedFile: seedFile}, o, stdout, stderr)
		}
		if name := strings.TrimPrefix(o.agent, "script:"); name != o.agent && isDir([]string{name}) {
			_, story, err := openStory(cfg.Story, cfg.WorkDir)
			if err != nil {
				return err
			}
			o.agent = agentFor(o.agent, filepath.Base(story))
		}
		return runBench(ctx, cfg, o, stdout, stderr)
	}
	return cmd
}

type benchOptions struct {
	episodes int
	agent    string
	label    string
	modelSet bool
	json     bool
	width    int
	// shard is --shard's i/n ("" for the whole run); workdirSet: --workdir
	// was given, so the run plays there rather than in a fresh work dir.
	shard      string
	workdirSet bool
	log        *slog.Logger // the command's log
	// playDir, when set, is where the run plays (a suite's work dir):
	// no fresh dir, no index entry.
	playDir string
	export  string // a folder for the CSV/JSONL exports ("": none)
}

func runBench(ctx context.Context, cfg *config.Config, o benchOptions, stdout, stderr io.Writer) error {
	firstEpisode, count, firstSeed, shardInfo, err := benchPlan(o.shard, o.episodes, cfg.Loop.Seed, cfg.Model(config.RoleAgent))
	if err != nil {
		return usageErrorf("%v", err)
	}
	shardDir := o.workdirSet && shardInfo != nil
	if shardDir {
		// A re-run shard starts clean: what a failed attempt left goes.
		if err := prepareShardDir(cfg.WorkDir, stderr); err != nil {
			return err
		}
	}
	cfg, hosts, err := benchHosts(ctx, cfg, o, stderr)
	if err != nil {
		return err
	}
	seg := benchSegment{first: firstEpisode, count: count, seed: firstSeed, shard: shardInfo}
	var rep *bench.Report
	var code int
	if len(hosts) > 1 && count > 1 {
		rep, code, err = playOnHosts(ctx, cfg, o, seg, hosts, stderr)
	} else {
		if len(hosts) > 0 {
			cfg = pinHost(cfg, hosts[0])
		}
		rep, code, err = playBench(ctx, cfg, o, seg, stderr)
	}
	if err != nil {
		return err
	}
	// The run's manifest: what bench merge and --compare read of it.
	if err := writeRunManifest(rep, o, shardDir, stderr); err != nil {
		fmt.Fprintln(stderr, "lantern bench:", errText(err))
		code = exitError
	}
	if o.export != "" {
		if err := exportBench(o.export, []*bench.Report{rep}); err != nil {
			fmt.Fprintln(stderr, "lantern bench:", errText(err))
			code = exitError
		}
	}
	if o.json {
		enc := json.NewEncoder(sanitize.NewJSONWriter(stdout))
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return status(exitError)
		}
	} else {
		bench.Print(stdout, rep, o.width)
	}
	if rep.Error != "" {
		fmt.Fprintf(stderr, "lantern bench: the run stopped early: %s\n", sanitize.Line(sanitize.Clip(rep.Error, 4096)))
		if code == exitOK {
			code = exitError
		}
	}
	return status(code)
}

// benchSegment is the consecutive episodes one session plays: the
// benchmark's number of the first, how many, the first one's seed and the
// shard they belong to (nil: the whole run).
type benchSegment struct {
	first, count, seed int
	shard              *bench.ShardInfo
}

// playBench plays a segment of one story's benchmark and stores its report
// in the run's lantern.db (and, for a run in a fresh work dir, in the
// configured work dir's index); the report comes back with the exit code
// its play earned.
func playBench(ctx context.Context, cfg *config.Config, o benchOptions, seg benchSegment, stderr io.Writer) (*bench.Report, int, error) {
	story, name, binding, err := openStoryAndBinding(cfg.Story, cfg.WorkDir)
	if err != nil {
		return nil, exitError, err
	}
	info := story.Info()
	rep := &bench.Report{Story: filepath.Base(name), StoryMD5: info.MD5, Release: info.Release, MaxScore: binding.MaxScore, Agent: o.agent,
		Seed: cfg.Loop.Seed, MaxTurns: cfg.Loop.MaxTurnsPerEpisode, Requested: o.episodes, Label: o.label,
		Format: bench.FormatVersion, Lantern: version()}
	firstEpisode, count, firstSeed := seg.first, seg.count, seg.seed
	rep.Shard, rep.Requested = seg.shard, count

	agent, err := agentFromSpec(o.agent)
	if err != nil {
		return nil, exitError, err
	}
	queue := &bench.CallQueue{}
	roleTime := &roleClock{}
	var client *llm.Client
	if agent == nil || o.modelSet {
		client, err = newClientLog(cfg, roleTime.add(queue.Add), o.log)
		if err != nil {
			return nil, exitError, err
		}
		if err := benchPreflight(ctx, client, cfg, agent == nil); err != nil {
			return nil, exitError, err
		}
		rep.Host = strings.Join(client.Hosts(), ", ")
		rep.Models = map[string]string{}
		for _, r := range config.RoleNames() {
			rep.Models[r] = cfg.Model(r)
		}
	}
	rep.Provenance = benchProvenance(ctx, cfg, client)
	if rep.Label == "" {
		switch {
		case agent == nil:
			rep.Label = cfg.Model(config.RoleAgent)
		default:
			rep.Label = "script " + filepath.Base(strings.TrimPrefix(o.agent, "script:"))
		}
	}
	workDir := o.playDir
	if workDir == "" {
		workDir, err = benchWorkDir(cfg, name, info.Release, o.workdirSet)
		if err != nil {
			return nil, exitError, err
		}
	}
	rep.WorkDir = workDir
	played := *cfg // the run's own work dir, and the seed of its first episode
	played.WorkDir = workDir
	played.Loop.Seed = firstSeed
	sess, err := openSession(&played, storyFile{story, name, binding}, client, agent, count, false)
	if err != nil {
		return nil, exitError, err
	}
	defer sess.Close()
	rep.DB = filepath.Join(sess.Dir, "lantern.db")
	before, err := sess.DB.LastEpisodeID(context.Background())
	if err != nil {
		return nil, exitError, err
	}
	fmt.Fprintf(stderr, "lantern bench: %s, %s, %d episode(s) of at most %d turns\n", rep.Story, rep.Label, count, rep.MaxTurns)
	if rep.Shard != nil {
		fmt.Fprintf(stderr, "lantern bench: shard %d/%d: episodes %d to %d of %d\n", rep.Shard.Index, rep.Shard.Count, firstEpisode, firstEpisode+count-1, rep.Shard.Total)
	}
	fmt.Fprintf(stderr, "lantern bench: work dir %s\n", workDir)
	if client != nil {
		rep.MemoryMode = sess.MemoryMode()
		fmt.Fprintf(stderr, "lantern bench: memories decided %s\n", rep.MemoryMode)
	}
	rep.Started = time.Now()
	if err := sess.Start(ctx, session.StartOptions{}); err != nil {
		return nil, exitError, err
	}
	progress := benchprogress.NewTracker(benchprogress.New(stderr), benchprogress.Run{FirstEpisode: firstEpisode, Count: count,
		MaxTurns: rep.MaxTurns, MaxScore: rep.MaxScore}, nil)
	code := collectBench(ctx, sess, queue, rep, progress)
	progress.Close()
	if err := sess.Stop(10 * time.Second); err != nil && rep.Error == "" {
		rep.Error = err.Error()
	}
	dropCalls(rep, queue.Rest()) // made while the session stopped
	rep.Ended = time.Now()
	rep.Complete = len(rep.Episodes) == count && rep.Error == "" && ctx.Err() == nil
	if ctx.Err() != nil && rep.Error == "" {
		rep.Error = "interrupted"
	}
	rep.Summary = bench.Summarize(rep.Episodes)
	rep.Roles = bench.RoleStats(client, rep.Summary)
	rep.RoleWallMS = roleTime.ms()
	rep.RolePrompt = roleTime.prompt()
	bench.CountedPrompt(rep)
	for _, e := range rep.Episodes {
		rep.Seeds = append(rep.Seeds, rep.EpisodeSeed(e))
	}
	after, _ := sess.DB.LastEpisodeID(context.Background())
	run, err := benchRunRow(rep)
	if err != nil {
		return nil, exitError, err
	}
	if after > before {
		run.FirstEpisode, run.LastEpisode = before+1, after
	}
	id, err := sess.DB.SaveBenchRun(context.Background(), run)
	if err == nil && !o.workdirSet && o.playDir == "" && rep.Shard == nil {
		// A shard writes its own work dir only: its nodes may share the
		// configured one (NFS), where SQLite's locks do not hold.
		id, rep.Index, err = indexBenchRun(context.Background(), cfg, name, info.Release, info.MD5, run)
	}
	if err != nil {
		fmt.Fprintln(stderr, "lantern bench:", errText(err))
		code = exitError
	}
	rep.ID = id
	return rep, code, nil
}

// benchPreflight fails fast when the server or a model the run needs is
// missing, with the host or model named.
func benchPreflight(ctx context.Context, client *llm.Client, cfg *config.Config, llmAgent bool) error {
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

// collectBench reads the engine's events until it stops, filling in the
// report's episodes.
func collectBench(ctx context.Context, sess *session.Session, queue *bench.CallQueue, rep *bench.Report, progress *benchprogress.Tracker) int {
	var ep *bench.Episode
	visited := map[int]bool{}
	repeatsRun := 0 // repeated failed actions so far in the run
	repeatsAt := 0  // ... when the episode began
	code := exitOK
	best := 0                    // the episode's best score so far
	var objAt objectives.Quality // the objectives' quality when the episode began
	engineEpisode := 0           // the engine's number of the episode (lantern.db's)
	begin := func(n int, opening env.Observation) {
		ep = &bench.Episode{Episode: n, Critic: engine.CriticTally{Rejected: map[engine.Stage]int{}}}
		objAt = sess.Objectives.Quality()
		visited = map[int]bool{opening.Location.ID: true}
		repeatsAt = repeatsRun
		best = opening.Score
		progress.EpisodeStarted(n, opening.Score)
	}
	finish := func(ending string, score, moves, turns int) {
		if ep == nil {
			return
		}
		ep.Ending, ep.Score, ep.Moves, ep.Turns = ending, score, moves, turns
		ep.Repeats = repeatsRun - repeatsAt
		for id := range visited {
			ep.Visited = append(ep.Visited, id)
		}
		sort.Ints(ep.Visited)
		ep.Memories = bench.WithMemories(filepath.Join(sess.Dir, "Memories.md"), ep.Visited)
		ep.Objectives = objectiveQuality(sess, objAt)
		ep.Memory = memoryTally(ctx, sess.DB, engineEpisode)
		rep.Episodes = append(rep.Episodes, *ep)
		progress.EpisodeEnded(fmt.Sprintf("lantern bench: episode %d: %s, score %d in %d moves, %d turns", ep.Episode, ending, score, moves, turns))
		ep = nil
	}
	episode := rep.FirstEpisode() - 1
	var last env.Observation
	for ev := range sess.Engine.Events() {
		switch v := ev.(type) {
		case engine.EpisodeStarted:
			last = v.Observation
			engineEpisode = v.Episode
			episode++
			begin(episode, v.Observation)
		case engine.TurnCompleted:
			last = v.Result.Observation
			if ep == nil {
				continue
			}
			turnOf(ep, v, queue, rep, progress)
			repeatsRun = v.Repeats
			o := v.Result.Observation
			if o.Location.ID != 0 {
				visited[o.Location.ID] = true
			}
			if o.Died {
				ep.Deaths++
			}
			if o.Score > best {
				best = o.Score
				ep.Milestone = append(ep.Milestone, bench.Milestone{Score: o.Score, Turn: v.Result.Turn})
			}
			ep.Scores = append(ep.Scores, o.Score)
			progress.Turn(v.Result.Turn, o.Score)
			ep.Critic.Add(engine.Tally(v.Result.Verdicts))
			if len(v.Result.Reviews) > 0 {
				if ep.Reviews == nil {
					ep.Reviews = &bench.ReviewTally{}
				}
				ep.Reviews.Add(v.Result.Reviews)
			}
		case engine.EpisodeEnded:
			if ep != nil {
				// The episode synthesis runs after the last turn, before
				// this event: its calls belong to the episode, no turn.
				for _, c := range queue.Rest() {
					ep.EndCalls++
					ep.EndPrompt += c.PromptTokens
					ep.LatencyUS = append(ep.LatencyUS, c.Latency.Microseconds())
					if c.Err != "" {
						ep.Errors++
					}
					progress.Calls(1, c.Latency)
				}
			}
			finish(string(v.Reason), v.Score, v.Moves, v.Turns)
		case engine.ErrorEvent:
			progress.Line(fmt.Sprintf("lantern bench: turn %d: %v", v.Turn, v.Err))
			if v.Fatal || engine.Halts(v.Err) {
				rep.Error = v.Err.Error()
				code = exitError
			}
		case engine.Idle:
			// The engine pauses after repeated model failures or a turn it
			// could not record: the run ends.
			if rep.Error == "" {
				rep.Error = "the agent paused after repeated model failures"
			}
			sess.Engine.Send(ctx, engine.Quit{})
		case engine.Stopped:
			if v.Err != nil && rep.Error == "" {
				rep.Error = v.Err.Error()
			}
		}
	}
	if ep != nil {
		// The run stopped inside an episode (a script ran out, an
		// interruption, a failure).
		why := bench.EndingStopped
		if rep.Error == "" && ctx.Err() == nil {
			why = "script ended"
		}
		finish(why, last.Score, last.Moves, len(ep.Scores))
	}
	dropCalls(rep, queue.Rest())
	return code
}

// dropCalls counts calls that belong to no played turn: in the run's
// totals, in no per-turn metric.
func dropCalls(rep *bench.Report, calls []llm.CallMetrics) {
	rep.Dropped += len(calls)
	for _, c := range calls {
		rep.DroppedPrompt += c.PromptTokens
	}
}

// turnOf adds a completed turn's model calls and time to the episode.
func turnOf(ep *bench.Episode, v engine.TurnCompleted, queue *bench.CallQueue, rep *bench.Report, progress *benchprogress.Tracker) {
	calls, dropped := queue.Take(v.Result.Turn)
	dropCalls(rep, dropped)
	prompt, lat := 0, time.Duration(0)
	for _, c := range calls {
		prompt += c.PromptTokens
		lat += c.Latency
		ep.LatencyUS = append(ep.LatencyUS, c.Latency.Microseconds())
		if c.Err != "" {
			ep.Errors++
		}
	}
	harness := max(v.Duration-lat, 0)
	progress.Calls(len(calls), lat)
	ep.Prompt = append(ep.Prompt, prompt)
	ep.Calls = append(ep.Calls, len(calls))
	ep.StatusCalls = append(ep.StatusCalls, v.LLM.Calls)
	ep.StatusPrompt = append(ep.StatusPrompt, v.LLM.PromptTokens)
	ep.HarnessUS = append(ep.HarnessUS, harness.Microseconds())
	ep.WallUS = append(ep.WallUS, v.Span.Microseconds())
	ep.AgentUS = append(ep.AgentUS, agentService(calls).Microseconds())
	ep.ModelUS = append(ep.ModelUS, modelService(calls, "").Microseconds())
	ep.Actions++
}

// memoryTally counts an episode's memory questions from its decisions in
// lantern.db (episode: the engine's number).
func memoryTally(ctx context.Context, db *rundb.RunDB, episode int) bench.MemoryTally {
	var t bench.MemoryTally
	ds, err := db.Decisions(ctx, episode)
	if err != nil {
		return t
	}
	for _, d := range ds {
		t.Asked++
		switch {
		case strings.HasPrefix(d.Outcome, memsynth.Unanswered):
			t.Unanswered++
		case slices.Contains(d.Triggers, memsynth.AnsweredInReply):
			t.InReply++
		default:
			t.OwnCall++
		}
		if strings.HasPrefix(d.Outcome, "stored") {
			t.Kept++
		}
	}
	return t
}

// agentService is the time the model server spent on a turn's agent calls:
// their prompt evaluation and generation as it reports them (a call it
// reported none for counts its latency). Time a call waited behind others
// at the server is not the agent's.
func agentService(calls []llm.CallMetrics) time.Duration {
	return modelService(calls, config.RoleAgent)
}

// modelService is the time the model server spent on calls of a role (""
// every role), as agentService counts it.
func modelService(calls []llm.CallMetrics, role string) time.Duration {
	var d time.Duration
	for _, c := range calls {
		if role != "" && c.Role != role {
			continue
		}
		if s := c.PromptEval + c.Eval; s > 0 {
			d += s
		} else {
			d += c.Latency
		}
	}
	return d
}

func listBenchRuns(ctx context.Context, db *rundb.RunDB, stdout, stderr io.Writer) error {
	runs, err := db.BenchRuns(ctx)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		fmt.Fprintln(stdout, "No bench runs stored for this story.")
		return nil
	}
	rows := [][]string{{"RUN", "STARTED", "LABEL", "EPISODES", "MEAN SCORE", ""}}
	for _, r := range runs {
		note := ""
		if !r.Complete {
			note = "incomplete"
		}
		rows = append(rows, []string{fmt.Sprint(r.ID), r.Started.Local().Format("2006-01-02 15:04:05"), bench.Clip(r.Label, 32), fmt.Sprint(r.Episodes),
			fmt.Sprintf("%.1f", r.Score), note})
	}
	bench.Table(stdout, rows)
	return nil
}
