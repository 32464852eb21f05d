package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/managers/objectives"
)

// The person's objectives kept between sessions: written to
// objectives.json in the story's folder after each of the person's edits
// and added back by RestoreObjectives when a client resumes. (The map a
// resumed session shows is not kept here: loadStoryMap starts it from
// lantern.db and a resumed episode restores its checkpoint's map over it.)

// objectivesFile keeps the person's objectives between sessions.
const objectivesFile = "objectives.json"

// maxStateBytes bounds a state file the session reads back.
const maxStateBytes = 64 << 20

// saveObjectives writes the person's active objectives to objectives.json
// (completed ones belong to their episode, as the manager's Reset keeps
// them); the session calls it after each of the person's edits, so every
// client keeps them.
func (s *Session) saveObjectives() error {
	if s.Objectives == nil {
		return nil
	}
	var keep []objectives.Objective
	for _, o := range s.Objectives.List() {
		if o.Source == objectives.ByPerson && o.State == objectives.Active {
			keep = append(keep, o)
		}
	}
	data, err := peopleJSON(keep)
	if err != nil {
		return fmt.Errorf("save objectives: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(s.Dir, objectivesFile), append(data, '\n'), 0o644, false); err != nil {
		return fmt.Errorf("save objectives: %w", err)
	}
	return nil
}

// RestoreObjectives adds the person's objectives saved by saveObjectives.
// A missing file restores nothing; a broken one is an error and is left as
// it is.
func (s *Session) RestoreObjectives() error {
	if s.Objectives == nil {
		return nil
	}
	path := filepath.Join(s.Dir, objectivesFile)
	data, err := atomicfile.ReadRegular(path, maxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("restore objectives: %w", err)
	}
	var saved []objectives.Objective
	if err := json.Unmarshal(data, &saved); err != nil {
		return fmt.Errorf("restore objectives %q: %w", path, err)
	}
	for _, o := range saved {
		if o.State == objectives.Active {
			_, _ = s.Objectives.Edit(objectives.EditAdd, o.Text) // an error: it is there already
		}
	}
	return nil
}
