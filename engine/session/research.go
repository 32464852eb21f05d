package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/contextmgr"
)

// The agent's research tools, declared as Ollama tools: before
// deciding, an agent with a research phase may look up its notes and
// memories. They read the session's stores and a snapshot of the recent
// turns and the map that the engine's goroutine hands over after each turn
// (the tools run on the agent's goroutine).

type topArgs struct {
	Limit int `json:"limit" minimum:"1" maximum:"20"`
}

type questionArgs struct {
	Question string `json:"question" maxLength:"200" pattern:"^[^{}]*$"`
}

type locationArgs struct {
	Location int `json:"location" minimum:"1" maximum:"65535"`
}

type recentArgs struct {
	N int `json:"n" minimum:"1" maximum:"10"`
}

type noArgs struct{}

// ResearchTools are the tools the agent may call in its research phase.
func (s *Session) ResearchTools(client *llm.Client) ([]llm.Tool, error) {
	var tools []llm.Tool
	add := func(t llm.Tool, err error) error {
		if err != nil {
			return err
		}
		tools = append(tools, t)
		return nil
	}
	err := firstErr(
		add(llm.NewTool("get_top_memories", "the agent's most important notes", func(ctx context.Context, a topArgs) (string, error) {
			notes, err := s.DB.TopNotes(ctx, min(max(a.Limit, 1), 20))
			if err != nil {
				return "", err
			}
			var b strings.Builder
			for i, n := range notes {
				fmt.Fprintf(&b, "%d. [Turn %d @ %s, importance=%d] %s\n", i+1, n.Turn, n.Location, n.Importance, n.Content)
			}
			if b.Len() == 0 {
				return "No notes yet.", nil
			}
			return b.String(), nil
		})),
		add(llm.NewTool("get_location_memories", "the memories kept about a location (by its ID)", func(_ context.Context, a locationArgs) (string, error) {
			return s.Memories.LocationMemory(a.Location), nil
		})),
		add(llm.NewTool("get_recent_turns", "the last n turns: actions and what the game answered", func(_ context.Context, a recentArgs) (string, error) {
			var h []contextmgr.HistoryEntry
			if v := s.view.Load(); v != nil {
				h = v.history
			}
			if n := min(max(a.N, 1), 10); len(h) > n {
				h = h[len(h)-n:]
			}
			var b strings.Builder
			for _, t := range h {
				fmt.Fprintf(&b, "T%d (%s) %s → %s\n", t.Turn, t.Actor, t.Action, strings.Join(strings.Fields(t.Response), " "))
			}
			return b.String(), nil
		})),
		add(llm.NewTool("get_full_summary", "counts of notes and memories, and the rooms mapped", func(ctx context.Context, _ noArgs) (string, error) {
			n, imp, err := s.DB.NoteStats(ctx)
			if err != nil {
				return "", err
			}
			st := s.Memories.Stats()
			var rooms, connections int
			if v := s.view.Load(); v != nil {
				rooms, connections = v.rooms, v.connections
			}
			return fmt.Sprintf("%d notes (total importance %d); %d memories at %d locations (%d visible); %d rooms and %d connections mapped.",
				n, imp, st.Memories, st.Locations, st.Visible, rooms, connections), nil
		})),
		add(llm.NewTool("query_memories", "ask a question; the notes are searched and summarised", func(ctx context.Context, a questionArgs) (string, error) {
			notes, err := s.DB.TopNotes(ctx, 50)
			if err != nil {
				return "", err
			}
			var b strings.Builder
			for _, n := range notes {
				fmt.Fprintf(&b, "- [T%d @ %s] %s\n", n.Turn, n.Location, n.Content)
			}
			if client == nil || b.Len() == 0 {
				return b.String(), nil
			}
			r, err := client.Chat(ctx, llm.Request{Role: config.RoleRetriever, Messages: []llm.Message{
				llm.System("Answer the question from the notes only, in at most three sentences. Say so when the notes do not tell."),
				llm.User("Notes:\n" + b.String() + "\nQuestion: " + a.Question),
			}})
			if err != nil {
				return "", err
			}
			return r.Content, nil
		})),
	)
	return tools, err
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
