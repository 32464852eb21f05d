package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/sanitize"
)

// newMemoriesCmd is `lantern memories`: check, fmt, show and undo, each on
// the story's Memories.md in the work dir or on a named file.
func newMemoriesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memories check|fmt|show|undo [FILE]",
		Short: "check, format, show or undo a Memories.md",
		Long: `Works on a Memories.md, the agent's location memories: by default the one of
the story (--story, else the configured one, else the built-in demo) in the
work dir.`,
		Example: `  lantern memories check
  lantern memories show --location 64 --story zork1.z3
  lantern memories fmt -w ~/.local/share/lantern/zork1-r119/Memories.md`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			return usageErrorf("want a subcommand: check, fmt, show or undo")
		},
	}
	var o memoriesOptions
	check := memoriesSub(a, "check", "validate the file", `Validates the file: one "FILE:LINE: problem" line per problem; exits 1 when
there is any.`, func(cmd *cobra.Command, path string) error {
		return status(memory.Check(cmd.OutOrStdout(), path))
	})
	format := memoriesSub(a, "fmt", "print the file in its canonical form", `Prints the file in its canonical form (nothing is lost; broken parts stay as
they are); -w writes it back in place, under the file's lock, keeping the
previous version as Memories.md.backup. --repair also rewrites each
mistyped location header whose location and name can be read ("## Locaton
three: Muddy Lane" becomes "## Location 3: Muddy Lane"), so the memories
under it reach the agent again; each repair is said on stderr.`, func(cmd *cobra.Command, path string) error {
		return runMemoriesFmt(path, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
	})
	format.Flags().BoolVar(&o.repair, "repair", false, "also repair mistyped location headers whose location and name can be read")
	format.Flags().BoolVarP(&o.write, "write", "w", false, "write the canonical form back to the file")
	show := memoriesSub(a, "show", "print every location's memories, or one location's", `Prints every location's memories, or with --location N that location's,
followed by what the agent's context shows of them; --level core, permanent
or ephemeral keeps the memories of that level (permanent: those with no
level too).`, func(cmd *cobra.Command, path string) error {
		if err := checkIntFlags(cmd.Flags(), intRange{"location", 0, math.MaxInt32}); err != nil {
			return err
		}
		if o.level != "" {
			if _, err := memory.ParseLevel(o.level); err != nil {
				return usageError(err)
			}
		}
		return memory.ShowFiltered(cmd.OutOrStdout(), path, memory.ShowFilter{Location: o.location, Level: memory.Persistence(o.level)})
	})
	show.Flags().IntVar(&o.location, "location", 0, "show only this location (its ID)")
	show.Flags().StringVar(&o.level, "level", "", "show only the memories of this level: core, permanent (also those with none) or ephemeral")
	undo := memoriesSub(a, "undo", "bring back the memories the last save by hand deleted", `Brings back the memories of the last save by hand that deleted several (kept
in Memories.md.history/), where they were missing; run again to go further
back.`, func(cmd *cobra.Command, path string) error {
		return memoriesUndo(path, cmd.OutOrStdout())
	})
	cmd.AddCommand(check, format, show, undo)
	return cmd
}

// memoriesOptions are the flags of the memories subcommands.
type memoriesOptions struct {
	write, repair bool   // fmt -w, fmt --repair
	location      int    // show --location
	level         string // show --level
}

// memoriesSub is a memories subcommand: run works on the file named, else
// on the story's Memories.md (memoriesFile).
func memoriesSub(a *app, use, short, long string, run func(cmd *cobra.Command, path string) error) *cobra.Command {
	c := &cobra.Command{
		Use: use + " [FILE]", Short: short, Long: long, Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := a.memoriesFile(cmd, args)
			if err != nil {
				return err
			}
			return run(cmd, path)
		},
	}
	storyFlags(c.Flags(), "the story whose memories to use (default: the configured one, else the built-in demo)")
	_ = c.RegisterFlagCompletionFunc("story", completeStories)
	return c
}

