package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/memory/rundb"
)

func newNotesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "notes [list | edit ID | delete ID...]",
		Short: "list, edit or delete the agent's flagged notes",
		Long: `The agent's flagged notes (its remember tool), kept in the story's lantern.db
and shown to the agent, most important first, every turn. list (the
default) prints them with their ID; edit replaces a note's text (in your
editor unless --text) or importance; delete removes notes. A running session
sees the change on its next turn.`,
		Example: `  lantern notes
  lantern notes edit 3 --text "The grating opens from below only"
  lantern notes delete 4 5`,
		Args: noArgs,
	}
	storyFlags := func(c *cobra.Command) {
		c.Flags().String("workdir", "", "work dir (default: the configured one)")
		c.Flags().String("story", "", "story file or name (default: story in the configuration, else the demo)")
	}
	// open opens the story's lantern.db after reading the note IDs.
	open := func(c *cobra.Command, args []string) (*rundb.RunDB, []int64, error) {
		var ids []int64
		for _, arg := range args {
			id, err := strconv.ParseInt(arg, 10, 64)
			if err != nil || id <= 0 {
				return nil, nil, usageErrorf("%q is not a note ID (lantern notes list shows them)", arg)
			}
			ids = append(ids, id)
		}
		cfg, err := loadConfig("notes", changed(c.Flags()), a.configFile, c.ErrOrStderr(), "workdir", "story")
		if err != nil {
			return nil, nil, err
		}
		db, err := openStoryDB(cfg)
		return db, ids, err
	}
	list := func(c *cobra.Command, args []string) error {
		db, _, err := open(c, args)
		if err != nil {
			return err
		}
		defer db.Close()
		notes, err := db.Notes(c.Context())
		if err != nil {
			return err
		}
		if len(notes) == 0 {
			fmt.Fprintln(c.OutOrStdout(), "No notes yet: the agent flags notes with its remember tool as it plays.")
			return nil
		}
		fmt.Fprint(c.OutOrStdout(), formatNotes(notes))
		return nil
	}
	storyFlags(cmd)
	cmd.RunE = list
	listCmd := &cobra.Command{Use: "list", Short: "the notes with their IDs", Args: noArgs, RunE: list}
	storyFlags(listCmd)
	edit := &cobra.Command{Use: "edit ID", Short: "replace a note's text or importance", Args: func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usageErrorf("name one note ID")
		}
		return nil
	}}
	storyFlags(edit)
	text := edit.Flags().String("text", "", "the note's new text (default: open $VISUAL or $EDITOR on it)")
	importance := edit.Flags().Int("importance", 0, "the note's new importance, 1-1000 (default: unchanged)")
	edit.RunE = func(c *cobra.Command, args []string) error {
		if err := checkIntFlags(c.Flags(), intRange{"importance", 1, 1000}); err != nil {
			return err
		}
		db, ids, err := open(c, args)
		if err != nil {
			return err
		}
		defer db.Close()
		return status(editNote(c.Context(), db, ids[0], *text, *importance, c.OutOrStdout(), c.ErrOrStderr()))
	}
	del := &cobra.Command{Use: "delete ID...", Short: "remove notes", Args: func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageErrorf("name the note IDs")
		}
		return nil
	}}
	storyFlags(del)
	del.RunE = func(c *cobra.Command, args []string) error {
		db, ids, err := open(c, args)
		if err != nil {
			return err
		}
		defer db.Close()
		code := exitOK
		for _, id := range ids {
			if err := db.DeleteNote(c.Context(), id); err != nil {
				fmt.Fprintln(c.ErrOrStderr(), "lantern notes:", err)
				code = exitError
				continue
			}
			fmt.Fprintf(c.OutOrStdout(), "deleted note %d\n", id)
		}
		return status(code)
	}
	cmd.AddCommand(listCmd, edit, del)
	return cmd
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
	b, err := atomicfile.ReadRegular(f.Name(), maxNoteBytes)
	return string(b), err
}

// openStoryDB opens the configured story's lantern.db, which must exist.
func openStoryDB(cfg *config.Config) (*rundb.RunDB, error) {
	story, name, err := openStory(cfg.Story, cfg.WorkDir)
	if err != nil {
		return nil, err
	}
	return session.OpenStored(cfg.WorkDir, name, story)
}
