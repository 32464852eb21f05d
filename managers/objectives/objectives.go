// Package objectives is the objective manager: every
// objective_update_interval turns it asks the objectives role for
// objectives, from the whole knowledge base, the memories of the current
// and adjacent locations, the Mermaid map and routing summary, the recent
// gameplay, score, location and inventory (the enhanced context, on unless
// Config.Plain); it marks objectives complete from the ground truth where it
// can (a location reached, an item taken, points scored) and asks the model
// about the rest; it refines the list when objectives pile up; and a person
// adds, completes and drops objectives by hand.
//
// Lifecycle (every planning manager's): New with its dependencies (knowledge, memories, map),
// Reset per episode, ProcessTurn after each turn (ProcessPeriodic when
// due), Status for the UI. ProcessTurn and ProcessPeriodic belong to one
// goroutine (the engine's, which also owns the map); Edit, Objectives,
// Prompt and Status may be called from any.
package objectives

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/sanitize"
)

// Config tunes the manager; zero fields take the defaults given.
type Config struct {
	UpdateInterval  int  // objective_update_interval: turns between discoveries (15)
	RefineInterval  int  // objective_refinement_interval (50)
	MaxBeforeRefine int  // more active objectives than this forces a refinement (15)
	RefineTarget    int  // a refinement keeps about this many (8)
	RecentTurns     int  // turns of recent gameplay in the prompts (10)
	Plain           bool // leave out knowledge, memories and map (the enhanced context is on by default)
}

func (c Config) withDefaults() Config {
	c.UpdateInterval = domain.PositiveOr(c.UpdateInterval, 15)
	c.RefineInterval = domain.PositiveOr(c.RefineInterval, 50)
	c.MaxBeforeRefine = domain.PositiveOr(c.MaxBeforeRefine, 15)
	c.RefineTarget = domain.PositiveOr(c.RefineTarget, 8)
	c.RecentTurns = domain.PositiveOr(c.RecentTurns, 10)
	return c
}

// KnowledgeSource gives the whole knowledge base (the knowledge manager).
type KnowledgeSource interface{ Full() string }

// MemorySource gives a location's memories (memory.Store).
type MemorySource interface {
	List(loc int) []memory.Memory
}

// Deps are the manager's dependencies; any may be nil.
type Deps struct {
	Client    *llm.Client
	Knowledge KnowledgeSource
	Memories  MemorySource
	Map       *mapper.Map
}

// State is where an objective stands.
type State string

const (
	Active    State = "active"
	Completed State = "completed"
	Dropped   State = "dropped"
)

// Source says who set an objective.
type Source string

const (
	ByModel  Source = "model"
	ByPerson Source = "person"
)

// Objective is one goal.
type Objective struct {
	ID      int    `json:"id"`
	Text    string `json:"text"`
	Source  Source `json:"source"`
	State   State  `json:"state"`
	Episode int    `json:"episode"`
	Turn    int    `json:"turn"`           // when it was set
	Done    int    `json:"done,omitempty"` // turn it was completed or dropped
	How     string `json:"how,omitempty"`  // why it was completed or dropped
}

// Manager keeps the objectives.
type Manager struct {
	deps Deps
	cfg  Config

	mu         sync.Mutex
	objs       []Objective // this episode's (and the person's, which survive episodes)
	nextID     int
	episode    int
	turn       int
	lastUpdate int
	lastRefine int
	recent     []domain.Turn
	loc        struct {
		id   int
		name string
	}
	score     int
	inventory []string
	updates   int
	lastErr   string
	reasoning string  // the model's last reasoning
	quality   Quality // of every objective the model set
	// sources are what the last discovery gave the model to cite.
	sources Sources
}

// New makes an objective manager.
func New(deps Deps, cfg Config) *Manager {
	return &Manager{deps: deps, cfg: cfg.withDefaults(), nextID: 1}
}

// Reset starts a new episode: the model's objectives and the completed ones
// go (the story starts over); the person's active objectives stay.
func (m *Manager) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	var keep []Objective
	for _, o := range m.objs {
		if o.Source == ByPerson && o.State == Active {
			keep = append(keep, o)
		}
	}
	m.objs = keep
	m.turn, m.lastUpdate, m.lastRefine, m.recent = 0, 0, 0, nil
	m.score, m.inventory = 0, nil
	m.loc.id, m.loc.name = 0, ""
}

// SetLocation tells the manager where an episode starts.
func (m *Manager) SetLocation(id int, name string) {
	m.mu.Lock()
	m.loc.id, m.loc.name = id, name
	m.mu.Unlock()
}

