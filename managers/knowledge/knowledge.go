// Package knowledge is the knowledge manager and the episode synthesizer:
// knowledgebase.md in the story's work folder holds what the
// agent learned across episodes — hard lessons from deaths, a strategy the
// knowledge role rewrites from batches of the turn log every
// knowledge_update_interval turns and at each episode's end, and one note
// per finished episode — kept within a token budget. Deaths are written as
// lessons at once, from the ground truth, without waiting for a model.
//
// Lifecycle (every planning manager's): New with its dependencies, Reset per episode (the
// file is cross-episode data and survives), ProcessTurn after each turn,
// ProcessPeriodic every UpdateInterval turns, SynthesizeEpisode at the end
// of an episode, Status for the UI. ProcessTurn, ProcessPeriodic and
// SynthesizeEpisode belong to one goroutine (the engine's); Full, ForAgent
// and Status may be called from any.
package knowledge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/contextmgr"
	"github.com/lantern-if/lantern/sanitize"
)

// FileName is the knowledge base's name in the story's work folder.
const FileName = "knowledgebase.md"

// NoKnowledge is what Full returns when there is no knowledge base yet.
const NoKnowledge = "No strategic knowledge available."

// Config tunes the manager.
type Config struct {
	Path  string // knowledgebase.md
	Story string // the story's name, for the file's title
	// UpdateInterval is knowledge_update_interval: turns between updates
	// from the turn log (0: 100); negative: only at episode ends.
	UpdateInterval int
	// BudgetTokens bounds the whole file (default 2000).
	BudgetTokens int
	// MaxLessons and MaxNotes bound the two lists (defaults 12 and 10);
	// the oldest entries go first.
	MaxLessons int
	MaxNotes   int
	// Files is the file layer writes go through (nil: the real one;
	// tests inject faults).
	Files atomicfile.FS
}

func (c Config) withDefaults() Config {
	if c.UpdateInterval == 0 {
		c.UpdateInterval = 100
	}
	c.BudgetTokens = domain.PositiveOr(c.BudgetTokens, 2000)
	c.MaxLessons = domain.PositiveOr(c.MaxLessons, 12)
	c.MaxNotes = domain.PositiveOr(c.MaxNotes, 10)
	return c
}

// Episode is a finished episode, for the synthesis.
type Episode struct {
	Number   int
	Reason   string // death, victory, turn cap, ...
	Score    int
	MaxScore int // 0: unknown
	Moves    int
	Turns    int
}

// Update is the knowledge role's reply to a periodic update.
type Update struct {
	Strategy  string   `json:"strategy" maxLength:"2000" desc:"the whole strategy, rewritten: short markdown bullet points"`
	Lessons   []string `json:"lessons" maxItems:"3" maxLength:"200" desc:"new lessons from deaths in these turns; empty when none"`
	Reasoning string   `json:"reasoning" maxLength:"200"`
}

// Synthesis is the knowledge role's reply at the end of an episode.
type Synthesis struct {
	Strategy    string   `json:"strategy" maxLength:"2000" desc:"the whole strategy, rewritten: short markdown bullet points"`
	Lessons     []string `json:"lessons" maxItems:"3" maxLength:"200" desc:"new lessons from deaths in this episode; empty when none"`
	EpisodeNote string   `json:"episode_note" maxLength:"240" desc:"one sentence: what this episode teaches the next"`
	Reasoning   string   `json:"reasoning" maxLength:"200"`
}

// Condensed is the knowledge role's reply when the file outgrew its budget.
type Condensed struct {
	Strategy string `json:"strategy" maxLength:"2000"`
}

// maxBatchTurns bounds the turn log kept between updates.
const maxBatchTurns = 1000

// Manager keeps knowledgebase.md.
type Manager struct {
	client *llm.Client
	cfg    Config

	mu         sync.Mutex
	batch      []domain.Turn // turns since the last update
	deaths     []domain.Turn // this episode's deaths
	turn       int
	lastUpdate int
	updates    int
	lastErr    string

	// pending is the file as it should be when a write failed (a full
	// disk, an immutable file): reads see it and the next write, or Flush,
	// puts it on disk. wmu guards it.
	wmu      sync.Mutex
	pending  []byte
	writeErr error
}

