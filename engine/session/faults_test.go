package session

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/memory"
)

// faultRetry is the fault matrix's retry policy: the attempts are counted,
// the backoff is a millisecond.
func faultRetry() llm.RetryPolicy {
	return llm.RetryPolicy{Attempts: 3, Backoff: time.Millisecond, Max: 2 * time.Millisecond}
}

// switchboard carries the client's connections to the fake server or, while
// the server is down, to a loopback address where nothing listens, so
// connections are really refused and the server can come back at the same
// host.
type switchboard struct {
	up, down string
	isDown   atomic.Bool
	refused  atomic.Int32 // dials made while down
	tr       *http.Transport
}

func newSwitchboard(t *testing.T, up string) *switchboard {
	sb := &switchboard{up: up, down: llmtest.RefusedHost(t)}
	d := &net.Dialer{Timeout: time.Second}
	sb.tr = &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		if sb.isDown.Load() {
			sb.refused.Add(1)
			return d.DialContext(ctx, network, sb.down)
		}
		return d.DialContext(ctx, network, sb.up)
	}}
	t.Cleanup(sb.tr.CloseIdleConnections)
	return sb
}

// setDown takes the server down or brings it back; kept-alive connections
// are closed so the next request dials.
func (sb *switchboard) setDown(down bool) {
	sb.isDown.Store(down)
	sb.tr.CloseIdleConnections()
}

// faultClient is a client of a fresh fake server (one model, "fake") over a
// switchboard; the agent role times out after agentTimeout.
func faultClient(t *testing.T, agentTimeout time.Duration) (*llm.Client, *llmtest.Server, *switchboard) {
	t.Helper()
	fake := llmtest.New(t)
	fake.AddModel("fake", 8192)
	roles := config.DefaultRoles()
	for k, r := range roles {
		r.Model, r.Timeout = "fake", 10*time.Second
		if k == config.RoleAgent {
			r.Timeout = agentTimeout
		}
		roles[k] = r
	}
	sb := newSwitchboard(t, fake.Host())
	c, err := llm.New(llm.Options{Host: fake.Host(), Roles: roles, Retry: faultRetry(), HTTPClient: &http.Client{Transport: sb.tr}})
	if err != nil {
		t.Fatal(err)
	}
	return c, fake, sb
}

// await reads the engine's events up to and including the first that stop
// accepts, leaving out streaming deltas. It fails the test when the events
// end first, or when stop has accepted none after 20 s (a hung or busy
// engine).
func await(t testing.TB, e *engine.Engine, stop func(engine.Event) bool) []engine.Event {
	t.Helper()
	var evs []engine.Event
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-e.Events():
			if !ok {
				t.Fatalf("the events ended early: %#v", evs)
			}
			if _, delta := ev.(engine.ReasoningDelta); delta {
				continue
			}
			evs = append(evs, ev)
			if stop(ev) {
				return evs
			}
		case <-deadline:
			t.Fatalf("still waiting after 20 s (a hung or busy engine); %d events so far, the last: %#v", len(evs), evs[max(len(evs)-5, 0):])
		}
	}
}

func isIdle(ev engine.Event) bool    { _, ok := ev.(engine.Idle); return ok }
func isStopped(ev engine.Event) bool { _, ok := ev.(engine.Stopped); return ok }

// agentCalls counts the agent role's chat requests the fake has seen.
func agentCalls(fake *llmtest.Server) int {
	n := 0
	for _, r := range fake.ChatRequests() {
		if r.Role == config.RoleAgent {
			n++
		}
	}
	return n
}

func proposalReply(action string) llmtest.Reply {
	return llmtest.Reply{Content: `{"reasoning": "The walkthrough says ` + action + `.", "action": "` + action + `", "remember": "", "remember_importance": 0}`}
}

