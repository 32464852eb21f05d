package env

// Location is a room: its object number (stable within one story file) and
// short name.
type Location struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// Item is an object the player carries.
type Item struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// StoryIdentity identifies the story file an observation comes from.
type StoryIdentity struct {
	MD5     string `json:"md5"`
	Release int    `json:"release"`
	Serial  string `json:"serial"`
	Version int    `json:"version"`
}

// Change is one change to the object tree during a step, after the
// binding's ignore lists.
type Change struct {
	Kind   ChangeKind `json:"kind"`
	Object int        `json:"object"`
	Name   string     `json:"name"`
	From   int        `json:"from,omitempty"` // move: old parent
	To     int        `json:"to,omitempty"`   // move: new parent (0: removed)
	Attr   int        `json:"attr,omitempty"` // attr: attribute number
	Set    bool       `json:"set,omitempty"`  // attr: set (true) or cleared
}

// ChangeKind says what a Change is.
type ChangeKind string

const (
	// ChangeMove: an object moved (From → To).
	ChangeMove ChangeKind = "move"
	// ChangeAttr: an object's attribute was set or cleared (Attr, Set).
	ChangeAttr ChangeKind = "attr"
)

// Exit is a direction that leads somewhere from the current location.
type Exit struct {
	Direction string   `json:"direction"`
	To        Location `json:"to"`
}

// ActionGroup is a set of actions that lead to the same resulting state.
type ActionGroup struct {
	Actions  []string `json:"actions"`
	Location Location `json:"location"`
	Score    int      `json:"score"`
	Hash     string   `json:"world_hash"`
}

// Ending says why an episode ended with this step.
type Ending string

const (
	NotEnded   Ending = ""
	EndDeath   Ending = "death"    // the player died for good (the story asks to restart)
	EndVictory Ending = "victory"  // the binding's victory text appeared
	EndQuit    Ending = "quit"     // quit was asked for (handled by the environment)
	EndRestart Ending = "restart"  // restart was asked for, or the story restarted
	EndHalted  Ending = "halted"   // the story stopped (quit opcode or a fault)
	EndTurnCap Ending = "turn cap" // the episode reached its turn limit
	EndPerson  Ending = "person"   // the person ended it
)

// Provenance says where one fact of an observation comes from.
type Provenance string

const (
	// Bound: read where the story's binding says the fact lives.
	Bound Provenance = "bound"
	// Inferred: read where the story's own data suggests it lives (the
	// v3 status-line globals, the Inform library's globals).
	Inferred Provenance = "inferred"
	// Unknown: Lantern cannot read the fact; its value is left zero.
	Unknown Provenance = "unknown"
)

// Facts gives the provenance of each ground-truth fact.
type Facts struct {
	Location Provenance `json:"location"`
	Score    Provenance `json:"score"`
	Moves    Provenance `json:"moves"`
	Player   Provenance `json:"player"`
	Victory  Provenance `json:"victory"`
	Death    Provenance `json:"death"`
}

// Observation is the ground truth after a step, read from the machine.
type Observation struct {
	Turn         int           `json:"turn"`
	Command      string        `json:"command"`
	Text         string        `json:"text"`
	Location     Location      `json:"location"`
	Score        int           `json:"score"`
	Moves        int           `json:"moves"`
	Inventory    []Item        `json:"inventory"`
	Died         bool          `json:"died"`
	Won          bool          `json:"won"`
	WorldChanged bool          `json:"world_changed"`
	WorldHash    string        `json:"world_hash"`
	Changes      []Change      `json:"changes,omitempty"`
	Story        StoryIdentity `json:"story"`
	// Facts says which of the facts above are bound, inferred or unknown.
	Facts      Facts  `json:"facts"`
	ValidExits []Exit `json:"valid_exits,omitempty"`
	Ended      Ending `json:"ended,omitempty"`
	// Meta is set when the environment handled the command itself (save,
	// restore, quit, restart, script) instead of passing it to the story.
	Meta bool `json:"meta,omitempty"`
	// MovedAt is where in Text the player moved: the byte offset of the
	// text printed after the last change of location during the step, so
	// Text[MovedAt:] is what the story printed from the move on (the new
	// room's heading first, where the story prints one). It is -1 when the
	// location did not change (or the observation is not of a step), and 0
	// when it changed by a restore or an undo, whose moment is not followed.
	MovedAt int `json:"moved_at"`
}