// New makes a knowledge manager; client may be nil (then only the ground
// truth is written: death lessons and episode notes).
func New(client *llm.Client, cfg Config) *Manager {
	return &Manager{client: client, cfg: cfg.withDefaults()}
}

// Path is knowledgebase.md.
func (m *Manager) Path() string { return m.cfg.Path }

// Reset starts a new episode: the turn log is cleared, the file is kept.
func (m *Manager) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.batch, m.deaths, m.turn, m.lastUpdate = nil, nil, 0, 0
}

// MaxFileBytes bounds knowledgebase.md: a file larger than this (or not a
// regular file at all: /dev/zero, a FIFO) is refused before it is read.
const MaxFileBytes = 16 << 20

// Full is the whole knowledge base, or
// NoKnowledge when the file is missing or empty.
func (m *Manager) Full() string {
	data, err := m.read()
	if err != nil || strings.TrimSpace(string(data)) == "" || sanitize.ForeignEncoding(data) != "" {
		return NoKnowledge
	}
	return string(data)
}

// ForAgent is the knowledge for the agent's prompt (lessons first); empty
// when there is none.
func (m *Manager) ForAgent() string {
	d, err := m.Load()
	if err != nil {
		return ""
	}
	return d.ForAgent()
}

// Load reads and parses the file; a missing file is an empty document.
func (m *Manager) Load() (Doc, error) {
	data, err := m.read()
	if errors.Is(err, fs.ErrNotExist) {
		return Doc{Story: m.cfg.Story}, nil
	}
	if err != nil {
		return Doc{}, fmt.Errorf("knowledge: %w", err)
	}
	if enc := sanitize.ForeignEncoding(data); enc != "" {
		// Writing it back as UTF-8 would make a mixed or garbled file.
		return Doc{}, fmt.Errorf("knowledge: %s is %s, which Lantern cannot write back; it is left untouched (save it as UTF-8): %w", m.cfg.Path, enc, ErrEncoding)
	}
	d := Parse(string(data))
	if d.Story == "" {
		d.Story = m.cfg.Story
	}
	return d, nil
}

// ProcessTurn logs the turn; a death becomes a lesson at once. Every
// UpdateInterval turns it runs ProcessPeriodic. It reports whether the file
// changed.
func (m *Manager) ProcessTurn(ctx context.Context, t domain.Turn) (bool, error) {
	m.mu.Lock()
	m.batch = append(m.batch, t)
	if n := len(m.batch) - maxBatchTurns; n > 0 {
		m.batch = m.batch[n:] // a model that keeps failing must not grow it forever
	}
	if iv := m.cfg.UpdateInterval; m.turn == 0 && m.lastUpdate == 0 && iv > 0 && t.Turn > 1 {
		// The first turn since Reset is a resumed episode's: the updates
		// keep to the turns an uninterrupted run makes them at (100, 200,
		// ...), none is added for the resume.
		m.lastUpdate = (t.Turn - 1) / iv * iv
	}
	m.turn = t.Turn
	if t.Died {
		m.deaths = append(m.deaths, t)
	}
	due := m.cfg.UpdateInterval > 0 && t.Turn-m.lastUpdate >= m.cfg.UpdateInterval
	m.mu.Unlock()
	changed := false
	if t.Died {
		if err := m.edit(ctx, func(d *Doc) error {
			d.addDeath(deathKey(t), deathCause(t.Response), fmt.Sprintf("Ep%d T%d", t.Episode, t.Turn))
			return nil
		}); err != nil {
			return false, m.fail(err)
		}
		changed = true
	}
	if due {
		ch, err := m.ProcessPeriodic(ctx)
		return changed || ch, err
	}
	return changed, nil
}

