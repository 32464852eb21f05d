// Package memsynth is the memory synthesis manager (one memory per
// turn at most, written with the last few turns in view): after a turn
// whose ground truth says something significant happened — the score
// changed, the player died, a first visit, a long response to an action
// taken in place, and with the seed triggers a move or an inventory change
// (see TriggerSet) — it
// asks the memory role whether and what to remember, with the last few
// turns of actions and reasoning so procedures, delayed consequences and
// progressive discoveries can be seen, and stores the answer in Memories.md
// at the SOURCE location (where the action was taken), with the status, the
// level (CORE, PERMANENT by default, EPHEMERAL) and the span the model gave
// (the turns of a procedure when the answer names its first turn, else the
// turn alone) and the supersessions it asked for. Every decision, a "don't
// remember" as much as a stored memory, is logged and recorded with the
// model's reasoning. Which items were found or left where is not the
// model's to decide: RecordItems writes it from the inventory, the game's
// own state, without a model call (items.go).
package memsynth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/sanitize"
)

// Reply is the memory role's answer (its JSON schema). Persistence (the
// memory's level) and FirstTurn (where the procedure it remembers began)
// are the answer's to give or leave out: without them the memory is
// PERMANENT and its span the turn alone.
type Reply struct {
	ShouldRemember         bool     `json:"should_remember"`
	Category               string   `json:"category" enum:"SUCCESS,FAILURE,DISCOVERY,DANGER,NOTE"`
	MemoryTitle            string   `json:"memory_title" maxLength:"80"`
	MemoryText             string   `json:"memory_text" maxLength:"400"`
	Status                 string   `json:"status" enum:"ACTIVE,TENTATIVE"`
	Persistence            string   `json:"persistence" enum:"PERMANENT,CORE,EPHEMERAL" optional:"true"`
	FirstTurn              int      `json:"first_turn" minimum:"0" maximum:"1000000" optional:"true"`
	SupersedesMemoryTitles []string `json:"supersedes_memory_titles" maxItems:"3" maxLength:"80"`
	Reasoning              string   `json:"reasoning" maxLength:"300"`
}

// Synthesizer decides and writes memories.
type Synthesizer struct {
	client   *llm.Client
	store    *memory.Store
	window   int
	history  []domain.Turn
	triggers TriggerSet
	rec      Recorder
	log      *slog.Logger
}

// Decision is one answer of the memory model and what became of it: every
// decision is recorded, a "don't remember" with its reasoning as much as a
// stored memory.
type Decision struct {
	Episode, Turn int
	Location      int // where the action was taken
	Triggers      []string
	Reply         Reply
	// Outcome: "stored", "superseded N", "duplicate", "not remembered", or
	// the error that stopped it.
	Outcome string
}

// Recorder keeps the decisions (lantern.db's memory_decisions).
type Recorder interface {
	RecordDecision(ctx context.Context, d Decision) error
}

// New makes a synthesizer; window is memory_history_window (at least 1).
// It uses the lean triggers, records no decisions and logs nothing until
// told otherwise (SetTriggers, SetRecorder, SetLogger).
func New(client *llm.Client, store *memory.Store, window int) *Synthesizer {
	if window < 1 {
		window = 1
	}
	return &Synthesizer{client: client, store: store, window: window, triggers: LeanTriggers(), log: slog.New(slog.DiscardHandler)}
}

// SetTriggers chooses the events that call the memory model.
func (s *Synthesizer) SetTriggers(ts TriggerSet) { s.triggers = ts }

// SetRecorder makes every decision recorded.
func (s *Synthesizer) SetRecorder(r Recorder) { s.rec = r }

// SetLogger makes every decision logged (at info level; the reasoning at
// debug level too).
func (s *Synthesizer) SetLogger(l *slog.Logger) {
	if l != nil {
		s.log = l
	}
}

// Reset clears the episode's history (memories survive episodes).
func (s *Synthesizer) Reset() { s.history = nil }