// memoriesFile is the file named, else the story's Memories.md in the work
// dir.
func (a *app) memoriesFile(cmd *cobra.Command, args []string) (string, error) {
	if len(args) == 1 {
		return args[0], nil
	}
	cfg, err := loadConfig("memories", changed(cmd.Flags()), a.configFile, cmd.ErrOrStderr(), "workdir", "story")
	if err != nil {
		return "", err
	}
	story, name, err := openStory(cfg.Story, cfg.WorkDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(cfg.WorkDir, session.StoryDir(name, story.Info().Release), "Memories.md"), nil
}

// runMemoriesFmt prints the file at path in its canonical form (o.repair:
// its mistyped headers repaired), or with o.write writes it back.
func runMemoriesFmt(path string, o memoriesOptions, stdout, stderr io.Writer) error {
	if !o.repair {
		hintRepair(path, stderr)
	}
	if !o.write {
		if !o.repair {
			return memory.Fmt(stdout, path)
		}
		fixed, err := memory.FmtRepaired(stdout, path)
		sayRepairs(path, fixed, stderr)
		return err
	}
	changed, fixed, err := fmtInPlace(path, o.repair)
	if err != nil {
		return err
	}
	sayRepairs(path, fixed, stderr)
	if changed {
		fmt.Fprintf(stdout, "%s: formatted (the previous version is %s.backup)\n", path, filepath.Base(path))
	} else {
		fmt.Fprintf(stdout, "%s: already in canonical form\n", path)
	}
	return nil
}

// hintRepair says on stderr which mistyped location headers --repair
// would repair.
func hintRepair(path string, stderr io.Writer) {
	f, err := memory.Load(path)
	if err != nil {
		return
	}
	for _, p := range f.Problems() {
		if p.Header && p.Fix != "" {
			fmt.Fprintf(stderr, "%s:%d: %q hides %d memories from the agent; --repair rewrites it as %q\n", path, p.Line,
				sanitize.Line(p.Text), p.Hidden, sanitize.Line(p.Fix))
		}
	}
}

// sayRepairs tells on stderr which headers --repair rewrote.
func sayRepairs(path string, fixed []memory.Problem, stderr io.Writer) {
	for _, p := range fixed {
		fmt.Fprintf(stderr, "%s:%d: header repaired as %q\n", path, p.Line, sanitize.Line(p.Fix))
	}
}

// fmtInPlace rewrites a Memories.md in its canonical form (repair: its
// mistyped headers repaired too) under the lock a running Lantern takes
// for its own writes, so neither loses the other's change.
func fmtInPlace(path string, repair bool) (bool, []memory.Problem, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return false, nil, err
	}
	lock := flock.New(path + ".lock")
	defer lock.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok, err := lock.TryLockContext(ctx, 20*time.Millisecond)
	if err != nil || !ok {
		return false, nil, fmt.Errorf("%s is locked by another Lantern; try again when it is idle (%v)", path, err)
	}
	defer lock.Unlock()
	old, err := atomicfile.ReadRegular(path, memory.MaxFileBytes)
	if err != nil {
		return false, nil, err
	}
	var buf bytes.Buffer
	var fixed []memory.Problem
	if repair {
		fixed, err = memory.FmtRepaired(&buf, path)
	} else {
		err = memory.Fmt(&buf, path)
	}
	if err != nil {
		return false, nil, err
	}
	if bytes.Equal(old, buf.Bytes()) {
		return false, nil, nil
	}
	// What the person named is written (a link's target, never the link).
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	return true, fixed, atomicfile.Write(path, buf.Bytes(), fi.Mode().Perm(), true)
}

// memoriesUndo restores the last generation kept of a Memories.md.
func memoriesUndo(path string, stdout io.Writer) error {
	store, err := memory.Open(path)
	if err != nil {
		return err
	}
	defer store.Close()
	n, err := store.RestoreGeneration()
	switch {
	case errors.Is(err, memory.ErrNothingToUndo):
		fmt.Fprintf(stdout, "%s: nothing to undo (no save by hand deleted several memories)\n", path)
		return nil
	case err != nil:
		return err
	}
	fmt.Fprintf(stdout, "%s: %d memories brought back\n", path, n)
	return nil
}
