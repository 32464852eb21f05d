package session

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/chatserve"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/oracle"
)

// oracleSession opens a Zork I session in dir whose every model is the
// oracle (the agent proposing the walkthrough through the real model path:
// agent call, critic, step, managers), paused at the start.
func oracleSession(t *testing.T, dir string) *Session { return oracleSessionWith(t, dir, nil) }

// oracleSessionWith is oracleSession with memory synthesis answered by
// memory (nil: the oracle, which remembers nothing).
func oracleSessionWith(t *testing.T, dir string, memory chatserve.Backend, opts ...func(*Options)) *Session {
	t.Helper()
	story, _ := zork(t)
	var h http.Handler = oracle.New(oracle.Options{Script: walkthrough(t), NoThinking: true})
	if memory != nil {
		mem, orc := chatserve.New(chatserve.Options{Backend: memory}), h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/chat" && r.Header.Get(chatserve.RoleHeader) == config.RoleMemory {
				mem.ServeHTTP(w, r)
				return
			}
			orc.ServeHTTP(w, r)
		})
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	roles := config.DefaultRoles()
	for k, r := range roles {
		r.Model, r.Timeout = "oracle", 10*time.Second
		roles[k] = r
	}
	client, err := llm.New(llm.Options{Host: strings.TrimPrefix(srv.URL, "http://"), Roles: roles})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Story: story, Name: "zork1.z3", Binding: zorkBinding(t), WorkDir: dir,
		Client: client, Agent: engine.LLMAgent{Client: client}, Planning: DefaultPlanning(), Autosave: true,
		Engine: engine.Config{Seed: 12, CriticThreshold: -0.2, StartPaused: true}}
	for _, f := range opts {
		f(&o)
	}
	sess, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// played is the events up to the next Idle, the turns and errors kept.
type played struct {
	turns   []engine.TurnResult
	started []engine.EpisodeStarted
}

func untilIdle(t *testing.T, e *engine.Engine) played {
	t.Helper()
	var p played
	for ev := range e.Events() {
		switch v := ev.(type) {
		case engine.TurnResult:
			p.turns = append(p.turns, v)
		case engine.EpisodeStarted:
			p.started = append(p.started, v)
		case engine.ErrorEvent:
			t.Errorf("turn %d: %v", v.Turn, v.Err)
		case engine.Idle:
			return p
		}
	}
	t.Fatal("the engine stopped before it was idle")
	return p
}

