// Package env is Lantern's game environment. It wraps a zmachine.Machine
// and reports Jericho-grade ground truth after every step: location,
// score, moves, inventory, death and victory, world changes and a world
// hash; it probes valid exits and actions without leaving a trace, and it
// keeps the story away from the file system (saves go to Lantern's own
// slots). It knows nothing of the turn loop, the models or the session.
package env

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/zmachine"
)

// EnvOptions configure an environment.
type EnvOptions struct {
	// Seed follows frotz's -s (see zmachine.Options.Seed).
	Seed int
	// Binding gives story-specific facts; nil means Generic.
	Binding *Binding
	// SaveDir holds save slots and the autosave; empty disables saving.
	SaveDir string
	// Autosave writes the machine state to SaveDir after every step.
	Autosave bool
	// NoIntro leaves out the binding's intro (the keys and answers typed
	// before the first observation).
	NoIntro bool
}

// Errors of the environment.
var (
	// ErrNotStarted: Step before Start.
	ErrNotStarted = errors.New("environment not started")
	// ErrEnded: the story halted; Reset starts a new episode.
	ErrEnded = errors.New("story has ended")
	// ErrNoSaveDir: saving needs a save directory.
	ErrNoSaveDir = errors.New("no save directory")
)

// MaxCommand is the longest command passed to a story.
const MaxCommand = 200

// AutosaveName is the autosave's file name in the save directory.
const AutosaveName = "autosave.qzl"

// Env is the game environment over one machine. It is not safe for
// concurrent use; the engine goroutine owns it.
type Env struct {
	saves   int // the story's SAVEs since the last command (meta.go)
	story   *zmachine.Story
	m       *zmachine.Machine
	b       *Binding
	opts    EnvOptions
	id      StoryIdentity
	turn    int
	started bool
	hash    string
	changes []Change
	player  uint16
	nameOf  func(uint16) string
	// volatile are the input buffers' bytes (Idle sets them aside), found once.
	volatile []int
	// refusalMoves: the parser's refusals count a move (found once).
	refusalMoves *bool
	// truth says where the facts are read; won and textScore carry
	// the episode's victory and last score read from the text.
	truth     truthSource
	won       bool
	textScore int
	// watch follows the location during a step (moved.go); hooks are the
	// machine's hooks, made once.
	watch moveWatch
	hooks zmachine.Hooks
	// afford caches what probing found in one state of the world
	// (affordances.go).
	afford affordances
	// plan is what the world hash leaves out (world.go), found once.
	plan *hashPlan
	// probers are the probe copies of the machine that play a share of
	// many probed commands on other goroutines (probe.go); probeWorkers
	// is how many machines play them (0: one a core, at most 4);
	// probeMemo is a ValidActions worker's memo while it runs.
	probers      []*zmachine.Machine
	probeWorkers int
	probeMemo    *probeMemo
}

// NewEnv makes an environment for story; Start runs it to its first prompt.
func NewEnv(story *zmachine.Story, opts EnvOptions) (*Env, error) {
	if story == nil {
		return nil, fmt.Errorf("new environment: %w", zmachine.ErrCorrupt)
	}
	if opts.Binding == nil {
		opts.Binding = Generic()
	}
	info := story.Info()
	e := &Env{story: story, b: opts.Binding, opts: opts,
		id: StoryIdentity{MD5: info.MD5, Release: info.Release, Serial: info.Serial, Version: info.Version}}
	if err := e.newMachine(opts.Seed); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *Env) newMachine(seed int) error {
	m, err := zmachine.New(e.story, zmachine.Options{Seed: seed, Saver: storySaver{e}})
	if err != nil {
		return fmt.Errorf("new environment: %w", err)
	}
	e.m = m
	e.nameOf = m.ObjectName
	e.hooks = zmachine.Hooks{ObjectMoved: e.moved, AttributeChanged: e.attrChanged, GlobalChanged: e.locationGlobalChanged}
	m.SetHooks(e.hooksWatching(-1))
	e.turn, e.started, e.hash, e.player = 0, false, "", uint16(e.b.Player)
	e.truth, e.won, e.textScore = truthSource{}, false, 0
	return nil
}

// Machine gives read access to the machine for introspection. Callers must
// not run it.
func (e *Env) Machine() *zmachine.Machine { return e.m }

// Binding is the binding in use.
func (e *Env) Binding() *Binding { return e.b }

