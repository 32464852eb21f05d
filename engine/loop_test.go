package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/llm"
)

// gateAgent proposes what the test feeds it, one proposal per Propose, and
// tells the test when a proposal starts.
type gateAgent struct {
	started   chan struct{}
	proposals chan Proposal
	panicOn   string
}

func newGateAgent() *gateAgent {
	return &gateAgent{started: make(chan struct{}, 8), proposals: make(chan Proposal, 8)}
}

func (g *gateAgent) Propose(ctx context.Context, _ []llm.Message, _ []string, _ int, onDelta func(llm.Delta)) (Proposal, error) {
	g.started <- struct{}{}
	onDelta(llm.Delta{Content: "thinking..."})
	select {
	case p := <-g.proposals:
		if p.Action == g.panicOn && g.panicOn != "" {
			panic("agent blew up")
		}
		return p, nil
	case <-ctx.Done():
		return Proposal{}, ctx.Err()
	}
}

func (g *gateAgent) Scripted() bool { return false }

type harness struct {
	t      *testing.T
	e      *Engine
	ctx    context.Context
	cancel context.CancelFunc
	done   chan error
}

func startEngine(t *testing.T, agent Agent, cfg Config) *harness {
	t.Helper()
	return startEngineWith(t, agent, cfg, nil)
}

// startEngineWith is startEngine with a step before Run (prepare may be nil).
func startEngineWith(t *testing.T, agent Agent, cfg Config, prepare func(*Engine)) *harness {
	t.Helper()
	env := startEnvUnstarted(t)
	ctx, cancel := context.WithCancel(context.Background())
	e := New(Options{Config: cfg, Env: env, Agent: agent})
	if prepare != nil {
		prepare(e)
	}
	h := &harness{t: t, e: e, ctx: ctx, cancel: cancel, done: make(chan error, 1)}
	go func() { h.done <- e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		for range e.Events() {
		}
	})
	return h
}

func startEnvUnstarted(t *testing.T) *env.Env {
	t.Helper()
	story, _ := zork(t)
	env, err := env.NewEnv(story, env.EnvOptions{Seed: 12, Binding: zorkBinding(t)})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// until collects events up to and including the first one of type stop,
// leaving out streaming deltas (which may be dropped by design).
func (h *harness) until(stop Event) []string {
	h.t.Helper()
	var names []string
	want := reflect.TypeOf(stop)
	for ev := range h.e.Events() {
		if _, ok := ev.(ReasoningDelta); ok {
			continue
		}
		n := reflect.TypeOf(ev).Name()
		switch v := ev.(type) {
		case TurnResult:
			n += fmt.Sprintf("(%s:%s)", v.Actor, v.Action)
		case Idle:
			n += "(" + string(v.Mode) + ")"
		case ErrorEvent:
			n += "(" + v.Err.Error() + ")"
		}
		names = append(names, n)
		if reflect.TypeOf(ev) == want {
			return names
		}
	}
	h.t.Fatalf("events ended before %s: %v", want.Name(), names)
	return nil
}

func (h *harness) send(c Command) {
	if err := h.e.Send(h.ctx, c); err != nil {
		h.t.Fatal(err)
	}
}

func expect(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("events\n got: %v\nwant: %v", got, want)
	}
}

func TestEngineStepPauseResumeQuit(t *testing.T) {
	g := newGateAgent()
	h := startEngine(t, g, Config{StartPaused: true})
	expect(t, h.until(Idle{}), "EpisodeStarted", "MapChanged", "Idle(paused)")

	g.proposals <- Proposal{Action: "open mailbox", Reasoning: "see what is inside"}
	h.send(Step{})
	<-g.started
	expect(t, h.until(Idle{}), "TurnStarted", "ProposalMade", "CriticVerdict", "TurnResult(agent:open mailbox)", "TurnCompleted", "Idle(paused)")

	// Resume runs turns until paused again.
	g.proposals <- Proposal{Action: "north"}
	h.send(Unpause{})
	<-g.started
	<-g.started // the second turn's proposal is waiting: the first was played
	h.send(Pause{})
	g.proposals <- Proposal{Action: "east"}
	expect(t, h.until(Idle{}), "TurnStarted", "ProposalMade", "CriticVerdict", "TurnResult(agent:north)", "MapChanged", "TurnCompleted",
		"TurnStarted", "ProposalMade", "CriticVerdict", "TurnResult(agent:east)", "MapChanged", "TurnCompleted", "Idle(paused)")

	h.send(Quit{})
	expect(t, h.until(Stopped{}), "Stopped")
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
}