// Triggers lists why a turn deserves a memory under the lean (default)
// triggers; none means it does not. A move to a known room does not (the
// map holds it, and its description is already known), nor does its long
// description; a long response to an action that did not move the player
// (reading, examining, a puzzle's answer, a theft) does. Taking or
// dropping alone does not either: the inventory in every prompt already
// shows it, and a take or drop that matters scores or says more than
// "Taken.". These keep synthesis to the significant 30-40% of turns the
// memory design expects (Zork I's walkthrough: about 36%), where every
// move, room description and take called it on 94% of turns; SeedTriggers
// adds movement and inventory changes back.
func Triggers(t domain.Turn) []string { return LeanTriggers().Why(t) }

// LongResponse is the length from which a response to an action taken in
// place is worth a memory.
const LongResponse = 100

// Result says what a turn left in memory.
type Result struct {
	Stored     bool
	Location   int
	Title      string
	Superseded int
	Reply      Reply
}

// ProcessTurn records the turn in the history and, when triggered, asks
// the memory role and writes its answer. The memory goes to the location
// where the action was taken.
func (s *Synthesizer) ProcessTurn(ctx context.Context, t domain.Turn) (Result, error) {
	return s.ProcessTurnAfter(ctx, t, nil)
}

// ProcessTurnAfter is ProcessTurn for a turn the agent played from
// prompt: when the memory role runs on the agent's model, its request
// continues that prompt (the agent's messages, then the memory
// instructions and the turn), as the critic's does. Ollama then serves the
// agent's prompt from its cache and keeps it there for the next turn,
// instead of the memory prompt taking its place.
func (s *Synthesizer) ProcessTurnAfter(ctx context.Context, t domain.Turn, prompt []llm.Message) (Result, error) {
	defer s.remember(t)
	why := s.triggers.Why(t)
	if len(why) == 0 || s.client == nil {
		return Result{}, nil
	}
	if !s.onAgentModel() {
		prompt = nil
	}
	rep, _, err := llm.Structured[Reply](ctx, s.client, llm.Request{Role: config.RoleMemory, Messages: s.prompt(t, why, prompt), Turn: t.Turn})
	if err != nil {
		err = fmt.Errorf("memory synthesis at turn %d: %w", t.Turn, err)
		s.decided(ctx, t, why, Reply{}, "error: "+err.Error())
		return Result{}, err
	}
	res, err := s.store1(t, rep)
	s.decided(ctx, t, why, rep, outcome(rep, res, err))
	return res, err
}

// outcome names what became of a decision.
func outcome(rep Reply, res Result, err error) string {
	switch {
	case err != nil:
		return "error: " + err.Error()
	case res.Superseded > 0 && res.Stored:
		return fmt.Sprintf("stored, superseded %d", res.Superseded)
	case res.Stored:
		return "stored"
	case rep.ShouldRemember && strings.TrimSpace(rep.MemoryTitle) != "":
		return "duplicate"
	}
	return "not remembered"
}

// decided logs and records a decision; a decision that cannot be recorded
// is logged as such and costs nothing else.
func (s *Synthesizer) decided(ctx context.Context, t domain.Turn, why []string, rep Reply, outcome string) {
	s.log.Info("memory synthesis", "line", t.Line, "turn", t.Turn, "location", t.FromID, "triggers", strings.Join(why, "; "),
		"remember", rep.ShouldRemember, "category", rep.Category, "title", rep.MemoryTitle, "outcome", outcome, "reasoning", rep.Reasoning)
	if s.rec == nil {
		return
	}
	d := Decision{Episode: t.Episode, Turn: t.Turn, Location: t.FromID, Triggers: why, Reply: rep, Outcome: outcome}
	if err := s.rec.RecordDecision(context.WithoutCancel(ctx), d); err != nil {
		s.log.Warn("memory synthesis decision not recorded", "line", t.Line, "turn", t.Turn, "err", err)
	}
}

