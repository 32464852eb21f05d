// Package turn holds the one record of a played turn that every manager
// reads (memory synthesis, objectives, supervisor): ground truth before and
// after, built once by the engine per turn.
package turn

// Turn is a played turn as the managers see it.
type Turn struct {
	Episode     int
	Turn        int
	Actor       string // "agent" or "human"
	Action      string
	Reasoning   string
	Response    string
	FromID      int // where the action was taken
	FromName    string
	ToID        int // where the player is now
	ToName      string
	ScoreBefore int
	ScoreAfter  int
	InvBefore   []string
	InvAfter    []string
	Died        bool
	NewRoom     bool // the destination was not on the map before
	Failed      bool // no world change, no score change, no move
}