// ProcessTurn records the turn, completes objectives the ground truth shows
// achieved, and runs ProcessPeriodic every UpdateInterval turns and on an
// episode's first turn while it has no active objective; a refinement is
// due every RefineInterval turns on its own. It reports whether the
// objectives changed.
func (m *Manager) ProcessTurn(ctx context.Context, t domain.Turn) (bool, error) {
	m.mu.Lock()
	m.episode, m.turn = t.Episode, t.Turn
	m.loc.id, m.loc.name = t.ToID, t.ToName
	m.score, m.inventory = t.ScoreAfter, append([]string(nil), t.InvAfter...)
	m.recent = append(m.recent, t)
	if n := len(m.recent) - m.cfg.RecentTurns; n > 0 {
		m.recent = m.recent[n:]
	}
	changed := false
	for i := range m.objs {
		o := &m.objs[i]
		if o.State != Active {
			continue
		}
		if how := Achieved(o.Text, t); how != "" {
			o.State, o.Done, o.How = Completed, t.Turn, "ground truth: "+how
			changed = true
		}
	}
	// An episode is planned from its first turn: with no active objective
	// and no update yet this episode, the update runs now, not after
	// UpdateInterval turns (an episode shorter than that had none).
	n := len(m.activeLocked())
	due := t.Turn-m.lastUpdate >= m.cfg.UpdateInterval || (n == 0 && m.lastUpdate == 0)
	// Refinement has its own cadence, not only inside an update.
	refine := !due && n > m.cfg.RefineTarget && t.Turn-m.lastRefine >= m.cfg.RefineInterval && m.deps.Client != nil
	m.mu.Unlock()
	if refine {
		ch, err := m.refine(ctx)
		return changed || ch, err
	}
	if !due {
		return changed, nil
	}
	ch, err := m.ProcessPeriodic(ctx)
	return changed || ch, err
}

// ProcessPeriodic is the periodic update: the model says which active
// objectives the recent turns completed, discovers objectives, and refines
// the list when it grew too long or the refinement interval passed. Without
// a model nothing happens.
func (m *Manager) ProcessPeriodic(ctx context.Context) (bool, error) {
	m.mu.Lock()
	m.lastUpdate = m.turn
	m.mu.Unlock()
	if m.deps.Client == nil {
		return false, nil
	}
	var errs []error
	changed := false
	if ch, err := m.checkCompletion(ctx); err != nil {
		errs = append(errs, err)
	} else {
		changed = changed || ch
	}
	if ch, err := m.discover(ctx); err != nil {
		errs = append(errs, err)
	} else {
		changed = changed || ch
	}
	m.mu.Lock()
	n := len(m.activeLocked())
	refine := n > m.cfg.RefineTarget && (n > m.cfg.MaxBeforeRefine || m.turn-m.lastRefine >= m.cfg.RefineInterval)
	m.mu.Unlock()
	if refine {
		if ch, err := m.refine(ctx); err != nil {
			errs = append(errs, err)
		} else {
			changed = changed || ch
		}
	}
	err := errors.Join(errs...)
	m.mu.Lock()
	m.updates++
	m.lastErr = ""
	if err != nil {
		m.lastErr = err.Error()
	}
	m.mu.Unlock()
	return changed, err
}

func (m *Manager) activeLocked() []Objective {
	var out []Objective
	for _, o := range m.objs {
		if o.State == Active {
			out = append(out, o)
		}
	}
	return out
}

// add appends a model objective unless it repeats one already there
// (active, or completed this episode).
func (m *Manager) addLocked(text string, src Source) (Objective, bool) {
	text = sanitize.OneLine(text)
	if text == "" {
		return Objective{}, false
	}
	for _, o := range m.objs {
		if o.State != Dropped && similar(o.Text, text) {
			return o, false
		}
	}
	o := Objective{ID: m.nextID, Text: text, Source: src, State: Active, Episode: m.episode, Turn: m.turn}
	if src == ByModel {
		m.quality.score(text, m.sources)
	}
	m.nextID++
	m.objs = append(m.objs, o)
	return o, true
}

// EditOp is what a person's edit of the objectives does.
type EditOp string

// The person's edits.
const (
	// EditAdd adds the person's objective (kept across episodes, first in
	// the prompt, never refined away).
	EditAdd EditOp = "add"
	// EditComplete marks an active objective done.
	EditComplete EditOp = "complete"
	// EditDrop drops an active objective.
	EditDrop EditOp = "drop"
)

