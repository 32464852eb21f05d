package engine

// Stage says which part of the critic decided a verdict.
type Stage string

// The critic's stages.
const (
	// StageGroundTruth: the machine decided (an unknown word, an object not
	// in scope, an action that already failed in this state of the world),
	// or no critic model is configured and the action passed.
	StageGroundTruth Stage = "ground-truth"
	// StageGame: the game's world model confirmed the proposal (an action
	// in its valid-action set, a known exit from here, a verb the story
	// knows on an object in scope) and no model was asked.
	StageGame Stage = "game"
	// StageModel: the critic model scored the proposal.
	StageModel Stage = "model"
	// StageInsist: the model rejected it, the agent proposed it again in
	// the same turn, and it was let through once.
	StageInsist Stage = "insist"
	// StageAdvisory: the agent plays a script; a rejection is only noted.
	StageAdvisory Stage = "advisory"
	// StageUnavailable: the critic model could not answer; the proposal
	// was not blocked.
	StageUnavailable Stage = "unavailable"
)

// CriticTally counts what the critic did over some turns: proposals
// judged, rejections by the stage that rejected, and rejections overridden
// (played anyway: insisted on, advisory, or the best after the last
// proposal was also rejected).
type CriticTally struct {
	Turns      int           `json:"turns"`
	Proposals  int           `json:"proposals"`
	Rejected   map[Stage]int `json:"rejected_by_stage"`
	Decided    map[Stage]int `json:"decided_by_stage,omitempty"` // every verdict, accepted or not
	Overridden int           `json:"overridden_rejections"`
}

// Tally counts one turn's verdicts (the agent's turns; a turn with no
// verdicts, the person's, counts nothing).
func Tally(vs []Verdict) CriticTally {
	t := CriticTally{Rejected: map[Stage]int{}, Decided: map[Stage]int{}}
	if len(vs) == 0 {
		return t
	}
	t.Turns = 1
	accepted := false
	for _, v := range vs {
		t.Proposals++
		t.Decided[v.Stage]++
		switch {
		case !v.Accepted:
			t.Rejected[v.Stage]++
		case v.Stage == StageInsist || v.Stage == StageAdvisory:
			t.Rejected[v.Stage]++
			t.Overridden++
			accepted = true
		default:
			accepted = true
		}
	}
	if !accepted {
		t.Overridden++ // the best rejected proposal was played
	}
	return t
}

// Add adds another tally to t.
func (t *CriticTally) Add(o CriticTally) {
	if t.Rejected == nil {
		t.Rejected = map[Stage]int{}
	}
	if t.Decided == nil {
		t.Decided = map[Stage]int{}
	}
	t.Turns += o.Turns
	t.Proposals += o.Proposals
	t.Overridden += o.Overridden
	for s, n := range o.Rejected {
		t.Rejected[s] += n
	}
	for s, n := range o.Decided {
		t.Decided[s] += n
	}
}

// ProposalsPerTurn is the mean number of proposals in a judged turn.
func (t CriticTally) ProposalsPerTurn() float64 {
	if t.Turns == 0 {
		return 0
	}
	return float64(t.Proposals) / float64(t.Turns)
}