// ProcessPeriodic rewrites the strategy from the turns logged since the
// last update (nothing happens without a model or without turns).
func (m *Manager) ProcessPeriodic(ctx context.Context) (bool, error) {
	m.mu.Lock()
	batch := append([]domain.Turn(nil), m.batch...)
	m.lastUpdate = m.turn
	m.mu.Unlock()
	if m.client == nil || len(batch) == 0 {
		return false, nil
	}
	d, err := m.Load()
	if err != nil {
		return false, m.fail(err)
	}
	rep, _, err := llm.Structured[Update](ctx, m.client, llm.Request{Role: config.RoleKnowledge, Turn: m.turn,
		Messages: []llm.Message{llm.System(updatePrompt), llm.User(m.updateInput(d, batch, nil))}})
	if err != nil {
		return false, m.fail(fmt.Errorf("knowledge update at turn %d: %w", m.turn, err))
	}
	if err := m.edit(ctx, func(d *Doc) error {
		if s := strings.TrimSpace(rep.Strategy); s != "" {
			d.Strategy = s
		}
		for _, l := range rep.Lessons {
			d.addLesson(l)
		}
		return nil
	}); err != nil {
		return false, m.fail(err)
	}
	m.mu.Lock()
	m.batch = m.batch[len(batch):]
	m.updates++
	m.lastErr = ""
	m.mu.Unlock()
	return true, nil
}

// SynthesizeEpisode is the episode synthesis: a last knowledge update from
// the rest of the turn log with the episode's outcome, and a cross-episode
// note. Without a model the note is written from the ground truth alone.
// It returns the note.
func (m *Manager) SynthesizeEpisode(ctx context.Context, ep Episode) (string, error) {
	m.mu.Lock()
	batch := append([]domain.Turn(nil), m.batch...)
	deaths := append([]domain.Turn(nil), m.deaths...)
	m.mu.Unlock()
	note := groundNote(ep, deaths)
	var rep Synthesis
	var callErr error
	if m.client != nil {
		d, err := m.Load()
		if err != nil {
			return "", m.fail(err)
		}
		// Tagged after the last turn: the episode's end, never a turn's
		// (a client that reports each turn's calls counts it apart).
		rep, _, callErr = llm.Structured[Synthesis](ctx, m.client, llm.Request{Role: config.RoleKnowledge, Turn: ep.Turns + 1,
			Messages: []llm.Message{llm.System(synthesisPrompt), llm.User(m.updateInput(d, batch, &ep))}})
		if callErr != nil {
			callErr = fmt.Errorf("episode %d synthesis: %w", ep.Number, callErr)
		} else if s := sanitize.OneLine(rep.EpisodeNote); s != "" {
			note += " " + s
		}
	}
	err := m.edit(ctx, func(d *Doc) error {
		if callErr == nil {
			if s := strings.TrimSpace(rep.Strategy); s != "" {
				d.Strategy = s
			}
			for _, l := range rep.Lessons {
				d.addLesson(l)
			}
		}
		d.setNote(ep.Number, note)
		return nil
	})
	m.mu.Lock()
	m.batch = nil
	if callErr == nil && m.client != nil {
		m.updates++
	}
	m.mu.Unlock()
	if err = errors.Join(callErr, err); err != nil {
		return note, m.fail(err)
	}
	return note, nil
}

func (m *Manager) fail(err error) error {
	m.mu.Lock()
	m.lastErr = err.Error()
	m.mu.Unlock()
	return err
}

// edit reads the file (a person may have changed it), applies fn, fits the
// result to the budget and writes it atomically with a backup.
func (m *Manager) edit(ctx context.Context, fn func(*Doc) error) error {
	d, err := m.Load()
	if err != nil {
		return err
	}
	if err := fn(&d); err != nil {
		return err
	}
	fitErr := m.fit(ctx, &d)
	if err := m.write([]byte(d.Render())); err != nil {
		return err
	}
	return fitErr
}

// Tokens estimates a text's size the way the agent's prompt does.
func Tokens(s string) int { return contextmgr.EstimateTokens(s) }

