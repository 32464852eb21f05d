package session

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// soakLoop is a walk around the demo that never ends the game and never
// fails a move (the critic's ground truth then never rejects it): Muddy
// Lane, the orchard, up the tree and down, behind the cottage and back, the
// lane, the well and back, the orchard and back. Its length divides the
// episode's turn cap, so every episode starts the loop at the lane.
func soakLoop() []string {
	return []string{"north", "up", "down", "east", "west", "south", "south", "north", "north", "south"}
}

// loopAgent asks the agent's model every turn (the whole call path:
// prompt, stream, schema, decode) but plays its own loop of moves, so a
// long run keeps moving whatever the fake answers.
type loopAgent struct {
	engine.LLMAgent
	loop *cycleAgent
}

func (a loopAgent) Propose(ctx context.Context, prompt []llm.Message, rejected []string, turn int, onDelta func(llm.Delta)) (engine.Proposal, error) {
	p, err := a.LLMAgent.Propose(ctx, prompt, rejected, turn, onDelta)
	if err != nil {
		return p, err
	}
	next, _ := a.loop.Propose(ctx, prompt, rejected, turn, onDelta)
	p.Action = next.Action
	return p, nil
}

// soakSession opens a session on the demo with every manager on (memory
// synthesis, objectives, knowledge, supervisor, the model critic) and a
// zero-latency fake model answering every role; the fake keeps no
// requests.
func soakSession(tb testing.TB, cfg engine.Config) (*Session, *llmtest.Server) {
	tb.Helper()
	client, fake := llmtest.NewClient(tb, "fake")
	fake.KeepRequests(false)
	fake.Always("agent", llmtest.Role(config.RoleAgent), llmtest.Reply{Content: `{"reasoning": "Keep walking the loop; the orchard tree can be climbed.",
		"action": "north", "remember": "The orchard tree can be climbed", "remember_importance": 10}`})
	fake.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 5, "justification": "a known exit"}`})
	fake.Always("memory", llmtest.Role(config.RoleMemory),
		memReply(true, "DISCOVERY", "Exits lead on from here", "Every exit from here leads to another room of the loop.", "ACTIVE"))
	fake.ScriptPlanning()
	story, binding := demoStory(tb)
	sess, err := Open(Options{Story: story, Name: demo.FileName, Binding: binding, WorkDir: tb.TempDir(), Client: client,
		Agent: loopAgent{LLMAgent: engine.LLMAgent{Client: client}, loop: &cycleAgent{actions: soakLoop()}}, Autosave: true,
		Engine: cfg, Planning: DefaultPlanning()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sess.Close() })
	return sess, fake
}

// peakRSS is the process's peak resident set (VmHWM), in bytes.
func peakRSS(tb testing.TB) int64 {
	tb.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skipf("no /proc/self/status (Linux only): %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			f := bytes.Fields(rest) // "123456 kB"
			kb, err := strconv.ParseInt(string(f[0]), 10, 64)
			if err != nil {
				tb.Fatalf("VmHWM: %v", err)
			}
			return kb << 10
		}
	}
	tb.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// cpuTime is the process's CPU time so far (user and system): unlike the
// wall time it hardly moves with the machine's other work.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func mean(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

// TestSoak plays 10,000 headless turns (20 episodes of 500) with every
// manager on and a zero-latency fake model. A turn's overhead (its whole
// wall time: the model answers at once) must not grow with the turn count,
// and the process must stay under 200 MB resident. Long: LANTERN_SOAK=1.
func TestSoak(t *testing.T) {
	if os.Getenv("LANTERN_SOAK") != "1" {
		t.Skip("10,000 turns take minutes: set LANTERN_SOAK=1")
	}
	const (
		episodes = 20
		maxTurns = 500
		total    = episodes * maxTurns
		window   = 1000
		maxRSS   = 200 << 20
	)
	if maxTurns%len(soakLoop()) != 0 {
		t.Fatalf("the loop of %d moves does not divide the turn cap %d", len(soakLoop()), maxTurns)
	}
	sess, fake := soakSession(t, engine.Config{MaxTurns: maxTurns, Episodes: episodes, Seed: 1, CriticThreshold: -0.2})
	start := time.Now()
	go sess.Engine.Run(context.Background())

	turn := make([]time.Duration, 0, total)    // each turn's wall time (model calls included)
	harness := make([]time.Duration, 0, total) // the same without the agent's and critic's calls
	var heapAt1000 uint64
	cpu := []time.Duration{cpuTime(t)} // at the start, after the first window, before the last, at the end
	errs, ended := 0, 0
	for ev := range sess.Engine.Events() {
		switch v := ev.(type) {
		case engine.TurnCompleted:
			turn = append(turn, v.Duration)
			harness = append(harness, v.Duration-v.Result.LLMTime)
			switch len(turn) {
			case window:
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				heapAt1000 = ms.HeapInuse
				cpu = append(cpu, cpuTime(t))
			case total - window, total:
				cpu = append(cpu, cpuTime(t))
			}
		case engine.EpisodeEnded:
			ended++
		case engine.ErrorEvent:
			if errs++; errs <= 10 {
				t.Errorf("turn %d: %v", v.Turn, v.Err)
			}
		case engine.Stopped:
			if v.Err != nil {
				t.Errorf("stopped: %v", v.Err)
			}
		}
	}
	wall := time.Since(start)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss := peakRSS(t)

	if len(turn) != total || ended != episodes {
		t.Fatalf("%d turns in %d episodes, want %d in %d", len(turn), ended, total, episodes)
	}
	first, last := mean(turn[:window]), mean(turn[total-window:])
	t.Logf("%d turns in %v (%.0f turns/s); %d model calls", total, wall.Round(time.Millisecond), float64(total)/wall.Seconds(),
		sess.client.Metrics.All().Calls)
	t.Logf("mean turn: first %d %v, last %d %v (×%.2f); medians %v, %v; without the agent's and critic's calls (means): %v, %v",
		window, first, window, last, float64(last)/float64(first), median(turn[:window]), median(turn[total-window:]),
		mean(harness[:window]), mean(harness[total-window:]))
	// Within an episode (a checkpoint or a history that grows per turn
	// would show here): its first and last 50 turns over every episode.
	var early, late []time.Duration
	for i, d := range turn {
		switch n := i % maxTurns; {
		case n < 50:
			early = append(early, d)
		case n >= maxTurns-50:
			late = append(late, d)
		}
	}
	if len(cpu) == 4 {
		t.Logf("CPU time per turn (the whole process): first %d %v, last %d %v (×%.2f)", window, (cpu[1]-cpu[0])/window,
			window, (cpu[3]-cpu[2])/window, float64(cpu[3]-cpu[2])/float64(cpu[1]-cpu[0]))
	}
	t.Logf("within episodes: turns 1-50 %v, turns %d-%d %v", mean(early), maxTurns-49, maxTurns, mean(late))
	var perEpisode []string
	for ep := range episodes {
		perEpisode = append(perEpisode, mean(turn[ep*maxTurns:(ep+1)*maxTurns]).Round(100*time.Microsecond).String())
	}
	t.Logf("mean turn by episode: %s", strings.Join(perEpisode, " "))
	t.Logf("peak RSS (VmHWM) %.1f MB; heap in use %.1f MB after %d turns, %.1f MB at the end; requests kept by the fake: %d",
		float64(rss)/(1<<20), float64(heapAt1000)/(1<<20), window, float64(ms.HeapInuse)/(1<<20), len(fake.Requests()))
	if db, err := os.Stat(filepath.Join(sess.Dir, "lantern.db")); err == nil {
		t.Logf("lantern.db %.1f MB", float64(db.Size())/(1<<20))
	}
	if float64(last) > 1.5*float64(first) {
		t.Errorf("the last %d turns took %v each, the first %d %v: more than 1.5× (overhead grows with the turn count)", window, last, window, first)
	}
	if rss > maxRSS {
		t.Errorf("peak RSS %.1f MB, want under %d MB", float64(rss)/(1<<20), maxRSS>>20)
	}
}

// BenchmarkTurnAllManagers is one turn on the demo with every manager on
// and a zero-latency fake model (BenchmarkTurnOverhead has no model at
// all): what Lantern itself costs a turn, the model's answers aside.
func BenchmarkTurnAllManagers(b *testing.B) {
	sess, _ := soakSession(b, engine.Config{Seed: 1, CriticThreshold: -0.2, StartPaused: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go sess.Engine.Run(ctx)
	await(b, sess.Engine, isIdle)
	for b.Loop() {
		if err := sess.Engine.Send(ctx, engine.Step{}); err != nil {
			b.Fatal(err)
		}
		await(b, sess.Engine, isIdle)
	}
}

// TestTurnMetricsPerEpisode: a turn's model metrics (the status bar's, and
// lantern.db's token counts) are that turn's, not the sum of the same turn
// number over every episode so far (the soak found them growing).
func TestTurnMetricsPerEpisode(t *testing.T) {
	sess, _ := soakSession(t, engine.Config{MaxTurns: 2, Episodes: 3, Seed: 1, CriticThreshold: -0.2})
	n := 0
	var fromEvents []int
	for _, ev := range runAll(t, sess) {
		switch v := ev.(type) {
		case engine.TurnCompleted:
			n++
			// Every turn asks the agent and the critic once, and memory
			// synthesis when its triggers fire; an episode's first turn
			// also discovers objectives; the fake counts 42 prompt tokens a
			// call. A sum over episodes would exceed both.
			fromEvents = append(fromEvents, v.LLM.PromptTokens, v.LLM.EvalTokens)
			most := 3
			if v.Result.Turn == 1 {
				most = 4
			}
			if v.LLM.Calls < 2 || v.LLM.Calls > most || v.LLM.PromptTokens != 42*v.LLM.Calls {
				t.Errorf("turn %d (%d turns played): model metrics %+v, want 2 to %d calls of 42 prompt tokens", v.Result.Turn, n, v.LLM, most)
			}
		case engine.ErrorEvent:
			t.Errorf("turn %d: %v", v.Turn, v.Err)
		}
	}
	if n != 6 {
		t.Fatalf("%d turns played, want 6", n)
	}
	// lantern.db holds the same counts as the status bar's event, turn by
	// turn: the managers' calls included.
	var rows []int
	for ep := int64(1); ep <= 3; ep++ {
		turns, err := sess.DB.Turns(context.Background(), ep)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range turns {
			rows = append(rows, r.PromptTokens, r.EvalTokens)
		}
	}
	if fmt.Sprint(rows) != fmt.Sprint(fromEvents) {
		t.Errorf("lantern.db's prompt and reply tokens by turn %v, the status events' %v", rows, fromEvents)
	}
}