// Story identifies the story.
func (e *Env) Story() StoryIdentity { return e.id }

// Start runs the story to its first prompt and observes the opening.
func (e *Env) Start() (Observation, error) {
	e.started = true
	e.hash = e.worldHash()
	e.changes = e.changes[:0]
	if _, err := e.m.Run(); err != nil {
		return e.observe("", e.m.TakeOutput(), 0), err
	}
	text := e.m.TakeOutput()
	if !e.opts.NoIntro {
		for _, in := range e.b.Intro {
			if e.m.State() == zmachine.Halted {
				break
			}
			if err := e.send(Sanitize(in)); err != nil {
				return e.observe("", text, 0), fmt.Errorf("intro %q: %w", in, err)
			}
			if _, err := e.m.Run(); err != nil {
				return e.observe("", text+e.m.TakeOutput(), 0), fmt.Errorf("intro %q: %w", in, err)
			}
			text += e.m.TakeOutput()
		}
	}
	return e.finish("", text, 0), nil
}

// send gives the machine one command: a line, or a key when it reads one.
func (e *Env) send(cmd string) error {
	e.saves = 0
	if e.m.State() != zmachine.WaitChar {
		return e.m.SendLine(cmd)
	}
	if cmd == "" {
		return e.m.SendChar(13)
	}
	return e.m.SendKey([]rune(cmd)[0])
}

// Reset starts a new episode with seed and observes its opening.
func (e *Env) Reset(seed int) (Observation, error) {
	if err := e.newMachine(seed); err != nil {
		return Observation{}, err
	}
	return e.Start()
}

// Step sends one command and observes the result. Meta-commands (save,
// restore, restart, quit, script, unscript) are handled by the environment
// and never reach the story.
func (e *Env) Step(command string) (Observation, error) {
	if !e.started {
		return Observation{}, ErrNotStarted
	}
	cmd := Sanitize(command)
	if obs, ok := e.meta(cmd); ok {
		return obs, nil
	}
	if e.m.State() == zmachine.Halted {
		return Observation{}, ErrEnded
	}
	e.turn++
	e.changes = e.changes[:0]
	restarts := e.m.Restarts()
	e.armMoveWatch()
	err := e.send(cmd)
	if err == nil {
		_, err = e.m.Run()
	}
	out := e.m.TakeOutput()
	text := strings.TrimPrefix(out, "\n")
	e.watch.skip = len(out) - len(text)
	if err != nil {
		return e.observe(cmd, text, restarts), fmt.Errorf("step %q: %w", cmd, err)
	}
	return e.finish(cmd, text, restarts), nil
}

// finish observes and autosaves.
func (e *Env) finish(cmd, text string, restarts int) Observation {
	obs := e.observe(cmd, text, restarts)
	if e.opts.Autosave && e.opts.SaveDir != "" && e.m.State() != zmachine.Halted {
		// An autosave failure must not stop play; the next step tries again.
		_ = e.Autosave()
	}
	return obs
}

// Autosave writes the machine state to the save directory.
func (e *Env) Autosave() error {
	if e.opts.SaveDir == "" {
		return ErrNoSaveDir
	}
	if err := os.MkdirAll(e.opts.SaveDir, 0o755); err != nil {
		return err
	}
	// Rewritten every turn: atomic against a kill, not synced (see Replace).
	return atomicfile.Replace(filepath.Join(e.opts.SaveDir, AutosaveName), e.m.SaveQuetzal(), 0o644)
}

func atomicWrite(path string, data []byte) error { return atomicfile.Write(path, data, 0o644, true) }

// RestoreAutosave restores saves/autosave.qzl; the machine continues at the
// prompt where it was saved.
func (e *Env) RestoreAutosave() (Observation, error) {
	if e.opts.SaveDir == "" {
		return Observation{}, ErrNoSaveDir
	}
	data, err := e.readFile(AutosaveName)
	if err != nil {
		return Observation{}, fmt.Errorf("resume: %w", err)
	}
	return e.RestoreState(data, e.turn)
}

// State is the machine's whole state as a save file (Lantern's Quetzal
// variant, with the random generator), for checkpoints.
func (e *Env) State() []byte { return e.m.SaveQuetzal() }

