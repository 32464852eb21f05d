// Package session wires one run together the same way for the TUI, the
// headless runner and the benchmark: the story's folder in the work dir
// (held by a lock), the environment, the run database, Memories.md, the
// map, the planning managers, the agent and the critic, and the engine over
// them. It talks to the engine only through the engine's exported types:
// it is the engine's PromptExtras and Lifecycle, and everything it records
// comes in the TurnRecord.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/internal/sanitize"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/knowledge"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/managers/memsynth"
	"github.com/lantern-if/lantern/managers/objectives"
	"github.com/lantern-if/lantern/managers/supervisor"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/zmachine"
)

// A Session is everything one run needs, wired together the same way for
// the TUI, the headless runner and the benchmark: the story's folder in the
// work dir, the environment, the run database, the map, the agent and the
// critic, and the engine over them.

// Options configure a session.
type Options struct {
	Story    *zmachine.Story
	Name     string // the story's file name, for its folder in the work dir
	Binding  *env.Binding
	WorkDir  string
	Client   *llm.Client  // nil: no model (scripted agent, ground-truth critic)
	Agent    engine.Agent // nil: an LLMAgent over Client
	Engine   engine.Config
	Autosave bool
	// MemoryWindow is memory_history_window: the turns memory synthesis
	// reads (0: 3).
	MemoryWindow int
	// MemoryTriggers names the events that call memory synthesis
	// (memsynth.ParseTriggers); nil: the lean set.
	MemoryTriggers []string
	// Logger receives the session's log lines; nil: none.
	Logger *slog.Logger
	// Research lets an LLM agent call the research tools before
	// deciding, for at most this many rounds; 0 turns the phase off.
	Research int
	// Planning turns on the objective and knowledge managers, the episode
	// synthesis and the supervisor (all off by default; DefaultPlanning
	// turns them all on).
	Planning Planning
	// MemoryWithAgent puts a turn's memory question to the agent's next
	// reply instead of a separate memory call (memask.go): one model call
	// a turn. It needs a model agent, the memory role on the agent's model
	// and the work beside the next proposal (not Inline).
	MemoryWithAgent bool
	// MemoryWhy says why memory questions go where they go (the
	// configuration, the server's slots), for MemoryMode.
	MemoryWhy string
	// Inline runs each turn's memory synthesis and planning before the
	// next turn starts, as the design documents' loop does; otherwise
	// they run beside the next proposal (with one server slot this only
	// reorders the calls; with several it hides them).
	Inline bool
	// Files is the file layer of the work dir's writes (Memories.md,
	// knowledgebase.md, current_state.json); nil is the real one, tests
	// inject faults.
	Files atomicfile.FS
}

// Planning configures the managers that plan across turns and episodes.
// Without a model client only their ground-truth parts run: completion of
// objectives from the ground truth, the person's objective edits, death
// lessons and episode notes in knowledgebase.md.
type Planning struct {
	// Objectives: discovery every ObjectiveInterval turns (15), refinement
	// every RefineInterval turns (50) or past 15 objectives; PlainObjectives
	// leaves the knowledge, memories and map out of the discovery prompt.
	Objectives        bool
	ObjectiveInterval int
	RefineInterval    int
	PlainObjectives   bool
	// Knowledge: knowledgebase.md updated every KnowledgeInterval turns
	// (100) and at each episode's end (the episode synthesis), kept within
	// KnowledgeBudget tokens (2000).
	Knowledge         bool
	KnowledgeInterval int
	KnowledgeBudget   int
	// Supervisor: a round every SupervisorEvery turns (10) with a memory of
	// SupervisorK rounds in full (3); its feedback reaches the agent's next
	// prompt.
	Supervisor      bool
	SupervisorEvery int
	SupervisorK     int
}

// DefaultPlanning turns every planning manager on with the default
// intervals (objectives 15 and 50 turns, knowledge 100 turns in 2000
// tokens, a supervisor round every 10 turns keeping 3 in full).
func DefaultPlanning() Planning {
	return Planning{Objectives: true, ObjectiveInterval: 15, RefineInterval: 50, Knowledge: true, KnowledgeInterval: 100,
		KnowledgeBudget: 2000, Supervisor: true, SupervisorEvery: 10, SupervisorK: 3}
}

