package session

import (
	"context"
	"errors"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/managers/knowledge"
)

// The work dir's files are part of the turn, as its database row is: a
// store that could not write its file (Memories.md, knowledgebase.md)
// keeps the new version, the session keeps a copy in lantern.db (which a
// full disk or an immutable file beside it usually leaves writable), and
// the engine pauses with a *engine.NotWrittenError naming the file and the
// cause. The next turn, or the next session (a resume), writes it once
// the cause is gone.

// The names the kept versions go by in lantern.db.
const (
	pendingMemories  = "Memories.md"
	pendingKnowledge = knowledge.FileName
)

// unwritten is nil when every store's file is current; otherwise it keeps
// each pending version in lantern.db and returns one NotWrittenError per
// file.
func (s *Session) unwritten(ctx context.Context) error {
	var errs []error
	for _, f := range s.keptFiles() {
		err := f.store.WriteErr()
		if err == nil {
			continue
		}
		nw := &engine.NotWrittenError{Path: f.store.Path(), Err: err}
		var we *engine.NotWrittenError
		if errors.As(err, &we) {
			nw.Err = we.Err // one error names the file
		}
		if p := f.store.Pending(); p != nil {
			nw.Err = errors.Join(nw.Err, s.DB.KeepPending(ctx, f.name, p))
		}
		errs = append(errs, nw)
	}
	return errors.Join(errs...)
}

// keptStore is a store that keeps what it could not write (Memories.md,
// knowledgebase.md).
type keptStore interface {
	WriteErr() error
	Pending() []byte
	Path() string
}

// keptFile is a store with the name lantern.db keeps its pending version
// under.
type keptFile struct {
	name  string
	store keptStore
}

// keptFiles are the session's stores that keep unwritten versions.
func (s *Session) keptFiles() []keptFile {
	out := []keptFile{{pendingMemories, s.Memories}}
	if s.Knowledge != nil {
		out = append(out, keptFile{pendingKnowledge, s.Knowledge})
	}
	return out
}

// flushPending writes what a failed write left in the stores, before the
// turn's own changes, and forgets the copies in lantern.db of what is now
// written. A write that still fails leaves the store pending: unwritten
// reports it at the end of the turn.
func (s *Session) flushPending(ctx context.Context) {
	if s.Memories.Unwritten() && s.Memories.Flush() == nil {
		s.DB.DropPending(ctx, pendingMemories)
	}
	if s.Knowledge != nil && s.Knowledge.Pending() != nil && s.Knowledge.Flush() == nil {
		s.DB.DropPending(ctx, pendingKnowledge)
	}
}

// restorePending writes the versions an earlier session could not write
// (kept in lantern.db): the memories merged into Memories.md as it is now,
// knowledgebase.md replaced with the file on disk kept as its backup. A
// version still not writable stays pending in its store; the first turn
// pauses on it.
func (s *Session) restorePending(ctx context.Context) {
	kept, err := s.DB.PendingFiles(ctx)
	if err != nil {
		return
	}
	for _, p := range kept {
		switch p.Name {
		case pendingMemories:
			if _, err := s.Memories.MergePending(p.Data); err == nil {
				s.DB.DropPending(ctx, p.Name)
			}
		case pendingKnowledge:
			if s.Knowledge != nil && s.Knowledge.RestorePending(p.Data) == nil {
				s.DB.DropPending(ctx, p.Name)
			}
		}
	}
}
