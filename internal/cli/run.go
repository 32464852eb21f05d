package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/sanitize"
)

// defaultWorkDir is $XDG_DATA_HOME/lantern, else ~/.local/share/lantern.
func defaultWorkDir() string { return config.DefaultWorkDir(os.LookupEnv) }

func newRunCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run [flags]",
		Args:  noArgs,
		Short: "let the agent play without the TUI",
		Long: `Plays episodes with the agent, without the TUI, printing a line per turn (or
a JSON object per turn with --json). --agent script:FILE takes the actions
from FILE while every manager runs (the critic is advisory). Every turn is
checkpointed in lantern.db: after a crash, --resume continues the line of
play from its last recorded turn with the identical game state (a script
resumes after the actions already played): the line played last, else the
only unfinished one; with several it names them and exits 2. Every turn's
state is kept: --from LINE:TURN plays on from any recorded turn on a new
branch of the episode (the turns after it stay on the line they were played
on); a line's last turn continues the line itself, one its turn cap ended
included. A LINE is written EPISODE (its main line), EPISODE/NAME or #ID, as
lantern episodes lists them (1, 1/side, #4); every turn line of --json
carries it.

With --review the person is the last critic: each proposal (after the
critic) waits for one line on standard input: y accepts it, e COMMAND plays
COMMAND instead (recorded as human-edited, the proposal kept), n REASON
rejects it (the agent proposes again with the reason in its prompt), n! REASON
also writes the reason to Memories.md at that location. At the end of
standard input every further proposal is accepted.`,
		Example: `  lantern run --headless --story zork1.z3 --max-turns 50 --model qwen3:4b
  lantern run --headless --json --agent script:walkthrough.txt --seed 12`,
	}
	var o runOptions
	fs := cmd.Flags()
	fs.Bool("headless", true, "without the TUI, the only mode")
	fs.BoolVar(&o.asJSON, "json", false, "one JSON object per turn")
	sessionFlags(fs)
	episodes := episodeFlags(fs, 1)
	fs.StringVar(&o.agent, "agent", "llm", "who plays: llm (the configured model), or script:FILE to replay actions through the full loop")
	fs.BoolVar(&o.resume, "resume", false, "continue the story's unfinished line of play (a killed session) from its last recorded turn: the one played last, else the only one (several: name one with --from)")
	fs.StringVar(&o.from, "from", "", "play on from LINE:TURN, a turn of a recorded line of play (1:40, 1/side:40 or #4:40; lantern episodes lists them), on a new branch (on the line itself from its last turn)")
	fs.StringVar(&o.branch, "branch", "", "with --from: the new branch's name")
	fs.BoolVar(&o.review, "review", false, "review mode: each proposal waits for a decision read from standard input (y, e COMMAND, n REASON, n! REASON)")
	fs.DurationVar(&o.autoAccept, "auto-accept", 0, "review mode: accept a proposal left undecided this long (0: wait)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := o.check(fs); err != nil {
			return err
		}
		o.set, o.episodes, o.modelSet = changed(fs), *episodes, fs.Changed("model")
		return runHeadless(cmd.Context(), a, o, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
	return cmd
}

// runOptions are lantern run's flags.
type runOptions struct {
	set          map[string]string // the flags given, by name
	asJSON       bool
	episodes     int
	agent        string // --agent: llm or script:FILE
	modelSet     bool   // --model was given
	resume       bool
	from, branch string // --from LINE:TURN, --branch NAME
	review       bool
	autoAccept   time.Duration
}

// check refuses the flags that do not go together or cannot be read, and
// cleans the branch name.
func (o *runOptions) check(fs *pflag.FlagSet) error {
	if err := checkIntFlags(fs, intRange{"episodes", 1, maxEpisodes}); err != nil {
		return err
	}
	if o.autoAccept < 0 {
		return usageErrorf("--auto-accept must be 0 (wait) or more, not %s", o.autoAccept)
	}
	if o.from != "" && o.resume {
		return usageErrorf("--from and --resume cannot be used together (--resume continues the line played last)")
	}
	if o.branch != "" && o.from == "" {
		return usageErrorf("--branch names the branch --from starts")
	}
	if o.from != "" {
		if _, _, err := domain.ParseLineAt(o.from); err != nil {
			return usageErrorf("--from: %v", err)
		}
	}
	name, err := domain.CleanBranchName(o.branch)
	if err != nil {
		return usageErrorf("--branch: %v", err)
	}
	o.branch = name
	return nil
}