// Session is an open run.
type Session struct {
	Dir      string // <workdir>/<story>-r<release>
	Env      *env.Env
	DB       *rundb.RunDB
	Memories *memory.Store
	Map      *mapper.Map
	Engine   *engine.Engine
	// Knowledge keeps knowledgebase.md (written only with
	// Planning.Knowledge; always read for the agent's prompt).
	Knowledge *knowledge.Manager
	// Objectives are the agent's objectives; it is also the TUI's
	// objectives source (Objectives() active, completed).
	Objectives *objectives.Manager
	// Supervisor watches the agent; nil unless Planning.Supervisor.
	Supervisor *supervisor.Supervisor

	synth    *memsynth.Synthesizer
	plan     Planning
	maxScore int
	rounds   *roundLog
	objDirty bool // the objectives changed outside a turn (episode start)
	// checkpoints: every recorded turn carries a checkpoint (Autosave).
	checkpoints bool
	// episode is lantern.db's row of the branch being played (0 before
	// its first turn is recorded); branch names it (rewind.go).
	episode int64
	branch  engine.Branch
	id      env.StoryIdentity
	lock    *memory.WorkLock
	// record replaces DB.RecordTurn in tests (a write-failing fake).
	record func(ctx context.Context, t rundb.Turn) error
	client *llm.Client // nil: no model
	// view is what the research tools read (the agent's goroutine): a
	// snapshot the engine's goroutine replaces after each turn.
	view atomic.Pointer[researchView]
	// run is the engine Start started (nil before).
	run *running
	// bo runs each turn's memory synthesis and planning beside the next
	// turns; planMap is the map they read (a copy of the engine's as the
	// turn left it, never the engine's own); resumed is the work an
	// interrupted session left undone, queued when the episode resumes.
	bo      *backOffice
	planMap *mapper.Map
	resumed []afterWork
	inline  bool // Options.Inline
	// askAgents: memory questions go to the agent's next reply; ask is
	// the last turn's, waiting for it (memask.go; engine goroutine).
	askAgents bool
	// memoryMode says who decides memories and why (MemoryMode).
	memoryMode string
	ask        *memAsk
	log        *slog.Logger
	// savedMap is the map as last stored in lantern.db (JSON).
	savedMap string

	// files writes the work dir's files (written.go).
	files atomicfile.Writer
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// StoryDir is the story's folder name: location IDs only mean something
// within one story file, so each story (and release) has its own folder.
func StoryDir(name string, release int) string {
	base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	base = strings.Trim(unsafeName.ReplaceAllString(base, "-"), "-.")
	if base == "" {
		base = "story"
	}
	return fmt.Sprintf("%s-r%d", base, release)
}

// Open creates the story's folder and opens everything in it.
func Open(opts Options) (*Session, error) {
	if opts.Story == nil {
		return nil, fmt.Errorf("open session: no story")
	}
	info := opts.Story.Info()
	dir := filepath.Join(opts.WorkDir, StoryDir(opts.Name, info.Release))
	if err := checkWorkDir(opts.WorkDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "saves"), 0o755); err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	// One owner per story folder for the whole session: a second Lantern
	// would interleave its turns with ours in lantern.db.
	lock, err := memory.LockWorkDir(dir)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	s, err := openLocked(opts, dir, lock)
	if err != nil {
		lock.Unlock()
		return nil, err
	}
	return s, nil
}

// checkWorkDir gives plain messages for a work dir that cannot be made.
func checkWorkDir(dir string) error {
	if strings.ContainsRune(dir, 0) {
		return fmt.Errorf("open session: the work dir %q contains a NUL byte", dir)
	}
	fi, err := os.Lstat(dir)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return nil
	}
	if _, err := os.Stat(dir); err != nil {
		target, _ := os.Readlink(dir)
		return fmt.Errorf("open session: the work dir %s is a symbolic link to %s, which does not exist; create it or point work_dir elsewhere", dir, target)
	}
	return nil
}

