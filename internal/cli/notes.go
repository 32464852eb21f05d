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
	notesFlags(cmd)
	cmd.RunE = (&notesOptions{action: notesList}).runE(a)
	listCmd := &cobra.Command{Use: "list", Short: "the notes with their IDs", Args: noArgs, RunE: cmd.RunE}
	notesFlags(listCmd)
	o := &notesOptions{action: notesEdit}
	edit := &cobra.Command{Use: "edit ID", Short: "replace a note's text or importance", Args: func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usageErrorf("name one note ID")
		}
		return nil
	}, RunE: o.runE(a)}
	notesFlags(edit)
	edit.Flags().StringVar(&o.text, "text", "", "the note's new text (default: open $VISUAL or $EDITOR on it)")
	edit.Flags().IntVar(&o.importance, "importance", 0, "the note's new importance, 1-1000 (default: unchanged)")
	del := &cobra.Command{Use: "delete ID...", Short: "remove notes", Args: func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageErrorf("name the note IDs")
		}
		return nil
	}, RunE: (&notesOptions{action: notesDelete}).runE(a)}
	notesFlags(del)
	cmd.AddCommand(listCmd, edit, del)
	return cmd
}

// notesFlags are the flags every notes command takes.
func notesFlags(c *cobra.Command) {
	storyFlags(c.Flags(), "story file or name (default: story in the configuration, else the demo)")
}

// What a notes command does.
const (
	notesList   = ""
	notesEdit   = "edit"
	notesDelete = "delete"
)

// notesOptions are what a notes command was asked.
type notesOptions struct {
	action     string            // notesList, notesEdit or notesDelete
	set        map[string]string // the flags given, by name
	ids        []int64           // the notes named
	text       string            // edit --text
	importance int               // edit --importance
}

// runE checks the flags, reads the note IDs and runs runNotes.
func (o *notesOptions) runE(a *app) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		if err := checkIntFlags(c.Flags(), intRange{"importance", 1, 1000}); err != nil {
			return err
		}
		o.ids = nil
		for _, arg := range args {
			id, err := strconv.ParseInt(arg, 10, 64)
			if err != nil || id <= 0 {
				return usageErrorf("%q is not a note ID (lantern notes list shows them)", arg)
			}
			o.ids = append(o.ids, id)
		}
		o.set = changed(c.Flags())
		return runNotes(c.Context(), a, *o, c.OutOrStdout(), c.ErrOrStderr())
	}
}

// runNotes opens the story's lantern.db and lists, edits or deletes its
// notes.
func runNotes(ctx context.Context, a *app, o notesOptions, stdout, stderr io.Writer) error {
	db, _, closeDB, err := a.storyRunDB("notes", o.set, stderr)
	if err != nil {
		return err
	}
	defer closeDB()
	switch o.action {
	case notesEdit:
		return status(editNote(ctx, db, o.ids[0], o.text, o.importance, stdout, stderr))
	case notesDelete:
		return status(deleteNotes(ctx, db, o.ids, stdout, stderr))
	}
	notes, err := db.Notes(ctx)
	if err != nil {
		return err
	}
	if len(notes) == 0 {
		fmt.Fprintln(stdout, "No notes yet: the agent flags notes with its remember tool as it plays.")
		return nil
	}
	fmt.Fprint(stdout, formatNotes(notes))
	return nil
}

// deleteNotes removes the notes ids, saying each, and returns the exit
// code: 1 when any could not be.
func deleteNotes(ctx context.Context, db *rundb.RunDB, ids []int64, stdout, stderr io.Writer) int {
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
