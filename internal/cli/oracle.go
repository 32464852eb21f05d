package cli

import (
	"context"
	"fmt"
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
	fs := cmd.Flags()
	script := fs.String("script", "", "walkthrough the agent follows: one command per line, blank lines and # comments skipped (required)")
	listen := fs.String("listen", "127.0.0.1:0", "address to serve on (port 0: a free port)")
	noThink := fs.Bool("no-think", false, "do not claim the thinking capability (the agent's reasoning then comes in its JSON reply)")
	delay := fs.Duration("chunk-delay", 0, "pause between the pieces of a streamed reply, to watch the reasoning arrive (e.g. 30ms)")
	quiet := fs.Bool("quiet", false, "do not log each proposal and critic score to standard error")
	promptRate := fs.Float64("prompt-rate", 0, "pace replies: prompt evaluation in tokens a second (e.g. 2500; 0: reply at once)")
	genRate := fs.Float64("gen-rate", 0, "pace replies: generation in tokens a second (e.g. 60; needs --prompt-rate)")
	slots := fs.Int("slots", 1, "paced replies: requests served at once, each slot with its own prompt cache")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx, stdout, stderr := cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr()
		if fs.NArg() > 0 {
			return usageErrorf("unexpected %q", fs.Arg(0))
		}
		if *script == "" {
			return usageErrorf("--script FILE is required (a walkthrough, one command per line)")
		}
		var pacer *oracle.Pacer
		if *promptRate != 0 || *genRate != 0 || fs.Changed("slots") {
			p, err := oracle.NewPacer(oracle.PaceOptions{PromptRate: *promptRate, GenRate: *genRate, Slots: *slots})
			if err != nil {
				return usageErrorf("--prompt-rate, --gen-rate and --slots: %v", err)
			}
			pacer = p
		}
		cmds, err := oracle.LoadScript(*script)
		if err != nil {
			return err
		}
		log := slog.New(slog.DiscardHandler)
		if !*quiet {
			log = slog.New(slog.NewTextHandler(stderr, nil))
		}
		ln, err := net.Listen("tcp", *listen)
		if err != nil {
			return fmt.Errorf("listen on %s: %v", *listen, err)
		}
		orc := oracle.New(oracle.Options{Script: cmds, NoThinking: *noThink, ChunkDelay: *delay, Logger: log, Pacer: pacer})
		srv := &http.Server{
			Handler:           orc,
			ReadHeaderTimeout: 10 * time.Second,
		}
		fmt.Fprintf(stdout, "OLLAMA_HOST=%s\n", ln.Addr())
		fmt.Fprintf(stderr, "lantern oracle: serving %d commands of %s as model %q; stop with Ctrl-C\n", len(cmds), *script, oracle.ModelName)
		if pacer != nil {
			fmt.Fprintf(stderr, "lantern oracle: paced at %g prompt and %g generated tokens a second, %d slots\n", *promptRate, *genRate, *slots)
		}
		fmt.Fprintf(stderr, "lantern oracle: the OpenAI protocol on the same port: --api openai --base-url http://%s/v1\n", ln.Addr())
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
		fmt.Fprintln(stderr, "lantern oracle: stopped:", orc.Stats())
		if pacer != nil {
			fmt.Fprintln(stderr, "lantern oracle:", pacer.Totals())
		}
		return nil
	}
	return cmd
}
