package engine

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// listAgent proposes its actions in order, one per call.
type listAgent struct {
	actions  []string
	rejected [][]string
}

func (l *listAgent) Propose(_ context.Context, _ []llm.Message, rejected []string, _ int, _ func(llm.Delta)) (Proposal, error) {
	l.rejected = append(l.rejected, rejected)
	a := l.actions[0]
	l.actions = l.actions[1:]
	return Proposal{Action: a}, nil
}

func (*listAgent) Scripted() bool { return false }

func critique(score int) llmtest.Reply {
	return llmtest.Reply{Content: `{"score": ` + strconv.Itoa(score) + `, "justification": "because"}`}
}

// oneTurn plays one agent turn with a critic that asks its model about
// every proposal and returns its verdicts and the action played.
func oneTurn(t *testing.T, agent Agent, client *llm.Client) ([]CriticVerdict, string) {
	t.Helper()
	return oneTurnMode(t, agent, client, CriticAlways)
}

// oneTurnMode plays one agent turn with the critic in mode.
func oneTurnMode(t *testing.T, agent Agent, client *llm.Client, mode CriticMode) ([]CriticVerdict, string) {
	t.Helper()
	return oneTurnWith(t, agent, client, Config{CriticMode: mode})
}

// oneTurnWith plays one agent turn with the engine configured by cfg.
func oneTurnWith(t *testing.T, agent Agent, client *llm.Client, cfg Config) ([]CriticVerdict, string) {
	t.Helper()
	env := startEnvUnstarted(t)
	cfg.StartPaused, cfg.CriticThreshold = true, -0.2
	e := New(Options{Config: cfg, Env: env, Agent: agent, Critic: NewCritic(client, -0.2), Client: client})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	var verdicts []CriticVerdict
	played := ""
	idle := 0
	for ev := range e.Events() {
		switch v := ev.(type) {
		case CriticVerdict:
			verdicts = append(verdicts, v)
		case TurnResult:
			if v.Turn > 0 {
				played = v.Action
			}
		case Idle:
			idle++
			if idle == 1 {
				e.Send(ctx, Step{})
			} else {
				return verdicts, played
			}
		}
	}
	return verdicts, played
}

func TestCriticRejectsAndRetries(t *testing.T) {
	client, fake := fakeClient(t)
	fake.On("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": -8, "justification": "pointless"}`}, critique(6))
	agent := &listAgent{actions: []string{"wait", "open mailbox"}}
	verdicts, played := oneTurn(t, agent, client)
	if len(verdicts) != 2 || verdicts[0].Accepted || !verdicts[1].Accepted || played != "open mailbox" {
		t.Fatalf("verdicts %+v, played %q", verdicts, played)
	}
	if len(agent.rejected[1]) != 1 {
		t.Errorf("the second proposal should know the first was rejected: %v", agent.rejected)
	}
}

func TestCriticCapTakesTheBest(t *testing.T) {
	client, fake := fakeClient(t)
	fake.On("critic", llmtest.Role(config.RoleCritic),
		llmtest.Reply{Content: `{"score": -9, "justification": "no"}`},
		llmtest.Reply{Content: `{"score": -3, "justification": "meh"}`},
		llmtest.Reply{Content: `{"score": -7, "justification": "no"}`})
	agent := &listAgent{actions: []string{"wait", "open mailbox", "look"}}
	verdicts, played := oneTurn(t, agent, client)
	if len(verdicts) != 3 || played != "open mailbox" {
		t.Fatalf("after 3 rejections the best (open mailbox, -0.3) should be played: %+v, played %q", verdicts, played)
	}
}

func TestCriticGroundTruthSkipsTheModel(t *testing.T) {
	client, fake := fakeClient(t)
	fake.On("critic", llmtest.Role(config.RoleCritic), critique(5))
	agent := &listAgent{actions: []string{"xyzzyplugh mailbox", "take sword", "open mailbox"}}
	verdicts, played := oneTurn(t, agent, client)
	if len(verdicts) != 3 || verdicts[0].Stage != "ground-truth" || verdicts[1].Stage != "ground-truth" || verdicts[2].Stage != "model" {
		t.Fatalf("verdicts %+v", verdicts)
	}
	if played != "open mailbox" || len(fake.ChatRequests()) != 1 {
		t.Errorf("played %q with %d model calls; the unknown word and the sword not in scope need no model", played, len(fake.ChatRequests()))
	}
}

func TestCriticOverrideRateLowersThreshold(t *testing.T) {
	c := NewCritic(nil, -0.2)
	for i := 0; i < 6; i++ {
		v := Verdict{Action: "a", Score: -0.9}
		c.reject(i, "open door", v)
		c.Observe(i, "open door", i%3 != 0) // 4 of 6 rejections were wrong
	}
	if r := c.OverrideRate(); r < 0.66 || r > 0.67 {
		t.Fatalf("override rate %v, want 4/6", r)
	}
	if th := c.Threshold(); th > -0.5 {
		t.Errorf("threshold %v should drop when most rejections were wrong", th)
	}
	fresh := NewCritic(nil, -0.2)
	if fresh.Threshold() != -0.2 {
		t.Errorf("a critic with no record keeps its threshold")
	}
}

func TestCriticLetsTheAgentInsistOnce(t *testing.T) {
	client, fake := fakeClient(t)
	fake.On("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": -6, "justification": "no"}`}, llmtest.Reply{Content: `{"score": -6, "justification": "no"}`})
	agent := &listAgent{actions: []string{"open mailbox", "open mailbox"}}
	verdicts, played := oneTurn(t, agent, client)
	if len(verdicts) != 2 || verdicts[1].Stage != "insist" || played != "open mailbox" {
		t.Fatalf("verdicts %+v played %q", verdicts, played)
	}
}

