package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	"charm.land/fang/v2"
	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/internal/scriptagent"
	"github.com/lantern-if/lantern/sanitize"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // the command failed (bad story, runtime fault, I/O)
	exitUsage = 2 // bad flags or arguments, invalid configuration
)

// exitStatus is an exit code and what it means, for the manual page.
type exitStatus struct {
	code int
	text string
}

// exitStatuses are every exit code Lantern gives, as the manual page's
// EXIT STATUS tells them (rootLong says them briefly).
func exitStatuses() []exitStatus {
	return []exitStatus{
		{exitOK, "Success. A headless run stopped by SIGINT, SIGTERM or SIGHUP also exits 0 once it has recorded and reported its last turn."},
		{exitError, "Failure: a bad story, a runtime fault, I/O, the model server unreachable, doctor or memories check found a problem, bench merge refused a shard."},
		{exitUsage, "Usage error: bad flags or arguments, an invalid configuration, several unfinished lines of play for --resume, a configuration file config init would replace."},
	}
}

// codedError carries the exit code of a failed command. A nil err means the
// command has already said what went wrong (doctor's report, a check's
// problem lines): only the code remains.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *codedError) Unwrap() error { return e.err }

// usageError marks err as a usage error (exit code 2).
func usageError(err error) error { return &codedError{code: exitUsage, err: err} }

// usageErrorf is a usage error with a message.
func usageErrorf(format string, a ...any) error {
	return usageError(fmt.Errorf(format, a...))
}

// status turns the exit code of a command that reported its own problems
// into an error (nil for success).
func status(code int) error {
	if code == exitOK {
		return nil
	}
	return &codedError{code: code}
}

// exitCode is the one mapping from a command's error to the process's exit
// code: usage errors 2, every other failure 1.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ce *codedError
	if errors.As(err, &ce) {
		return ce.code
	}
	return exitError
}

// reported: the error's message was already printed.
func reported(err error) bool {
	var ce *codedError
	return errors.As(err, &ce) && ce.err == nil
}

// app is what every command shares for one run of the command line.
type app struct {
	sampleConfig string
	configFile   string // --config
	logLevel     string // --log-level
	// signals: end the command cleanly on SIGINT, SIGTERM and SIGHUP (the
	// process, not the tests, which run commands in their own process).
	signals     bool
	stopSignals context.CancelFunc
	// safe are the neutralising writers prepare put around a command's
	// output, flushed when the command ends.
	safe []*sanitize.Writer
}

// styledOutput names the commands whose output is not passed through
// sanitize.Writer: the TUI and bench draw with escape sequences of their own
// (and neutralise the outside text they show field by field), and play
// prints the story as dfrotz does, byte for byte.
var styledOutput = map[string]bool{"lantern": true, "tui": true, "play": true, "bench": true, "help": true, "completion": true, "__complete": true}

// prepare runs before every command: its signals, and its output
// neutralised, so no control character a model, a server or a file sent
// (ESC, CSI, OSC, the C1 controls) reaches the person's terminal.
func (a *app) prepare(cmd *cobra.Command, args []string) {
	a.armSignals(cmd, args)
	top := cmd
	for top.HasParent() && top.Parent().HasParent() {
		top = top.Parent()
	}
	if styledOutput[top.Name()] {
		return
	}
	out, errw := sanitize.NewWriter(cmd.OutOrStdout()), sanitize.NewWriter(cmd.ErrOrStderr())
	a.safe = append(a.safe, out, errw)
	cmd.SetOut(out)
	cmd.SetErr(errw)
}

// keepSignals annotates a command that keeps the default signal
// behaviour (the process ends at once), as `play` does like dfrotz:
// it has nothing to flush, and arming the handlers (a goroutine and a
// thread) was a tenth of its start-up.
const keepSignals = "lantern/keep-signals"

