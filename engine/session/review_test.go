package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/memory/rundb"
)

// promptAgent proposes its actions in order and records every prompt and
// every list of rejections it was given.
type promptAgent struct {
	actions  []string
	prompts  []string
	rejected [][]string
}

func (a *promptAgent) Propose(_ context.Context, prompt []llm.Message, rejected []string, _ int, _ func(llm.Delta)) (engine.Proposal, error) {
	a.prompts = append(a.prompts, prompt[len(prompt)-1].Content)
	a.rejected = append(a.rejected, rejected)
	act := a.actions[0]
	a.actions = a.actions[1:]
	return engine.Proposal{Action: act, Reasoning: "because " + act}, nil
}

func (*promptAgent) Scripted() bool { return false }

// pausedDemo opens a session on the demo with agent, runs its engine
// (paused) until it is idle, and returns it with a harness; both end with
// the test.
func pausedDemo(t *testing.T, agent engine.Agent) (*Session, *harness) {
	t.Helper()
	sess := demoSession(t, agent)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go sess.Engine.Run(ctx)
	h := &harness{t: t, e: sess.Engine, ctx: ctx}
	h.until(engine.Idle{})
	return sess, h
}

func TestDecisionLines(t *testing.T) {
	tests := []struct {
		line string
		want engine.ReviewDecision
		bad  bool
	}{
		{"y", engine.ReviewDecision{Decision: engine.DecisionAccept}, false},
		{"", engine.ReviewDecision{Decision: engine.DecisionAccept}, false},
		{"e look", engine.ReviewDecision{Decision: engine.DecisionEdit, Command: "look"}, false},
		{"e", engine.ReviewDecision{}, true},
		{"n try the orchard first", engine.ReviewDecision{Decision: engine.DecisionReject, Reason: "try the orchard first"}, false},
		{"n! the door is boarded", engine.ReviewDecision{Decision: engine.DecisionReject, Reason: "the door is boarded", Remember: true}, false},
		{"maybe", engine.ReviewDecision{}, true},
	}
	for _, tt := range tests {
		got, err := engine.ParseDecision(tt.line)
		if (err != nil) != tt.bad || (!tt.bad && got != tt.want) {
			t.Errorf("ParseDecision(%q) = %+v, %v", tt.line, got, err)
		}
	}
}

