package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/lantern-if/lantern/internal/atomicfile"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/managers/memsynth"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/zmachine"
)

// A Session is everything one run needs, wired together the same way for
// the TUI, the headless runner and the benchmark: the story's folder in the
// work dir, the environment, the run database, the map, the agent and the
// critic, and the engine over them.

// SessionOptions configure a session.
type SessionOptions struct {
	Story    *zmachine.Story
	Name     string // the story's file name, for its folder in the work dir
	Binding  *Binding
	WorkDir  string
	Client   *llm.Client // nil: no model (scripted agent, ground-truth critic)
	Agent    Agent       // nil: an LLMAgent over Client
	Engine   Config
	Autosave bool
	// MemoryWindow is memory_history_window (DESIGN.md §5: 3).
	MemoryWindow int
	// Research lets an LLM agent call the research tools (seed 004) before
	// deciding, for at most this many rounds; 0 turns the phase off.
	Research int
}

// Session is an open run.
type Session struct {
	Dir      string // <workdir>/<story>-r<release>
	Env      *Env
	DB       *memory.RunDB
	Memories *memory.Store
	Map      *mapper.Map
	Engine   *Engine

	synth   *memsynth.Synthesizer
	episode int64
	id      StoryIdentity
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// StoryDir is the story's folder name: location IDs only mean something
// within one story file (DESIGN.md §4).
func StoryDir(name string, release int) string {
	base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	base = strings.Trim(unsafeName.ReplaceAllString(base, "-"), "-.")
	if base == "" {
		base = "story"
	}
	return fmt.Sprintf("%s-r%d", base, release)
}

// OpenSession creates the story's folder and opens everything in it.
func OpenSession(opts SessionOptions) (*Session, error) {
	if opts.Story == nil {
		return nil, fmt.Errorf("open session: no story")
	}
	info := opts.Story.Info()
	dir := filepath.Join(opts.WorkDir, StoryDir(opts.Name, info.Release))
	if err := os.MkdirAll(filepath.Join(dir, "saves"), 0o755); err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	env, err := NewEnv(opts.Story, EnvOptions{Seed: opts.Engine.Seed, Binding: opts.Binding, SaveDir: filepath.Join(dir, "saves"), Autosave: opts.Autosave})
	if err != nil {
		return nil, err
	}
	db, err := memory.OpenRunDB(filepath.Join(dir, "lantern.db"), info.MD5)
	if err != nil {
		return nil, err
	}
	store, err := memory.Open(filepath.Join(dir, "Memories.md"))
	if err != nil {
		db.Close()
		return nil, err
	}
	window := opts.MemoryWindow
	if window <= 0 {
		window = 3
	}
	s := &Session{Dir: dir, Env: env, DB: db, Memories: store, Map: mapper.New(), id: env.Story(),
		synth: memsynth.New(opts.Client, store, window)}
	agent := opts.Agent
	if agent == nil {
		if opts.Client == nil {
			s.Close()
			return nil, fmt.Errorf("open session: an LLM agent needs a model client")
		}
		la := LLMAgent{Client: opts.Client, ResearchRounds: opts.Research}
		if opts.Research > 0 {
			if la.Tools, err = s.ResearchTools(opts.Client); err != nil {
				s.Close()
				return nil, err
			}
		}
		agent = la
	}
	critic := NewCritic(opts.Client, opts.Engine.CriticThreshold)
	s.Engine = New(opts.Engine, env, agent, critic, opts.Client, s.Map, Hooks{
		LocationMemory: store.LocationMemory,
		Notes:          s.notes,
		AfterTurn:      s.afterTurn,
		EpisodeEnded:   s.episodeEnded,
		Edit:           s.edit,
	})
	return s, nil
}

// Close closes the memories and the run database.
func (s *Session) Close() error {
	return errors.Join(s.Memories.Close(), s.DB.Close())
}

func (s *Session) notes() []string {
	top, err := s.DB.TopNotes(context.Background(), 5)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(top))
	for _, n := range top {
		out = append(out, fmt.Sprintf("[T%d @ L%d] %s", n.Turn, n.LocationID, n.Content))
	}
	return out
}

