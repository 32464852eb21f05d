package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/sanitize"
	"github.com/lantern-if/lantern/themes"
	"github.com/lantern-if/lantern/tui"
)

// cmdTUI runs Lantern's terminal interface: the agent plays, the person
// watches, steps, types commands and edits memories. The engine starts
// paused, so nothing runs before the person has seen the screen.
func newTUICmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tui",
		Args:  noArgs,
		Short: "open the terminal interface (the default command)",
		Long: `Opens the terminal interface: the agent plays the story through Ollama
(OLLAMA_HOST, default 127.0.0.1:11434) while you watch, step it turn by turn,
type your own commands and edit the memories it learns. It starts paused:
space runs the agent, n plays one turn, i types a command, ? lists every key.
When Ollama cannot be reached the screen says so and you can still play.
When the last session stopped in the middle of an episode (it was killed or
crashed), Lantern asks whether to continue it from its last turn.`,
		Example: `  lantern
  lantern --story zork1.z3 --model qwen3:4b`,
	}
	var o tuiOptions
	fs := cmd.Flags()
	sessionFlags(fs)
	fs.String("theme", "", "theme: "+strings.Join(themes.Names(), ", ")+", auto or a theme file (default: theme in the configuration)")
	fs.BoolVar(&o.resume, "resume", false, "continue the unfinished line of play without asking (the one played last, else the only one; several: asks which)")
	fs.BoolVar(&o.fresh, "new", false, "start a new episode without asking; unfinished lines of play stay as they are")
	fs.BoolVar(&o.review, "review", false, "start in review mode: each proposal waits for you (v switches it)")
	fs.DurationVar(&o.autoAccept, "auto-accept", 0, "review mode: accept a proposal left undecided this long, with a countdown (0: wait)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		o.set = changed(fs)
		return runTUI(cmd.Context(), a, o, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
	return cmd
}

// tuiOptions are the TUI's flags.
type tuiOptions struct {
	set        map[string]string // the flags given, by name
	resume     bool              // continue the unfinished line without asking
	fresh      bool              // --new: a new episode without asking
	review     bool
	autoAccept time.Duration
}

// runTUI opens the story's session, paused, and runs the TUI on it until
// the person quits.
func runTUI(ctx context.Context, a *app, o tuiOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := loadConfig("tui", o.set, a.configFile, stderr, "workdir", "story", "model", "seed", "theme", "profile", "api", "base-url")
	if err != nil {
		return err
	}
	theme, err := tuiTheme(cfg)
	if err != nil {
		return err
	}
	workDir := cfg.WorkDir
	if f, ok := stdout.(*os.File); !ok || !term.IsTerminal(f.Fd()) {
		return usageErrorf("the TUI needs a terminal; use `lantern play --plain` or `lantern run --headless` without one")
	}
	story, path, binding, err := openStoryAndBinding(cfg.Story, cfg.WorkDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return fmt.Errorf("work dir: %w", err)
	}
	log, closeLog, err := commandLog("tui", workDir, a.logLevel, cfg)
	if err != nil {
		return err
	}
	defer closeLog()
	log.Info("story", "path", path)
	if one, err := oneHost(ctx, cfg, "lantern", stderr); err == nil {
		cfg = one
	} else {
		// Nothing answers: the TUI says so, and the person plays by hand.
		log.Warn("hosts", "err", err)
	}
	client, err := newClientLog(cfg, nil, log)
	if err != nil {
		return usageError(err)
	}
	// Episodes follow one another until the person quits; nothing runs
	// before the person has seen the screen.
	sess, err := openSession(cfg, storyFile{story, path, binding}, client, nil, -1, true)
	var inUse *memory.InUseError
	if errors.As(err, &inUse) {
		return status(offerReadOnly(ctx, inUse, path, story.Info().MD5, theme, stdin, stdout, stderr))
	}
	if err != nil {
		return err
	}
	defer sess.Close()
	sess.SetLogger(log)
	if !o.fresh {
		if code := startResumed(ctx, sess, o.resume, stdin, stderr); code != exitOK {
			return status(code)
		}
	}
	if err := startSession(ctx, sess, log, o.review, o.autoAccept); err != nil {
		return err
	}
	maxScore := 0
	if binding != nil {
		maxScore = binding.MaxScore
	}
	opts := tui.Options{
		Engine: sess.Engine, Models: client, Memories: sess.Memories, Episodes: sess.DB, Branches: tuiBranches{sess.DB}, Notes: sess, Story: storyTitle(path), MaxScore: maxScore,
		Theme: theme, Keys: cfg.Keys, KnowledgePath: filepath.Join(sess.Dir, "knowledgebase.md"), Logger: log,
		Review: o.review, AutoAccept: o.autoAccept,
		SavePrefs: func(theme string, models map[string]string) error {
			return savePrefs(config.UserFile(os.LookupEnv), theme, models)
		},
	}
	if sess.Objectives != nil {
		opts.Objectives = sess.Objectives
	}
	return status(playTUI(ctx, sess, opts, log, stdin, stdout, stderr))
}

// tuiTheme is the configured theme, "" when the TUI follows the
// terminal's background; one that does not load is a usage error.
func tuiTheme(cfg *config.Config) (string, error) {
	theme := cfg.Theme
	if theme == config.DefaultTheme {
		theme = "" // the TUI follows the terminal's background
	}
	if theme != "" {
		if _, err := themes.Load(theme); err != nil {
			return "", usageError(err)
		}
	}
	return theme, nil
}

// playTUI runs the TUI until the person quits, then stops the engine; it
// returns the exit code.
func playTUI(ctx context.Context, sess *session.Session, opts tui.Options, log *slog.Logger, stdin io.Reader, stdout, stderr io.Writer) int {
	err := tui.Run(ctx, opts, stdin, stdout)
	code := exitOK
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Error("tui", "err", err)
		fmt.Fprintln(stderr, "lantern:", err)
		code = exitError
	}
	// The engine stops at a turn boundary after Quit (the TUI sent it
	// when the person quit); Stop gives it time, then cancels it.
	if err := sess.Stop(10 * time.Second); err != nil {
		log.Error("engine", "err", err)
		fmt.Fprintln(stderr, "lantern: engine:", err)
		code = exitError
	}
	log.Info("stop", "code", code)
	return code
}