// TestReviewRejectEditAccept: in review mode a rejection plays nothing and
// reaches the agent's next proposal for the same turn (its rejections and
// the prompt's "The person says"), a remembered one lands in Memories.md
// at the location; an edit plays the person's command as human-edited with
// the proposal kept; everything is recorded in lantern.db.
func TestReviewRejectEditAccept(t *testing.T) {
	agent := &promptAgent{actions: []string{"east", "look", "north", "south"}}
	sess, h := pausedDemo(t, agent)
	h.send(engine.SetReview{On: true})
	h.send(engine.Step{})
	var requests []engine.ReviewRequested
	var results []engine.TurnResult
	decisions := []engine.ReviewDecision{
		{Decision: engine.DecisionReject, Reason: "the door is boarded shut", Remember: true},
		{Decision: engine.DecisionAccept},
		{Decision: engine.DecisionEdit, Command: "inventory"},
	}
	for ev := range sess.Engine.Events() {
		switch v := ev.(type) {
		case engine.ReviewRequested:
			requests = append(requests, v)
			h.send(decisions[0])
			decisions = decisions[1:]
		case engine.TurnResult:
			if v.Turn > 0 {
				results = append(results, v)
			}
		case engine.Idle:
			if len(results) == 1 {
				h.send(engine.Step{})
			}
		}
		if _, idle := ev.(engine.Idle); idle && len(results) == 2 {
			break // turn 2 is recorded: the engine is idle again
		}
	}
	if len(requests) != 3 || requests[0].Action != "east" || requests[1].Action != "look" || requests[2].Action != "north" {
		t.Fatalf("review requests %+v", requests)
	}
	if r := results[0]; r.Turn != 1 || r.Actor != engine.ActorAgent || r.Action != "look" || len(r.Reviews) != 2 ||
		r.Reviews[0].Decision != engine.DecisionReject || r.Reviews[1].Decision != engine.DecisionAccept {
		t.Fatalf("turn 1: %+v", r)
	}
	if r := results[1]; r.Turn != 2 || r.Actor != engine.ActorHumanEdited || r.Action != "inventory" || r.Reviews[0].Proposal != "north" {
		t.Fatalf("turn 2: %+v", r)
	}
	if got := agent.rejected[1]; len(got) != 1 || !strings.Contains(got[0], "the door is boarded shut") {
		t.Errorf("the second proposal of turn 1 was not told of the rejection: %v", got)
	}
	for i := 1; i < len(agent.prompts); i++ {
		if !strings.Contains(agent.prompts[i], "## The person says") || !strings.Contains(agent.prompts[i], "the door is boarded shut") {
			t.Errorf("prompt %d lacks the person's reason:\n%s", i, agent.prompts[i])
		}
	}
	data, err := os.ReadFile(filepath.Join(sess.Dir, "Memories.md"))
	if err != nil || !strings.Contains(string(data), "The person: the door is boarded shut") {
		t.Fatalf("Memories.md lacks the remembered rejection (%v):\n%s", err, data)
	}
	var out strings.Builder
	if code := memory.Check(&out, filepath.Join(sess.Dir, "Memories.md")); code != 0 {
		t.Fatalf("memories check: %s", out.String())
	}
	if !strings.Contains(sess.Memories.LocationMemory(results[0].Observation.Location.ID), "The person: the door is boarded shut") {
		t.Error("the remembered rejection is not shown to the agent at that location")
	}
	// It is the memory of turn 1, the turn reviewed, not of the turn before.
	for _, m := range sess.Memories.List(results[0].Observation.Location.ID) {
		if strings.HasPrefix(m.Title, "The person:") && (m.Turn != 1 || m.Episode != 1) {
			t.Errorf("the remembered rejection is stamped Ep%d T%d, want Ep1 T1", m.Episode, m.Turn)
		}
	}
	eps, err := sess.DB.Episodes(h.ctx)
	if err != nil || len(eps) != 1 {
		t.Fatalf("episodes %v %v", eps, err)
	}
	rs, err := sess.DB.Reviews(h.ctx, eps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	st := rundb.SumReviews(rs)
	if st.Decisions != 3 || st.Accepted != 1 || st.Edited != 1 || st.Rejected != 1 || st.Reasons[0] != "the door is boarded shut" {
		t.Errorf("reviews in lantern.db: %+v", st)
	}
}

// The room the story begins in counts as visited, in the episode.
func TestStartingRoomIsAVisit(t *testing.T) {
	sess, _ := pausedDemo(t, &promptAgent{})
	data, err := os.ReadFile(filepath.Join(sess.Dir, "Memories.md"))
	if err != nil || !strings.Contains(string(data), "**Visits:** 1 | **Episodes:** 1") {
		t.Fatalf("Memories.md after the opening (%v):\n%s", err, data)
	}
}

// An auto-accept plays a proposal nobody decided on, marked as such.
func TestReviewAutoAccept(t *testing.T) {
	agent := &promptAgent{actions: []string{"north"}}
	sess, h := pausedDemo(t, agent)
	h.send(engine.SetReview{On: true, AutoAccept: time.Millisecond})
	h.send(engine.Step{})
	var req engine.ReviewRequested
	for ev := range sess.Engine.Events() {
		switch v := ev.(type) {
		case engine.ReviewRequested:
			req = v
		case engine.TurnResult:
			if v.Turn == 1 {
				if req.Deadline.IsZero() || len(v.Reviews) != 1 || !v.Reviews[0].Auto || v.Reviews[0].Decision != engine.DecisionAccept || v.Action != "north" {
					t.Fatalf("auto-accept: request %+v, turn %+v", req, v)
				}
				return
			}
		}
	}
	t.Fatal("no turn was played")
}