// afterTurn records the turn, keeps the agent's note, and exports the state.
func (s *Session) afterTurn(ctx context.Context, rec TurnRecord) ([]Event, error) {
	if s.episode == 0 {
		id, err := s.DB.StartEpisode(ctx, s.Engine.cfg.Seed+rec.Episode-1)
		if err != nil {
			return nil, err
		}
		s.episode = id
	}
	verdicts, _ := json.Marshal(rec.Verdicts)
	if err := s.DB.RecordTurn(ctx, memory.Turn{
		Episode: s.episode, Turn: rec.Turn, Actor: string(rec.Actor), Action: rec.Action, Response: rec.After.Text,
		Reasoning: rec.Reasoning, Verdicts: string(verdicts), LocationID: rec.After.Location.ID, Location: rec.After.Location.Name,
		Score: rec.After.Score, Moves: rec.After.Moves, PromptTokens: rec.LLMMetrics.PromptTokens, EvalTokens: rec.LLMMetrics.EvalTokens,
		LLM: rec.LLMTime, Duration: rec.Duration, Failed: rec.Failed,
	}); err != nil {
		return nil, err
	}
	var events []Event
	if rec.After.Location.ID != rec.Before.Location.ID && rec.After.Location.ID != 0 {
		if err := s.Memories.RecordVisit(rec.After.Location.ID, rec.After.Location.Name, rec.Episode); err != nil {
			return nil, err
		}
	}
	res, err := s.synth.ProcessTurn(ctx, memsynth.Turn{
		Episode: rec.Episode, Turn: rec.Turn, Actor: string(rec.Actor), Action: rec.Action, Reasoning: rec.Reasoning,
		Response: rec.After.Text, FromID: rec.Before.Location.ID, FromName: rec.Before.Location.Name,
		ToID: rec.After.Location.ID, ToName: rec.After.Location.Name, ScoreBefore: rec.Before.Score, ScoreAfter: rec.After.Score,
		InvBefore: names(rec.Before.Inventory), InvAfter: names(rec.After.Inventory), Died: rec.After.Died, FirstVisit: rec.NewRoom,
	})
	if err != nil {
		// A failed synthesis loses one memory, not the turn.
		events = append(events, ErrorEvent{Turn: rec.Turn, Err: err})
	}
	if res.Stored {
		events = append(events, MemoryChanged{Location: res.Location, Title: res.Title})
	}
	if p := rec.Proposal; strings.TrimSpace(p.Remember) != "" {
		if _, _, err := s.DB.Remember(ctx, memory.Note{Session: fmt.Sprint(s.episode), Turn: rec.Turn, Content: p.Remember,
			Importance: p.RememberImportance, Location: rec.Before.Location.Name, LocationID: rec.Before.Location.ID,
			Score: rec.After.Score, Moves: rec.After.Moves}); err != nil {
			return events, err
		}
	}
	return events, s.exportState(rec)
}

func names(items []Item) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Name)
	}
	return out
}

// edit applies a person's memory edit to Memories.md.
func (s *Session) edit(_ context.Context, c Command) ([]Event, error) {
	me, ok := c.(MemoryEdit)
	if !ok {
		return nil, nil // objectives arrive with their manager
	}
	ref := memory.Ref{Location: me.Location, Title: me.Title}
	name := s.Map.Name(me.Location)
	var err error
	switch me.Op {
	case MemoryAdd, MemorySupersede:
		cat, ok := memory.ParseCategory(me.Category)
		if !ok {
			return nil, fmt.Errorf("memory edit: category %q", me.Category)
		}
		m := memory.Memory{Category: cat, Status: memory.StatusActive, Title: me.NewTitle, Text: me.Text, Episode: s.Engine.st.Episode, Turn: s.Engine.st.Turn}
		if me.Op == MemoryAdd {
			err = s.Memories.Add(me.Location, name, m)
		} else {
			_, err = s.Memories.Supersede(me.Location, name, m, []string{me.Title}, memory.ByHuman)
		}
	case MemoryEditText:
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
	case MemorySetStatus:
		st, ok := memory.ParseStatus(me.Status)
		if !ok {
			return nil, fmt.Errorf("memory edit: status %q", me.Status)
		}
		err = s.Memories.SetStatus(ref, st)
	case MemoryDelete:
		err = s.Memories.Delete(ref)
	case MemoryUndo:
		var m memory.Memory
		m, err = s.Memories.Undo()
		me.Title = m.Title
	default:
		return nil, fmt.Errorf("memory edit: unknown operation %q", me.Op)
	}
	if err != nil {
		return nil, fmt.Errorf("memory edit (%s %q at L%d): %w", me.Op, me.Title, me.Location, err)
	}
	return []Event{MemoryChanged{Location: me.Location, Title: me.Title}}, nil
}

func (s *Session) episodeEnded(ctx context.Context, ep EpisodeEnded) error {
	if s.episode == 0 {
		return nil
	}
	err := s.DB.EndEpisode(ctx, s.episode, string(ep.Reason), ep.Score, ep.Moves, ep.Turns)
	s.episode = 0
	return err
}

// State is current_state.json: what an outside viewer needs each turn.
type State struct {
	Story     StoryIdentity `json:"story"`
	Episode   int           `json:"episode"`
	Turn      int           `json:"turn"`
	Score     int           `json:"score"`
	Moves     int           `json:"moves"`
	Location  Location      `json:"location"`
	Inventory []Item        `json:"inventory"`
	Recent    []RecentTurn  `json:"recent"`
	Map       string        `json:"mermaid_map"`
}

// RecentTurn is a line of the recent log.
type RecentTurn struct {
	Turn   int    `json:"turn"`
	Actor  string `json:"actor"`
	Action string `json:"action"`
}

func (s *Session) exportState(rec TurnRecord) error {
	st := State{Story: s.id, Episode: rec.Episode, Turn: rec.Turn, Score: rec.After.Score, Moves: rec.After.Moves,
		Location: rec.After.Location, Inventory: rec.After.Inventory, Map: s.Map.Mermaid()}
	for _, h := range s.Engine.st.History {
		st.Recent = append(st.Recent, RecentTurn{Turn: h.Turn, Actor: h.Actor, Action: h.Action})
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Replace(filepath.Join(s.Dir, "current_state.json"), data, 0o644)
}
