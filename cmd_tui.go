package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/themes"
	"github.com/lantern-if/lantern/tui"
)

// cmdTUI runs Lantern's terminal interface: the agent plays, the person
// watches, steps, types commands and edits memories. The engine starts
// paused, so nothing runs before the person has seen the screen.
func cmdTUI(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tui", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.String("story", "", "story file (default: story in the configuration, else the built-in demo)")
	fs.String("workdir", "", "work dir, one folder per story inside; the log is lantern.log there (default: work_dir, else $XDG_DATA_HOME/lantern)")
	fs.String("model", "", "model for every role (default: the configured ones)")
	configPath := fs.String("config", "", "configuration file read in place of ./lantern.toml")
	fs.String("theme", "", "theme: "+fmt.Sprint(themes.Names())+" or auto (default: theme in the configuration)")
	fs.Int("seed", 0, "random seed (frotz -s semantics; default: loop.seed)")
	resume := fs.Bool("resume", false, "continue the unfinished episode without asking")
	fresh := fs.Bool("new", false, "start a new episode without asking, even when one was left unfinished")
	review := fs.Bool("review", false, "start in review mode: each proposal waits for you (v switches it)")
	autoAccept := fs.Duration("auto-accept", 0, "review mode: accept a proposal left undecided this long, with a countdown (0: wait)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: lantern [tui] [--story F] [--workdir D] [--model M] [--theme T] [--seed N] [--config F]
                    [--resume | --new]

Opens the terminal interface: the agent plays the story through Ollama
(OLLAMA_HOST, default 127.0.0.1:11434) while you watch, step it turn by turn,
type your own commands and edit the memories it learns. It starts paused:
space runs the agent, n plays one turn, i types a command, ? lists every key.
When Ollama cannot be reached the screen says so and you can still play.
When the last session stopped in the middle of an episode (it was killed or
crashed), Lantern asks whether to continue it from its last turn.

Examples:
  lantern
  lantern --story zork1.z3 --model qwen3:4b

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
	cfg := loadConfig("tui", fs, *configPath, stderr, "workdir", "story", "model", "seed", "theme")
	if cfg == nil {
		return exitUsage
	}
	theme := cfg.Theme
	if theme == config.DefaultTheme {
		theme = "" // the TUI follows the terminal's background
	}
	if theme != "" {
		if _, err := themes.Load(theme); err != nil {
			fmt.Fprintln(stderr, "lantern:", err)
			return exitUsage
		}
	}
	workDir := cfg.WorkDir
	if f, ok := stdout.(*os.File); !ok || !term.IsTerminal(f.Fd()) {
		fmt.Fprintln(stderr, "lantern: the TUI needs a terminal; use `lantern play --plain` or `lantern run --headless` without one")
		return exitUsage
	}
	story, path, binding, err := openStoryAndBinding(cfg.Story)
	if err != nil {
		fmt.Fprintln(stderr, "lantern:", err)
		return exitError
	}
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		fmt.Fprintln(stderr, "lantern: work dir:", err)
		return exitError
	}
	logFile, err := os.OpenFile(filepath.Join(workDir, "lantern.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(stderr, "lantern: log:", err)
		return exitError
	}
	defer logFile.Close()
	log := slog.New(slog.NewTextHandler(logFile, &slog.HandlerOptions{Level: slog.LevelInfo}))
	log.Info("start", "version", version, "story", path, "workdir", workDir)
	for _, f := range cfg.Files {
		log.Info("config", "level", f.Level, "file", f.Path, "found", f.Found)
	}
	client, err := llm.New(llm.Options{Host: cfg.Ollama.Host, Roles: cfg.Roles, Logger: log, MaxReplyBytes: cfg.Ollama.MaxReplyKB << 10})
	if err != nil {
		fmt.Fprintln(stderr, "lantern:", err)
		return exitUsage
	}
	ecfg := engineConfig(cfg, -1) // episodes follow one another until the person quits
	ecfg.StartPaused = true
	sess, err := session.Open(session.Options{
		Story: story, Name: path, Binding: binding, WorkDir: workDir, Client: client, Autosave: true,
		Engine: ecfg, MemoryWindow: cfg.Loop.MemoryHistoryWindow, Research: cfg.Managers.ResearchRounds, Planning: planning(cfg),
	})
	if err != nil {
		fmt.Fprintln(stderr, "lantern:", err)
		return exitError
	}
	defer sess.Close()
	var resumed *tui.Resume
	if !*fresh {
		if !*resume {
			*resume = askResume(ctx, sess, stdin, stderr)
		}
		if *resume {
			resumed = resumeView(ctx, sess, log)
		}
		if code := resumeOrNot(ctx, sess, *resume, "lantern", stderr); code != exitOK {
			return code
		}
	}
	if err := sess.RestoreObjectives(); err != nil {
		log.Warn("objectives", "err", err) // the file is left as it is
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopped := make(chan error, 1)
	if *review {
		if err := sess.Engine.Send(runCtx, engine.SetReview{On: true, AutoAccept: *autoAccept}); err != nil {
			return exitError
		}
	}
	go func() { stopped <- sess.Engine.Run(runCtx) }()

	maxScore := 0
	if binding != nil {
		maxScore = binding.MaxScore
	}
	opts := tui.Options{
		Engine: sess.Engine, Models: client, Memories: sess.Memories, Episodes: sess.DB, Story: storyTitle(path), MaxScore: maxScore,
		Theme: theme, Keys: cfg.Keys, KnowledgePath: filepath.Join(sess.Dir, "knowledgebase.md"), Logger: log,
		Resume: resumed, Review: *review, AutoAccept: *autoAccept,
		SavePrefs: func(theme string, models map[string]string) error {
			return savePrefs(config.UserFile(os.LookupEnv), theme, models)
		},
	}
	if sess.Objectives != nil {
		opts.Objectives = sess.Objectives
		opts.SaveObjectives = sess.SaveObjectives
	}
	err = tui.Run(runCtx, opts, stdin, stdout)
	// Nobody reads the events any more; the engine must still be able to
	// send them while it stops.
	go func() {
		for range sess.Engine.Events() {
		}
	}()
	code := exitOK
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Error("tui", "err", err)
		fmt.Fprintln(stderr, "lantern:", err)
		code = exitError
	}
	// The engine stops at a turn boundary after Quit (the TUI sent it when
	// the person quit); give it a moment, then cancel.
	qctx, qcancel := context.WithTimeout(ctx, time.Second)
	_ = sess.Engine.Send(qctx, engine.Quit{})
	qcancel()
	select {
	case err = <-stopped:
	case <-time.After(10 * time.Second):
		cancel()
		err = <-stopped
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Error("engine", "err", err)
		fmt.Fprintln(stderr, "lantern: engine:", err)
		code = exitError
	}
	log.Info("stop", "code", code)
	return code
}

// askResume offers to continue an unfinished episode, on the terminal
// before the TUI starts (enter or y: yes).
func askResume(ctx context.Context, sess *session.Session, stdin io.Reader, stderr io.Writer) bool {
	cp, ok, err := sess.Unfinished(ctx)
	if err != nil || !ok {
		return false
	}
	fmt.Fprintf(stderr, "The last session stopped after turn %d of an episode (%s).\nContinue that episode? [Y/n] ",
		cp.Turn, cp.Saved.Local().Format("2006-01-02 15:04"))
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "", "y", "yes":
		return true
	}
	return false
}

// resumeView is what the TUI shows of the episode about to be resumed:
// its turns (by its ID in lantern.db) and the engine's map.
func resumeView(ctx context.Context, sess *session.Session, log *slog.Logger) *tui.Resume {
	cp, ok, err := sess.Unfinished(ctx)
	if err != nil || !ok {
		return nil
	}
	r := &tui.Resume{Episode: cp.Episode}
	if snap, err := engine.CheckpointMap(cp.Engine); err == nil {
		r.Map = &snap
	} else {
		log.Warn("resume: map", "err", err)
	}
	return r
}

// storyTitle is the story's name for the status bar.
func storyTitle(path string) string {
	base := filepath.Base(path)
	return base[:len(base)-len(filepath.Ext(base))]
}