// store1 writes the model's answer to Memories.md.
func (s *Synthesizer) store1(t domain.Turn, rep Reply) (Result, error) {
	res := Result{Location: t.FromID, Reply: rep}
	if !rep.ShouldRemember || strings.TrimSpace(rep.MemoryTitle) == "" {
		return res, nil
	}
	cat, ok := memory.ParseCategory(rep.Category)
	if !ok || cat.GroundTruth() {
		// ITEM entries are the game's own (RecordItems), never a model's.
		return res, fmt.Errorf("memory synthesis: category %q", rep.Category)
	}
	st, ok := memory.ParseStatus(rep.Status)
	if !ok || st == memory.StatusSuperseded {
		return res, fmt.Errorf("memory synthesis: status %q", rep.Status)
	}
	level := memory.Persistence("")
	if rep.Persistence != "" {
		if level, ok = memory.ParsePersistence(rep.Persistence); !ok {
			return res, fmt.Errorf("memory synthesis: level %q", rep.Persistence)
		}
	}
	score := t.ScoreAfter - t.ScoreBefore
	m := memory.Memory{Category: cat, Persistence: level, Status: st, Title: rep.MemoryTitle, Text: rep.MemoryText,
		Episode: t.Episode, Turn: t.Turn, Score: score, HasScore: carriesScore(cat, score)}
	if first := s.firstTurn(t, rep.FirstTurn); first > 0 {
		m.Turn, m.TurnEnd = first, t.Turn
	}
	if len(rep.SupersedesMemoryTitles) > 0 {
		n, err := s.store.Supersede(t.FromID, t.FromName, m, rep.SupersedesMemoryTitles, memory.ByModel)
		if err != nil && !errors.Is(err, memory.ErrDuplicate) {
			return res, err
		}
		res.Stored, res.Title, res.Superseded = err == nil, m.Title, n
		return res, nil
	}
	if err := s.store.Add(t.FromID, t.FromName, m); err != nil {
		if errors.Is(err, memory.ErrDuplicate) {
			return res, nil
		}
		return res, err
	}
	res.Stored, res.Title = true, m.Title
	return res, nil
}

// carriesScore says whether a memory's metadata gives its score change:
// always when the score changed, and as the design's "+0" otherwise,
// except on a failure (`*(Ep1, T25-26)*`), which scores nothing.
func carriesScore(c memory.Category, delta int) bool {
	return delta != 0 || c != memory.CategoryFailure
}

// firstTurn is where the procedure a memory remembers began, as its answer
// says (first_turn): one of the recent turns the question showed, before
// this one; 0 when the answer gives none or one it did not show, and the
// memory is then of this turn alone. A span is never inferred (staying in
// one room does not make a procedure).
func (s *Synthesizer) firstTurn(t domain.Turn, first int) int {
	if first <= 0 || first >= t.Turn || first < t.Turn-s.window {
		return 0
	}
	return first
}

func (s *Synthesizer) remember(t domain.Turn) {
	s.history = append(s.history, t)
	if len(s.history) > s.window {
		s.history = s.history[len(s.history)-s.window:]
	}
}

// categoryGuide, statusGuide and levelGuide say what the memory's
// category, status and level mean, to the memory role and to the agent
// answering in its own call.
const (
	categoryGuide = "Categories: SUCCESS (a procedure that worked), FAILURE (what does not work), DISCOVERY (a fact found), DANGER (what can kill or hurt), NOTE (anything else)."
	statusGuide   = "Status: ACTIVE when the outcome is clear, TENTATIVE when it is not yet (an effect may follow later)."
	levelGuide    = "Persistence (optional): PERMANENT (the default) for what holds in every episode, CORE for the place's essentials to keep always in view, EPHEMERAL for what holds only in this episode (something left or changed here)."
)

// stepsGuide is the design's guidance on what spans turns, to both;
// spanGuide asks for the turns a procedure spans.
const (
	stepsGuide = "Look at the recent turns: several turns may form one procedure (prerequisites), an earlier success may turn out badly (then supersede the earlier memory by its exact title), a later try may correct an earlier belief."
	spanGuide  = "first_turn (optional): when this turn completes a procedure whose first step was one of the recent turns, that turn's number (T47 → 47); leave it out for a single action."
)

const systemPrompt = `You keep the memory of an agent playing a text adventure. After a turn where something happened, decide whether it teaches something worth remembering at the location where the action was taken.
` + categoryGuide + `
` + statusGuide + `
` + levelGuide + `
` + stepsGuide + `
` + spanGuide + `
Do not repeat a memory that already says the same. Reply with JSON.`

