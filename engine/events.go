package engine

import (
	"time"

	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/contextmgr"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/managers/objectives"
	"github.com/lantern-if/lantern/memory"
)

// Event is something the engine tells its clients (the TUI, the headless
// runner, the benchmark). The set is closed: every event is one of the types
// below. Deltas may be dropped under back-pressure; every other event is
// always delivered (or the engine's context ends).
type Event interface{ isEvent() }

// Mode is what the engine does between turns.
type Mode string

const (
	Running  Mode = "running"  // the agent plays turn after turn
	Paused   Mode = "paused"   // nothing happens until a command
	Stepping Mode = "stepping" // one agent turn, then paused
)

// TurnStarted: a turn begins.
type TurnStarted struct {
	Turn  int
	Actor Actor
}

// ReasoningDelta: a piece of the agent's reasoning (or thinking) as it
// streams. May be dropped under back-pressure.
type ReasoningDelta struct {
	Turn     int
	Text     string
	Thinking bool
}

// ProposalMade: the agent proposed an action (attempt 1–3 within a turn).
type ProposalMade struct {
	Turn      int
	Attempt   int
	Action    string
	Reasoning string
	Thinking  string
}

// CriticVerdict: the critic judged a proposal.
type CriticVerdict struct {
	Turn          int
	Attempt       int
	Action        string
	Score         float64
	Justification string
	Accepted      bool
	Stage         Stage
}

// TurnResult: an action was played and the story answered; the
// observation is ground truth. It comes as early as it can, for the screen;
// TurnCompleted closes the turn.
type TurnResult struct {
	// Line is the line of play the turn is on (its episode and branch):
	// turn numbers repeat across branches after a rewind, so a turn is
	// named by both (Line.At(Turn)).
	Line        Branch
	Turn        int
	Actor       Actor
	Action      string
	Reasoning   string
	Observation env.Observation
	Duration    time.Duration // the turn until the story answered
	LLMTime     time.Duration // of it, spent waiting for models
	// Verdicts are the critic's, one per proposal (the agent's turns).
	Verdicts []Verdict
	// Reviews are the person's decisions (review mode).
	Reviews []Review
	// LLM are the turn's model calls so far (the agent's, the critic's,
	// the extractor's; the managers' follow in TurnCompleted).
	LLM llm.Summary
	// Unrecorded: the turn could not be written to lantern.db (an
	// ErrNotRecorded error follows); a client that reports recorded turns
	// leaves it out.
	Unrecorded bool
}

// EpisodeStarted: an episode began (Observation is the story's opening) or
// a checkpoint's episode was resumed (Resumed; Turn is its last turn,
// Observation where it stood). A MapChanged with the episode's map follows
// either way.
type EpisodeStarted struct {
	Episode     int
	Seed        int // the random seed the episode started with (0 when resumed)
	Observation env.Observation
	Turn        int
	Resumed     bool
	// Rewound: the person went back to Turn (Rewind); play goes on,
	// paused, on Branch.
	Rewound bool
	// Branch is the line of play (its ID is 0 before the run database
	// knows it).
	Branch Branch
	// Undone: the rewind withdrew the memories written after Turn
	// (Rewind.UndoMemories); Withdrawn counts them (0 included).
	Undone    bool
	Withdrawn int
	// History are the recent turns a resumed episode had (nil otherwise).
	History []contextmgr.HistoryEntry
}

// MemoryChanged: memories at a location changed.
type MemoryChanged struct {
	Location int
	Title    string
}

// MapChanged: the map learned a room or a connection. Map is a copy of the
// engine's whole map, the client's to keep (the engine never touches it).
type MapChanged struct {
	Rooms, Connections int
	Map                mapper.Snapshot
}

// ObjectivesChanged: objectives were added, completed or dropped. Active
// and Completed are the objectives' texts after the change, in the order
// the agent sees them (the person's first).
type ObjectivesChanged struct{ Active, Completed []string }

// SupervisorChanged: the supervisor finished a round (or failed one: then
// the gauges stay and Feedback is empty). The gauges are in [-1, 1]: trust
// in the agent's claims, satisfaction with its progress, comfort with how
// it treats the person; Mood is a word for them; Feedback is what the agent
// reads in its next prompt; Contradicted lists the agent's claims the
// ground truth contradicted this round.
type SupervisorChanged struct {
	Turn                             int
	Round                            int
	Trust, Work, Comfort             float64
	PrevTrust, PrevWork, PrevComfort float64
	Mood                             string
	Feedback                         string
	Contradicted                     []string
}

// TurnCompleted: a turn is over with everything that follows it: the
// session's after-turn work (the run database, memories, planning) is done,
// and the managers' model calls count with the turn. It is the one event a
// client records a turn from.
type TurnCompleted struct {
	Result TurnResult // as sent when the story answered
	// Duration is the whole turn, the after-turn work included (which
	// may run beside the next turns).
	Duration time.Duration
	// Span is the part of the turn the engine spent on it before it could
	// go on to the next: the turns' spans add up to the run's time, so it
	// is the wall time a person waits for this turn.
	Span time.Duration
	// LLM are the turn's model calls, the managers' included.
	LLM llm.Summary
	// Agent is the part of the turn the agent's calls took (0 for a
	// person's turn): Duration/Agent is how much longer than the agent a
	// person waits for a turn.
	Agent time.Duration
	// Actions and Repeats count the run's played actions so far and, of
	// them, the repeated failed ones (the same action, place and state of
	// the world as an earlier one that did nothing).
	Actions, Repeats int
	// DroppedDeltas counts the turn's ReasoningDelta events that were
	// dropped because the client was behind (its event channel full).
	DroppedDeltas int
}