func openLocked(opts Options, dir string, lock *memory.WorkLock) (*Session, error) {
	info := opts.Story.Info()
	// With Autosave the machine is saved after every turn as the turn's
	// checkpoint in lantern.db (recordTurn), not as saves/autosave.qzl: one
	// write per turn, consistent with the turn's row.
	en, err := env.NewEnv(opts.Story, env.EnvOptions{Seed: opts.Engine.Seed, Binding: opts.Binding, SaveDir: filepath.Join(dir, "saves")})
	if err != nil {
		return nil, err
	}
	db, err := rundb.OpenRunDB(filepath.Join(dir, "lantern.db"), info.MD5)
	if err != nil {
		return nil, err
	}
	store, err := memory.Open(filepath.Join(dir, "Memories.md"), memory.WithFiles(opts.Files))
	if err != nil {
		db.Close()
		return nil, err
	}
	window := opts.MemoryWindow
	if window <= 0 {
		window = 3
	}
	s := &Session{Dir: dir, Env: en, DB: db, Memories: store, Map: mapper.New(), id: en.Story(), lock: lock, client: opts.Client,
		synth: memsynth.New(opts.Client, store, window), plan: opts.Planning, checkpoints: opts.Autosave, planMap: mapper.New(), inline: opts.Inline,
		files: atomicfile.Writer{FS: opts.Files}}
	s.bo = newBackOffice(s)
	if opts.Binding != nil {
		s.maxScore = opts.Binding.MaxScore
	}
	if err := errors.Join(s.wireMemory(opts), s.loadStoryMap(context.Background())); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.openPlanning(opts.Client, StoryDir(opts.Name, info.Release)); err != nil {
		s.Close()
		return nil, err
	}
	s.restorePending(context.Background())
	agent := opts.Agent
	if agent == nil {
		if opts.Client == nil {
			s.Close()
			return nil, fmt.Errorf("open session: an LLM agent needs a model client")
		}
		la := engine.LLMAgent{Client: opts.Client, ResearchRounds: opts.Research}
		if opts.Research > 0 {
			if la.Tools, err = s.ResearchTools(opts.Client); err != nil {
				s.Close()
				return nil, err
			}
		}
		agent = la
	}
	s.askAgents = canAskAgent(opts, agent, s.synth)
	s.memoryMode = memoryMode(opts, s.askAgents)
	critic := engine.NewCritic(opts.Client, opts.Engine.CriticThreshold)
	cfg := opts.Engine
	cfg.Checkpoints = opts.Autosave
	h := hooks{s}
	s.Engine = engine.New(engine.Options{Config: cfg, Env: en, Agent: agent, Critic: critic, Client: opts.Client, Map: s.Map,
		Prompt: h, Lifecycle: h})
	return s, nil
}

// nextEpisode numbers a new episode from the run database. The row itself
// is written with the episode's first turn, so a session that plays nothing
// leaves no empty episode behind.
func (s *Session) nextEpisode(ctx context.Context) (int, error) {
	n, err := s.DB.NextEpisode(ctx)
	return int(n), err
}

// Close stops the engine if it runs (Stop), closes the memories and the
// run database, then gives the work dir up.
func (s *Session) Close() error {
	stop := s.Stop(10 * time.Second)
	s.bo.close()
	return errors.Join(stop, s.Memories.Close(), s.DB.Close(), s.lock.Unlock())
}

func (s *Session) notes() []string {
	top, err := s.DB.TopNotesIn(context.Background(), s.noteSession(), 5)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(top))
	for _, n := range top {
		out = append(out, fmt.Sprintf("[T%d @ L%d] %s", n.Turn, n.LocationID, n.Content))
	}
	return out
}

// afterTurn records the turn (its row and checkpoint, the agent's note,
// current_state.json), then gives its memory synthesis and planning to the
// back office, which runs them beside the next turns.
func (s *Session) afterTurn(ctx context.Context, rec engine.TurnRecord) (engine.After, error) {
	s.flushPending(ctx)
	s.answered(rec.Answer) // the last turn's question, as this turn's proposal answered it
	s.releaseAsk()
	w := afterWork{Turn: managed(rec), Stuck: rec.Stuck, Map: rec.Map, Prompt: rec.Prompt}
	ask := s.askAgent(&w, w.Turn, rec.History)
	events, err := s.recordTurn(ctx, rec, storedWork(w))
	w.Episode, w.Turn.Line = s.episode, s.branch.String()
	s.bo.give(ctx, w)
	if s.inline {
		s.bo.wait() // the next prompt sees what this turn's managers wrote
	}
	if mapErr := s.saveStoryMap(ctx); mapErr != nil {
		events = append(events, engine.ErrorEvent{Turn: rec.Turn, Err: mapErr})
	}
	return engine.After{Events: events, Ask: ask}, errors.Join(err, s.unwritten(ctx))
}