func TestEngineOverrideWhilePaused(t *testing.T) {
	h := startEngine(t, newGateAgent(), Config{StartPaused: true})
	h.until(Idle{})
	h.send(Override{Text: "open mailbox\x1b[2J"})
	got := h.until(Idle{})
	expect(t, got, "TurnStarted", "TurnResult(human:open mailbox[2J)", "TurnCompleted", "Idle(paused)")
}

func TestEngineOverrideCancelsStreamingProposal(t *testing.T) {
	g := newGateAgent()
	h := startEngine(t, g, Config{})
	h.until(MapChanged{}) // the opening: its start, then its new room
	<-g.started           // the agent is mid-proposal
	h.send(Override{Text: "open mailbox", Cancel: true})
	expect(t, h.until(Idle{}), "TurnStarted", "TurnStarted", "TurnResult(human:open mailbox)", "TurnCompleted", "Idle(paused)")
}

func TestEngineCancelTurnAndQuitMidTurn(t *testing.T) {
	g := newGateAgent()
	h := startEngine(t, g, Config{})
	h.until(MapChanged{})
	<-g.started
	h.send(CancelTurn{})
	expect(t, h.until(Idle{}), "TurnStarted", "Idle(paused)")
	h.send(Step{})
	<-g.started
	h.send(Quit{})
	expect(t, h.until(Stopped{}), "TurnStarted", "Stopped")
}

func TestEngineRecoversAgentPanic(t *testing.T) {
	g := newGateAgent()
	g.panicOn = "boom"
	h := startEngine(t, g, Config{StartPaused: true, MaxFailures: 1})
	h.until(Idle{})
	g.proposals <- Proposal{Action: "boom"}
	h.send(Step{})
	got := h.until(Idle{})
	if len(got) != 3 || !strings.HasPrefix(got[1], "ErrorEvent(agent panic: agent blew up") {
		t.Fatalf("events %v", got)
	}
}

func TestScriptAgentPlaysZorkThroughTheLoop(t *testing.T) {
	cmds := walkthrough(t)
	agent, err := NewScriptAgent(strings.NewReader(strings.Join(cmds, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	env := startEnvUnstarted(t)
	e := New(Options{Env: env, Agent: agent})
	go e.Run(context.Background())
	var last TurnResult
	turns, rooms := 0, 0
	var stopped error
	for ev := range e.Events() {
		switch v := ev.(type) {
		case TurnResult:
			last = v
			if v.Turn > 0 {
				turns++
			}
		case MapChanged:
			rooms = v.Rooms
		case Stopped:
			stopped = v.Err
		case ErrorEvent:
			t.Errorf("error event: %v", v.Err)
		}
	}
	if stopped != nil && !errors.Is(stopped, context.Canceled) {
		t.Fatal(stopped)
	}
	if turns != len(cmds) || last.Observation.Score != 350 {
		t.Fatalf("%d turns, final score %d; want %d turns and 350", turns, last.Observation.Score, len(cmds))
	}
	if rooms < 80 {
		t.Errorf("map has %d rooms", rooms)
	}
}

// TestEnginePersonEndsEpisode: EndEpisode while the agent thinks drops the
// turn, ends the episode as the person's decision and, with no episode
// limit, starts the next one (paused, as it was).
func TestEnginePersonEndsEpisode(t *testing.T) {
	g := newGateAgent()
	h := startEngine(t, g, Config{StartPaused: true, Episodes: -1})
	h.until(Idle{})
	h.send(Override{Text: "open mailbox"})
	h.until(Idle{})
	h.send(Step{})
	<-g.started
	h.send(EndEpisode{})
	var ended EpisodeEnded
	var names []string
	for ev := range h.e.Events() {
		switch v := ev.(type) {
		case ReasoningDelta:
			continue
		case EpisodeEnded:
			ended = v
		case TurnResult:
			t.Fatalf("turn %d played after EndEpisode", v.Turn)
		}
		names = append(names, reflect.TypeOf(ev).Name())
		if _, ok := ev.(Idle); ok {
			break
		}
	}
	expect(t, names, "TurnStarted", "EpisodeEnded", "EpisodeStarted", "MapChanged", "Idle")
	if ended.Reason != env.EndPerson || ended.Episode != 1 || ended.Turns != 1 {
		t.Fatalf("ended %+v", ended)
	}
}
