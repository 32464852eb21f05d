package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/lantern-if/lantern/internal/atomicfile"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/mapper"
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
}

// Session is an open run.
type Session struct {
	Dir    string // <workdir>/<story>-r<release>
	Env    *Env
	DB     *memory.RunDB
	Map    *mapper.Map
	Engine *Engine

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
	s := &Session{Dir: dir, Env: env, DB: db, Map: mapper.New(), id: env.Story()}
	agent := opts.Agent
	if agent == nil {
		if opts.Client == nil {
			db.Close()
			return nil, fmt.Errorf("open session: an LLM agent needs a model client")
		}
		agent = LLMAgent{Client: opts.Client}
	}
	critic := NewCritic(opts.Client, opts.Engine.CriticThreshold)
	s.Engine = New(opts.Engine, env, agent, critic, opts.Client, s.Map, Hooks{
		Notes:        s.notes,
		AfterTurn:    s.afterTurn,
		EpisodeEnded: s.episodeEnded,
	})
	return s, nil
}

// Close closes the run database.
func (s *Session) Close() error { return s.DB.Close() }

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
	if p := rec.Proposal; strings.TrimSpace(p.Remember) != "" {
		if _, _, err := s.DB.Remember(ctx, memory.Note{Session: fmt.Sprint(s.episode), Turn: rec.Turn, Content: p.Remember,
			Importance: p.RememberImportance, Location: rec.Before.Location.Name, LocationID: rec.Before.Location.ID,
			Score: rec.After.Score, Moves: rec.After.Moves}); err != nil {
			return nil, err
		}
	}
	return nil, s.exportState(rec)
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
