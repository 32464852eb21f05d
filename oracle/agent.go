package oracle

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/managers/contextmgr"
	"github.com/lantern-if/lantern/managers/mapper"
)

// FallbackCommand is what the oracle proposes once the script is played
// out.
const FallbackCommand = "look"

// LoadScript reads a walkthrough file; a file without a single command is
// an error.
// MaxScriptBytes bounds a walkthrough file.
const MaxScriptBytes = 16 << 20

func LoadScript(path string) ([]string, error) {
	// A walkthrough is a regular file of modest size: /dev/zero or a FIFO
	// is refused before a byte is read.
	data, err := atomicfile.ReadRegular(path, MaxScriptBytes)
	if err != nil {
		return nil, fmt.Errorf("load script %q: %w", path, err)
	}
	cmds, err := domain.ReadScript(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("load script %q: %w", path, err)
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("load script %q: %w", path, ErrEmptyScript)
	}
	return cmds, nil
}

// ErrEmptyScript: the walkthrough holds no command.
var ErrEmptyScript = fmt.Errorf("no commands in the script")

// walker is the agent's state: where it is in the script and the proposal
// it is waiting to see played. The caller holds the oracle's lock.
type walker struct {
	script      []string // shared, never written
	made        int      // the order walkers were made in (the oracle's count)
	next        int      // index of the pending command in script
	pendingTurn int      // the turn the pending command was proposed for (0: none)
	pendingCmd  string   // the last proposal
}

// proposal is the agent's answer for one request.
type proposal struct {
	Turn   int // the turn asked for (0: the prompt had none)
	Step   int // 1-based step of the walkthrough; 0 once it is played out
	Action string
	Again  bool // the same command as last time, for the same or a later turn
}

// sameAction compares commands as the parser would: case, spacing,
// articles and direction spelling ("N", "go north") do not matter.
func sameAction(a, b string) bool {
	return canonical(a) == canonical(b)
}

func canonical(cmd string) string {
	var kept []string
	for _, w := range strings.Fields(mapper.NormalizeAction(cmd)) {
		if w != "the" && w != "a" && w != "an" {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}

// propose decides the command for an agent prompt's user message. The
// oracle moves on to the next command only when the last proposal was
// played: the prompt asks for a later turn and its previous turns show the
// pending turn with that command (any actor). With no previous-turns
// section (trimmed from the prompt) a later turn counts as played. The same
// turn asked again (a rejection) or a later turn where something else was
// played (a person typed another command) gets the same proposal. Turn 1
// after a later turn is a new episode: the script starts over. A prompt
// without a turn number repeats the pending proposal.
func (w *walker) propose(user string) proposal {
	p := contextmgr.Parse(user)
	n := p.Turn
	switch {
	case n == 1 && w.pendingTurn > 1:
		w.next, w.pendingTurn, w.pendingCmd = 0, 0, ""
	case n > 1 && (n < w.pendingTurn || w.pendingTurn == 0 || n > w.pendingTurn+1):
		w.findPlace(n, p.Recent)
	}
	again := w.pendingCmd != ""
	if again && n > w.pendingTurn {
		played := !strings.Contains(user, "## Previous turns\n")
		for _, t := range p.Recent {
			if t.Turn == w.pendingTurn && sameAction(t.Action, w.pendingCmd) {
				played = true
			}
		}
		if played {
			again = false
			if w.next < len(w.script) {
				w.next++
			}
		}
	}
	pr := proposal{Turn: n, Action: FallbackCommand, Again: again}
	if w.next < len(w.script) {
		pr.Step, pr.Action = w.next+1, w.script[w.next]
	}
	if n > 0 {
		w.pendingTurn = n
	}
	w.pendingCmd = pr.Action
	return pr
}

// findPlace puts the walker back on the walkthrough when the turn asked
// does not follow the last one: a rewind (an earlier turn), a resumed
// session or a run --from (a later turn, or the first this oracle hears
// of), a person's run of commands. The last turn played before n (the
// prompt's previous turns) is found in the walkthrough, nearest its own
// step, and the walker goes on after it; a turn not found there leaves
// the place as it was, except for a walker that had none, which takes
// step n (turn k played step k).
func (w *walker) findPlace(n int, recent []contextmgr.HistoryEntry) {
	fresh := w.pendingTurn == 0
	w.pendingTurn, w.pendingCmd = 0, ""
	var last *contextmgr.HistoryEntry
	for i := range recent {
		if recent[i].Turn < n && (last == nil || recent[i].Turn > last.Turn) {
			last = &recent[i]
		}
	}
	if last != nil {
		best := -1
		for j, c := range w.script {
			if sameAction(c, last.Action) && (best < 0 || abs(j-(last.Turn-1)) < abs(best-(last.Turn-1))) {
				best = j
			}
		}
		if best >= 0 {
			w.next = best + 1
			return
		}
	}
	if fresh {
		w.next = min(n-1, len(w.script))
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// reasoning is the short explanation that goes with a proposal.
func (w *walker) reasoning(p proposal) string {
	switch {
	case p.Step == 0:
		return "The walkthrough is played out; looking around is the safe move."
	case p.Again:
		return fmt.Sprintf("Step %d of %d of the walkthrough is still the move: %s.", p.Step, len(w.script), p.Action)
	}
	return fmt.Sprintf("Step %d of %d of the walkthrough: %s.", p.Step, len(w.script), p.Action)
}
