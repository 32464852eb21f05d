package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/memory"
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
checkpointed in lantern.db: after a crash, --resume continues the episode
from its last recorded turn with the identical game state (a script resumes
after the actions already played).

With --review the person is the last critic: each proposal (after the
critic) waits for one line on standard input: y accepts it, e COMMAND plays
COMMAND instead (recorded as human-edited, the proposal kept), n REASON
rejects it (the agent proposes again with the reason in its prompt), n! REASON
also writes the reason to Memories.md at that location. At the end of
standard input every further proposal is accepted.`,
		Example: `  lantern run --headless --story zork1.z3 --max-turns 50 --model qwen3:4b
  lantern run --headless --json --agent script:walkthrough.txt --seed 12`,
	}
	fs := cmd.Flags()
	fs.Bool("headless", true, "without the TUI, the only mode")
	asJSON := fs.Bool("json", false, "one JSON object per turn")
	sessionFlags(fs)
	episodes := episodeFlags(fs, 1)
	agentSpec := fs.String("agent", "llm", "llm, or script:FILE to replay actions through the full loop")
	resume := fs.Bool("resume", false, "continue the story's unfinished episode (a killed session) from its last recorded turn")
	review := fs.Bool("review", false, "review mode: each proposal waits for a decision read from standard input (y, e COMMAND, n REASON, n! REASON)")
	autoAccept := fs.Duration("auto-accept", 0, "review mode: accept a proposal left undecided this long (0: wait)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx, stdin, stdout, stderr := cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
		cfg, err := loadConfig("run", changed(fs), a.configFile, stderr, "workdir", "story", "model", "max-turns", "seed", "api", "base-url")
		if err != nil {
			return err
		}
		log, closeLog, err := commandLog("run", cfg.WorkDir, a.logLevel, cfg)
		if err != nil {
			return usageError(fmt.Errorf("log: %w", err))
		}
		defer closeLog()
		story, path, binding, err := openStoryAndBinding(cfg.Story, cfg.WorkDir)
		if err != nil {
			log.Error("story", "err", err)
			return err
		}
		log.Info("story", "path", path, "episodes", *episodes, "agent", *agentSpec)
		var client *llm.Client
		agent, err := agentFromSpec(*agentSpec)
		if err != nil {
			return err
		}
		if agent == nil || fs.Changed("model") {
			client, err = newClientLog(cfg, nil, log)
			if err != nil {
				return err
			}
			if !client.Loopback() {
				fmt.Fprintf(stderr, "lantern run: note: a model server is not on this machine (%s): prompts and game text go over the network\n", strings.Join(client.Hosts(), ", "))
			}
		}
		sess, err := openSession(cfg, storyFile{story, path, binding}, client, agent, *episodes, false)
		if errors.Is(err, memory.ErrInUse) {
			return fmt.Errorf("%w\nlantern run: its past episodes can be replayed meanwhile, read-only: lantern --story %s --workdir %s (answer y)", err, path, cfg.WorkDir)
		}
		if err != nil {
			return err
		}
		defer sess.Close()
		if code := resumeOrNot(ctx, sess, *resume, "lantern run", stderr); code != exitOK {
			return status(code)
		}
		var decide func(engine.ReviewRequested)
		if *review {
			if err := sess.Engine.Send(ctx, engine.SetReview{On: true, AutoAccept: *autoAccept}); err != nil {
				return status(exitError)
			}
			decide = reviewer(ctx, sess.Engine, stdin, stderr)
		}
		go sess.Engine.Run(ctx)
		code := report(sess.Engine.Events(), *asJSON, stdout, stderr, decide)
		log.Info("stop", "code", code)
		return status(code)
	}
	return cmd
}

// reviewer answers each review request with the next decision line of in
// (accepting at its end); a line that is not a decision is reported and
// the next one read.
func reviewer(ctx context.Context, e *engine.Engine, in io.Reader, stderr io.Writer) func(engine.ReviewRequested) {
	lines := bufio.NewScanner(in)
	lines.Buffer(make([]byte, 0, 4096), 64*1024)
	return func(r engine.ReviewRequested) {
		d := engine.ReviewDecision{Decision: engine.DecisionAccept}
		for lines.Scan() {
			got, err := engine.ParseDecision(lines.Text())
			if err != nil {
				fmt.Fprintln(stderr, "lantern run:", err)
				continue
			}
			d = got
			break
		}
		e.Send(ctx, d)
	}
}

// resumeOrNot resumes the session's unfinished episode when asked (saying
// so on stderr), or says that a new episode leaves it interrupted.
func resumeOrNot(ctx context.Context, sess *session.Session, resume bool, who string, stderr io.Writer) int {
	if !resume {
		if cp, ok, err := sess.Unfinished(ctx); err == nil && ok {
			fmt.Fprintf(stderr, "%s: note: an unfinished episode (stopped after turn %d) will be recorded as interrupted; --resume continues it\n", who, cp.Turn)
		}
		return exitOK
	}
	cp, err := sess.Resume(ctx)
	switch {
	case errors.Is(err, session.ErrNothingToResume):
		fmt.Fprintf(stderr, "%s: nothing to resume; a new episode starts\n", who)
	case err != nil:
		fmt.Fprintf(stderr, "%s: resume: %v\n", who, err)
		return exitError
	default:
		fmt.Fprintf(stderr, "%s: resuming after turn %d (checkpoint of %s)\n", who, cp.Turn, cp.Saved.Local().Format("2006-01-02 15:04:05"))
	}
	return exitOK
}

// runLine is one turn of `run --json`.
type runLine struct {
	Episode      int     `json:"episode,omitempty"`
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

// report prints the engine's turns until it stops.
func report(events <-chan engine.Event, asJSON bool, stdout, stderr io.Writer, decide func(engine.ReviewRequested)) int {
	enc := json.NewEncoder(stdout)
	code := exitOK
	var pending *runLine
	flush := func() {
		if pending == nil {
			return
		}
		if asJSON {
			enc.Encode(pending)
		} else {
			fmt.Fprintf(stdout, "T%-4d %-5s %-28q score %d moves %d  %s  %.0fms (llm %.0fms, %d+%d tokens)\n",
				pending.Turn, pending.Actor, pending.Action, pending.Score, pending.Moves, roomText(pending.Room, pending.Location), pending.TurnMS, pending.LLMMS, pending.PromptTokens, pending.EvalTokens)
		}
		pending = nil
	}
	for ev := range events {
		switch v := ev.(type) {
		case engine.EpisodeStarted:
			flush()
		case engine.TurnResult:
			flush()
			if v.Resumed {
				continue
			}
			o := v.Observation
			pending = &runLine{Turn: v.Turn, Actor: string(v.Actor), Action: v.Action, Score: o.Score, Moves: o.Moves,
				Location: o.Location.ID, Room: o.Location.Name, TurnMS: ms(v.Duration), LLMMS: ms(v.LLMTime), Ended: string(o.Ended), Critic: v.Verdicts, Review: v.Reviews}
			if pending.Critic == nil {
				pending.Critic = []engine.Verdict{}
			}
			if asJSON {
				pending.Location = o.Location
			}
		case engine.MetricsUpdated:
			if pending != nil {
				pending.PromptTokens, pending.EvalTokens = v.LLM.PromptTokens, v.LLM.EvalTokens
			}
		case engine.ErrorEvent:
			fmt.Fprintln(stderr, "lantern run:", v.Err)
			if v.Fatal {
				code = exitError
			}
		case engine.EpisodeEnded:
			flush()
			if !asJSON {
				fmt.Fprintf(stdout, "episode %d ended (%s): score %d in %d moves, %d turns\n", v.Episode, v.Reason, v.Score, v.Moves, v.Turns)
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
			flush()
			fmt.Fprintln(stderr, "lantern run: the engine paused; stopping")
			return exitError
		case engine.Stopped:
			flush()
			if v.Err != nil {
				fmt.Fprintln(stderr, "lantern run:", v.Err)
				code = exitError
			}
		}
	}
	return code
}

func ms(d interface{ Seconds() float64 }) float64 { return d.Seconds() * 1000 }

// roomText names a location for `lantern run`'s turn lines: its name in
// brackets, or its object number when the story gave it no name.
func roomText(name string, id any) string {
	if name = strings.TrimSpace(name); name != "" {
		return "[" + name + "]"
	}
	return fmt.Sprintf("L%v", id)
}
