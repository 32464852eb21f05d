package supervisor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/managers/mapper"
)

func fakeClient(t *testing.T) (*llm.Client, *llmtest.Server) {
	t.Helper()
	return llmtest.NewClient(t, "fake")
}

func eval(trust, work, comfort int) llmtest.Reply {
	return llmtest.Reply{Content: fmt.Sprintf(`{"assessment": "scripted %d %d %d", "trust_level": %d, "work_satisfaction": %d, "relational_comfort": %d}`,
		trust, work, comfort, trust, work, comfort)}
}

func feedback(text string) llmtest.Reply {
	return llmtest.Reply{Content: fmt.Sprintf(`{"feedback_reasoning": "because", "feedback": %q}`, text)}
}

func summary(text string) llmtest.Reply {
	return llmtest.Reply{Content: fmt.Sprintf(`{"summary": %q}`, text)}
}

// script registers the three kinds of supervisor calls; the more specific
// matchers come first.
func script(f *llmtest.Server, evals, feedbacks, summaries []llmtest.Reply) {
	if len(feedbacks) > 0 {
		f.On("feedback", llmtest.PromptContains("Now give the agent your feedback"), feedbacks...)
	}
	if len(summaries) > 0 {
		f.On("summary", llmtest.PromptContains("Rounds leaving your short-term memory"), summaries...)
	}
	if len(evals) > 0 {
		f.On("evaluation", llmtest.Role(config.RoleSupervisor), evals...)
	}
}

func turn(n int, action, reasoning string) domain.Turn {
	return domain.Turn{Episode: 1, Turn: n, Actor: "agent", Action: action, Reasoning: reasoning, Response: "Done: " + action,
		FromID: 64, FromName: "West of House", ToID: 64, ToName: "West of House"}
}

type recorder struct{ rounds []Round }

