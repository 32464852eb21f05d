// Command lantern is a terminal co-pilot for LLM agents that play Z-machine
// interactive fiction. This file is wiring and command-line parsing only.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/game_files/bindings"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/internal/lineplay"
	"github.com/lantern-if/lantern/zmachine"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // the command failed (bad story, runtime fault, I/O)
	exitUsage = 2 // bad flags or arguments
)

func main() {
	// SIGTERM (systemctl stop, kill) and SIGHUP (the terminal closed) end a
	// session as SIGINT does: the turn finishes or is abandoned, everything
	// is flushed and reported, and the process exits cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || (strings.HasPrefix(args[0], "-") && !isTopFlag(args[0])) {
		// `lantern` and `lantern --story F ...` open the TUI.
		return cmdTUI(ctx, args, stdin, stdout, stderr)
	}
	switch args[0] {
	case "tui":
		return cmdTUI(ctx, args[1:], stdin, stdout, stderr)
	case "play":
		return cmdPlay(ctx, args[1:], stdin, stdout, stderr)
	case "run":
		return cmdRun(ctx, args[1:], stdin, stdout, stderr)
	case "bench":
		return cmdBench(ctx, args[1:], stdout, stderr)
	case "doctor":
		return cmdDoctor(ctx, args[1:], stdout, stderr)
	case "models":
		return cmdModels(ctx, args[1:], stdout, stderr)
	case "memories":
		return cmdMemories(args[1:], stdout, stderr)
	case "stories":
		return cmdStories(ctx, args[1:], stdout, stderr)
	case "config":
		return cmdConfig(args[1:], stdout, stderr)
	case "oracle":
		return cmdOracle(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "lantern", version)
		return exitOK
	case "help", "--help", "-h", "-help":
		usage(stdout)
		return exitOK
	}
	fmt.Fprintf(stderr, "lantern: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: lantern [command] [flags]

Commands:
  play      play a story in line mode (no model): lantern play --plain --story zork1.z3
  run       let the agent play without the TUI: lantern run --headless --model qwen3:4b
  bench     measure the agent over episodes: lantern bench --episodes 3 --max-turns 100
  doctor    check Ollama, the models, the story, the work dir and the terminal
  models    list the Ollama server's models and which roles use them
  memories  check, format or show a Memories.md: lantern memories check
  stories   which ground truth Lantern has for a story file: lantern stories zork1.z3
  config    show the configuration in effect, check a file, print a sample
  oracle    serve a model that plays a walkthrough (no GPU): lantern oracle --script walkthrough.txt
  version   print the version

With no command, lantern opens the TUI (flags such as --story, --workdir,
--model and --config go to it).
Run 'lantern COMMAND --help' for a command's flags and examples; every
command that needs settings takes --config F (read in place of ./lantern.toml).

Exit codes: 0 success; 1 failure (bad story, runtime fault, I/O, Ollama
unreachable, doctor found a problem, memories check found a problem); 2 usage
error (bad flags or arguments, invalid configuration).
`)
}

func cmdPlay(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("play", flag.ContinueOnError)
	fs.SetOutput(stderr)
	plain := fs.Bool("plain", false, "line mode: commands from stdin or --script, story text to stdout")
	storyPath := fs.String("story", "", "story file (default: the built-in demo)")
	seed := fs.Int("seed", -1, "random seed with frotz -s semantics (negative: from the clock)")
	script := fs.String("script", "", "read commands from this file instead of stdin")
	asJSON := fs.Bool("json", false, "print one JSON object per turn instead of the story text")
	saveDir := fs.String("savedir", ".", "directory for the story's SAVE files")
	exits := fs.Bool("exits", false, "with --json: probe and include the valid exits of every turn")
	raw := fs.Bool("raw", false, "print the story's text exactly as printed, unwrapped (default: as dfrotz shows it)")
	configFile := fs.String("config", "", "configuration file read in place of ./lantern.toml (for its story)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: lantern play --plain [--story F] [--seed N] [--script F] [--json [--exits]] [--raw]

Plays a story without any model: commands come from standard input (or
--script), the story's text goes to standard output exactly as the story prints
it (no echo of input, no status line). Ends at end of input or when the story
quits.

Examples:
  lantern play --plain --story zork1.z3
  lantern play --plain --seed 12 --story zork1.z3 < walkthrough.txt

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
	if !*plain {
		fmt.Fprintln(stderr, "lantern play: only --plain (line mode) exists so far")
		return exitUsage
	}
	if *storyPath == "" {
		cfg := loadConfig("play", fs, *configFile, stderr)
		if cfg == nil {
			return exitUsage
		}
		*storyPath = cfg.Story
	}
	story, path, err := openStory(*storyPath)
	if err != nil {
		fmt.Fprintln(stderr, "lantern play:", err)
		return exitError
	}
	in := stdin
	if *script != "" {
		f, err := os.Open(*script)
		if err != nil {
			fmt.Fprintf(stderr, "lantern play: open script: %v\n", err)
			return exitError
		}
		defer f.Close()
		in = f
	}
	if *asJSON {
		if err := playJSON(ctx, story, *seed, *saveDir, *exits, in, stdout); err != nil {
			fmt.Fprintln(stderr, "lantern play:", err)
			return exitError
		}
		return exitOK
	}
	opts := lineplay.Options{Seed: *seed, SaveDir: *saveDir, DefaultSave: saveName(path), Raw: *raw}
	if err := lineplay.Run(ctx, story, opts, in, stdout); err != nil {
		fmt.Fprintln(stderr, "lantern play:", err)
		return exitError
	}
	return exitOK
}

// playJSON plays through the engine's environment and prints one
// Observation per turn as JSON, the opening first (with an empty command).
func playJSON(ctx context.Context, story *zmachine.Story, seed int, saveDir string, exits bool, in io.Reader, out io.Writer) error {
	bs, err := env.LoadBindings(bindings.FS())
	if err != nil {
		return err
	}
	en, err := env.NewEnv(story, env.EnvOptions{Seed: seed, Binding: bs.For(story.Info().MD5), SaveDir: saveDir})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	emit := func(obs env.Observation) error {
		if exits && obs.Ended == env.NotEnded {
			obs.ValidExits = en.ValidExits()
		}
		return enc.Encode(obs)
	}
	obs, err := en.Start()
	if err != nil {
		return err
	}
	if err := emit(obs); err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() && obs.Ended == env.NotEnded {
		if err := ctx.Err(); err != nil {
			return err
		}
		obs, err = en.Step(sc.Text())
		if errors.Is(err, env.ErrEnded) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := emit(obs); err != nil {
			return err
		}
	}
	return sc.Err()
}

// openStoryAndBinding opens a story (see openStory) with its binding, nil
// when the story has none.
func openStoryAndBinding(path string) (*zmachine.Story, string, *env.Binding, error) {
	story, name, err := openStory(path)
	if err != nil {
		return nil, "", nil, err
	}
	bs, err := env.LoadBindings(bindings.FS())
	if err != nil {
		return nil, "", nil, err
	}
	return story, name, bs.For(story.Info().MD5), nil
}

// openStory loads the named story, or the built-in demo when none is named.
// It returns the name the story goes by (for saves and the work dir).
func openStory(path string) (*zmachine.Story, string, error) {
	if path == "" {
		s, err := zmachine.LoadStory(demo.Story())
		if err != nil {
			return nil, "", fmt.Errorf("load the built-in demo: %w", err)
		}
		return s, demo.FileName, nil
	}
	s, err := loadStory(path)
	return s, path, err
}

func loadStory(path string) (*zmachine.Story, error) {
	data, err := readStoryFile(path)
	if err != nil {
		return nil, fmt.Errorf("load story %q: %w", path, err)
	}
	s, err := zmachine.LoadStory(data)
	if err != nil {
		return nil, fmt.Errorf("load story %q: %w", path, err)
	}
	return s, nil
}

func saveName(story string) string {
	base := filepath.Base(story)
	return base[:len(base)-len(filepath.Ext(base))] + ".qzl"
}

// isTopFlag reports flags that lantern itself answers (help, version).
func isTopFlag(a string) bool {
	switch a {
	case "-h", "-help", "--help", "-version", "--version":
		return true
	}
	return false
}

// Story files are bounded: a story is a regular file (a FIFO or a device
// would hang the read), read no further than the length its header gives
// plus a margin, and never past the largest Z-machine story.
const (
	maxStoryBytes = 512 << 10 // the largest story any version allows
	storyMargin   = 64 << 10  // past the header's length: padding, Blorb-less trailers
)

// errNotRegular: the story path is not a regular file.
var errNotRegular = errors.New("not a regular file")

func readStoryFile(path string) ([]byte, error) {
	// Stat before opening: opening a FIFO blocks until a writer comes.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", errNotRegular, fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", errNotRegular, fi.Mode().Type())
	}
	limit := int64(maxStoryBytes)
	head := make([]byte, 64)
	if n, _ := io.ReadFull(f, head); n == len(head) {
		scale := int64(2)
		switch v := head[0]; {
		case v >= 6:
			scale = 8
		case v >= 4:
			scale = 4
		}
		if declared := int64(binary.BigEndian.Uint16(head[0x1A:])) * scale; declared > 0 {
			limit = min(limit, declared+storyMargin)
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	// What lies past the limit is not part of the story.
	return io.ReadAll(io.LimitReader(f, limit))
}
