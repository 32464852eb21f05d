package domain

import "fmt"

// BranchLabel is how a line of play is named on every screen and export:
// its name, else "main" for an episode's first line (no parent) and
// "#ID from #PARENT@TURN" for a branch a rewind started.
func BranchLabel(id int64, name string, parent int64, forkTurn int) string {
	switch {
	case name != "":
		return name
	case parent == 0:
		return "main"
	default:
		return fmt.Sprintf("#%d from #%d@%d", id, parent, forkTurn)
	}
}