// ErrorEvent: something failed; Fatal means the engine stopped.
type ErrorEvent struct {
	Turn  int
	Err   error
	Fatal bool
}

// Idle: the engine waits for a command (paused, or out of work).
type Idle struct {
	Turn int
	Mode Mode
}

// EpisodeEnded: an episode is over.
type EpisodeEnded struct {
	Episode int
	Line    Branch // the line of play that ended
	Reason  env.Ending
	Score   int
	Moves   int
	Turns   int
}

// Stopped: the engine goroutine ended (Err is nil after Quit).
type Stopped struct{ Err error }

// Settling: before a rewind the engine waits for the work of the turns
// still being worked on (Turns of them), however long it takes, so that
// nothing of the line left behind is written after the switch.
type Settling struct{ Turns int }

// ReviewRequested: a proposal waits for the person (review mode). Deadline
// is when it will be accepted unless the person decides (zero: no
// auto-accept).
type ReviewRequested struct {
	Turn      int
	Attempt   int
	Action    string
	Reasoning string
	Verdict   Verdict
	Deadline  time.Time
}

// ReviewMode: review mode was switched (so every client shows it).
type ReviewMode struct {
	On         bool
	AutoAccept time.Duration
}

// ActionsSuggested is what the game lets the player do after Turn: the
// exits that lead somewhere, in compass order, then the actions that
// change the world, alphabetically (the same list the agent's "you can do
// here" line shows).
type ActionsSuggested struct {
	Turn    int
	Actions []string
}

func (TurnStarted) isEvent()       {}
func (ReasoningDelta) isEvent()    {}
func (ProposalMade) isEvent()      {}
func (CriticVerdict) isEvent()     {}
func (TurnResult) isEvent()        {}
func (EpisodeStarted) isEvent()    {}
func (MemoryChanged) isEvent()     {}
func (MapChanged) isEvent()        {}
func (ObjectivesChanged) isEvent() {}
func (SupervisorChanged) isEvent() {}
func (TurnCompleted) isEvent()     {}
func (ErrorEvent) isEvent()        {}
func (Idle) isEvent()              {}
func (EpisodeEnded) isEvent()      {}
func (Stopped) isEvent()           {}
func (Settling) isEvent()          {}
func (ReviewRequested) isEvent()   {}
func (ReviewMode) isEvent()        {}
func (ActionsSuggested) isEvent()  {}

// Command is something a client asks of the engine.
type Command interface{ isCommand() }

// Pause stops after the current turn.
type Pause struct{}

// EndEpisode ends the episode at once, as the person's decision (Ending
// "person"): a turn being thought about is dropped; the next episode
// starts when the configuration allows more.
type EndEpisode struct{}

// Unpause lets the agent play on, turn after turn (the opposite of Pause;
// Session.Resume is another thing: it continues a checkpoint).
type Unpause struct{}

// Step plays exactly one agent turn, then pauses.
type Step struct{}

// Override plays a person's command at the next turn boundary. With Cancel,
// an agent proposal in flight is abandoned first.
type Override struct {
	Text   string
	Cancel bool
}

// CancelTurn abandons the agent's proposal in flight (the turn is not
// played) and pauses.
type CancelTurn struct{}

// SetModel changes the model of a role.
type SetModel struct{ Role, Model string }

// Quit ends the engine after flushing its files.
type Quit struct{}

// MemoryEdit changes a memory by hand (or, with Supersede, writes a new
// memory that supersedes the one named by Title, "by human"). Delete removes
// it (Undo brings the last deletion back; RestoreHand brings back the
// memories the last deletion made by hand in an editor removed). Location
// is the memory's location ID; Title names the memory there.
type MemoryEdit struct {
	Location int
	Title    string
	NewTitle string          // Edit/Supersede: the (new) title
	Text     string          // Edit/Supersede: the (new) text
	Category memory.Category // Add/Edit/Supersede (Edit: empty keeps the memory's)
	Status   memory.Status   // SetStatus; Add/Supersede: ACTIVE (empty) or TENTATIVE
	Op       MemoryOp
}

// MemoryOp is what a MemoryEdit does.
type MemoryOp string

const (
	MemoryAdd         MemoryOp = "add"
	MemoryEditText    MemoryOp = "edit"
	MemorySupersede   MemoryOp = "supersede"
	MemorySetStatus   MemoryOp = "status"
	MemoryDelete      MemoryOp = "delete"
	MemoryUndo        MemoryOp = "undo"
	MemoryRestoreHand MemoryOp = "restore-hand"
)

// ObjectiveEdit adds, completes or drops an objective by hand.
type ObjectiveEdit struct {
	Op   ObjectiveOp
	Text string // add: the objective; complete/drop: its text or ID
}

// ObjectiveOp is what an ObjectiveEdit does: the objectives manager's
// own operations.
type ObjectiveOp = objectives.EditOp

// The person's objective edits.
const (
	ObjectiveAdd      = objectives.EditAdd
	ObjectiveComplete = objectives.EditComplete
	ObjectiveDrop     = objectives.EditDrop
)

func (Pause) isCommand()         {}
func (Unpause) isCommand()       {}
func (EndEpisode) isCommand()    {}
func (Step) isCommand()          {}
func (Override) isCommand()      {}
func (CancelTurn) isCommand()    {}
func (SetModel) isCommand()      {}
func (Quit) isCommand()          {}
func (MemoryEdit) isCommand()    {}
func (ObjectiveEdit) isCommand() {}