// runHeadless plays the episodes without the TUI, a line (or a JSON
// object) per turn on stdout, and returns the exit status.
func runHeadless(ctx context.Context, a *app, o runOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := loadConfig("run", o.set, a.configFile, stderr, "workdir", "story", "model", "max-turns", "seed", "profile", "api", "base-url")
	if err != nil {
		return err
	}
	log, closeLog, err := commandLog("run", cfg.WorkDir, a.logLevel, cfg)
	if err != nil {
		return err
	}
	defer closeLog()
	story, path, binding, err := openStoryAndBinding(cfg.Story, cfg.WorkDir)
	if err != nil {
		log.Error("story", "err", err)
		return err
	}
	log.Info("story", "path", path, "episodes", o.episodes, "agent", o.agent)
	agent, client, cfg, err := runPlayer(ctx, cfg, o, log, stderr)
	if err != nil {
		return err
	}
	sess, err := openSession(cfg, storyFile{story, path, binding}, client, agent, o.episodes, false)
	if errors.Is(err, memory.ErrInUse) {
		return fmt.Errorf("%w\nlantern run: its past episodes can be replayed meanwhile, read-only: lantern --story %s --workdir %s (answer y)", err, path, cfg.WorkDir)
	}
	if err != nil {
		return err
	}
	defer sess.Close()
	sess.SetLogger(log)
	if o.from != "" {
		if code := startFrom(ctx, sess, o.from, o.branch, "lantern run", stderr); code != exitOK {
			return status(code)
		}
	} else if code := resumeOrNot(ctx, sess, o.resume, "lantern run", stderr); code != exitOK {
		return status(code)
	}
	var decide func(engine.ReviewRequested)
	if o.review {
		decide = reviewer(ctx, sess.Engine, stdin, stderr)
	}
	if err := startSession(ctx, sess, log, o.review, o.autoAccept); err != nil {
		return err
	}
	code := report(sess.Engine.Events(), o.asJSON, stdout, stderr, decide)
	if err := sess.Stop(10 * time.Second); err != nil && code == exitOK {
		fmt.Fprintln(stderr, "lantern run:", err)
		code = exitError
	}
	log.Info("stop", "code", code)
	return status(code)
}

// runPlayer is who plays a headless run: the agent --agent names (nil:
// the model agent) and the model client (nil for a script agent when no
// --model was given), with the configuration pinned to the host that
// answered.
func runPlayer(ctx context.Context, cfg *config.Config, o runOptions, log *slog.Logger, stderr io.Writer) (engine.Agent, *llm.Client, *config.Config, error) {
	agent, err := agentFromSpec(o.agent)
	if err != nil {
		return nil, nil, nil, err
	}
	if agent != nil && !o.modelSet {
		return agent, nil, cfg, nil
	}
	if cfg, err = oneHost(ctx, cfg, "lantern run", stderr); err != nil {
		return nil, nil, nil, err
	}
	client, err := newClientLog(cfg, nil, log)
	if err != nil {
		return nil, nil, nil, err
	}
	if !client.Loopback() {
		fmt.Fprintf(stderr, "lantern run: note: a model server is not on this machine (%s): prompts and game text go over the network\n", clip(strings.Join(client.Hosts(), ", ")))
	}
	return agent, client, cfg, nil
}

// startSession starts the session's engine once its objectives are back
// (a file that cannot be read is logged and left as it is).
func startSession(ctx context.Context, sess *session.Session, log *slog.Logger, review bool, autoAccept time.Duration) error {
	if err := sess.RestoreObjectives(); err != nil {
		log.Warn("objectives", "err", err) // the file is left as it is
	}
	if err := sess.Start(ctx, session.StartOptions{Review: review, AutoAccept: autoAccept}); err != nil {
		return status(exitError)
	}
	return nil
}

// reviewer answers each review request with the next decision line of in
// (accepting at its end); a line that is not a decision is reported and
// the next one read. The lines are read aside, so a wait for the next one
// ends when ctx does (SIGTERM, SIGINT, SIGHUP), without a decision.
func reviewer(ctx context.Context, e *engine.Engine, in io.Reader, stderr io.Writer) func(engine.ReviewRequested) {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 0, 4096), 64*1024)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	return func(r engine.ReviewRequested) {
		d := engine.ReviewDecision{Decision: engine.DecisionAccept}
	wait:
		for {
			select {
			case <-ctx.Done():
				return
			case line, ok := <-lines:
				if !ok {
					break wait // the end of input accepts
				}
				got, err := engine.ParseDecision(line)
				if err != nil {
					fmt.Fprintln(stderr, "lantern run:", err)
					continue
				}
				d = got
				break wait
			}
		}
		e.Send(ctx, d)
	}
}