func (r *recorder) RecordRound(_ context.Context, round Round) error {
	r.rounds = append(r.rounds, round)
	return nil
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestStateMovesAsScripted(t *testing.T) {
	client, fake := fakeClient(t)
	script(fake, []llmtest.Reply{eval(3, 2, 1), eval(5, -4, 0), eval(-2, 6, 7)},
		[]llmtest.Reply{feedback("Good start."), feedback("Stop repeating yourself."), feedback("Fine.")}, nil)
	rec := &recorder{}
	s := New(Deps{Client: client, Recorder: rec}, Config{})
	ctx := context.Background()
	want := []Gauges{{0.3, 0.2, 0.1}, {0.5, -0.4, 0}, {-0.2, 0.6, 0.7}}
	prev := Gauges{}
	for i, g := range want {
		r, ran, err := s.ProcessTurn(ctx, turn(i+1, fmt.Sprintf("look %d", i+1), "Looking around."))
		if err != nil || !ran {
			t.Fatalf("round %d: ran=%v %v", i+1, ran, err)
		}
		now, previous := s.State()
		if !near(now.Trust, g.Trust) || !near(now.Work, g.Work) || !near(now.Comfort, g.Comfort) {
			t.Errorf("round %d: state %v, want %v", i+1, now, g)
		}
		if previous != prev || r.Previous != prev || r.State != now {
			t.Errorf("round %d: previous %v (round says %v), want %v", i+1, previous, r.Previous, prev)
		}
		prev = now
	}
	if st := s.Status(); st.Mood != "uneasy" && st.Mood != "watchful" || st.Rounds != 3 || st.Feedback != "Fine." {
		t.Errorf("status %+v", st)
	}
	if s.Status().Mood != (Gauges{-0.2, 0.6, 0.7}).Mood() {
		t.Errorf("mood %q", s.Status().Mood)
	}
	// Stage 2 continues stage 1's conversation.
	var fb llmtest.Request
	for _, r := range fake.ChatRequests() {
		if strings.Contains(r.Prompt(), "Now give the agent your feedback") {
			fb = r
			break
		}
	}
	msgs := fb.Chat.Messages
	if len(msgs) != 4 || msgs[0].Role != "system" || msgs[2].Role != "assistant" || !strings.Contains(msgs[2].Content, `"trust_level": 3`) ||
		!strings.Contains(msgs[1].Content, "look 1") {
		t.Errorf("the feedback call is not the evaluation's conversation: %+v", msgs)
	}
	if len(rec.rounds) != 3 || rec.rounds[1].Feedback != "Stop repeating yourself." || rec.rounds[1].EvaluationReply == "" ||
		rec.rounds[1].Turns[0].Response != "Done: look 2" {
		t.Errorf("recorded rounds %+v", rec.rounds)
	}
}

func TestKWindowOverflowsIntoSummary(t *testing.T) {
	client, fake := fakeClient(t)
	var evals, fbs []llmtest.Reply
	for i := 0; i < 5; i++ {
		evals, fbs = append(evals, eval(i, i, i)), append(fbs, feedback(fmt.Sprintf("Feedback %d.", i+1)))
	}
	script(fake, evals, fbs, []llmtest.Reply{summary("SUMMARY-ONE: the agent looked around."), summary("SUMMARY-TWO: still looking.")})
	s := New(Deps{Client: client}, Config{K: 3})
	ctx := context.Background()
	summaries := func() []llmtest.Request {
		var out []llmtest.Request
		for _, r := range fake.ChatRequests() {
			if strings.Contains(r.Prompt(), "Rounds leaving your short-term memory") {
				out = append(out, r)
			}
		}
		return out
	}
	for i := 1; i <= 3; i++ {
		if _, _, err := s.ProcessTurn(ctx, turn(i, fmt.Sprintf("look %d", i), "")); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(summaries()); n != 0 || s.Status().Window != 3 {
		t.Fatalf("after K rounds: %d summary calls, window %d", n, s.Status().Window)
	}
	if _, _, err := s.ProcessTurn(ctx, turn(4, "look 4", "")); err != nil {
		t.Fatal(err)
	}
	sums := summaries()
	if len(sums) != 1 {
		t.Fatalf("after K+1 rounds: %d summary calls, want 1", len(sums))
	}
	if p := sums[0].Prompt(); !strings.Contains(p, "look 1") || strings.Contains(p, "look 2") || !strings.Contains(p, "(empty)") || !strings.Contains(p, `feedback you gave: "Feedback 1."`) {
		t.Errorf("the first summary folds round 1 only:\n%s", p)
	}
	if st := s.Status(); st.Window != 3 || st.Summarized != 1 || !strings.HasPrefix(st.Summary, "SUMMARY-ONE") {
		t.Errorf("status %+v", st)
	}
	if _, _, err := s.ProcessTurn(ctx, turn(5, "look 5", "")); err != nil {
		t.Fatal(err)
	}
	var evalReqs []llmtest.Request
	for _, r := range fake.ChatRequests() {
		if len(r.Chat.Messages) == 2 && strings.Contains(r.Prompt(), "Set the three gauges") {
			evalReqs = append(evalReqs, r)
		}
	}
	p := evalReqs[4].Prompt()
	for _, want := range []string{"Long-term memory (rounds 1-1):\nSUMMARY-ONE", "Round 2 (turns 2-2)", "Round 4 (turns 4-4)", "look 5"} {
		if !strings.Contains(p, want) {
			t.Errorf("round 5's evaluation lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "look 1") {
		t.Errorf("round 1 is still in full in round 5's memory:\n%s", p)
	}
	if sums = summaries(); len(sums) != 2 || !strings.Contains(sums[1].Prompt(), "SUMMARY-ONE") || !strings.Contains(sums[1].Prompt(), "look 2") {
		t.Errorf("the second summary builds on the first")
	}
	if st := s.Status(); st.Summarized != 2 || !strings.HasPrefix(st.Summary, "SUMMARY-TWO") || st.Window != 3 {
		t.Errorf("status %+v", st)
	}
}

func TestMalformedReplyRetriedThenReported(t *testing.T) {
	client, fake := fakeClient(t)
	bad := llmtest.Reply{Content: `{"assessment": "fine", "trust_level": 42}`}
	script(fake, []llmtest.Reply{eval(4, 4, 4), bad, bad, bad}, []llmtest.Reply{feedback("Keep going.")}, nil)
	s := New(Deps{Client: client}, Config{})
	ctx := context.Background()
	if _, _, err := s.ProcessTurn(ctx, turn(1, "look", "")); err != nil || s.Feedback() != "Keep going." {
		t.Fatalf("round 1: %v, feedback %q", err, s.Feedback())
	}
	before := len(fake.ChatRequests())
	_, ran, err := s.ProcessTurn(ctx, turn(2, "look", ""))
	if !ran || !errors.Is(err, llm.ErrInvalidReply) {
		t.Fatalf("round 2: ran=%v err=%v, want ErrInvalidReply", ran, err)
	}
	var le *llm.Error
	if !errors.As(err, &le) || le.Attempts != 3 {
		t.Errorf("error %#v: want a typed *llm.Error after 3 attempts", err)
	}
	if n := len(fake.ChatRequests()) - before; n != 3 {
		t.Errorf("%d calls for the malformed round, want 3 (with format reminders)", n)
	}
	last := fake.ChatRequests()[len(fake.ChatRequests())-1]
	if !strings.Contains(last.Prompt(), "That reply could not be used") {
		t.Errorf("the retries carry no format reminder")
	}
	if s.Feedback() != "" {
		t.Errorf("feedback %q after a failed round, want none", s.Feedback())
	}
	if now, _ := s.State(); !near(now.Trust, 0.4) {
		t.Errorf("a failed round moved the state: %v", now)
	}
	if st := s.Status(); st.LastError == "" {
		t.Errorf("status %+v", st)
	}
}

func TestContradictedClaimLowersTrust(t *testing.T) {
	client, fake := fakeClient(t)
	script(fake, []llmtest.Reply{eval(8, 0, 0), eval(8, 0, 0)}, []llmtest.Reply{feedback("You hold nothing."), feedback("Good.")}, nil)
	s := New(Deps{Client: client}, Config{Initial: Gauges{Trust: 0.5}})
	ctx := context.Background()
	lie := turn(1, "down", "I am carrying the brass lantern, so the cellar is safe.")
	r, _, err := s.ProcessTurn(ctx, lie)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) != 1 || !r.Findings[0].Contradicted {
		t.Fatalf("findings %+v", r.Findings)
	}
	if now, _ := s.State(); !near(now.Trust, 0.25) {
		t.Errorf("trust %.2f after a contradicted claim, want 0.25 (0.5 - 0.25, whatever the model said)", now.Trust)
	}
	if p := fake.ChatRequests()[0].Prompt(); !strings.Contains(p, `CONTRADICTED: the agent said "I am carrying the brass lantern"; its inventory is empty`) {
		t.Errorf("the evaluation is not told:\n%s", p)
	}
	truth := turn(2, "down", "I am carrying the brass lantern, so the cellar is safe.")
	truth.InvBefore, truth.InvAfter = []string{"brass lantern"}, []string{"brass lantern"}
	if _, _, err := s.ProcessTurn(ctx, truth); err != nil {
		t.Fatal(err)
	}
	if now, _ := s.State(); !near(now.Trust, 0.8) {
		t.Errorf("trust %.2f after a true claim, want the model's 0.8", now.Trust)
	}
}

func TestRoundEveryNTurnsWithFacts(t *testing.T) {
	client, fake := fakeClient(t)
	script(fake, []llmtest.Reply{eval(1, 1, -3)}, []llmtest.Reply{feedback("Leave the door as the person set it.")}, nil)
	done := 0
	s := New(Deps{Client: client, Completed: func() int { return done }, Hints: func() []string { return []string{"keep the door closed"} }}, Config{Every: 3})
	ctx := context.Background()
	person := turn(1, "close door", "")
	person.Actor = "human"
	if _, ran, _ := s.ProcessTurn(ctx, person); ran {
		t.Fatal("a round after 1 of 3 turns")
	}
	up := turn(2, "open the door", "The door should be open.")
	up.ScoreAfter, up.NewRoom = 5, true
	s.ProcessTurn(ctx, up)
	done = 2
	r, ran, err := s.ProcessTurn(ctx, turn(3, "look", ""))
	if !ran || err != nil || len(r.Turns) != 3 {
		t.Fatalf("round after 3 turns: ran=%v err=%v turns=%d", ran, err, len(r.Turns))
	}
	p := fake.ChatRequests()[0].Prompt()
	for _, want := range []string{`The person played "close door" at T1.`, `The agent undid the person's "close door" (T1) with "open the door" at T2.`,
		"score +5, 1 new room(s)", "Objectives completed this round: 2.", "The person asked the agent to: keep the door closed.", "T1 (the person)", "T2 (agent)"} {
		if !strings.Contains(p, want) {
			t.Errorf("evaluation lacks %q:\n%s", want, p)
		}
	}
}

func TestNoModelNoRounds(t *testing.T) {
	s := New(Deps{}, Config{})
	if _, ran, err := s.ProcessTurn(context.Background(), turn(1, "look", "")); ran || err != nil {
		t.Errorf("without a model: ran=%v %v", ran, err)
	}
}

func TestCheckClaims(t *testing.T) {
	known := map[int]string{64: "West of House", 75: "Living Room", 33: "Cellar"}
	gt := GroundTruth{Inventory: []string{"brass lantern", "leaflet"}, LocationID: 75, Location: "Living Room", Score: 10, Known: known}
	cases := []struct {
		reasoning string
		kind      string
		bad       bool
		none      bool
	}{
		{reasoning: "I am carrying the lamp, so I can go down.", kind: "inventory"},
		{reasoning: "I'm holding the sword to fight the troll.", kind: "inventory", bad: true},
		{reasoning: "I have the leaflet already.", kind: "inventory"},
		{reasoning: "I have a plan.", none: true},
		{reasoning: "I am carrying nothing useful.", none: true},
		{reasoning: "I am in the Living Room now.", kind: "location"},
		{reasoning: "I'm at L33, it is dark.", kind: "location", bad: true},
		{reasoning: "I am in the Cellar.", kind: "location", bad: true},
		{reasoning: "Then I am in the Cellar and need light.", none: true},
		{reasoning: "I am in a dark place.", none: true},
		{reasoning: "I have already visited L64.", kind: "visited"},
		{reasoning: "I've been to Location 152 before.", kind: "visited", bad: true},
		{reasoning: "My score is 10.", kind: "score"},
		{reasoning: "My score is 25 now.", kind: "score", bad: true},
	}
	for _, c := range cases {
		got := CheckClaims(c.reasoning, gt)
		if c.none {
			if len(got) != 0 {
				t.Errorf("%q: findings %+v, want none", c.reasoning, got)
			}
			continue
		}
		if len(got) != 1 || got[0].Kind != c.kind || got[0].Contradicted != c.bad {
			t.Errorf("%q: findings %+v, want one %s claim, contradicted=%v", c.reasoning, got, c.kind, c.bad)
		}
	}
}

func TestUndoes(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"open window", "close the window", true},
		{"take lamp", "drop lamp", true},
		{"pick up lamp", "drop the lamp", true},
		{"n", "south", true},
		{"north", "north", false},
		{"open window", "close door", false},
		{"light lamp", "turn off lamp", true},
		{"look", "look", false},
	}
	for _, c := range cases {
		if got := Undoes(c.a, c.b); got != c.want {
			t.Errorf("Undoes(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestVisitedClaimsUseTheMap(t *testing.T) {
	m := mapper.New()
	m.Visit(64, "West of House")
	m.ProcessTurn(64, "north", 80, "North of House")
	client, fake := fakeClient(t)
	script(fake, []llmtest.Reply{eval(0, 0, 0)}, []llmtest.Reply{feedback("ok")}, nil)
	s := New(Deps{Client: client, Map: m}, Config{})
	r, _, err := s.ProcessTurn(context.Background(), turn(1, "south", "I have visited L80 and L99."))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) != 1 || r.Findings[0].Contradicted {
		t.Errorf("findings %+v: L80 is on the map", r.Findings)
	}
}