// RestoreState continues from a State saved after turn; the machine waits
// at the prompt where it was saved, and the world hash starts from there.
func (e *Env) RestoreState(data []byte, turn int) (Observation, error) {
	if err := e.m.RestoreQuetzal(data); err != nil {
		return Observation{}, fmt.Errorf("resume: %w", err)
	}
	e.started, e.turn = true, turn
	e.hash = e.worldHash()
	return e.observe("", "", e.m.Restarts()), nil
}

// Observe reports the current ground truth without stepping.
func (e *Env) Observe() Observation { return e.observe("", "", e.m.Restarts()) }

func (e *Env) observe(cmd, text string, restarts int) Observation {
	obs := Observation{Turn: e.turn, Command: cmd, Text: cleanText(text), Story: e.id}
	obs.MovedAt = e.movedAt(obs.Text)
	obs.Won = containsAny(text, e.victoryTexts())
	e.won = e.won || obs.Won
	obs.Location = e.location()
	obs.Score, obs.Moves = e.readScoreMoves(true)
	obs.Facts = e.truth.facts
	obs.Inventory = e.inventory(uint16(obs.Location.ID))
	if obs.Facts.Player == Unknown && e.player != 0 {
		obs.Facts.Player = Inferred // found among the location's contents
	}
	h := e.worldHash()
	obs.WorldHash = h
	obs.WorldChanged = e.hash != "" && h != e.hash
	e.hash = h
	if len(e.changes) > 0 {
		obs.Changes = append([]Change(nil), e.changes...)
	}
	// A victory is never a death: several stories' death text is the
	// end-of-game prompt, which follows a victory too.
	obs.Died = !e.won && (containsAny(text, e.b.DeathTexts) || (len(e.b.DeathTexts) == 0 && genericDeath(text)))
	switch {
	case obs.Won:
		obs.Ended = EndVictory
	case e.m.Restarts() != restarts:
		obs.Ended = EndRestart
	case e.m.State() == zmachine.Halted:
		obs.Ended = EndHalted
	case obs.Died && asksRestart(text):
		obs.Ended = EndDeath
	}
	return obs
}

// cleanText drops the story's trailing prompt.
func cleanText(s string) string {
	s = strings.TrimRight(s, " \n")
	if strings.HasSuffix(s, ">") {
		s = strings.TrimRight(strings.TrimSuffix(s, ">"), " \n")
	}
	return s
}

// playerObject is the binding's player, or (generic path) found among the
// location's contents.
func (e *Env) playerObject(loc uint16) uint16 {
	if e.b.Player != 0 {
		return uint16(e.b.Player)
	}
	if e.truth.player != 0 {
		return e.truth.player
	}
	kids := e.m.Children(loc)
	for _, k := range kids {
		switch strings.ToLower(e.nameOf(k)) {
		case "yourself", "you", "me", "myself", "self", "player", "cretin":
			e.player = k
			return k
		}
	}
	for _, k := range kids {
		if k == e.player {
			return k
		}
	}
	if len(kids) > 0 {
		// Stories move the player into each room with insert_obj, which puts
		// it first among the room's contents.
		e.player = kids[0]
	}
	return e.player
}

func (e *Env) inventory(loc uint16) []Item {
	p := e.playerObject(loc)
	items := []Item{}
	if p == 0 {
		return items
	}
	for _, c := range e.m.Children(p) {
		items = append(items, Item{ID: int(c), Name: e.nameOf(c)})
	}
	return items
}

func containsAny(text string, needles []string) bool {
	for _, n := range needles {
		if n != "" && strings.Contains(text, n) {
			return true
		}
	}
	return false
}

func genericDeath(text string) bool {
	l := strings.ToLower(text)
	return strings.Contains(l, "you have died") || strings.Contains(l, "you are dead") || strings.Contains(l, "you died")
}

// asksRestart: the story's end-of-game question.
func asksRestart(text string) bool {
	tail := strings.ToLower(text)
	if len(tail) > 400 {
		tail = tail[len(tail)-400:]
	}
	return strings.Contains(tail, "restart") && (strings.Contains(tail, "restore") || strings.Contains(tail, "quit"))
}

// Sanitize makes model or human input safe for the story: the first line
// only, control and escape characters removed, at most MaxCommand runes.
func Sanitize(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n >= MaxCommand {
			break
		}
		if unicode.IsControl(r) || r == 0x1b || !unicode.IsPrint(r) && r != ' ' {
			continue
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}