// resumeOrNot resumes an unfinished line of play when asked (saying so
// on stderr): the one played last, else the only one; with several it
// names them and exits 2 (exitUsage) for the person to pick one with
// --from. Without resume it says which lines stay unfinished.
func resumeOrNot(ctx context.Context, sess *session.Session, resume bool, who string, stderr io.Writer) int {
	if !resume {
		if r, err := sess.Unfinished(ctx); err == nil && len(r.Lines) > 0 {
			fmt.Fprintf(stderr, "%s: note: a new episode starts; unfinished lines of play stay as they are: %s (--resume or --from LINE:TURN continues one)\n",
				who, linesText(r.Lines))
		}
		return exitOK
	}
	cp, err := sess.Resume(ctx)
	switch {
	case errors.Is(err, session.ErrNothingToResume):
		fmt.Fprintf(stderr, "%s: nothing to resume; a new episode starts\n", who)
	case errors.Is(err, session.ErrWhichLine):
		r, _ := sess.Unfinished(ctx)
		fmt.Fprintf(stderr, "%s: --resume: several lines of play are unfinished and none was played last: %s\n%s: say which with --from LINE:TURN (its last turn continues it; an earlier one starts a branch)\n",
			who, linesText(r.Lines), who)
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "%s: resume: %v\n", who, err)
		return exitError
	default:
		resumed(ctx, sess, cp, who, stderr)
	}
	return exitOK
}

// resumeLine continues line id (the person's pick), saying so on stderr.
func resumeLine(ctx context.Context, sess *session.Session, id int64, who string, stderr io.Writer) int {
	cp, err := sess.ResumeLine(ctx, id)
	if err != nil {
		fmt.Fprintf(stderr, "%s: resume: %v\n", who, err)
		return exitError
	}
	resumed(ctx, sess, cp, who, stderr)
	return exitOK
}

// resumed says which line a resume continues, and its last turn.
func resumed(ctx context.Context, sess *session.Session, cp rundb.Checkpoint, who string, stderr io.Writer) {
	fmt.Fprintf(stderr, "%s: resuming %s after turn %d (checkpoint of %s)\n", who, sanitize.Line(sess.Line().String()), cp.Turn,
		cp.Saved.Local().Format("2006-01-02 15:04:05"))
	printLastTurn(ctx, sess.DB, cp, who, stderr)
}

// linesText names unfinished lines at their last turns, with their scores.
func linesText(lines []rundb.BranchInfo) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = fmt.Sprintf("%s (#%d, score %d)", sanitize.Line(l.Line().At(l.Turns)), l.ID, l.Score)
	}
	return strings.Join(parts, ", ")
}

// printLastTurn shows the turn a resume continues after, as recorded: its
// number, actor, action, score and room, then the game's response
// indented (a kill may have come before the turn was printed). It prints
// nothing when the turn cannot be read: the resume itself went well.
func printLastTurn(ctx context.Context, db *rundb.RunDB, cp rundb.Checkpoint, who string, w io.Writer) {
	turns, err := db.BranchTurns(ctx, cp.Episode) // a branch resumed at its fork: the turn is its parent's
	if err != nil {
		return
	}
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		if t.Turn != cp.Turn {
			continue
		}
		fmt.Fprintf(w, "%s: the last turn, T%d %s %q: score %d moves %d %s\n", who, t.Turn, sanitize.Line(t.Actor),
			sanitize.Line(sanitize.Clip(t.Action, 200)), t.Score, t.Moves, sanitize.Line(roomText(sanitize.Clip(t.Location, 200), t.LocationID)))
		resp := strings.TrimRight(sanitize.Text(sanitize.Clip(t.Response, 4096)), "\n ")
		for _, l := range strings.Split(resp, "\n") {
			fmt.Fprintln(w, "  "+l)
		}
		return
	}
}

