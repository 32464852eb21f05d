package session

import (
	"context"
	"fmt"

	"github.com/lantern-if/lantern/memory/rundb"
)

// The agent's flagged notes, as every client of a running session reads
// and changes them: through the session, which logs the person's changes
// beside the agent's, never around it to lantern.db.

// Notes lists every note of the story, most important first.
func (s *Session) Notes(ctx context.Context) ([]rundb.Note, error) { return s.DB.Notes(ctx) }

// EditNote replaces a note's text and importance (1–1000) by hand; the
// agent's next prompt shows the new text.
func (s *Session) EditNote(ctx context.Context, id int64, content string, importance int) error {
	if err := s.DB.EditNote(ctx, id, content, importance); err != nil {
		return err
	}
	s.log.Info("note edited by the person", "note", id, "importance", importance)
	return nil
}

// DeleteNote removes a note by hand.
func (s *Session) DeleteNote(ctx context.Context, id int64) error {
	if err := s.DB.DeleteNote(ctx, id); err != nil {
		return err
	}
	s.log.Info("note deleted by the person", "note", id)
	return nil
}

// notes are the prompt's: the running episode's five most important.
func (s *Session) notes() []string {
	top, err := s.DB.TopNotesIn(context.Background(), s.noteSession(), 5)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(top))
	for _, n := range top {
		out = append(out, fmt.Sprintf("[T%d @ L%d] %s", n.Turn, n.LocationID, n.Content))
	}
	return out
}
