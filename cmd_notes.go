package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory/rundb"
)

func cmdNotes(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("notes", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configFile := fs.String("config", "", "configuration file read in place of ./lantern.toml")
	fs.String("workdir", "", "work dir (default: the configured one)")
	fs.String("story", "", "story file or name (default: story in the configuration, else the demo)")
	text := fs.String("text", "", "edit: the note's new text (default: open $VISUAL or $EDITOR on it)")
	importance := fs.Int("importance", 0, "edit: the note's new importance, 1-1000 (default: unchanged)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: lantern notes [list] [--story S] [--workdir D]
       lantern notes edit ID [--text T] [--importance N]
       lantern notes delete ID...

The agent's flagged notes (its remember tool), kept in the story's lantern.db
and shown to the agent, most important first, every turn. list prints them
with their ID; edit replaces a note's text (in your editor unless --text) or
importance; delete removes notes. A running session sees the change on its
next turn.

Flags:
`)
		fs.PrintDefaults()
	}
	sub := "list"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	if err := parseInterspersed(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	var ids []int64
	for _, a := range fs.Args() {
		id, err := strconv.ParseInt(a, 10, 64)
		if err != nil || id <= 0 {
			fmt.Fprintf(stderr, "lantern notes: %q is not a note ID (lantern notes list shows them)\n", a)
			return exitUsage
		}
		ids = append(ids, id)
	}
	switch {
	case sub != "list" && sub != "edit" && sub != "delete":
		fmt.Fprintf(stderr, "lantern notes: unknown subcommand %q (want list, edit or delete)\n", sub)
		return exitUsage
	case sub == "list" && len(ids) > 0:
		fmt.Fprintln(stderr, "lantern notes list: takes no arguments")
		return exitUsage
	case sub == "edit" && len(ids) != 1:
		fmt.Fprintln(stderr, "lantern notes edit: name one note ID")
		return exitUsage
	case sub == "delete" && len(ids) == 0:
		fmt.Fprintln(stderr, "lantern notes delete: name the note IDs")
		return exitUsage
	}
	cfg := loadConfig("notes", fs, *configFile, stderr, "workdir", "story")
	if cfg == nil {
		return exitUsage
	}
	db, err := openStoryDB(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "lantern notes:", err)
		return exitError
	}
	defer db.Close()
	switch sub {
	case "edit":
		return editNote(ctx, db, ids[0], *text, *importance, stdout, stderr)
	case "delete":
		code := exitOK
		for _, id := range ids {
			if err := db.DeleteNote(ctx, id); err != nil {
				fmt.Fprintln(stderr, "lantern notes:", err)
				code = exitError
				continue
			}
			fmt.Fprintf(stdout, "deleted note %d\n", id)
		}
		return code
	}
	notes, err := db.Notes(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "lantern notes:", err)
		return exitError
	}
	if len(notes) == 0 {
		fmt.Fprintln(stdout, "No notes yet: the agent flags notes with its remember tool as it plays.")
		return exitOK
	}
	fmt.Fprint(stdout, formatNotes(notes))
	return exitOK
}

// formatNotes lists notes one per entry: ID, importance, where and when it
// was made, and the text.
func formatNotes(notes []rundb.Note) string {
	var b strings.Builder
	for _, n := range notes {
		edited := ""
		if !n.Edited.IsZero() {
			edited = ", edited"
		}
		fmt.Fprintf(&b, "#%d  importance %d  %s (turn %d%s)\n    %s\n", n.ID, n.Importance, n.Location, n.Turn, edited,
			strings.ReplaceAll(n.Content, "\n", "\n    "))
	}
	return b.String()
}

func editNote(ctx context.Context, db *rundb.RunDB, id int64, text string, importance int, stdout, stderr io.Writer) int {
	n, err := db.Note(ctx, id)
	if err != nil {
		fmt.Fprintln(stderr, "lantern notes:", err)
		return exitError
	}
	if importance == 0 {
		importance = n.Importance
	}
	if text == "" {
		if text, err = editInEditor(n.Content); err != nil {
			fmt.Fprintln(stderr, "lantern notes edit:", err)
			return exitError
		}
	}
	if err := db.EditNote(ctx, id, text, importance); err != nil {
		fmt.Fprintln(stderr, "lantern notes:", err)
		return exitError
	}
	fmt.Fprintf(stdout, "edited note %d\n", id)
	return exitOK
}

// editInEditor lets the person edit text in their editor, through a
// temporary file.
func editInEditor(text string) (string, error) {
	f, err := os.CreateTemp("", "lantern-note-*.txt")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(text + "\n"); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	ed := config.Editor(os.LookupEnv)
	cmd := exec.Command(ed[0], append(ed[1:], f.Name())...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %w", ed[0], err)
	}
	b, err := os.ReadFile(f.Name())
	return string(b), err
}

// openStoryDB opens the configured story's lantern.db, which must exist.
func openStoryDB(cfg *config.Config) (*rundb.RunDB, error) {
	story, name, err := openStory(cfg.Story, cfg.WorkDir)
	if err != nil {
		return nil, err
	}
	info := story.Info()
	path := filepath.Join(cfg.WorkDir, engine.StoryDir(name, info.Release), "lantern.db")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("nothing stored for %s yet: %s does not exist", filepath.Base(name), path)
	}
	return rundb.OpenRunDB(path, info.MD5)
}
