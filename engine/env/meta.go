package env

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/lantern-if/lantern/zmachine"
)

// Meta-commands are handled here, for every actor: a model (or a person)
// can never make the story read or write a file of its choosing. Saves go
// to numbered slots in the save directory; quit and restart end the
// episode through the engine. "load" is Lantern's own synonym of restore:
// a story whose dictionary holds the word gives it a meaning of its own
// (LOAD PISTOL), so there it goes to the story; should the story take it
// for RESTORE, the story's restore is kept inside the save directory too.

const (
	slotPrefix = "slot-"
	slotExt    = ".qzl"
	// storySaveName is where the story's own SAVE opcode writes, should a
	// story reach it by another route than the word "save".
	storySaveName = "story-save.qzl"
)

func (e *Env) meta(cmd string) (Observation, bool) {
	fields := strings.Fields(strings.ToLower(cmd))
	if len(fields) == 0 || fields[0] == "load" && e.m.KnowsWord("load") {
		return Observation{}, false
	}
	var text string
	var end Ending
	switch fields[0] {
	case "save":
		text = e.metaSave()
	case "restore", "load":
		text = e.metaRestore(fields[1:])
	case "quit", "q":
		text, end = "[Lantern] The episode ends here (quit).", EndQuit
	case "restart":
		text, end = "[Lantern] The episode ends here (restart).", EndRestart
	case "script", "unscript", "transcript":
		text = "[Lantern] Lantern keeps the transcript itself; the story's SCRIPT is not used."
	default:
		return Observation{}, false
	}
	obs := e.observe(cmd, text, e.m.Restarts())
	obs.Meta, obs.Ended = true, end
	return obs, true
}

func (e *Env) metaSave() string {
	if e.opts.SaveDir == "" {
		return "[Lantern] Saving is off (no save directory)."
	}
	n := 1
	if slots := e.slots(); len(slots) > 0 {
		n = slots[len(slots)-1] + 1
	}
	if err := e.writeFile(slotName(n), e.m.SaveQuetzal()); err != nil {
		return fmt.Sprintf("[Lantern] Save failed: %v", err)
	}
	// The slots are bounded: the oldest go when there are too many.
	slots := e.slots()
	for len(slots) > MaxSaveSlots {
		if root, err := os.OpenRoot(e.opts.SaveDir); err == nil {
			root.Remove(slotName(slots[0]))
			root.Close()
		}
		slots = slots[1:]
	}
	return fmt.Sprintf("[Lantern] Saved as slot %d.", n)
}

// metaRestore restores the newest slot, or slot N when the first argument
// is a number; any other argument (a path, say) is ignored.
func (e *Env) metaRestore(args []string) string {
	slots := e.slots()
	if len(slots) == 0 {
		return "[Lantern] There is no saved slot to restore."
	}
	n := slots[len(slots)-1]
	if len(args) > 0 {
		if k, err := strconv.Atoi(args[0]); err == nil {
			n = k
		}
	}
	data, err := e.readFile(slotName(n))
	if err != nil {
		return fmt.Sprintf("[Lantern] There is no slot %d.", n)
	}
	if err := e.m.RestoreQuetzal(data); err != nil {
		return fmt.Sprintf("[Lantern] Slot %d cannot be restored: %v", n, err)
	}
	e.hash = e.worldHash()
	return fmt.Sprintf("[Lantern] Restored slot %d.", n)
}

// MaxSaveSlots is how many save slots a story keeps; a save past it drops
// the oldest.
const MaxSaveSlots = 50

func slotName(n int) string { return slotPrefix + strconv.Itoa(n) + slotExt }

// slots lists the slot numbers present, ascending.
func (e *Env) slots() []int {
	if e.opts.SaveDir == "" {
		return nil
	}
	entries, err := os.ReadDir(e.opts.SaveDir)
	if err != nil {
		return nil
	}
	var out []int
	for _, en := range entries {
		name := en.Name()
		if !strings.HasPrefix(name, slotPrefix) || !strings.HasSuffix(name, slotExt) {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, slotPrefix), slotExt)); err == nil {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

// ErrOutsideSaveDir: a file of Lantern's naming in the save directory is a
// symbolic link that leads out of it; Lantern reads and writes nothing
// through it.
var ErrOutsideSaveDir = errors.New("save file is a link out of the save directory")

// readFile reads a file of Lantern's naming from the save directory,
// following a symbolic link only while it stays inside the directory.
func (e *Env) readFile(name string) ([]byte, error) {
	if e.opts.SaveDir == "" {
		return nil, ErrNoSaveDir
	}
	root, err := os.OpenRoot(e.opts.SaveDir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	data, err := root.ReadFile(name)
	if err != nil && leadsOut(root, name) {
		return nil, fmt.Errorf("%s: %w", name, ErrOutsideSaveDir)
	}
	return data, err
}

// leadsOut reports whether name is a symbolic link the root refuses to
// follow because it leads out of the directory.
func leadsOut(root *os.Root, name string) bool {
	if _, err := root.Stat(name); err == nil || errors.Is(err, fs.ErrNotExist) {
		return false
	}
	fi, err := root.Lstat(name)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// writeFile writes a file of Lantern's naming into the save directory. The
// write replaces a symbolic link rather than following it, but its backup
// would read the link's target: a link out of the directory is refused.
func (e *Env) writeFile(name string, data []byte) error {
	if e.opts.SaveDir == "" {
		return ErrNoSaveDir
	}
	if err := os.MkdirAll(e.opts.SaveDir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(e.opts.SaveDir)
	if err != nil {
		return err
	}
	out := leadsOut(root, name)
	root.Close()
	if out {
		return fmt.Errorf("%s: %w", name, ErrOutsideSaveDir)
	}
	return atomicWrite(filepath.Join(e.opts.SaveDir, name), data)
}

// storySaver answers the story's own SAVE and RESTORE opcodes with one file
// of Lantern's naming.
type storySaver struct{ e *Env }

func (s storySaver) Save(data []byte) error {
	// A story that saves again and again without reading a command would
	// write the file without end (and never return to the loop, which
	// obeys signals): after maxSavesPerCommand it ends as at the end of
	// input.
	if s.e.saves++; s.e.saves > maxSavesPerCommand {
		return fmt.Errorf("%w: the story saved %d times without reading a command", zmachine.ErrEndOfInput, maxSavesPerCommand)
	}
	return s.e.writeFile(storySaveName, data)
}

// maxSavesPerCommand bounds the story's SAVEs between two commands.
const maxSavesPerCommand = 8

func (s storySaver) Restore() ([]byte, error) { return s.e.readFile(storySaveName) }