// recordTurn is the turn's bookkeeping: the run database (with the work
// still to do), the agent's note and current_state.json.
func (s *Session) recordTurn(ctx context.Context, rec engine.TurnRecord, work []byte) ([]engine.Event, error) {
	dbErr := s.recordRow(ctx, rec, work)
	if dbErr != nil {
		dbErr = fmt.Errorf("%w: turn %d of episode %d: %w", engine.ErrNotRecorded, rec.Turn, rec.Episode, dbErr)
	}
	var events []engine.Event
	if rec.After.Location.ID != rec.Before.Location.ID && rec.After.Location.ID != 0 {
		// A visit that could not be written is kept by the store (unwritten
		// pauses the engine below); synthesis still runs.
		if err := s.Memories.RecordVisit(rec.After.Location.ID, rec.After.Location.Name, rec.Episode); err != nil && !errors.Is(err, memory.ErrNotWritten) {
			return nil, errors.Join(dbErr, err)
		}
	}
	if dbErr != nil {
		return events, errors.Join(dbErr, s.exportState(rec))
	}
	if p := rec.Proposal; strings.TrimSpace(p.Remember) != "" {
		if _, _, err := s.DB.Remember(ctx, rundb.Note{Session: s.noteSession(), Turn: rec.Turn, Content: p.Remember,
			Importance: p.RememberImportance, Location: rec.Before.Location.Name, LocationID: rec.Before.Location.ID,
			Score: rec.After.Score, Moves: rec.After.Moves}); err != nil {
			return events, err
		}
	}
	return events, s.exportState(rec)
}

// recordRow writes the turn's row (with its checkpoint) to lantern.db,
// starting the episode's row with its first turn.
func (s *Session) recordRow(ctx context.Context, rec engine.TurnRecord, work []byte) error {
	// The turn was played and reported: a session being stopped (a signal)
	// still records it, or the resume would not match what was shown.
	ctx = context.WithoutCancel(ctx)
	if s.episode == 0 {
		id, err := s.DB.StartEpisodeID(ctx, int64(rec.Episode), rec.Seed)
		if err != nil {
			return err
		}
		s.episode, s.branch = id, engine.Branch{Episode: id, ID: id}
	}
	verdicts, _ := json.Marshal(rec.Verdicts)
	row := rundb.Turn{
		Episode: s.episode, Turn: rec.Turn, Actor: string(rec.Actor), Action: rec.Action, Response: rec.After.Text,
		Reasoning: rec.Reasoning, Verdicts: string(verdicts), LocationID: rec.After.Location.ID, Location: rec.After.Location.Name,
		Score: rec.After.Score, Moves: rec.After.Moves, PromptTokens: rec.LLMMetrics.PromptTokens, EvalTokens: rec.LLMMetrics.EvalTokens,
		LLM: rec.LLMTime, Duration: rec.Duration, Failed: rec.Failed, AfterWork: work,
	}
	if s.checkpoints {
		if rec.Checkpoint == nil {
			return fmt.Errorf("turn %d has no checkpoint", rec.Turn)
		}
		row.Checkpoint = &rundb.Checkpoint{Machine: rec.Checkpoint.Machine, Engine: rec.Checkpoint.Engine}
	}
	var err error
	if s.record != nil {
		err = s.record(ctx, row)
	} else {
		err = s.DB.RecordTurn(ctx, row)
	}
	if err != nil || len(rec.Reviews) == 0 {
		return err
	}
	rs := make([]rundb.Review, 0, len(rec.Reviews))
	for _, r := range rec.Reviews {
		rs = append(rs, rundb.Review{Turn: rec.Turn, Proposal: r.Proposal, Decision: string(r.Decision), Command: r.Command,
			Reason: r.Reason, Remembered: r.Remembered, Auto: r.Auto})
	}
	return s.DB.RecordReviews(ctx, s.episode, rec.Turn, rs)
}

// managed is the turn as every manager reads it, built once.
func managed(rec engine.TurnRecord) domain.Turn {
	b, a := rec.Before, rec.After
	return domain.Turn{Episode: rec.Episode, Turn: rec.Turn, Actor: string(rec.Actor), Action: rec.Action, Reasoning: rec.Reasoning,
		Response: a.Text, FromID: b.Location.ID, FromName: b.Location.Name, ToID: a.Location.ID, ToName: a.Location.Name,
		ScoreBefore: b.Score, ScoreAfter: a.Score, InvBefore: names(b.Inventory), InvAfter: names(a.Inventory),
		Died: a.Died, NewRoom: rec.NewRoom, Failed: rec.Failed}
}