// runLine is one turn of `run --json`.
type runLine struct {
	// Line is the line of play in its written form (1/no-bar), Episode
	// the episode the person started and Branch the line's stable ID.
	Line         string  `json:"line"`
	Episode      int64   `json:"episode"`
	Branch       int64   `json:"branch"`
	Turn         int     `json:"turn"`
	Actor        string  `json:"actor"`
	Action       string  `json:"action"`
	Score        int     `json:"score"`
	Moves        int     `json:"moves"`
	Location     any     `json:"location"`
	Room         string  `json:"room,omitempty"` // the location's name
	TurnMS       float64 `json:"turn_ms"`
	LLMMS        float64 `json:"llm_ms"`
	PromptTokens int     `json:"prompt_tokens"`
	EvalTokens   int     `json:"eval_tokens"`
	Ended        string  `json:"ended,omitempty"`
	// Critic holds the critic's verdicts, one per proposal (empty for the
	// person's turns).
	Critic []engine.Verdict `json:"critic"`
	// Review holds the person's decisions (review mode).
	Review []engine.Review `json:"review,omitempty"`
}

// report prints each turn as it completes, until the engine stops.
func report(events <-chan engine.Event, asJSON bool, stdout, stderr io.Writer, decide func(engine.ReviewRequested)) int {
	enc := json.NewEncoder(sanitize.NewJSONWriter(stdout))
	code := exitOK
	for ev := range events {
		switch v := ev.(type) {
		case engine.TurnResult:
			// Each turn as soon as the story has answered and the turn is
			// recorded: the managers' work beside the next turns (and a
			// memory question answered in the next reply) does not hold
			// the line back.
			if v.Unrecorded {
				continue
			}
			line := turnLine(v, asJSON)
			if asJSON {
				enc.Encode(line)
			} else {
				fmt.Fprintf(stdout, "T%-4d %-5s %-28q score %d moves %d  %s  %.0fms (llm %.0fms, %d+%d tokens)\n",
					line.Turn, line.Actor, line.Action, line.Score, line.Moves, roomText(line.Room, line.Location), line.TurnMS, line.LLMMS, line.PromptTokens, line.EvalTokens)
			}
		case engine.ErrorEvent:
			fmt.Fprintln(stderr, "lantern run:", errText(v.Err))
			if v.Fatal {
				code = exitError
			}
		case engine.EpisodeEnded:
			if !asJSON {
				fmt.Fprintf(stdout, "%s ended (%s): score %d in %d moves, %d turns\n", sanitize.Line(v.Line.String()), v.Reason, v.Score, v.Moves, v.Turns)
			}
		case engine.ReviewRequested:
			if decide != nil {
				if !asJSON {
					fmt.Fprintf(stderr, "T%d proposal %q (critic: %s %+.1f). y / e COMMAND / n REASON / n! REASON?\n", v.Turn, v.Action, v.Verdict.Stage, v.Verdict.Score)
				}
				decide(v)
			}
		case engine.Idle:
			// Headless runs never pause on their own; a pause (repeated
			// model failures, a turn that could not be recorded) ends the
			// run with the error reported above.
			fmt.Fprintln(stderr, "lantern run: the engine paused; stopping")
			return exitError
		case engine.Stopped:
			if v.Err != nil {
				fmt.Fprintln(stderr, "lantern run:", errText(v.Err))
				code = exitError
			}
		}
	}
	return code
}

// turnLine is a completed turn as `run` prints it.
func turnLine(v engine.TurnResult, asJSON bool) runLine {
	o := v.Observation
	line := runLine{Line: v.Line.String(), Episode: v.Line.Episode, Branch: v.Line.ID, Turn: v.Turn, Actor: string(v.Actor), Action: v.Action, Score: o.Score, Moves: o.Moves,
		Location: o.Location.ID, Room: o.Location.Name, TurnMS: ms(v.Duration), LLMMS: ms(v.LLM.Latency),
		PromptTokens: v.LLM.PromptTokens, EvalTokens: v.LLM.EvalTokens, Ended: string(o.Ended), Critic: v.Verdicts, Review: v.Reviews}
	if line.Critic == nil {
		line.Critic = []engine.Verdict{}
	}
	if asJSON {
		line.Location = o.Location
	}
	return line
}

// errText is an error for one line of a command's output: its controls
// neutralised, clipped to a few KB (a server's error body may be huge).
func errText(err error) string { return sanitize.Line(sanitize.Clip(err.Error(), 4096)) }

func ms(d interface{ Seconds() float64 }) float64 { return d.Seconds() * 1000 }

// roomText names a location for `lantern run`'s turn lines: its name in
// brackets, or its object number when the story gave it no name.
func roomText(name string, id any) string {
	if name = strings.TrimSpace(name); name != "" {
		return "[" + name + "]"
	}
	return fmt.Sprintf("L%v", id)
}
