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
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
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