// fit keeps the document within its caps and token budget: the oldest
// notes and lessons go first; a strategy still too long is condensed by the
// model (or, without one, cut at a line).
func (m *Manager) fit(ctx context.Context, d *Doc) error {
	if n := len(d.Notes) - m.cfg.MaxNotes; n > 0 {
		d.Notes = d.Notes[n:]
	}
	if n := len(d.Lessons) - m.cfg.MaxLessons; n > 0 {
		d.Lessons = d.Lessons[n:]
	}
	limit := m.cfg.BudgetTokens
	for Tokens(d.Render()) > limit && len(d.Notes) > 3 {
		d.Notes = d.Notes[1:]
	}
	for Tokens(d.Render()) > limit && len(d.Lessons) > 5 {
		d.Lessons = d.Lessons[1:]
	}
	over := Tokens(d.Render()) - limit
	if over <= 0 {
		return nil
	}
	room := max(Tokens(d.Strategy)-over, 100) * 7 / 2 // characters
	var err error
	if m.client != nil {
		var rep Condensed
		rep, _, err = llm.Structured[Condensed](ctx, m.client, llm.Request{Role: config.RoleKnowledge, Turn: m.turn,
			Messages: []llm.Message{llm.System(condensePrompt), llm.User(fmt.Sprintf("Rewrite this strategy in at most %d characters:\n\n%s", room, d.Strategy))}})
		if err == nil && strings.TrimSpace(rep.Strategy) != "" {
			d.Strategy = strings.TrimSpace(rep.Strategy)
		}
		if err != nil {
			err = fmt.Errorf("knowledge: condensing the strategy: %w", err)
		}
	}
	if len(d.Strategy) > room {
		d.Strategy = cutAtLine(d.Strategy, room)
	}
	return err
}

// cutAtLine shortens s to at most n bytes, at a line end when there is one.
func cutAtLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := s[:n]
	if i := strings.LastIndexByte(cut, '\n'); i > n/2 {
		return strings.TrimSpace(cut[:i])
	}
	for len(cut) > 0 && cut[len(cut)-1]&0xC0 == 0x80 {
		cut = cut[:len(cut)-1] // do not split a UTF-8 sequence
	}
	if len(cut) > 0 && cut[len(cut)-1] >= 0xC0 {
		cut = cut[:len(cut)-1]
	}
	return strings.TrimSpace(cut) + "…"
}

// Status is the manager's state for the UI.
type Status struct {
	Path       string `json:"path"`
	Exists     bool   `json:"exists"`
	Tokens     int    `json:"tokens"`
	Budget     int    `json:"budget"`
	Lessons    int    `json:"lessons"`
	Notes      int    `json:"notes"`
	Updates    int    `json:"updates"`
	LastUpdate int    `json:"last_update_turn"`
	Pending    int    `json:"pending_turns"`
	LastError  string `json:"last_error,omitempty"`
}

// Status reports the manager's state.
func (m *Manager) Status() Status {
	m.mu.Lock()
	st := Status{Path: m.cfg.Path, Budget: m.cfg.BudgetTokens, Updates: m.updates, LastUpdate: m.lastUpdate,
		Pending: len(m.batch), LastError: m.lastErr}
	m.mu.Unlock()
	if data, err := atomicfile.ReadRegular(m.cfg.Path, MaxFileBytes); err == nil {
		d := Parse(string(data))
		st.Exists, st.Tokens, st.Lessons, st.Notes = true, Tokens(string(data)), len(d.Lessons), len(d.Notes)
	}
	return st
}

// deathKey names a death by place and action: the same death again is the
// same lesson.
func deathKey(t domain.Turn) string {
	return fmt.Sprintf("Died at L%d %s after %q", t.FromID, t.FromName, strings.ToLower(strings.TrimSpace(t.Action)))
}

// deathCause is what the story said before its death banner.
func deathCause(text string) string {
	cause := text
	if i := strings.Index(cause, "***"); i >= 0 {
		cause = cause[:i]
	}
	cause = sanitize.OneLine(cause)
	if cause == "" {
		cause = sanitize.OneLine(text)
	}
	return sanitize.ClipRunes(cause, 180)
}

// groundNote is the episode's note from the ground truth.
func groundNote(ep Episode, deaths []domain.Turn) string {
	score := fmt.Sprint(ep.Score)
	if ep.MaxScore > 0 {
		score = fmt.Sprintf("%d of %d", ep.Score, ep.MaxScore)
	}
	reason := ep.Reason
	if reason == "" {
		reason = "ended"
	}
	note := fmt.Sprintf("Episode %d (%s): %s points in %d turns.", ep.Number, reason, score, ep.Turns)
	if n := len(deaths); n > 0 {
		last := deaths[n-1]
		note += fmt.Sprintf(" Died %d time%s, last at L%d %s after %q.", n, map[bool]string{true: "", false: "s"}[n == 1], last.FromID, last.FromName, last.Action)
	}
	return note
}