func names(items []env.Item) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Name)
	}
	return out
}

// objectivesChanged is the event that reports the objectives as they are.
func (s *Session) objectivesChanged() engine.ObjectivesChanged {
	active, done := s.Objectives.Objectives()
	return engine.ObjectivesChanged{Active: active, Completed: done}
}

// edit applies a person's memory edit to Memories.md, or an objective edit
// to the objectives.
func (s *Session) edit(_ context.Context, c engine.Command, episode, turnNo int) ([]engine.Event, error) {
	if oe, ok := c.(engine.ObjectiveEdit); ok {
		changed, err := s.Objectives.Edit(string(oe.Op), oe.Text)
		if err != nil || !changed {
			return nil, err
		}
		// The person's objectives outlive the process whichever client
		// made the edit.
		return []engine.Event{s.objectivesChanged()}, s.saveObjectives()
	}
	me, ok := c.(engine.MemoryEdit)
	if !ok {
		return nil, nil
	}
	ref := memory.Ref{Location: me.Location, Title: me.Title}
	name := s.Map.Name(me.Location)
	var err error
	switch me.Op {
	case engine.MemoryAdd, engine.MemorySupersede:
		cat, ok := memory.ParseCategory(me.Category)
		if !ok {
			return nil, fmt.Errorf("memory edit: category %q", me.Category)
		}
		st := memory.StatusActive
		if me.Status != "" {
			if st, ok = memory.ParseStatus(me.Status); !ok || st == memory.StatusSuperseded {
				return nil, fmt.Errorf("memory edit: a new memory is ACTIVE or TENTATIVE, not %q", me.Status)
			}
		}
		m := memory.Memory{Category: cat, Status: st, Title: me.NewTitle, Text: me.Text, Episode: episode, Turn: turnNo}
		if me.Op == engine.MemoryAdd {
			err = s.Memories.AddBy(me.Location, name, m, memory.ByHuman)
		} else {
			_, err = s.Memories.Supersede(me.Location, name, m, []string{me.Title}, memory.ByHuman)
		}
	case engine.MemoryEditText:
		err = s.Memories.Edit(ref, func(m *memory.Memory) {
			if me.NewTitle != "" {
				m.Title = me.NewTitle
			}
			if me.Text != "" {
				m.Text = me.Text
			}
			if cat, ok := memory.ParseCategory(me.Category); ok {
				m.Category = cat
			}
		})
	case engine.MemorySetStatus:
		st, ok := memory.ParseStatus(me.Status)
		if !ok {
			return nil, fmt.Errorf("memory edit: status %q", me.Status)
		}
		err = s.Memories.SetStatus(ref, st)
	case engine.MemoryDelete:
		err = s.Memories.Delete(ref)
	case engine.MemoryUndo:
		var m memory.Memory
		m, err = s.Memories.Undo()
		me.Title = m.Title
	case engine.MemoryRestoreHand:
		var n int
		n, err = s.Memories.RestoreGeneration()
		if err != nil {
			return nil, fmt.Errorf("bring back the memories deleted by hand: %w", err)
		}
		me.Title = fmt.Sprintf("%d deleted by hand", n)
	default:
		return nil, fmt.Errorf("memory edit: unknown operation %q", me.Op)
	}
	if err != nil {
		return nil, fmt.Errorf("memory edit (%s %q at L%d): %w", me.Op, me.Title, me.Location, err)
	}
	return []engine.Event{engine.MemoryChanged{Location: me.Location, Title: me.Title}}, nil
}

func (s *Session) episodeEnded(ctx context.Context, ep engine.EpisodeEnded) error {
	var roundErr error
	if s.Supervisor != nil {
		// The turns since the last round are judged too: every episode is
		// coached, its end included.
		if _, ran, err := s.Supervisor.Finish(ctx); ran && err != nil {
			roundErr = fmt.Errorf("the supervisor's last round of episode %d: %w", ep.Episode, err)
		}
	}
	synthErr := errors.Join(roundErr, s.synthesize(ctx, ep))
	if s.episode == 0 {
		return synthErr
	}
	err := s.DB.EndEpisode(ctx, s.episode, string(ep.Reason), ep.Score, ep.Moves, ep.Turns)
	s.episode, s.branch = 0, engine.Branch{}
	return errors.Join(synthErr, err)
}