// armSignals gives cmd a context that SIGINT, SIGTERM (systemctl stop,
// kill) and SIGHUP (the terminal closed) cancel, so the turn finishes or is
// abandoned, everything is flushed and reported, and the process exits
// cleanly.
func (a *app) armSignals(cmd *cobra.Command, _ []string) {
	if !a.signals || cmd.Annotations[keepSignals] != "" {
		return
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	a.stopSignals = stop
	cmd.SetContext(ctx)
}

// Main runs the command line on the process's arguments and exits;
// sampleConfig is lantern.sample.toml, which `lantern config sample` prints.
func Main(sampleConfig string) {
	normalizeNoColor(os.Getenv, os.Setenv)
	a := &app{sampleConfig: sampleConfig, signals: true}
	os.Exit(a.run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// normalizeNoColor: NO_COLOR with any value but the empty one asks for no
// colour (https://no-color.org), but the colour libraries under fang's
// help and messages and the TUI (colorprofile) read it as a boolean, so
// "yes" or "0" would leave the colours on; any such value is given to them
// as 1.
func normalizeNoColor(getenv func(string) string, setenv func(string, string) error) {
	v := getenv("NO_COLOR")
	if b, err := strconv.ParseBool(v); v != "" && (err != nil || !b) {
		_ = setenv("NO_COLOR", "1")
	}
}

// run executes the command line args and returns the exit code.
func run(ctx context.Context, sampleConfig string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return (&app{sampleConfig: sampleConfig}).run(ctx, args, stdin, stdout, stderr)
}

func (a *app) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	defer func() {
		if a.stopSignals != nil {
			a.stopSignals()
		}
	}()
	sub, named := namedCommand(args)
	root := newRoot(a, sub, named)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// The manual page is Lantern's own (man.go).
	opts := []fang.Option{fang.WithVersion(version()), fang.WithoutManpage()}
	if named {
		// `completion` was not asked for.
		opts = append(opts, fang.WithoutCompletions())
	}
	err := fang.Execute(ctx, root, append(opts,
		fang.WithErrorHandler(func(w io.Writer, _ fang.Styles, err error) {
			if reported(err) {
				return
			}
			// The message names the command that failed ("lantern run: ...").
			path := root.Name()
			if cmd, _, ferr := root.Find(args); ferr == nil {
				path = cmd.CommandPath()
			}
			// The error may carry a server's or a model's text, or a huge
			// name: it is neutralised and clipped.
			fmt.Fprintf(w, "%s: %s\n", path, sanitize.Text(sanitize.Clip(err.Error(), 4096)))
		}))...)
	for _, w := range a.safe {
		w.Flush()
	}
	return exitCode(err)
}

// rootAbout is what Lantern is, the manual page's DESCRIPTION; rootLong,
// the root's help, adds the exit codes.
const rootAbout = `Lantern is a terminal co-pilot for LLM agents that play Z-machine interactive
fiction. With no command it opens the TUI (flags such as --story, --workdir,
--model and --config go to it). Every command that needs settings takes
--config F (read in place of ./lantern.toml).`

const rootLong = rootAbout + `

Exit codes: 0 success; 1 failure (bad story, runtime fault, I/O, Ollama
unreachable, doctor found a problem, memories check found a problem); 2 usage
error (bad flags or arguments, invalid configuration).`

// command is a subcommand by name, built on demand.
type command struct {
	name  string
	build func(*app) *cobra.Command
}

// commands lists the subcommands in the order help shows them.
func commands() []command {
	return []command{
		{"tui", newTUICmd},
		{"play", newPlayCmd},
		{"run", newRunCmd},
		{"bench", newBenchCmd},
		{"doctor", newDoctorCmd},
		{"models", newModelsCmd},
		{"memories", newMemoriesCmd},
		{"stories", newStoriesCmd},
		{"notes", newNotesCmd},
		{"map", newMapCmd},
		{"episodes", newEpisodesCmd},
		{"config", newConfigCmd},
		{"oracle", newOracleCmd},
		{"version", func(*app) *cobra.Command {
			return &cobra.Command{
				Use: "version", Short: "print the version", Args: noArgs,
				Run: func(cmd *cobra.Command, _ []string) { fmt.Fprintln(cmd.OutOrStdout(), "lantern", version()) },
			}
		}},
	}
}

// namedCommand is the command a command line starts with, if any.
func namedCommand(args []string) (command, bool) {
	for _, c := range commands() {
		if len(args) > 0 && args[0] == c.name {
			return c, true
		}
	}
	return command{}, false
}

// newRoot builds the command tree: one file per command, each adding its
// own flags; what every command shares is set here. A command line that
// starts with a command's name (named: sub) gets only that command
// (building all of them was a tenth of `lantern play`'s start-up); any
// other line (help, completion, flags first, a typo to suggest a name for)
// gets them all.
func newRoot(a *app, sub command, named bool) *cobra.Command {
	root := newTUICmd(a)
	root.Use = "lantern"
	root.Short = "a terminal co-pilot for agents that play interactive fiction"
	root.Long = rootLong
	root.Example = "  lantern\n  lantern --story zork1.z3 --model qwen3:4b\n  lantern play < walkthrough.txt\n  lantern help bench"
	root.Args = unknownCommand
	root.SuggestionsMinimumDistance = 2
	root.SetVersionTemplate("lantern {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	root.PersistentPreRun = a.prepare
	root.PersistentFlags().StringVar(&a.configFile, "config", "", "configuration file read in place of ./lantern.toml")
	root.PersistentFlags().StringVar(&a.logLevel, "log-level", "", logLevelUsage)
	all := commands()
	if named {
		all = []command{sub}
	}
	for _, c := range all {
		root.AddCommand(c.build(a))
	}
	if !named {
		root.AddCommand(newManCmd())
	}
	registerCompletions(root)
	return root
}

// unknownCommand is the root's argument check: anything after `lantern`
// that is not a command is a usage error, with the commands it resembles.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q", args[0])
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return usageError(fmt.Errorf("%s\nRun 'lantern --help' for the commands", msg))
}

// noArgs refuses positional arguments, as a usage error.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("unexpected %q", args[0])
	}
	return nil
}

// version is the module's version from the build information, with the
// VCS revision when the build recorded one; "dev" for a plain source build.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	// Go 1.24 and later derive a pseudo-version that already names the
	// revision (v0.0.0-20261123164033-a3f87b0c2d92+dirty).
	if rev != "" && !strings.Contains(v, rev) {
		v += " (" + rev + dirty + ")"
	}
	return v
}

// agentFromSpec is the agent --agent names: nil for llm (the session
// builds the model agent), the script agent for script:FILE.
func agentFromSpec(spec string) (engine.Agent, error) {
	if f, ok := strings.CutPrefix(spec, "script:"); ok {
		a, err := scriptagent.Load(f)
		if err != nil {
			return nil, fmt.Errorf("--agent: %w", err)
		}
		return a, nil
	}
	if spec != "llm" {
		return nil, usageErrorf("--agent %q: want llm or script:FILE", spec)
	}
	return nil, nil
}