// TestCriticAsksTheModelOnlyWhereTheGameCannotDecide: in the uncertain
// mode (the default) a move the game confirms is accepted without the
// model, whose fake fails on any call not scripted; a move outside what
// the game confirms goes to the model.
func TestCriticAsksTheModelOnlyWhereTheGameCannotDecide(t *testing.T) {
	tests := []struct {
		name    string
		mode    CriticMode
		actions []string
		scores  []int // the model's replies, in order
		stages  []Stage
	}{
		{"a valid action", CriticUncertain, []string{"open mailbox"}, nil, []Stage{StageGame}},
		{"an exit probing finds", CriticUncertain, []string{"n"}, nil, []Stage{StageGame}},
		{"a known verb on an object here", CriticUncertain, []string{"examine the small mailbox"}, nil, []Stage{StageGame}},
		{"outside the set", CriticUncertain, []string{"jump"}, []int{5}, []Stage{StageModel}},
		{"an exit that leads nowhere", CriticUncertain, []string{"east"}, []int{-8, 5}, []Stage{StageModel, StageModel}},
		{"refused by the game first", CriticUncertain, []string{"take sword", "jump"}, []int{5}, []Stage{StageGroundTruth, StageModel}},
		{"always asks", CriticAlways, []string{"open mailbox"}, []int{6}, []Stage{StageModel}},
		{"an engine's zero config always asks", "", []string{"north"}, []int{6}, []Stage{StageModel}},
		{"never asks", CriticNever, []string{"jump"}, nil, []Stage{StageGroundTruth}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, fake := fakeClient(t)
			if len(tt.scores) > 0 {
				var replies []llmtest.Reply
				for _, s := range tt.scores {
					replies = append(replies, critique(s))
				}
				fake.On("critic", llmtest.Role(config.RoleCritic), replies...)
			}
			actions := tt.actions
			if tt.name == "an exit that leads nowhere" {
				actions = append(actions, "jump")
			}
			verdicts, played := oneTurnMode(t, &listAgent{actions: actions}, client, tt.mode)
			if len(verdicts) != len(tt.stages) {
				t.Fatalf("verdicts %+v, want stages %v", verdicts, tt.stages)
			}
			for i, v := range verdicts {
				if v.Stage != tt.stages[i] {
					t.Errorf("verdict %d %+v, want stage %s", i+1, v, tt.stages[i])
				}
			}
			if played != actions[len(verdicts)-1] {
				t.Errorf("played %q", played)
			}
			if got := len(fake.ChatRequests()); got != len(tt.scores) {
				t.Errorf("%d critic model calls, want %d", got, len(tt.scores))
			}
		})
	}
}

// promptAgent proposes one action and keeps the prompts it was given.
type promptAgent struct {
	action  string
	prompts []string
}

func (p *promptAgent) Propose(_ context.Context, prompt []llm.Message, _ []string, _ int, _ func(llm.Delta)) (Proposal, error) {
	p.prompts = append(p.prompts, prompt[len(prompt)-1].Content)
	return Proposal{Action: p.action}, nil
}

func (*promptAgent) Scripted() bool { return false }

func TestThingsYouCanDoHereInThePrompt(t *testing.T) {
	for _, on := range []bool{false, true} {
		client, _ := fakeClient(t)
		agent := &promptAgent{action: "open mailbox"}
		oneTurnWith(t, agent, client, Config{CanDoHint: on, CriticMode: CriticUncertain})
		if len(agent.prompts) != 1 {
			t.Fatalf("%d prompts", len(agent.prompts))
		}
		const want = "Things you can do here: north, south, west, northeast, southeast, open mailbox."
		if got := strings.Contains(agent.prompts[0], want); got != on {
			t.Errorf("hint %v: the prompt holds %q: %v\n%s", on, want, got, agent.prompts[0])
		}
	}
}