// State is current_state.json: what an outside viewer needs each turn.
type State struct {
	Story     env.StoryIdentity `json:"story"`
	Episode   int               `json:"episode"`
	Turn      int               `json:"turn"`
	Score     int               `json:"score"`
	Moves     int               `json:"moves"`
	Location  env.Location      `json:"location"`
	Inventory []env.Item        `json:"inventory"`
	Recent    []RecentAction    `json:"recent"`
	Map       string            `json:"mermaid_map"`
	// Objectives are the active objectives; [] when there are none.
	Objectives []string `json:"objectives"`
}

// RecentAction is a line of the recent log in current_state.json.
type RecentAction struct {
	Turn   int    `json:"turn"`
	Actor  string `json:"actor"`
	Action string `json:"action"`
}

func (s *Session) exportState(rec engine.TurnRecord) error {
	st := State{Story: s.id, Episode: rec.Episode, Turn: rec.Turn, Score: rec.After.Score, Moves: rec.After.Moves,
		Location: rec.After.Location, Inventory: rec.After.Inventory, Map: s.Map.Mermaid(), Objectives: []string{}}
	if active, _ := s.Objectives.Objectives(); len(active) > 0 {
		st.Objectives = active
	}
	if st.Inventory == nil {
		st.Inventory = []env.Item{}
	}
	for _, h := range rec.History {
		st.Recent = append(st.Recent, RecentAction{Turn: h.Turn, Actor: h.Actor, Action: h.Action})
	}
	data, err := peopleJSON(st)
	if err != nil {
		return err
	}
	path := filepath.Join(s.Dir, "current_state.json")
	if err := s.files.Replace(path, data, 0o644); err != nil {
		return &engine.NotWrittenError{File: path, Err: err}
	}
	return nil
}

// peopleJSON is v as indented JSON for a file people read (cat, less):
// encoding/json escapes C0 controls (ESC as \u001b) but writes C1 ones
// (U+0080–U+009F: CSI U+009B, OSC U+009D) raw, so they are escaped too
// (sanitize.EscapeJSON); the data read back is the same.
func peopleJSON(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return sanitize.EscapeJSON(data), nil
}

// openPlanning makes the planning managers in dependency order:
// knowledge, then objectives (knowledge, memories, map), then the
// supervisor (map, objectives). Models are only given to the managers the
// options turn on.
func (s *Session) openPlanning(client *llm.Client, story string) error {
	p := s.plan
	model := func(on bool) *llm.Client {
		if on {
			return client
		}
		return nil
	}
	s.Knowledge = knowledge.New(model(p.Knowledge), knowledge.Config{Path: filepath.Join(s.Dir, knowledge.FileName), Story: story,
		UpdateInterval: p.KnowledgeInterval, BudgetTokens: p.KnowledgeBudget, Files: s.files.FS})
	s.Objectives = objectives.New(objectives.Deps{Client: model(p.Objectives), Knowledge: s.Knowledge, Memories: s.Memories, Map: s.planMap},
		objectives.Config{UpdateInterval: p.ObjectiveInterval, RefineInterval: p.RefineInterval, Plain: p.PlainObjectives})
	if !p.Supervisor {
		return nil
	}
	rounds := &roundLog{db: s.DB, episodeID: func() int64 { return s.episode }}
	s.rounds = rounds
	s.Supervisor = supervisor.New(supervisor.Deps{Client: client, Map: s.planMap, Recorder: rounds, Hints: s.Objectives.PersonObjectives,
		Completed: func() int {
			_, done := s.Objectives.Counts()
			return done
		}}, supervisor.Config{Every: p.SupervisorEvery, K: p.SupervisorK})
	return nil
}

// startEpisode resets the managers in dependency order for a new episode;
// what they learned across episodes (Memories.md, knowledgebase.md, the
// map, the supervisor's gauges and memory, the person's objectives) stays.
func (s *Session) startEpisode(ctx context.Context, ep engine.EpisodeStarted) error {
	defer func() {
		for _, w := range s.resumed {
			s.bo.give(ctx, w) // the interrupted session's work, before any new turn's
		}
		s.resumed = nil
	}()
	s.synth.Reset()
	// The story begins somewhere: that is a visit too (the starting room
	// would otherwise read "Visits: 0 | Episodes: none").
	if start := ep.Observation.Location; start.ID > 0 {
		if err := s.Memories.RecordVisit(start.ID, start.Name, ep.Episode); err != nil {
			return err
		}
	}
	s.Knowledge.Reset()
	before, _ := s.Objectives.Counts()
	s.Objectives.Reset()
	loc := ep.Observation.Location
	s.Objectives.SetLocation(loc.ID, loc.Name)
	if after, _ := s.Objectives.Counts(); after != before {
		s.objDirty = true
	}
	if s.Supervisor != nil {
		s.Supervisor.Reset()
	}
	return nil
}