// Edit applies a person's edit: add an objective, complete or drop one
// named by its text, its ID ("3", "#3", "O3") or a unique part of its
// text. It reports whether anything changed.
func (m *Manager) Edit(op EditOp, text string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	text = strings.TrimSpace(text)
	switch op {
	case EditAdd:
		if text == "" {
			return false, fmt.Errorf("objective add: empty text")
		}
		o, added := m.addLocked(text, ByPerson)
		if !added {
			return false, fmt.Errorf("objective add: %q is already objective %d", text, o.ID)
		}
		return true, nil
	case EditComplete, EditDrop:
		i, err := m.findLocked(text)
		if err != nil {
			return false, fmt.Errorf("objective %s: %w", op, err)
		}
		o := &m.objs[i]
		o.Done, o.How = m.turn, "by the person"
		if op == EditComplete {
			o.State = Completed
		} else {
			o.State = Dropped
		}
		return true, nil
	}
	return false, fmt.Errorf("objective edit: unknown operation %q (add, complete, drop)", op)
}

// ErrNoObjective: an edit named no active objective.
var ErrNoObjective = errors.New("no such active objective")

func (m *Manager) findLocked(ref string) (int, error) {
	if ref == "" {
		return -1, ErrNoObjective
	}
	n := norm(ref)
	for i, o := range m.objs {
		if o.State == Active && norm(o.Text) == n {
			return i, nil
		}
	}
	id := strings.TrimLeft(strings.ToUpper(ref), "#O")
	if v, err := strconv.Atoi(id); err == nil {
		for i, o := range m.objs {
			if o.State == Active && o.ID == v {
				return i, nil
			}
		}
	}
	found := -1
	for i, o := range m.objs {
		if o.State == Active && strings.Contains(norm(o.Text), n) {
			if found >= 0 {
				return -1, fmt.Errorf("%q names more than one objective", ref)
			}
			found = i
		}
	}
	if found < 0 {
		return -1, fmt.Errorf("%w: %q", ErrNoObjective, ref)
	}
	return found, nil
}

// Objectives returns the active objectives (the person's first) and those
// completed this episode, as texts (the TUI's objectives source).
func (m *Manager) Objectives() (active, completed []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, o := range m.ordered() {
		switch o.State {
		case Active:
			active = append(active, o.Text)
		case Completed:
			completed = append(completed, o.Text)
		}
	}
	return active, completed
}

// List returns every objective of the episode (with the dropped ones).
func (m *Manager) List() []Objective {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ordered()
}

// ordered puts the person's objectives first, each group in order of
// creation.
func (m *Manager) ordered() []Objective {
	out := make([]Objective, 0, len(m.objs))
	for _, src := range []Source{ByPerson, ByModel} {
		for _, o := range m.objs {
			if o.Source == src {
				out = append(out, o)
			}
		}
	}
	return out
}

// Prompt is the active objectives for the agent's prompt; the person's
// come first and say so.
func (m *Manager) Prompt() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, o := range m.ordered() {
		if o.State != Active {
			continue
		}
		if o.Source == ByPerson {
			out = append(out, "(from the person) "+o.Text)
		} else {
			out = append(out, o.Text)
		}
	}
	return out
}

// PersonObjectives are the person's active objectives (their hints to the
// agent).
func (m *Manager) PersonObjectives() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, o := range m.objs {
		if o.Source == ByPerson && o.State == Active {
			out = append(out, o.Text)
		}
	}
	return out
}

// Counts are the numbers of active and completed objectives.
func (m *Manager) Counts() (active, completed int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, o := range m.objs {
		switch o.State {
		case Active:
			active++
		case Completed:
			completed++
		}
	}
	return active, completed
}

// Status is the manager's state for the UI.
type Status struct {
	Active     int    `json:"active"`
	Completed  int    `json:"completed"`
	Dropped    int    `json:"dropped"`
	Updates    int    `json:"updates"`
	LastUpdate int    `json:"last_update_turn"`
	LastRefine int    `json:"last_refine_turn"`
	NextUpdate int    `json:"next_update_turn"`
	Enhanced   bool   `json:"enhanced"`
	Reasoning  string `json:"reasoning,omitempty"`
	LastError  string `json:"last_error,omitempty"`
}

// Status reports the manager's state.
func (m *Manager) Status() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := Status{Updates: m.updates, LastUpdate: m.lastUpdate, LastRefine: m.lastRefine,
		NextUpdate: m.lastUpdate + m.cfg.UpdateInterval, Enhanced: !m.cfg.Plain, Reasoning: m.reasoning, LastError: m.lastErr}
	for _, o := range m.objs {
		switch o.State {
		case Active:
			st.Active++
		case Completed:
			st.Completed++
		case Dropped:
			st.Dropped++
		}
	}
	return st
}
