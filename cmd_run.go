package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/llm"
)

// defaultWorkDir is $XDG_DATA_HOME/lantern, else ~/.local/share/lantern.
func defaultWorkDir() string { return config.DefaultWorkDir(os.LookupEnv) }

func cmdRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	headless := fs.Bool("headless", false, "run without the TUI (required for now)")
	asJSON := fs.Bool("json", false, "one JSON object per turn")
	fs.String("story", "", "story file (default: story in the configuration, else the built-in demo)")
	fs.Int("seed", 0, "random seed (frotz -s semantics); episode n uses seed+n-1 (default: loop.seed)")
	fs.Int("max-turns", 500, "turns per episode (default: loop.max_turns_per_episode)")
	episodes := fs.Int("episodes", 1, "episodes to play")
	model := fs.String("model", "", "model for every role (default: the configured ones)")
	agentSpec := fs.String("agent", "llm", "llm, or script:FILE to replay actions through the full loop")
	fs.String("workdir", "", "work dir, one folder per story inside (default: work_dir, else $XDG_DATA_HOME/lantern)")
	configFile := fs.String("config", "", "configuration file read in place of ./lantern.toml")
	resume := fs.Bool("resume", false, "continue the story's unfinished episode (a killed session) from its last recorded turn")
	review := fs.Bool("review", false, "review mode: each proposal waits for a decision read from standard input (y, e COMMAND, n REASON, n! REASON)")
	autoAccept := fs.Duration("auto-accept", 0, "review mode: accept a proposal left undecided this long (0: wait)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: lantern run --headless [--json] [--story F] [--seed N] [--max-turns N]
                   [--episodes N] [--model M] [--agent llm|script:FILE] [--workdir D] [--config F]
                   [--resume] [--review [--auto-accept D]]

Plays episodes with the agent, without the TUI, printing a line per turn (or
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
standard input every further proposal is accepted.

Examples:
  lantern run --headless --story zork1.z3 --max-turns 50 --model qwen3:4b
  lantern run --headless --json --agent script:walkthrough.txt --seed 12

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if !*headless {
		fmt.Fprintln(stderr, "lantern run: only --headless exists so far")
		return exitUsage
	}
	cfg := loadConfig("run", fs, *configFile, stderr, "workdir", "story", "model", "max-turns", "seed")
	if cfg == nil {
		return exitUsage
	}
	story, path, binding, err := openStoryAndBinding(cfg.Story)
	if err != nil {
		fmt.Fprintln(stderr, "lantern run:", err)
		return exitError
	}
	var agent engine.Agent
	var client *llm.Client
	if f, ok := strings.CutPrefix(*agentSpec, "script:"); ok {
		file, err := os.Open(f)
		if err != nil {
			fmt.Fprintln(stderr, "lantern run: open script:", err)
			return exitError
		}
		sa, err := engine.NewScriptAgent(file)
		file.Close()
		if err != nil {
			fmt.Fprintln(stderr, "lantern run:", err)
			return exitError
		}
		agent = sa
	} else if *agentSpec != "llm" {
		fmt.Fprintf(stderr, "lantern run: --agent %q: want llm or script:FILE\n", *agentSpec)
		return exitUsage
	}
	if agent == nil || *model != "" {
		client, err = newClient(cfg, nil)
		if err != nil {
			fmt.Fprintln(stderr, "lantern run:", err)
			return exitError
		}
		if !client.Loopback() {
			fmt.Fprintf(stderr, "lantern run: note: the Ollama server %s is not on this machine\n", client.Host())
		}
	}
	sess, err := session.Open(session.Options{
		Story: story, Name: path, Binding: binding, WorkDir: cfg.WorkDir, Client: client, Agent: agent, Autosave: true,
		Engine: engineConfig(cfg, *episodes), MemoryWindow: cfg.Loop.MemoryHistoryWindow,
		Research: cfg.Managers.ResearchRounds, Planning: planning(cfg),
	})
	if err != nil {
		fmt.Fprintln(stderr, "lantern run:", err)
		return exitError
	}
	defer sess.Close()
	if code := resumeOrNot(ctx, sess, *resume, "lantern run", stderr); code != exitOK {
		return code
	}
	var decide func(engine.ReviewRequested)
	if *review {
		if err := sess.Engine.Send(ctx, engine.SetReview{On: true, AutoAccept: *autoAccept}); err != nil {
			return exitError
		}
		decide = reviewer(ctx, sess.Engine, stdin, stderr)
	}
	go sess.Engine.Run(ctx)
	return report(sess.Engine.Events(), *asJSON, stdout, stderr, decide)
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
			fmt.Fprintf(stdout, "T%-4d %-5s %-28q score %d moves %d  L%v  %.0fms (llm %.0fms, %d+%d tokens)\n",
				pending.Turn, pending.Actor, pending.Action, pending.Score, pending.Moves, pending.Location, pending.TurnMS, pending.LLMMS, pending.PromptTokens, pending.EvalTokens)
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
				Location: o.Location.ID, TurnMS: ms(v.Duration), LLMMS: ms(v.LLMTime), Ended: string(o.Ended), Critic: v.Verdicts, Review: v.Reviews}
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
