package rundb

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// The person sees and edits the agent's flagged notes (lantern notes, the
// TUI's Notes view) through these; an edited note keeps when it was edited.

// ErrNoNote: no note of the story has that ID.
var ErrNoNote = errors.New("no such note")

// Notes lists every note of the story, the most important first.
func (r *RunDB) Notes(ctx context.Context) ([]Note, error) {
	return r.notes(ctx, `WHERE story_md5 = ? ORDER BY importance DESC, id`, r.story)
}

// Note returns one note of the story.
func (r *RunDB) Note(ctx context.Context, id int64) (Note, error) {
	ns, err := r.notes(ctx, `WHERE story_md5 = ? AND id = ?`, r.story, id)
	if err != nil {
		return Note{}, err
	}
	if len(ns) == 0 {
		return Note{}, fmt.Errorf("note %d: %w", id, ErrNoNote)
	}
	return ns[0], nil
}

// EditNote replaces a note's text and importance (clamped to 1..1000, as
// Remember does); empty text is refused with ErrEmptyNote and changes
// nothing.
func (r *RunDB) EditNote(ctx context.Context, id int64, content string, importance int) error {
	content = strings.TrimSpace(content)
	if content == "" {
		return fmt.Errorf("edit note %d: %w", id, ErrEmptyNote)
	}
	importance = min(max(importance, 1), 1000)
	defer r.notesChanged()
	res, err := r.db.ExecContext(ctx, `UPDATE notes SET content = ?, importance = ?, edited_at = ? WHERE story_md5 = ? AND id = ?`,
		content, importance, now(), r.story, id)
	if err != nil {
		return fmt.Errorf("edit note %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("edit note %d: %w", id, ErrNoNote)
	}
	return nil
}

// DeleteNote removes a note.
func (r *RunDB) DeleteNote(ctx context.Context, id int64) error {
	defer r.notesChanged()
	res, err := r.db.ExecContext(ctx, `DELETE FROM notes WHERE story_md5 = ? AND id = ?`, r.story, id)
	if err != nil {
		return fmt.Errorf("delete note %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("delete note %d: %w", id, ErrNoNote)
	}
	return nil
}