// planTurn runs the planning managers after a turn. A manager that fails
// is reported and the others go on; the turn is never lost.
func (s *Session) planTurn(ctx context.Context, mt domain.Turn, stuck bool) []engine.Event {
	var events []engine.Event
	fail := func(err error) { events = append(events, engine.ErrorEvent{Turn: mt.Turn, Err: err}) }
	if s.plan.Knowledge {
		if _, err := s.Knowledge.ProcessTurn(ctx, mt); err != nil {
			fail(err)
		}
	}
	changed, err := s.Objectives.ProcessTurn(ctx, mt)
	if err != nil {
		fail(err)
	}
	if stuck && s.plan.Objectives && s.Objectives.Status().LastUpdate != mt.Turn {
		// Stuck: the plan is not working; rethink it now rather than at
		// the next interval.
		ch, err := s.Objectives.ProcessPeriodic(ctx)
		if err != nil {
			fail(err)
		}
		changed = changed || ch
	}
	if changed || s.objDirty {
		events = append(events, s.objectivesChanged())
		s.objDirty = false
	}
	if s.Supervisor == nil {
		return events
	}
	r, ran, err := s.Supervisor.ProcessTurn(ctx, mt)
	if ran {
		st := s.Supervisor.Status()
		ev := engine.SupervisorChanged{Turn: mt.Turn, Round: st.Rounds, Trust: st.State.Trust, Work: st.State.Work, Comfort: st.State.Comfort,
			PrevTrust: st.Previous.Trust, PrevWork: st.Previous.Work, PrevComfort: st.Previous.Comfort, Mood: st.Mood, Feedback: st.Feedback}
		for _, f := range r.Findings {
			if f.Contradicted {
				ev.Contradicted = append(ev.Contradicted, f.Claim)
			}
		}
		events = append(events, ev)
	}
	if err != nil {
		fail(err)
	}
	return events
}

// synthesize is the episode synthesis: the knowledge manager's last update
// and the episode's note in knowledgebase.md, read by the agent from the
// next episode's first prompt. The episode itself is recorded in lantern.db
// by episodeEnded.
func (s *Session) synthesize(ctx context.Context, ep engine.EpisodeEnded) error {
	if !s.plan.Knowledge {
		return nil
	}
	_, err := s.Knowledge.SynthesizeEpisode(ctx, knowledge.Episode{Number: ep.Episode, Reason: string(ep.Reason), Score: ep.Score,
		MaxScore: s.maxScore, Moves: ep.Moves, Turns: ep.Turns})
	if errors.Is(err, knowledge.ErrNotWritten) {
		return s.unwritten(ctx)
	}
	return err
}

// roundLog records the supervisor's rounds, complete, in lantern.db
// (supervisor.Recorder over rundb.RunDB).
type roundLog struct {
	db        *rundb.RunDB
	episodeID func() int64 // the episodes table's row of the running episode
}

// RecordRound implements supervisor.Recorder: the whole round as JSON.
func (l *roundLog) RecordRound(ctx context.Context, r supervisor.Round) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("record round %d: %w", r.Number, err)
	}
	return l.db.RecordRound(ctx, rundb.Round{EpisodeID: l.episodeID(), Episode: r.Episode, Number: r.Number, FirstTurn: r.FirstTurn,
		LastTurn: r.LastTurn, Trust: r.State.Trust, Work: r.State.Work, Comfort: r.State.Comfort, Feedback: r.Feedback, Error: r.Error,
		Data: string(data), Time: r.Time})
}

// Rounds returns the recorded rounds as the supervisor kept them, oldest
// first.
func (l *roundLog) Rounds(ctx context.Context) ([]supervisor.Round, error) {
	rows, err := l.db.Rounds(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]supervisor.Round, 0, len(rows))
	for _, row := range rows {
		var r supervisor.Round
		if err := json.Unmarshal([]byte(row.Data), &r); err != nil {
			return nil, fmt.Errorf("round %d: %w", row.Number, err)
		}
		out = append(out, r)
	}
	return out, nil
}