func send(t *testing.T, e *engine.Engine, c engine.Command) {
	t.Helper()
	if err := e.Send(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}

// The person goes back: 50 turns of Zork I with the oracle, a rewind to
// turn 20, 10 commands of the person's, then the agent again. lantern.db
// holds both branches, the first one's turns 21–50 unchanged byte for
// byte, and a new session resumes the new branch.
func TestRewindPlaysOnOnABranchAndKeepsTheOther(t *testing.T) {
	dir := t.TempDir()
	sess := oracleSession(t, dir)
	go sess.Engine.Run(context.Background())
	e := sess.Engine
	untilIdle(t, e) // the opening, paused
	for i := 1; i <= 50; i++ {
		send(t, e, engine.Step{})
		if p := untilIdle(t, e); len(p.turns) != 1 || p.turns[0].Turn != i || p.turns[0].Actor != engine.ActorAgent {
			t.Fatalf("step %d played %+v", i, p.turns)
		}
	}
	ctx := context.Background()
	before, err := sess.DB.BranchTurns(ctx, 1)
	if err != nil || len(before) != 50 {
		t.Fatalf("the first branch holds %d turns (%v), want 50", len(before), err)
	}

	send(t, e, engine.Rewind{Turn: 20})
	p := untilIdle(t, e)
	if len(p.started) != 1 || !p.started[0].Rewound || p.started[0].Turn != 20 {
		t.Fatalf("the rewind announced %+v, want one rewound start at turn 20", p.started)
	}
	b := p.started[0].Branch
	if b.ID == 1 || b.Parent != 1 || b.ForkTurn != 20 {
		t.Fatalf("the new branch is %+v, want a child of #1 at turn 20", b)
	}
	if got, want := p.started[0].Observation.Score, before[19].Score; got != want {
		t.Errorf("after the rewind the score is %d, want turn 20's %d", got, want)
	}
	mine := []string{"inventory", "diagnose", "score", "look", "wait", "examine mailbox", "wait", "look", "inventory", "score"}
	for i, c := range mine {
		send(t, e, engine.Override{Text: c})
		p := untilIdle(t, e)
		if len(p.turns) != 1 || p.turns[0].Turn != 21+i || p.turns[0].Action != c || p.turns[0].Actor != engine.ActorHuman {
			t.Fatalf("the person's command %q played %+v", c, p.turns)
		}
	}
	for i := 0; i < 5; i++ {
		send(t, e, engine.Step{})
		if p := untilIdle(t, e); len(p.turns) != 1 || p.turns[0].Turn != 31+i || p.turns[0].Actor != engine.ActorAgent {
			t.Fatalf("the agent's step %d after the rewind played %+v", i+1, p.turns)
		}
	}
	send(t, e, engine.Quit{})
	for range e.Events() {
	}

	branches, err := sess.DB.Branches(ctx, 1)
	if err != nil || len(branches) != 2 || branches[0].ID != 1 || branches[1].ID != b.ID {
		t.Fatalf("branches %+v (%v), want #1 and #%d", branches, err, b.ID)
	}
	after, err := sess.DB.BranchTurns(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 50 {
		t.Fatalf("the first branch now holds %d turns, want its 50", len(after))
	}
	for i := 20; i < 50; i++ {
		if !sameTurn(before[i], after[i]) {
			t.Errorf("turn %d of the first branch changed:\n%+v\n%+v", i+1, before[i], after[i])
		}
	}
	mineRows, err := sess.DB.BranchTurns(ctx, b.ID)
	if err != nil || len(mineRows) != 35 {
		t.Fatalf("the new branch holds %d turns (%v), want 35", len(mineRows), err)
	}
	for i := 0; i < 20; i++ {
		if !sameTurn(mineRows[i], before[i]) {
			t.Errorf("the new branch's turn %d is not the first branch's", i+1)
		}
	}
	for i, c := range mine {
		if r := mineRows[20+i]; r.Action != c || r.Actor != "human" || r.Episode != b.ID {
			t.Errorf("the new branch's turn %d is %s %q in #%d, want the person's %q", 21+i, r.Actor, r.Action, r.Episode, c)
		}
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}

	// --resume continues the new branch.
	again := oracleSession(t, dir)
	defer again.Close()
	cp, err := again.Resume(ctx)
	if err != nil || cp.Episode != b.ID || cp.Turn != 35 {
		t.Fatalf("resume found #%d turn %d (%v), want #%d turn 35", cp.Episode, cp.Turn, err, b.ID)
	}
	go again.Engine.Run(ctx)
	if p := untilIdle(t, again.Engine); len(p.started) != 1 || p.started[0].Branch.ID != b.ID {
		t.Fatalf("the resumed start names %+v, want branch #%d", p.started, b.ID)
	}
	send(t, again.Engine, engine.Step{})
	if p := untilIdle(t, again.Engine); len(p.turns) != 1 || p.turns[0].Turn != 36 {
		t.Fatalf("the resumed step played %+v, want turn 36", p.turns)
	}
	send(t, again.Engine, engine.Quit{})
	for range again.Engine.Events() {
	}
	rows, err := again.DB.Turns(ctx, b.ID)
	if err != nil || len(rows) == 0 || rows[len(rows)-1].Turn != 36 {
		t.Fatalf("the new branch's own rows end at %v (%v), want turn 36", rows, err)
	}
}

// sameTurn: what the turn played and showed is identical.
func sameTurn(a, b rundb.Turn) bool {
	return a.Turn == b.Turn && a.Actor == b.Actor && a.Action == b.Action && a.Response == b.Response &&
		a.Reasoning == b.Reasoning && a.Score == b.Score && a.Moves == b.Moves && a.LocationID == b.LocationID
}

// A rewind that withdraws the agent's memories: those memory synthesis
// stored after the turn become SUPERSEDED with the reason (kept in
// Memories.md), the earlier ones stay active, and the pane hears of each.
func TestRewindWithdrawsTheAgentsLaterMemories(t *testing.T) {
	sess := oracleSessionWith(t, t.TempDir(), rememberAll{})
	defer sess.Close()
	go sess.Engine.Run(context.Background())
	e := sess.Engine
	untilIdle(t, e)
	for i := 1; i <= 30; i++ {
		send(t, e, engine.Step{})
		untilIdle(t, e)
	}
	ctx := context.Background()
	ds, err := sess.DB.Decisions(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	type ref struct {
		loc   int
		title string
	}
	var early, late []ref
	for _, d := range ds {
		if d.Outcome != "stored" {
			continue
		}
		if d.Turn > 10 {
			late = append(late, ref{d.LocationID, d.Title})
		} else {
			early = append(early, ref{d.LocationID, d.Title})
		}
	}
	if len(early) == 0 || len(late) == 0 {
		t.Fatalf("the oracle stored %d memories by turn 10 and %d after: the test needs both", len(early), len(late))
	}
	// The ITEM entries the game's state wrote: the egg found up the tree
	// (turn 4), the garlic, lamp, rope, knife and sword after turn 10, the
	// egg left in the troll's room (turn 29).
	var earlyItems, lateItems []ref
	for _, sec := range sess.Memories.Sections() {
		for _, m := range sec.Memories {
			if m.Category != memory.CategoryItem || !m.Visible() {
				continue
			}
			if m.Turn > 10 {
				lateItems = append(lateItems, ref{sec.ID, m.Title})
			} else {
				earlyItems = append(earlyItems, ref{sec.ID, m.Title})
			}
		}
	}
	if len(earlyItems) == 0 || len(lateItems) < 5 {
		t.Fatalf("ITEM entries by turn 10: %v, after: %v; the test needs the egg before and the finds after", earlyItems, lateItems)
	}
	late = append(late, lateItems...)
	early = append(early, earlyItems...)
	send(t, e, engine.Rewind{Turn: 10, UndoMemories: true})
	changed := map[string]bool{}
	for ev := range e.Events() {
		if c, ok := ev.(engine.MemoryChanged); ok {
			changed[c.Title] = true
		}
		if er, ok := ev.(engine.ErrorEvent); ok {
			t.Errorf("rewind: %v", er.Err)
		}
		if _, ok := ev.(engine.Idle); ok {
			break
		}
	}
	status := func(r ref) (string, string) {
		st, why := "missing", ""
		for _, m := range sess.Memories.List(r.loc) {
			if m.Title == r.title {
				st, why = string(m.Status), m.Superseded.Reason
				if m.Visible() {
					break // an entry of the same title written again
				}
			}
		}
		return st, why
	}
	for _, r := range late {
		if st, why := status(r); st != "SUPERSEDED" || !strings.Contains(why, "rewound to turn 10") || !changed[r.title] {
			t.Errorf("the memory %q of a later turn is %s (%q), announced %v", r.title, st, why, changed[r.title])
		}
	}
	for _, r := range early {
		if st, _ := status(r); st == "SUPERSEDED" || st == "missing" {
			t.Errorf("the memory %q of turn ≤ 10 is %s", r.title, st)
		}
	}
	// The oracle finds its place: the turn after the rewind plays
	// walkthrough step 11, at the first proposal.
	send(t, e, engine.Step{})
	next := untilIdle(t, e)
	if w := walkthrough(t); len(next.turns) != 1 || next.turns[0].Turn != 11 || next.turns[0].Action != w[10] || len(next.turns[0].Verdicts) != 1 {
		t.Errorf("after the rewind to turn 10 the next turn played %+v, want turn 11: %q at the first proposal", next.turns, w[10])
	}
	send(t, e, engine.Quit{})
	for range e.Events() {
	}
}

// rememberAll answers memory synthesis with a memory to keep whose title
// names its turn.
type rememberAll struct{}

func (rememberAll) Models() []chatserve.Model { return nil }

func (rememberAll) Chat(req *chatserve.Request) (chatserve.Answer, error) {
	last := ""
	for _, m := range req.Chat.Messages {
		if m.Role == "user" {
			last = m.Content
		}
	}
	turn := regexp.MustCompile(`Turn (\d+), action \(`).FindAllStringSubmatch(last, -1)
	if len(turn) == 0 {
		return chatserve.Answer{}, fmt.Errorf("no turn in the memory prompt")
	}
	n := turn[len(turn)-1][1]
	return chatserve.Answer{Content: fmt.Sprintf(`{"should_remember": true, "category": "DISCOVERY", "memory_title": "Seen at turn %s", `+
		`"memory_text": "Something seen at turn %s.", "status": "ACTIVE", "supersedes_memory_titles": [], "reasoning": "worth keeping"}`, n, n)}, nil
}
