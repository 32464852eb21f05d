// Package domain holds the records Lantern's layers share and nothing
// else: the one record of a played turn that every manager reads (memory
// synthesis, knowledge, objectives, supervisor), ground truth before and
// after, built once per turn by the session from the engine's TurnRecord.
package domain

// Turn is a played turn as the managers see it.
type Turn struct {
	Episode int
	// Line is the line of play the turn is on, written as Line.String()
	// ("1/main"): turn numbers repeat across branches.
	Line        string
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

// PositiveOr is v when it is positive, else d: a setting left at zero (or
// set to a nonsensical negative) takes its default.
func PositiveOr[T int | int64 | float64](v, d T) T {
	if v > 0 {
		return v
	}
	return d
}
