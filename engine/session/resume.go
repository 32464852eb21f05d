package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/zmachine"
)

// ErrNothingToResume: no line of play of the story was left unfinished.
var ErrNothingToResume = errors.New("no unfinished line of play to resume")

// ErrWhichLine: several lines of play are unfinished and none was played
// last: the person says which (Resumable.Lines).
var ErrWhichLine = errors.New("several unfinished lines of play: say which to continue")

// Resumable is what a session can continue: the story's unfinished lines
// of play, the one played last first (Last: it is unfinished; a line is
// only ever ended by play or by the person, never by starting another).
type Resumable struct {
	Lines []rundb.BranchInfo
	Last  bool // Lines[0] is the line played last (the checkpoint's)
	Saved time.Time
}

// Pick is the line a resume continues without asking: the one played
// last, else the only one; false when there is none or several.
func (r Resumable) Pick() (rundb.BranchInfo, bool) {
	if len(r.Lines) == 1 || (r.Last && len(r.Lines) > 0) {
		return r.Lines[0], true
	}
	return rundb.BranchInfo{}, false
}

// Unfinished lists the story's unfinished lines of play.
func (s *Session) Unfinished(ctx context.Context) (Resumable, error) {
	var r Resumable
	lines, err := s.DB.Unfinished(ctx)
	if err != nil {
		return r, err
	}
	cp, ok, err := s.DB.LastCheckpoint(ctx)
	if err != nil {
		return r, err
	}
	r.Lines = lines
	if i := slices.IndexFunc(lines, func(b rundb.BranchInfo) bool { return ok && b.ID == cp.Episode }); i >= 0 {
		r.Lines = append([]rundb.BranchInfo{lines[i]}, slices.Delete(slices.Clone(lines), i, i+1)...)
		r.Last, r.Saved = true, cp.Saved
	}
	return r, nil
}

// Resume makes the engine continue an unfinished line of play from its
// last recorded turn, with the identical machine state: the line played
// last, else the only unfinished one (ErrWhichLine when there are several,
// ErrNothingToResume when there is none); call it before Engine.Run.
// Without it a new episode starts and the unfinished lines stay as they
// are.
func (s *Session) Resume(ctx context.Context) (rundb.Checkpoint, error) {
	r, err := s.Unfinished(ctx)
	if err != nil {
		return rundb.Checkpoint{}, err
	}
	b, ok := r.Pick()
	switch {
	case len(r.Lines) == 0:
		return rundb.Checkpoint{}, ErrNothingToResume
	case !ok:
		names := make([]string, len(r.Lines))
		for i, l := range r.Lines {
			names[i] = l.Line().At(l.Turns)
		}
		return rundb.Checkpoint{}, fmt.Errorf("%w: %s", ErrWhichLine, strings.Join(names, ", "))
	}
	return s.ResumeLine(ctx, b.ID)
}

// ResumeLine continues unfinished line id from its last recorded turn (the
// line a resume or the person picked).
func (s *Session) ResumeLine(ctx context.Context, id int64) (rundb.Checkpoint, error) {
	cp, ok, err := s.DB.LastCheckpoint(ctx)
	if err != nil {
		return cp, err
	}
	if !ok || cp.Episode != id {
		if err := s.DB.Activate(ctx, id); err != nil {
			return cp, err
		}
		if cp, ok, err = s.DB.LastCheckpoint(ctx); err == nil && !ok {
			err = fmt.Errorf("line #%d: %w", id, ErrNothingToResume) // it ended meanwhile
		}
		if err != nil {
			return cp, err
		}
	}
	if err := s.Engine.ResumeFrom(cp.Machine, cp.Engine); err != nil {
		return cp, err
	}
	if err := s.resumeAfterWork(ctx, cp.Episode, cp.Turn); err != nil {
		return cp, err
	}
	s.episode = cp.Episode
	s.branch = s.branchInfo(ctx, cp.Episode)
	return cp, nil
}

// Line is the line of play the session plays on (its ID is 0 before a new
// episode's first turn is recorded).
func (s *Session) Line() engine.Branch { return s.branch }

// ErrNothingStored: the story has not been played in the work dir, so it
// has no lantern.db to read.
var ErrNothingStored = errors.New("nothing recorded")

// OpenStored opens the lantern.db that play of the story (name as it was
// found) left in workDir, for the commands that only read it; they never
// create one: ErrNothingStored when there is none.
func OpenStored(workDir, name string, story *zmachine.Story) (*rundb.RunDB, error) {
	info := story.Info()
	path := filepath.Join(workDir, StoryDir(name, info.Release), "lantern.db")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w for %s yet: %s does not exist (play it, or bench it, first)", ErrNothingStored, filepath.Base(name), path)
	}
	return rundb.OpenRunDB(path, info.MD5)
}