// offerReadOnly is what a second Lantern on an owned story does: it names
// the owner and offers the replay of the stored episodes, read-only (the
// database is only read, the lock is never taken).
func offerReadOnly(ctx context.Context, inUse *memory.InUseError, path, md5, theme string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "lantern:", inUse)
	fmt.Fprint(stderr, "Replay its past episodes read-only meanwhile? [Y/n] ")
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "", "y", "yes":
	default:
		return exitError
	}
	db, err := rundb.OpenRunDB(filepath.Join(inUse.Dir, "lantern.db"), md5)
	if err != nil {
		fmt.Fprintln(stderr, "lantern:", err)
		return exitError
	}
	defer db.Close()
	err = tui.RunReadOnly(ctx, tui.ReadOnlyOptions{Episodes: db, Story: storyTitle(path), OwnerPID: inUse.PID, Theme: theme}, stdin, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "lantern:", err)
		return exitError
	}
	return exitOK
}

// startResumed asks, on the terminal before the TUI starts, whether to
// continue an unfinished line of play (resume: without asking when one is
// plain), and resumes the one chosen.
func startResumed(ctx context.Context, sess *session.Session, resume bool, stdin io.Reader, stderr io.Writer) int {
	r, err := sess.Unfinished(ctx)
	if err != nil || len(r.Lines) == 0 {
		return exitOK
	}
	b, plain := r.Pick()
	if !resume || !plain {
		b, plain = askResume(r, stdin, stderr)
	}
	if !plain {
		return exitOK // a new episode; the unfinished lines stay
	}
	return resumeLine(ctx, sess, b.ID, "lantern", stderr)
}

// askResume offers the unfinished lines: the one played last (or the only
// one) with Enter or y, any of several by its number; n starts a new
// episode. ok is false for a new episode.
func askResume(r session.Resumable, stdin io.Reader, stderr io.Writer) (rundb.BranchInfo, bool) {
	in := bufio.NewReader(stdin)
	if b, ok := r.Pick(); ok && len(r.Lines) == 1 {
		when := ""
		if r.Last {
			when = " (" + r.Saved.Local().Format("2006-01-02 15:04") + ")"
		}
		fmt.Fprintf(stderr, "Line of play %s stopped after turn %d%s, score %d.\nContinue it? [Y/n] ",
			sanitize.Line(b.Line().String()), b.Turns, when, b.Score)
		line, _ := in.ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "", "y", "yes":
			return b, true
		}
		return rundb.BranchInfo{}, false
	}
	fmt.Fprintln(stderr, "Unfinished lines of play:")
	for i, l := range r.Lines {
		last := ""
		if i == 0 && r.Last {
			last = "  ← played last"
		}
		fmt.Fprintf(stderr, "  %d) %s (#%d) after turn %d, score %d, moves %d%s\n", i+1, sanitize.Line(l.Line().String()), l.ID, l.Turns, l.Score, l.Moves, last)
	}
	for range 5 {
		if r.Last {
			fmt.Fprintf(stderr, "Continue which? [1-%d, Enter: 1, n: a new episode] ", len(r.Lines))
		} else {
			fmt.Fprintf(stderr, "Continue which? [1-%d, n: a new episode] ", len(r.Lines))
		}
		line, err := in.ReadString('\n')
		ans := strings.ToLower(strings.TrimSpace(line))
		switch n, nerr := strconv.Atoi(ans); {
		case ans == "" && r.Last:
			return r.Lines[0], true
		case ans == "n" || ans == "new" || (ans == "" && err != nil):
			return rundb.BranchInfo{}, false
		case nerr == nil && n >= 1 && n <= len(r.Lines):
			return r.Lines[n-1], true
		}
		fmt.Fprintf(stderr, "%q is not one of them.\n", sanitize.Line(ans))
	}
	return rundb.BranchInfo{}, false
}

// storyTitle is the story's name for the status bar.
func storyTitle(path string) string {
	base := filepath.Base(path)
	return base[:len(base)-len(filepath.Ext(base))]
}
