package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/internal/atomicfile"
	"github.com/lantern-if/lantern/memory"
)

func cmdMemories(args []string, stdout, stderr io.Writer) int {
	usage := func(w io.Writer) {
		fmt.Fprint(w, `Usage: lantern memories check [FILE]
       lantern memories fmt [-w] [FILE]
       lantern memories show [--location N] [FILE]
       lantern memories undo [FILE]
  (each also takes --story F, --workdir D, --config F)

Works on a Memories.md, the agent's location memories: by default the one of
the story (--story, else the configured one, else the built-in demo) in the
work dir.

  check  validates the file: one "FILE:LINE: problem" line per problem; exits
         1 when there is any.
  fmt    prints the file in its canonical form (nothing is lost; broken parts
         stay as they are); -w writes it back in place, under the file's
         lock, keeping the previous version as Memories.md.backup.
  show   prints every location's memories, or with --location N that
         location's, followed by what the agent's context shows of them.
  undo   brings back the memories of the last save by hand that deleted
         several (kept in Memories.md.history/), where they were missing;
         run again to go further back.

Examples:
  lantern memories check
  lantern memories show --location 64 --story zork1.z3
  lantern memories fmt -w ~/.local/share/lantern/zork1-r119/Memories.md
`)
	}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	sub := args[0]
	switch sub {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return exitOK
	case "check", "fmt", "show", "undo":
	default:
		fmt.Fprintf(stderr, "lantern memories: unknown subcommand %q (want check, fmt, show or undo)\n\n", sub)
		usage(stderr)
		return exitUsage
	}
	fs := flag.NewFlagSet("memories "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	configFile := fs.String("config", "", "configuration file read in place of ./lantern.toml")
	fs.String("story", "", "the story whose memories to use (default: the configured one, else the built-in demo)")
	fs.String("workdir", "", "work dir (default: the configured one)")
	write := false
	location := 0
	if sub == "fmt" {
		fs.BoolVar(&write, "w", false, "write the canonical form back to the file")
	}
	if sub == "show" {
		fs.IntVar(&location, "location", 0, "show only this location (its ID)")
	}
	fs.Usage = func() {
		usage(stderr)
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseInterspersed(fs, args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "lantern memories %s: one file at most\n", sub)
		return exitUsage
	}
	path := fs.Arg(0)
	if path == "" {
		cfg := loadConfig("memories", fs, *configFile, stderr, "workdir", "story")
		if cfg == nil {
			return exitUsage
		}
		story, name, err := openStory(cfg.Story)
		if err != nil {
			fmt.Fprintf(stderr, "lantern memories %s: %v\n", sub, err)
			return exitError
		}
		path = filepath.Join(cfg.WorkDir, session.StoryDir(name, story.Info().Release), "Memories.md")
	}
	switch sub {
	case "check":
		return memory.Check(stdout, path)
	case "undo":
		return memoriesUndo(path, stdout, stderr)
	case "show":
		if err := memory.Show(stdout, path, location); err != nil {
			fmt.Fprintf(stderr, "lantern memories show: %v\n", err)
			return exitError
		}
		return exitOK
	}
	if !write {
		if err := memory.Fmt(stdout, path); err != nil {
			fmt.Fprintf(stderr, "lantern memories fmt: %v\n", err)
			return exitError
		}
		return exitOK
	}
	changed, err := fmtInPlace(path)
	if err != nil {
		fmt.Fprintf(stderr, "lantern memories fmt: %v\n", err)
		return exitError
	}
	if changed {
		fmt.Fprintf(stdout, "%s: formatted (the previous version is %s.backup)\n", path, filepath.Base(path))
	} else {
		fmt.Fprintf(stdout, "%s: already in canonical form\n", path)
	}
	return exitOK
}

// fmtInPlace rewrites a Memories.md in its canonical form under the lock a
// running Lantern takes for its own writes, so neither loses the other's
// change.
func fmtInPlace(path string) (bool, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	lock := flock.New(path + ".lock")
	defer lock.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok, err := lock.TryLockContext(ctx, 20*time.Millisecond)
	if err != nil || !ok {
		return false, fmt.Errorf("%s is locked by another Lantern; try again when it is idle (%v)", path, err)
	}
	defer lock.Unlock()
	old, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	var buf bytes.Buffer
	if err := memory.Fmt(&buf, path); err != nil {
		return false, err
	}
	if bytes.Equal(old, buf.Bytes()) {
		return false, nil
	}
	return true, atomicfile.Write(path, buf.Bytes(), fi.Mode().Perm(), true)
}

// memoriesUndo restores the last generation kept of a Memories.md.
func memoriesUndo(path string, stdout, stderr io.Writer) int {
	store, err := memory.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "lantern memories undo: %v\n", err)
		return exitError
	}
	defer store.Close()
	n, err := store.RestoreGeneration()
	switch {
	case errors.Is(err, memory.ErrNothingToUndo):
		fmt.Fprintf(stdout, "%s: nothing to undo (no save by hand deleted several memories)\n", path)
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "lantern memories undo: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "%s: %d memories brought back\n", path, n)
	return exitOK
}