// onAgentModel reports whether the memory role runs on the agent's model
// (only then does continuing the agent's prompt find it in the cache).
func (s *Synthesizer) onAgentModel() bool {
	mem, ok := s.client.Role(config.RoleMemory)
	agent, ok2 := s.client.Role(config.RoleAgent)
	return ok && ok2 && mem.Model != "" && mem.Model == agent.Model
}

func (s *Synthesizer) prompt(t domain.Turn, why []string, prefix []llm.Message) []llm.Message {
	var b strings.Builder
	fmt.Fprintf(&b, "Location where the action was taken: L%d %s\n", t.FromID, t.FromName)
	fmt.Fprintf(&b, "Turn %d, action (%s): %s\n", t.Turn, t.Actor, t.Action)
	fmt.Fprintf(&b, "Response:\n%s\n\n", t.Response)
	fmt.Fprintf(&b, "What changed: %s.\n", strings.Join(why, ", "))
	if t.ToID != t.FromID {
		fmt.Fprintf(&b, "Now at: L%d %s\n", t.ToID, t.ToName)
	}
	fmt.Fprintf(&b, "Score %d → %d. Inventory: %s → %s.\n", t.ScoreBefore, t.ScoreAfter, list(t.InvBefore), list(t.InvAfter))
	s.listRecent(&b, s.steps(t))
	b.WriteString("\nMemories already kept at this location:\n")
	s.listKept(&b, t.FromID, t.Episode)
	if len(prefix) > 0 {
		return append(append([]llm.Message(nil), prefix...), llm.User(systemPrompt+"\n\n"+b.String()))
	}
	return []llm.Message{llm.System(systemPrompt), llm.User(b.String())}
}

// Step is one recent turn as a memory question shows it.
type Step struct {
	Turn      int
	Where     string // "L5 West of House", or "" when not known
	Action    string
	Reasoning string
	Response  string
}

// steps are the history's turns before t, as Steps.
func (s *Synthesizer) steps(t domain.Turn) []Step {
	var out []Step
	for _, h := range s.history {
		if h.Turn < t.Turn {
			out = append(out, Step{Turn: h.Turn, Where: fmt.Sprintf("L%d %s", h.FromID, h.FromName), Action: h.Action, Reasoning: h.Reasoning, Response: h.Response})
		}
	}
	return out
}

// Window is memory_history_window: how many recent turns a memory
// question shows.
func (s *Synthesizer) Window() int { return s.window }

// listRecent writes the recent turns (at most the history window), oldest
// first: several may form one procedure, and an earlier success may have
// turned out badly.
func (s *Synthesizer) listRecent(b *strings.Builder, recent []Step) {
	if len(recent) > s.window {
		recent = recent[len(recent)-s.window:]
	}
	if len(recent) == 0 {
		return
	}
	b.WriteString("\nRecent turns (oldest first):\n")
	for _, h := range recent {
		fmt.Fprintf(b, "- T%d", h.Turn)
		if h.Where != "" {
			fmt.Fprintf(b, " at %s", h.Where)
		}
		fmt.Fprintf(b, ": %s", h.Action)
		if h.Reasoning != "" {
			fmt.Fprintf(b, " (reasoning: %s)", sanitize.ClipRunes(h.Reasoning, 160))
		}
		fmt.Fprintf(b, "\n  → %s\n", sanitize.ClipRunes(strings.Join(strings.Fields(h.Response), " "), 200))
	}
}

// listKept writes the memories kept at a location, one a line, but the
// EPHEMERAL ones of other episodes than this one (true only there: the
// same lesson learned again now is no duplicate).
func (s *Synthesizer) listKept(b *strings.Builder, loc, episode int) {
	n := 0
	for _, m := range s.store.List(loc) {
		if m.Visible() && !m.ShownIn(episode) {
			continue
		}
		n++
		fmt.Fprintf(b, "- [%s - %s - %s] %s: %s\n", m.Category, m.Level(), m.Status, m.Title, sanitize.ClipRunes(m.Text, 200))
	}
	if n == 0 {
		b.WriteString("(none)\n")
	}
}

func list(items []string) string {
	if len(items) == 0 {
		return "nothing"
	}
	return strings.Join(items, ", ")
}
