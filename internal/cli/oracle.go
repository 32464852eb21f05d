package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/oracle"
)

// cmdOracle serves the oracle model until ctx ends (SIGINT) or SIGTERM.
func newOracleCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "oracle --script FILE [flags]",
		Args:  noArgs,
		Short: "serve a model that plays a walkthrough (no GPU)",
		Long: `Serves Ollama's HTTP API and the OpenAI chat-completions protocol (/v1) on
one port, with one model, "oracle", that knows the solution:
as the agent it proposes the walkthrough's commands one by one (moving on
only when its last proposal was played, so a rejected or replaced command is
proposed again), as the critic it scores the walkthrough's move high and
anything else from the game state it is shown, and every other role gets a
well-formed, plausible reply. No GPU and no Ollama are needed.

The first line on standard output is OLLAMA_HOST=HOST:PORT; the server runs
until it is interrupted or terminated, then prints how many proposals it made
and which turns it had to propose again. Each proposal and critic score is
logged to standard error unless --quiet.

With --prompt-rate and --gen-rate the replies take as long as a model on a
GPU would take: the prompt is evaluated at --prompt-rate tokens a second,
less the prefix the serving slot still holds from its last prompt (the
prompt cache), then each role's reply takes a fixed number of generated
tokens (agent 70, or 160 when it also answers a memory question, critic 40,
memory 120, ...: what a real model writes for that role's schema) at
--gen-rate. --slots requests are served at once
(Ollama's OLLAMA_NUM_PARALLEL, llama.cpp's -np); more wait in line.`,
		Example: `  lantern oracle --script ../shared/walkthroughs/zork1.txt
  lantern oracle --script game_files/demo/walkthrough.txt --listen 127.0.0.1:11500
  # a consumer GPU with Ollama's default single slot:
  lantern oracle --script ../shared/walkthroughs/zork1.txt --prompt-rate 2500 --gen-rate 60 --slots 1
  # in another terminal, with the printed address:
  OLLAMA_HOST=127.0.0.1:11500 lantern --model oracle --story zork1.z3`,
	}
	var o oracleOptions
	fs := cmd.Flags()
	fs.StringVar(&o.script, "script", "", "walkthrough the agent follows: one command per line, blank lines and # comments skipped (required)")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:0", "address to serve on (port 0: a free port)")
	fs.BoolVar(&o.noThink, "no-think", false, "do not claim the thinking capability (the agent's reasoning then comes in its JSON reply)")
	fs.DurationVar(&o.delay, "chunk-delay", 0, "pause between the pieces of a streamed reply, to watch the reasoning arrive (e.g. 30ms)")
	fs.BoolVar(&o.quiet, "quiet", false, "do not log each proposal and critic score to standard error")
	fs.Float64Var(&o.pace.PromptRate, "prompt-rate", 0, "pace replies: prompt evaluation in tokens a second (e.g. 2500; 0: reply at once)")
	fs.Float64Var(&o.pace.GenRate, "gen-rate", 0, "pace replies: generation in tokens a second (e.g. 60; needs --prompt-rate)")
	fs.IntVar(&o.pace.Slots, "slots", 1, "paced replies: requests served at once, each slot with its own prompt cache")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if fs.NArg() > 0 {
			return usageErrorf("unexpected %q", fs.Arg(0))
		}
		if o.script == "" {
			return usageErrorf("--script FILE is required (a walkthrough, one command per line)")
		}
		if o.pace.PromptRate != 0 || o.pace.GenRate != 0 || fs.Changed("slots") {
			p, err := oracle.NewPacer(o.pace)
			if err != nil {
				return usageErrorf("--prompt-rate, --gen-rate and --slots: %v", err)
			}
			o.pacer = p
		}
		return runOracle(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
	return cmd
}

// oracleOptions are lantern oracle's flags.
type oracleOptions struct {
	script, listen string
	noThink, quiet bool
	delay          time.Duration
	pace           oracle.PaceOptions
	pacer          *oracle.Pacer // nil: replies at once
}

// runOracle serves the oracle on o.listen until ctx ends or SIGTERM, then
// says what it served.
func runOracle(ctx context.Context, o oracleOptions, stdout, stderr io.Writer) error {
	cmds, err := oracle.LoadScript(o.script)
	if err != nil {
		return err
	}
	log := slog.New(slog.DiscardHandler)
	if !o.quiet {
		log = slog.New(slog.NewTextHandler(stderr, nil))
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %v", o.listen, err)
	}
	orc := oracle.New(oracle.Options{Script: cmds, NoThinking: o.noThink, ChunkDelay: o.delay, Logger: log, Pacer: o.pacer})
	srv := &http.Server{
		Handler:           orc,
		ReadHeaderTimeout: 10 * time.Second,
	}
	fmt.Fprintf(stdout, "OLLAMA_HOST=%s\n", ln.Addr())
	fmt.Fprintf(stderr, "lantern oracle: serving %d commands of %s as model %q; stop with Ctrl-C\n", len(cmds), o.script, oracle.ModelName)
	if o.pacer != nil {
		fmt.Fprintf(stderr, "lantern oracle: paced at %g prompt and %g generated tokens a second, %d slots\n", o.pace.PromptRate, o.pace.GenRate, o.pace.Slots)
	}
	fmt.Fprintf(stderr, "lantern oracle: the OpenAI protocol on the same port: --api openai --base-url http://%s/v1\n", ln.Addr())
	if err := serveUntilStopped(ctx, srv, ln); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "lantern oracle: stopped:", orc.Stats())
	if o.pacer != nil {
		fmt.Fprintln(stderr, "lantern oracle:", o.pacer.Totals())
	}
	return nil
}

// serveUntilStopped serves srv on ln until ctx ends or SIGTERM, then shuts
// it down; the error is the server's when it stopped by itself.
func serveUntilStopped(ctx context.Context, srv *http.Server, ln net.Listener) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	<-done
	return nil
}
