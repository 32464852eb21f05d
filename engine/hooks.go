package engine

import (
	"context"
	"errors"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/memsynth"
)

// PromptExtras supplies the parts of the agent's prompt that live outside
// the engine (Memories.md, the notes, the planning managers). The engine
// calls it on its own goroutine while it builds a prompt; every method may
// return the zero value to leave its part out.
type PromptExtras interface {
	// LocationMemory renders a location's memories for the agent.
	LocationMemory(loc int) string
	// Notes are the agent's top notes.
	Notes() []string
	// Objectives are the current objectives, the person's first.
	Objectives() []string
	// Knowledge is the strategic knowledge (knowledgebase.md).
	Knowledge() string
	// Feedback is the supervisor's coaching for the next prompt.
	Feedback() string
}

// MemoryQuestion is a turn's memory question, put to the agent's next
// reply (memory synthesis in the agent's call: one model call a turn where
// a separate memory call would be a second).
type MemoryQuestion struct {
	Turn int    // the turn it asks about
	Text string // what follows the agent's prompt
}

// MemoryAnswer is what became of a memory question: the agent's note
// (with its own reasoning, the note's why), or the error that left it
// unanswered: ErrUnasked (no agent reply was asked: the person played the
// next turn, the engine paused, the episode ended or the engine stopped),
// ErrLineAbandoned (a rewind left the line), ErrNoMemoryAnswer (the reply
// proposed without answering) or the model call's own error.
type MemoryAnswer struct {
	Question MemoryQuestion
	Note     memsynth.Note
	Err      error
}

// ErrUnasked: no agent reply was asked the memory question (the person
// played the next turn, the engine paused or stopped, the episode ended);
// whoever asked it answers it otherwise (the session: the memory role).
var ErrUnasked = errors.New("no agent reply was asked the memory question")

// After is what the Lifecycle made of a played turn: the events it caused
// and, when the turn triggers memory synthesis and the agent can answer,
// the question for the agent's next reply (nil: none).
type After struct {
	Events []Event
	Ask    *MemoryQuestion
}

// ErrLineAbandoned answers a memory question of a line of play the
// person rewound away from: no reply will answer it and none is asked
// for; the decision is recorded as unanswered.
var ErrLineAbandoned = errors.New("the line of play was rewound before the question was answered")

// MemoryProposer is an Agent whose reply can answer a memory question. A
// reply that proposes but does not answer returns its proposal with
// ErrNoMemoryAnswer.
type MemoryProposer interface {
	ProposeRemembering(ctx context.Context, prompt []llm.Message, question string, turn int, onDelta func(llm.Delta)) (Proposal, memsynth.Note, error)
}

// Lifecycle hears of an engine's episodes and turns, and owns the data the
// person edits. The engine calls it on its own goroutine, in the order the
// things happen; the events a method returns are sent after it returns.
type Lifecycle interface {
	// EpisodeNumber is the number of the episode about to start (the run
	// database's next one, so numbers agree across launches); 0 counts
	// from 1 in each run.
	EpisodeNumber(ctx context.Context) (int, error)
	// StartEpisode runs when an episode starts or is resumed, before its
	// first prompt.
	StartEpisode(ctx context.Context, ep EpisodeStarted) error
	// AfterTurn runs after each played turn, before its TurnResult is
	// sent: the one call a turn between engine and session. The record
	// brings the answer to the last turn's memory question (Answer); what
	// comes back may ask the next (After.Ask), which the engine puts to
	// the agent's next first proposal and answers in the next record, or
	// at the next Settle. An error for which Halts holds pauses the
	// engine; the turn is still closed with its TurnCompleted unless it
	// wraps ErrNotRecorded (its row is not in lantern.db, so no client
	// reports it).
	AfterTurn(ctx context.Context, rec TurnRecord) (After, error)
	// EpisodeEnded runs when an episode ends, before EpisodeEnded is sent.
	EpisodeEnded(ctx context.Context, ep EpisodeEnded) error
	// Edit applies a person's MemoryEdit or ObjectiveEdit, at a turn
	// boundary or while the agent thinks; episode and turn are the last
	// played.
	Edit(ctx context.Context, c Command, episode, turn int) ([]Event, error)
}

// ErrNotRecorded: a played turn could not be written to the run database
// after the retries (disk full, read-only, locked, the database gone).
// Recording is part of the turn: the engine pauses and headless runs stop.
var ErrNotRecorded = errors.New("turn not recorded")

// Background is after-turn work a Lifecycle runs off the critical path
// (memory synthesis and the planning managers, beside the next proposal).
// A Lifecycle that implements it returns from AfterTurn once the turn is
// recorded; the engine takes what finished at every point it waits
// (a proposal, a review, a command) and closes each turn with its
// TurnCompleted once its work is done. Before an episode ends, before
// Idle and before the engine stops it settles: waits for the work queued.
type Background interface {
	// Ready is signalled when finished work waits to be taken.
	Ready() <-chan struct{}
	// Take returns the turns whose work finished, oldest first.
	Take() []Settled
	// Settle waits until the work queued so far has finished (or ctx
	// ends) and returns it as Take does. left, when not nil, is what
	// became of a memory question no played turn's record answered (the
	// engine pauses, stops, ends the episode or rewinds).
	Settle(ctx context.Context, left *MemoryAnswer) []Settled
}

// Settled is one turn's background work, finished: the events it caused
// (MemoryChanged, ObjectivesChanged, SupervisorChanged, errors it reported
// and went on from) and an error that stops play (Halts: what it had to
// write could not be written).
type Settled struct {
	Turn   int
	Events []Event
	Err    error
}

// ErrNotWritten: a file of the work dir that a turn writes (Memories.md,
// knowledgebase.md) could not be written; what it should hold is kept.
var ErrNotWritten = atomicfile.ErrNotWritten

// Halts reports whether err stops play: a turn, or what it wrote, could
// not be stored (ErrNotRecorded, ErrNotWritten). Playing on would lose
// every turn from there, so the engine pauses until the person has fixed
// the disk or the database.
func Halts(err error) bool {
	return errors.Is(err, ErrNotRecorded) || errors.Is(err, ErrNotWritten)
}

// NotWrittenError names the file a turn could not write and the cause;
// errors.Is holds for ErrNotWritten and the cause.
type NotWrittenError = atomicfile.NotWrittenError