// TestFaultMatrix drives each model fault through the whole engine: a
// session on the demo whose LLM agent plays turn 1, then fails turn 2 until
// the engine pauses, then plays turn 2 once the fault is cleared and the
// person resumes.
func TestFaultMatrix(t *testing.T) {
	const maxFailures = 2
	const shortTimeout = 500 * time.Millisecond
	retries := faultRetry().Attempts
	cases := []struct {
		name     string
		reply    llmtest.Reply // the agent's reply while the fault lasts
		refused  bool          // the server is down instead
		timeout  time.Duration // the agent role's timeout (0: 10 s)
		want     error
		attempts int  // requests per failed proposal
		final    bool // no retry can help: the engine pauses at the first failure
	}{
		{name: "HTTP 500", reply: llmtest.Reply{Fault: llmtest.HTTP500}, want: llm.ErrServer, attempts: retries},
		{name: "model not found", reply: llmtest.Reply{Fault: llmtest.NotFound}, want: llm.ErrModelNotFound, attempts: 1, final: true},
		{name: "bad request", reply: llmtest.Reply{Fault: llmtest.BadRequest}, want: llm.ErrBadRequest, attempts: 1, final: true},
		{name: "slow first byte", reply: llmtest.Reply{Fault: llmtest.SlowFirstByte, Delay: time.Minute},
			timeout: shortTimeout, want: llm.ErrTimeout, attempts: 1},
		{name: "stream cut midway", reply: llmtest.Reply{Fault: llmtest.CutMidStream, Content: proposalReply("north").Content},
			want: llm.ErrStreamCut, attempts: retries},
		{name: "malformed JSON", reply: llmtest.Reply{Fault: llmtest.MalformedJSON, Content: proposalReply("north").Content},
			want: llm.ErrMalformed, attempts: retries},
		{name: "stream never ends", reply: llmtest.Reply{Fault: llmtest.NeverEnds, Content: `{"reasoning": "`},
			timeout: shortTimeout, want: llm.ErrTimeout, attempts: 1},
		{name: "connection refused", refused: true, want: llm.ErrUnreachable, attempts: retries},
		{name: "schema-invalid JSON", reply: llmtest.Reply{Content: `{"reasoning": "no action", "action": 7, "remember": "", "remember_importance": 0}`},
			want: llm.ErrInvalidReply, attempts: llm.MaxFormatAttempts},
		{name: "empty reply", reply: llmtest.Reply{}, want: llm.ErrEmptyReply, attempts: retries},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 10 * time.Second
			}
			fails := maxFailures
			if tc.final {
				fails = 1
			}
			client, fake, sb := faultClient(t, timeout)
			// Turn 1 plays; turn 2 fails maxFailures times (once when no retry can help) (every attempt of
			// every proposal); then the fault is gone and turn 2 plays. The
			// fake fails the test on any call beyond these (no busy loop).
			replies := []llmtest.Reply{proposalReply("north")}
			if !tc.refused {
				for range fails * tc.attempts {
					replies = append(replies, tc.reply)
				}
			}
			replies = append(replies, proposalReply("up"))
			fake.On("agent", llmtest.Role(config.RoleAgent), replies...)
			fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 5, "justification": "fine"}`})
			fake.Always("memory", llmtest.Role(config.RoleMemory),
				memReply(true, "DISCOVERY", "The orchard is north of the lane", "North of the muddy lane is an orchard.", "ACTIVE"))

			story, binding := demoStory(t)
			sess, err := Open(Options{Story: story, Name: demo.FileName, Binding: binding, WorkDir: t.TempDir(),
				Client: client, Autosave: true,
				Engine: engine.Config{MaxTurns: 2, MaxFailures: maxFailures, StartPaused: true, Seed: 1, CriticThreshold: -0.2}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sess.Close() })
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(func() { // before Close: the engine has stopped
				cancel()
				for range sess.Engine.Events() {
				}
			})
			done := make(chan error, 1)
			go func() { done <- sess.Engine.Run(ctx) }()
			send := func(c engine.Command) {
				t.Helper()
				if err := sess.Engine.Send(ctx, c); err != nil {
					t.Fatal(err)
				}
			}

			await(t, sess.Engine, isIdle)
			send(engine.Step{})
			evs := await(t, sess.Engine, isIdle)
			if errs := errorsIn(evs); len(errs) > 0 {
				t.Fatalf("turn 1: %q", errs)
			}
			// A session's autosave is the turn's checkpoint in lantern.db.
			save, ok, err := sess.DB.LastCheckpoint(ctx)
			if err != nil || !ok || save.Turn != 1 || len(save.Machine) == 0 {
				t.Fatalf("no autosave after turn 1: checkpoint of turn %d, present %v (%v)", save.Turn, ok, err)
			}
			mems, err := os.ReadFile(sess.Memories.Path())
			if err != nil {
				t.Fatalf("no Memories.md after turn 1: %v", err)
			}
			callsBefore := agentCalls(fake)

			// The fault: the engine tries turn 2, fails, and pauses.
			sb.setDown(tc.refused)
			send(engine.Unpause{})
			evs = await(t, sess.Engine, isIdle)
			var failures []engine.ErrorEvent
			for _, ev := range evs {
				switch v := ev.(type) {
				case engine.ErrorEvent:
					failures = append(failures, v)
				case engine.TurnResult, engine.ProposalMade, engine.CriticVerdict:
					t.Errorf("%T during the fault: %+v", ev, v)
				case engine.TurnStarted:
					if v.Turn != 2 {
						t.Errorf("turn %d started during the fault, want 2 again", v.Turn)
					}
				}
			}
			if idle := evs[len(evs)-1].(engine.Idle); idle.Mode != engine.Paused || idle.Turn != 1 {
				t.Errorf("after the failures: %+v, want paused at turn 1", idle)
			}
			if len(failures) != fails {
				t.Errorf("%d error events, want %d", len(failures), fails)
			}
			for i, f := range failures {
				if i == 0 {
					t.Logf("turn %d: %v", f.Turn, f.Err)
				}
				var le *llm.Error
				switch {
				case !errors.Is(f.Err, tc.want):
					t.Errorf("error %v, want %v", f.Err, tc.want)
				case !errors.As(f.Err, &le):
					t.Errorf("error %T (%v) is not an *llm.Error", f.Err, f.Err)
				case le.Role != config.RoleAgent || le.Attempts != tc.attempts:
					t.Errorf("error %v: role %q after %d attempts, want %q after %d", f.Err, le.Role, le.Attempts, config.RoleAgent, tc.attempts)
				}
				if f.Turn != 2 || f.Fatal {
					t.Errorf("error event %+v, want turn 2 and not fatal", f)
				}
			}
			wantCalls, wantRefused := fails*tc.attempts, 0
			if tc.refused {
				wantCalls, wantRefused = 0, fails*tc.attempts
			}
			if n := agentCalls(fake) - callsBefore; n != wantCalls {
				t.Errorf("the fake saw %d agent calls during the fault, want %d", n, wantCalls)
			}
			if n := int(sb.refused.Load()); n != wantRefused {
				t.Errorf("%d connections refused, want %d", n, wantRefused)
			}

			// The state is intact: the autosave (turn 1's checkpoint) and
			// the memories as turn 1 left them, no turn 2 in lantern.db.
			if cp, ok, err := sess.DB.LastCheckpoint(ctx); err != nil || !ok || cp.Turn != 1 ||
				!bytes.Equal(cp.Machine, save.Machine) || !bytes.Equal(cp.Engine, save.Engine) {
				t.Errorf("the checkpoint changed during the fault: turn %d, present %v (%v); want turn 1's, unchanged", cp.Turn, ok, err)
			}
			if got, err := os.ReadFile(sess.Memories.Path()); err != nil || !bytes.Equal(got, mems) {
				t.Errorf("Memories.md changed during the fault (%v)", err)
			}
			var out strings.Builder
			if code := memory.Check(&out, sess.Memories.Path()); code != 0 {
				t.Errorf("Memories.md does not check: %s", out.String())
			}
			if turns := dbTurns(t, sess); len(turns) != 1 {
				t.Errorf("lantern.db holds turns %v, want only turn 1", turns)
			}

			// The fault is cleared: resuming plays turn 2 (the turn cap then
			// ends the run).
			sb.setDown(false)
			send(engine.Unpause{})
			evs = await(t, sess.Engine, isStopped)
			if errs := errorsIn(evs); len(errs) > 0 {
				t.Errorf("after the fault: %q", errs)
			}
			played := 0
			for _, ev := range evs {
				if r, ok := ev.(engine.TurnResult); ok {
					if played++; played == 1 && (r.Turn != 2 || r.Action != "up") {
						t.Errorf("first turn after the fault: %d %q, want 2 \"up\"", r.Turn, r.Action)
					}
				}
			}
			if played != 1 {
				t.Errorf("%d turns played after the fault, want 1", played)
			}
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
			if turns := dbTurns(t, sess); len(turns) != 2 || turns[1] != 2 {
				t.Errorf("lantern.db holds turns %v, want 1 and 2", turns)
			}
			out.Reset()
			if code := memory.Check(&out, sess.Memories.Path()); code != 0 {
				t.Errorf("Memories.md does not check after the run: %s", out.String())
			}
		})
	}
}

// dbTurns lists the turn numbers of the session's first episode in
// lantern.db.
func dbTurns(t *testing.T, sess *Session) []int {
	t.Helper()
	turns, err := sess.DB.Turns(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, tr := range turns {
		out = append(out, tr.Turn)
	}
	return out
}
