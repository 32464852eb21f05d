package cli

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/internal/bench/play"
	"github.com/lantern-if/lantern/internal/logfile"
	"github.com/lantern-if/lantern/llm"
)

// `lantern bench` parses its flags and calls the bench wing
// (internal/bench/play), which plays, reports and stores the runs; the
// command line lends it the wiring every command shares (BenchWiring).

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
	f := benchFlags(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return runBench(cmd.Context(), a, f, cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
	return cmd
}

// benchFlagSet is lantern bench's flags.
type benchFlagSet struct {
	fs                                   *pflag.FlagSet
	stories                              *[]string
	logFile, export, agent, label, shard *string
	episodes, width                      *int
	json, compare, list                  *bool
}

func benchFlags(fs *pflag.FlagSet) *benchFlagSet {
	f := &benchFlagSet{fs: fs}
	f.stories = fs.StringArray("story", nil, "story file, or a folder of them (every story with a binding); repeat for a suite (default: story in the configuration, else the built-in demo)")
	fs.String("workdir", "", "work dir, one folder per story inside (default: work_dir, else $XDG_DATA_HOME/lantern)")
	fs.String("model", "", "model for every role; a,b,c sweeps the models in one report (default: the configured ones)")
	fs.Int("seed", 0, "random seed (frotz -s semantics); episode n uses seed+n-1 (default: loop.seed)")
	f.logFile = fs.String("log-file", "", "write the log here, - for stderr (default: lantern.log in the work dir)")
	f.export = fs.String("export", "", "write the episodes and turns as CSV and JSON Lines into this folder")
	fs.String("seed-file", "", "a suite's seeds by story: a JSON object of story name to seed (or to an object with a seed, as Jericho's walkthroughs.json)")
	f.episodes = episodeFlags(fs, 3)
	fs.String("profile", "", "the managers' cadence: lean or zorkgpt (default: profile, else lean)")
	serverFlags(fs)
	f.agent = fs.String("agent", "llm", "who plays: llm (the configured model), or script:FILE to replay a walkthrough (restarted each episode)")
	f.label = fs.String("label", "", "a name for the run (default: the agent's model, or the script)")
	f.json = fs.Bool("json", false, "print the report as JSON")
	f.compare = fs.Bool("compare", false, "compare two runs or suites: lantern bench --compare A B (stored runs, --json files, bench.json files or work dirs)")
	f.list = fs.Bool("list", false, "list the stored runs of the story")
	f.width = fs.Int("width", 60, "width of the score chart")
	f.shard = fs.String("shard", "", "play shard i/n of the episodes (join the shards with lantern bench merge)")
	return f
}

// runBench checks the flags, loads the configuration and calls the bench:
// --compare, --list, a suite or a single story's run.
func runBench(ctx context.Context, a *app, f *benchFlagSet, stdout, stderr io.Writer) error {
	fs := f.fs
	if err := checkBenchArgs(f); err != nil {
		return err
	}
	set := changed(fs)
	models := splitModels(set["model"])
	delete(set, "story")
	delete(set, "model")
	folder := len(*f.stories) == 1 && play.IsDir((*f.stories)[0])
	if len(*f.stories) == 1 && !folder {
		set["story"] = (*f.stories)[0]
	}
	if len(models) == 1 {
		set["model"] = models[0]
	}
	cfg, err := loadConfig("bench", set, a.configFile, stderr, benchConfigFlags()...)
	if err != nil {
		return err
	}
	w := BenchWiring(a.configFile, changed(fs))
	suite := len(*f.stories) > 1 || folder || len(models) > 1 || fs.Changed("seed-file")
	if *f.list && suite {
		return usageErrorf("--list reads one story's runs: name one --story")
	}
	co := play.CompareOptions{Wiring: w, Config: cfg, JSON: *f.json, Width: *f.width, Stdout: stdout}
	if *f.compare {
		co.A, co.B = fs.Arg(0), fs.Arg(1)
		return benchStatus(play.Compare(ctx, co))
	}
	if *f.list {
		return benchStatus(play.List(ctx, co))
	}
	log, closeLog, err := benchLog(*f.logFile, cfg.WorkDir, a.logLevel, cfg, stderr)
	if err != nil {
		return err
	}
	defer closeLog()
	log.Info("bench", "episodes", *f.episodes, "agent", *f.agent, "label", *f.label, "stories", *f.stories, "models", models, "shard", *f.shard)
	seedFile, _ := fs.GetString("seed-file")
	o := play.Options{Wiring: w, Config: cfg, Stories: *f.stories, Models: models, SeedFile: seedFile, Episodes: *f.episodes, Agent: *f.agent,
		Label: *f.label, ModelSet: fs.Changed("model"), JSON: *f.json, Width: *f.width, Shard: *f.shard, WorkdirSet: fs.Changed("workdir"),
		Export: *f.export, Log: log, Stdout: stdout, Stderr: stderr}
	if suite {
		return benchStatus(play.Suite(ctx, o))
	}
	return benchStatus(play.Run(ctx, o))
}

// checkBenchArgs refuses arguments and numbers the bench does not take.
func checkBenchArgs(f *benchFlagSet) error {
	switch fs := f.fs; {
	case *f.compare && *f.list:
		return usageErrorf("--compare and --list do not go together")
	case *f.compare && fs.NArg() != 2:
		return usageErrorf("--compare takes two runs: lantern bench --compare A B")
	case !*f.compare && fs.NArg() > 0:
		return usageErrorf("unexpected %q", fs.Arg(0))
	case *f.episodes < 1:
		return usageErrorf("--episodes must be at least 1")
	}
	return checkIntFlags(f.fs, intRange{"episodes", 1, maxEpisodes}, intRange{"width", 10, 1000})
}

// benchConfigFlags are the flags that set bench's configuration.
func benchConfigFlags() []string {
	return []string{"workdir", "story", "model", "max-turns", "seed", "profile", "api", "base-url"}
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

// benchStatus is the command's error for the bench's: a usage error
// exits 2, a failure the bench has reported 1 with nothing more said.
func benchStatus(err error) error {
	var ue *play.UsageError
	switch {
	case errors.As(err, &ue):
		return usageError(ue.Err)
	case errors.Is(err, play.ErrFailed):
		return status(exitError)
	}
	return err
}

// BenchWiring is what the bench borrows of the command line: the
// configuration with the command's flags (set: by name; --story and
// --model replaced by the bench's), story loading, the model client, the
// session every command opens, and the hosts that answer.
func BenchWiring(configFile string, set map[string]string) play.Wiring {
	return play.Wiring{
		Version: version(),
		Config: func(story, model string) (*config.Config, error) {
			s := map[string]string{}
			for k, v := range set {
				s[k] = v
			}
			delete(s, "story")
			delete(s, "model")
			if story != "" {
				s["story"] = story
			}
			if model != "" {
				s["model"] = model
			}
			return loadConfig("bench", s, configFile, io.Discard, benchConfigFlags()...)
		},
		OpenStory: openStory,
		LoadStory: loadStory,
		StoryExts: storyExtensions(),
		Agent:     agentFromSpec,
		Client:    newClientLog,
		Session: func(cfg *config.Config, st play.Story, client *llm.Client, agent engine.Agent, episodes int) (*session.Session, error) {
			return openSession(cfg, storyFile{st.Story, st.Name, st.Binding}, client, agent, episodes, false)
		},
		LiveHosts: func(ctx context.Context, cfg *config.Config, stderr io.Writer) ([]string, error) {
			return liveHosts(ctx, cfg, "lantern bench", stderr)
		},
		PinHost: pinHost,
	}
}

// benchLog is bench's log: --log-file's file, stderr for "-" (where batch
// schedulers collect it), else the work dir's lantern.log.
func benchLog(path, workDir, level string, cfg *config.Config, stderr io.Writer) (*slog.Logger, func(), error) {
	if path == "" {
		return commandLog("bench", workDir, level, cfg)
	}
	lv, err := logfile.Level(level, os.LookupEnv)
	if err != nil {
		return nil, nil, err
	}
	log, closeLog := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lv})), func() {}
	if path != "-" {
		l, c, err := logfile.New(path, lv, logfile.DefaultMaxBytes)
		if err != nil {
			return nil, nil, err
		}
		log, closeLog = l, func() { c.Close() }
	}
	log = log.With("cmd", "bench")
	log.Info("start", "version", version(), "pid", os.Getpid(), "workdir", workDir, "level", lv.String())
	return log, closeLog, nil
}
