package session

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/contextmgr"
	"github.com/lantern-if/lantern/memory/rundb"
)

// The agent's research tools, declared as Ollama tools, as the memory-tool
// plan describes them: before deciding, an agent with a research phase
// (managers.research_rounds > 0; off by default, since each round is a
// model call on the agent's critical path) may call
//
//   - get_full_summary: a narrative summary of the running line of play,
//     written by the retriever role from its whole history in lantern.db,
//     summarised in pieces that fit its context (summary.go);
//   - get_recent_turns(n): the last n turns, actions and answers;
//   - get_top_memories(limit): the running session's most important notes
//     (limit 10 when given as 0, at most 20);
//   - query_memories(question): every note of the story, from every session,
//     numbered by note ID; the retriever answers citing the numbers;
//   - get_location_memories(location): the notes made at a location (its
//     ID, "L15", or its name), summarised by the retriever.
//
// Ollama cannot force a tool call, so the phase asks for them; the number
// of rounds is all that is configurable. Without a retriever model the
// tools return the notes themselves. They read the session's stores and a
// snapshot of the recent turns and the map that the engine's goroutine
// hands over after each turn (the tools run on the agent's goroutine).

// topArgs: every argument is required in a tool's schema, so 0 stands
// for "no limit given".
type topArgs struct {
	Limit int `json:"limit" minimum:"0" maximum:"20"`
}

type questionArgs struct {
	Question string `json:"question" maxLength:"200" pattern:"^[^{}]*$"`
}

type locationArgs struct {
	Location string `json:"location" maxLength:"80"`
}

type recentArgs struct {
	N int `json:"n" minimum:"1" maximum:"10"`
}

type noArgs struct{}

// DefaultTopMemories is get_top_memories's limit when none is given.
const DefaultTopMemories = 10

// ResearchTools are the tools the agent may call in its research phase.
func (s *Session) ResearchTools(client *llm.Client) ([]llm.Tool, error) {
	r := researcher{s: s, client: client}
	var tools []llm.Tool
	add := func(t llm.Tool, err error) error {
		if err != nil {
			return err
		}
		tools = append(tools, t)
		return nil
	}
	err := firstErr(
		add(llm.NewTool("get_top_memories", "your most important notes of this session (limit: at most 20; 0 gives the default, 10)", r.topMemories)),
		add(llm.NewTool("get_location_memories", "what you noted at a location (its ID, such as 15 or L15, or its name)", r.locationMemories)),
		add(llm.NewTool("get_recent_turns", "the last n turns: actions and what the game answered", r.recentTurns)),
		add(llm.NewTool("get_full_summary", "a narrative summary of this episode so far", s.SummaryTool(client))),
		add(llm.NewTool("query_memories", "ask a question; every note of every session is searched, the answer cites note numbers", r.query)),
	)
	return tools, err
}

// researcher runs the research tools (the agent's goroutine).
type researcher struct {
	s      *Session
	client *llm.Client // nil: no retriever; the tools return what they found
}

func (r researcher) view() researchView {
	if v := r.s.view.Load(); v != nil {
		return *v
	}
	return researchView{}
}

// ask has the retriever role answer from a text; without a model the text
// itself is the answer.
func (r researcher) ask(ctx context.Context, system, user, fallback string) (string, error) {
	if r.client == nil {
		return fallback, nil
	}
	rep, err := r.client.Chat(ctx, llm.Request{Role: config.RoleRetriever, Messages: []llm.Message{llm.System(system), llm.User(user)}})
	if err != nil {
		return "", err
	}
	return rep.Content, nil
}

func (r researcher) topMemories(ctx context.Context, a topArgs) (string, error) {
	limit := a.Limit
	if limit <= 0 {
		limit = DefaultTopMemories
	}
	limit = min(limit, 20)
	notes, err := r.s.DB.TopNotesIn(ctx, r.view().notes, limit)
	if err != nil {
		return "", err
	}
	if len(notes) == 0 {
		return "No memories recorded yet. As you play, what you flag to remember is kept here.", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Top %d most important memories:\n\n", len(notes))
	for i, n := range notes {
		fmt.Fprintf(&b, "%d. [Turn %d @ %s] %s\n   Importance: %d/1000\n", i+1, n.Turn, n.Location, n.Content, n.Importance)
	}
	return strings.TrimSpace(b.String()), nil
}

func (r researcher) locationMemories(ctx context.Context, a locationArgs) (string, error) {
	loc := strings.TrimSpace(a.Location)
	if loc == "" {
		return "Error: name a location (its ID or its name).", nil
	}
	var notes []rundb.Note
	var err error
	if id, ok := locationID(loc); ok {
		notes, err = r.s.DB.NotesAt(ctx, id)
	} else {
		var all []rundb.Note
		all, err = r.s.DB.AllNotes(ctx)
		for _, n := range all {
			if strings.EqualFold(strings.TrimSpace(n.Location), loc) {
				notes = append(notes, n)
			}
		}
	}
	if err != nil {
		return "", err
	}
	if len(notes) == 0 {
		return fmt.Sprintf("No memories recorded for %q: either you have not been there or nothing was noted.", loc), nil
	}
	var b strings.Builder
	for _, n := range notes {
		fmt.Fprintf(&b, "- %s: %s (importance: %d)\n", noteWhen(n), n.Content, n.Importance)
	}
	return r.ask(ctx, "You summarise the notes made at one location of a text adventure. Be concise: two or three sentences.",
		"Location: "+loc+"\n\nNotes made there:\n"+b.String()+"\nSay in two or three sentences what was learned here.", b.String())
}

// locationID reads "15" or "L15".
func locationID(s string) (int, bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "L"), "l")
	id, err := strconv.Atoi(s)
	return id, err == nil && id > 0
}

// noteWhen is a note's place in time: "Turn 12 @ Kitchen", with the
// episode for a note of another session.
func noteWhen(n rundb.Note) string {
	return fmt.Sprintf("Ep%s T%d @ %s", n.Session, n.Turn, n.Location)
}

func (r researcher) recentTurns(_ context.Context, a recentArgs) (string, error) {
	h := r.view().history
	if n := min(max(a.N, 1), 10); len(h) > n {
		h = h[len(h)-n:]
	}
	return turnLines(h), nil
}

func turnLines(h []contextmgr.HistoryEntry) string {
	var b strings.Builder
	for _, t := range h {
		fmt.Fprintf(&b, "T%d (%s) %s → %s\n", t.Turn, t.Actor, t.Action, strings.Join(strings.Fields(t.Response), " "))
	}
	return b.String()
}

func (r researcher) query(ctx context.Context, a questionArgs) (string, error) {
	if strings.TrimSpace(a.Question) == "" {
		return "Error: ask a specific question.", nil
	}
	notes, err := r.s.DB.AllNotes(ctx)
	if err != nil {
		return "", err
	}
	if len(notes) == 0 {
		return "No memories to search: nothing has been flagged yet.", nil
	}
	var b strings.Builder
	for _, n := range notes {
		fmt.Fprintf(&b, "#%d [%s, importance=%d] %s\n", n.ID, noteWhen(n), n.Importance, n.Content)
	}
	return r.ask(ctx, `You help someone play a text adventure by searching their notes. Find the notes that answer the question and answer from them only.
Reply in this form:
Relevant memories: #3, #7
Answer: one or two sentences.
If no note is relevant, say "No relevant memories found."`,
		"Memories:\n"+b.String()+"\nQuestion: "+a.Question, b.String())
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
