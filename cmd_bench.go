package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/memory"
)

// `lantern bench` plays episodes headless and measures them by DESIGN.md
// §8: score, moves, deaths, turns to each score milestone, the repeated
// failed action rate, location coverage, LLM calls per turn, prompt tokens
// per turn (p50/p95), model latency (p50/p95) and harness overhead per
// turn. The report is stored in the story's lantern.db (bench_runs) beside
// the episodes and turns the run played.

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configFile := fs.String("config", "", "configuration file read in place of ./lantern.toml")
	fs.String("story", "", "story file (default: the configured one, else the built-in demo)")
	episodes := fs.Int("episodes", 3, "episodes to play")
	fs.Int("max-turns", 500, "turns per episode (default: loop.max_turns_per_episode)")
	fs.Int("seed", 0, "random seed; episode n uses seed+n-1 (default: loop.seed)")
	agentSpec := fs.String("agent", "llm", "llm, or script:FILE to replay a walkthrough (restarted each episode)")
	fs.String("model", "", "model for every role (default: the configured ones)")
	fs.String("workdir", "", "work dir (default: the configured one)")
	label := fs.String("label", "", "a name for the run (default: the agent's model, or the script)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	compare := fs.Bool("compare", false, "compare two stored runs: lantern bench --compare A B")
	list := fs.Bool("list", false, "list the stored runs of the story")
	width := fs.Int("width", 60, "width of the score chart")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: lantern bench [--story F] [--episodes N] [--max-turns N] [--agent llm|script:FILE]
                    [--model M] [--seed N] [--label L] [--json]
       lantern bench --compare A B [--story F] [--json]
       lantern bench --list [--story F]

Plays episodes headless, wired as lantern run is, and prints, per episode
and overall: score, moves, deaths, turns to each score milestone, repeated
failed action rate, location coverage, LLM calls per turn, prompt tokens per
turn p50/p95, model latency p50/p95 and harness overhead per turn; then a
chart of score over turns. The run is stored in the story's lantern.db
(in the work dir), where --compare finds it by the number printed.

--compare A B sets two runs side by side with the difference; each of A and
B is a stored run's number, "last", "prev", or a file saved from --json.

Examples:
  lantern bench --episodes 3 --max-turns 100 --model qwen3:4b
  lantern bench --agent script:game_files/demo/walkthrough.txt --episodes 2
  lantern bench --compare prev last
  lantern bench --json --model qwen3:8b > qwen3-8b.json

Flags:
`)
		fs.PrintDefaults()
	}
	if err := parseInterspersed(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *compare && *list {
		fmt.Fprintln(stderr, "lantern bench: --compare and --list do not go together")
		return exitUsage
	}
	if *compare && fs.NArg() != 2 {
		fmt.Fprintln(stderr, "lantern bench: --compare takes two runs: lantern bench --compare A B")
		return exitUsage
	}
	if !*compare && fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lantern bench: unexpected %q\n", fs.Arg(0))
		return exitUsage
	}
	if *episodes < 1 {
		fmt.Fprintln(stderr, "lantern bench: --episodes must be at least 1")
		return exitUsage
	}
	cfg := loadConfig("bench", fs, *configFile, stderr, "workdir", "story", "model", "max-turns", "seed")
	if cfg == nil {
		return exitUsage
	}
	if *compare || *list {
		db, closeDB, err := openBenchDB(cfg)
		if err != nil {
			fmt.Fprintln(stderr, "lantern bench:", err)
			return exitError
		}
		defer closeDB()
		if *list {
			return listBenchRuns(ctx, db, stdout, stderr)
		}
		return compareBenchRuns(ctx, db, fs.Arg(0), fs.Arg(1), *asJSON, *width, stdout, stderr)
	}
	_, modelSet := setFlags(fs)["model"]
	return runBench(ctx, cfg, benchOptions{episodes: *episodes, agent: *agentSpec, label: *label, modelSet: modelSet, json: *asJSON, width: *width}, stdout, stderr)
}

// setFlags lists the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]string {
	out := map[string]string{}
	fs.Visit(func(f *flag.Flag) { out[f.Name] = f.Value.String() })
	return out
}

type benchOptions struct {
	episodes int
	agent    string
	label    string
	modelSet bool
	json     bool
	width    int
}

// replayAgent plays a walkthrough from its first line at each episode: turn
// n plays line n.
type replayAgent struct{ actions []string }

func readScript(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no actions", path)
	}
	return out, nil
}

func (a *replayAgent) Propose(_ context.Context, _ []llm.Message, _ []string, turn int, onDelta func(llm.Delta)) (engine.Proposal, error) {
	if turn < 1 || turn > len(a.actions) {
		return engine.Proposal{}, engine.ErrScriptDone
	}
	r := fmt.Sprintf("Step %d of the script.", turn)
	if onDelta != nil {
		onDelta(llm.Delta{Content: r})
	}
	return engine.Proposal{Action: a.actions[turn-1], Reasoning: r}, nil
}

func (*replayAgent) Scripted() bool { return true }

// callQueue receives every model call as it finishes (from the engine's
// goroutines) until the event loop attributes it to its turn.
type callQueue struct {
	mu    sync.Mutex
	calls []llm.CallMetrics
}

func (q *callQueue) add(m llm.CallMetrics) {
	q.mu.Lock()
	q.calls = append(q.calls, m)
	q.mu.Unlock()
}

// take removes and returns turn's calls. Every call of a turn is made
// before the engine reports the turn's metrics, and calls arrive in order,
// so the turn's calls are the first run tagged with it; calls queued before
// them belong to turns that were never played (dropped with them).
func (q *callQueue) take(turn int) (calls, dropped []llm.CallMetrics) {
	q.mu.Lock()
	defer q.mu.Unlock()
	i := 0
	for i < len(q.calls) && q.calls[i].Turn != turn {
		i++
	}
	if i == len(q.calls) {
		return nil, nil
	}
	j := i
	for j < len(q.calls) && q.calls[j].Turn == turn {
		j++
	}
	calls = append(calls, q.calls[i:j]...)
	dropped = append(dropped, q.calls[:i]...)
	q.calls = append(q.calls[:0], q.calls[j:]...)
	return calls, dropped
}

// rest removes and returns every queued call.
func (q *callQueue) rest() []llm.CallMetrics {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.calls
	q.calls = nil
	return out
}

// benchEpisode is what a run keeps of one episode: its outcome and the
// per-turn series the metrics are computed from.
type benchEpisode struct {
	Episode   int                `json:"episode"`
	Ending    string             `json:"ending"`
	Score     int                `json:"score"`
	Moves     int                `json:"moves"`
	Turns     int                `json:"turns"`
	Deaths    int                `json:"deaths"`
	Actions   int                `json:"actions"`
	Repeats   int                `json:"repeated_failed_actions"`
	Visited   []int              `json:"visited"`
	Memories  []int              `json:"locations_with_memories"` // of the visited ones, at the episode's end
	Scores    []int              `json:"score_by_turn"`           // after turn 1, 2, ...
	Prompt    []int              `json:"prompt_tokens_by_turn"`
	Calls     []int              `json:"llm_calls_by_turn"`
	HarnessUS []int64            `json:"harness_us_by_turn"`
	LatencyUS []int64            `json:"latency_us_by_call"`
	EndCalls  int                `json:"llm_calls_at_episode_end"` // episode synthesis, after the last turn
	Errors    int                `json:"llm_errors"`
	Milestone []milestone        `json:"milestones"`
	Critic    engine.CriticTally `json:"critic"`
	// The person's reviews (review mode), when there were any.
	Reviews *reviewTally `json:"reviews,omitempty"`
}

// milestone is a score reached for the first time in an episode.
type milestone struct {
	Score int `json:"score"`
	Turn  int `json:"turn"`
}

// benchReport is a whole run.
type benchReport struct {
	ID        int64             `json:"id,omitempty"`
	Label     string            `json:"label"`
	Story     string            `json:"story"`
	StoryMD5  string            `json:"story_md5"`
	Release   int               `json:"release"`
	MaxScore  int               `json:"max_score,omitempty"`
	Agent     string            `json:"agent"`
	Models    map[string]string `json:"models,omitempty"`
	Host      string            `json:"ollama_host,omitempty"`
	Seed      int               `json:"seed"`
	MaxTurns  int               `json:"max_turns"`
	Requested int               `json:"episodes_requested"`
	Complete  bool              `json:"complete"`
	Error     string            `json:"error,omitempty"`
	Started   time.Time         `json:"started"`
	Ended     time.Time         `json:"ended"`
	DB        string            `json:"database,omitempty"`
	Episodes  []benchEpisode    `json:"episodes"`
	Dropped   int               `json:"llm_calls_unattributed,omitempty"`
	Summary   []benchMetrics    `json:"metrics"` // one per episode, then the whole run
}

// benchMetrics are DESIGN.md §8's metrics for an episode or a whole run.
type benchMetrics struct {
	Name               string      `json:"name"` // "episode 1", ..., "all"
	Episodes           int         `json:"episodes"`
	Ending             string      `json:"ending,omitempty"`
	Score              float64     `json:"score"` // the final score; for a run, the mean
	BestScore          int         `json:"best_score"`
	Moves              float64     `json:"moves"` // a run: the mean
	Turns              int         `json:"turns"`
	Deaths             int         `json:"deaths"`
	Milestones         []milestone `json:"milestones"` // a run: the fewest turns any episode took
	RepeatedFailedRate float64     `json:"repeated_failed_action_rate"`
	LocationCoverage   float64     `json:"location_coverage"`
	LocationsVisited   int         `json:"locations_visited"`
	LocationsCovered   int         `json:"locations_with_memories"`
	LLMCallsPerTurn    float64     `json:"llm_calls_per_turn"`
	PromptTokensP50    int         `json:"prompt_tokens_per_turn_p50"`
	PromptTokensP95    int         `json:"prompt_tokens_per_turn_p95"`
	LatencyP50MS       float64     `json:"model_latency_p50_ms"`
	LatencyP95MS       float64     `json:"model_latency_p95_ms"`
	HarnessPerTurnMS   float64     `json:"harness_overhead_per_turn_ms"`
	// The critic: proposals per judged turn, rejections by stage, and
	// rejections played anyway.
	ProposalsPerTurn     float64              `json:"critic_proposals_per_turn"`
	RejectedByStage      map[engine.Stage]int `json:"critic_rejected_by_stage"`
	OverriddenRejections int                  `json:"critic_overridden_rejections"`
	// ReviewAcceptance is the person's acceptance rate (review mode); -1
	// when nobody reviewed.
	ReviewAcceptance float64 `json:"review_acceptance_rate"`
	ReviewDecisions  int     `json:"review_decisions"`
}

func runBench(ctx context.Context, cfg *config.Config, o benchOptions, stdout, stderr io.Writer) int {
	story, name, binding, err := openStoryAndBinding(cfg.Story)
	if err != nil {
		fmt.Fprintln(stderr, "lantern bench:", err)
		return exitError
	}
	info := story.Info()
	rep := &benchReport{Story: filepath.Base(name), StoryMD5: info.MD5, Release: info.Release, MaxScore: binding.MaxScore, Agent: o.agent,
		Seed: cfg.Loop.Seed, MaxTurns: cfg.Loop.MaxTurnsPerEpisode, Requested: o.episodes, Label: o.label}

	var agent engine.Agent
	if f, ok := strings.CutPrefix(o.agent, "script:"); ok {
		acts, err := readScript(f)
		if err != nil {
			fmt.Fprintln(stderr, "lantern bench: --agent:", err)
			return exitError
		}
		agent = &replayAgent{actions: acts}
	} else if o.agent != "llm" {
		fmt.Fprintf(stderr, "lantern bench: --agent %q: want llm or script:FILE\n", o.agent)
		return exitUsage
	}
	queue := &callQueue{}
	var client *llm.Client
	if agent == nil || o.modelSet {
		client, err = newClient(cfg, queue.add)
		if err != nil {
			fmt.Fprintln(stderr, "lantern bench:", err)
			return exitError
		}
		if err := benchPreflight(ctx, client, cfg, agent == nil); err != nil {
			fmt.Fprintln(stderr, "lantern bench:", err)
			return exitError
		}
		rep.Host = client.Host()
		rep.Models = map[string]string{}
		for _, r := range config.RoleNames() {
			rep.Models[r] = cfg.Model(r)
		}
	}
	if rep.Label == "" {
		switch {
		case agent == nil:
			rep.Label = cfg.Model(config.RoleAgent)
		default:
			rep.Label = "script " + filepath.Base(strings.TrimPrefix(o.agent, "script:"))
		}
	}
	sess, err := session.Open(session.Options{
		Story: story, Name: name, Binding: binding, WorkDir: cfg.WorkDir, Client: client, Agent: agent, Autosave: true,
		Engine: engineConfig(cfg, o.episodes), MemoryWindow: cfg.Loop.MemoryHistoryWindow,
		Research: cfg.Managers.ResearchRounds, Planning: planning(cfg),
	})
	if err != nil {
		fmt.Fprintln(stderr, "lantern bench:", err)
		return exitError
	}
	defer sess.Close()
	rep.DB = filepath.Join(sess.Dir, "lantern.db")
	before, err := sess.DB.LastEpisodeID(context.Background())
	if err != nil {
		fmt.Fprintln(stderr, "lantern bench:", err)
		return exitError
	}
	fmt.Fprintf(stderr, "lantern bench: %s, %s, %d episode(s) of at most %d turns\n", rep.Story, rep.Label, o.episodes, rep.MaxTurns)
	rep.Started = time.Now()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go sess.Engine.Run(rctx)
	code := collectBench(rctx, sess, queue, rep, stderr)
	cancel()
	rep.Ended = time.Now()
	rep.Complete = len(rep.Episodes) == o.episodes && rep.Error == "" && ctx.Err() == nil
	if ctx.Err() != nil && rep.Error == "" {
		rep.Error = "interrupted"
	}
	rep.Summary = summarize(rep.Episodes)
	after, _ := sess.DB.LastEpisodeID(context.Background())
	data, err := json.Marshal(rep)
	if err != nil {
		fmt.Fprintln(stderr, "lantern bench:", err)
		return exitError
	}
	first := int64(0)
	if after > before {
		first = before + 1
	} else {
		after = 0
	}
	all := rep.Summary[len(rep.Summary)-1]
	id, err := sess.DB.SaveBenchRun(context.Background(), memory.BenchRun{Label: rep.Label, Agent: rep.Agent, Model: rep.Models[config.RoleAgent],
		Episodes: len(rep.Episodes), FirstEpisode: first, LastEpisode: after, Score: all.Score, Complete: rep.Complete,
		Started: rep.Started, Ended: rep.Ended, Report: data})
	if err != nil {
		fmt.Fprintln(stderr, "lantern bench:", err)
		code = exitError
	}
	rep.ID = id
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return exitError
		}
	} else {
		printBench(stdout, rep, o.width)
	}
	if rep.Error != "" {
		fmt.Fprintf(stderr, "lantern bench: the run stopped early: %s\n", rep.Error)
		if code == exitOK {
			code = exitError
		}
	}
	return code
}

// benchPreflight fails fast when the server or a model the run needs is
// missing, with the host or model named.
func benchPreflight(ctx context.Context, client *llm.Client, cfg *config.Config, llmAgent bool) error {
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := client.Version(tctx); err != nil {
		return err
	}
	roles := []string{config.RoleCritic, config.RoleMemory}
	if llmAgent {
		roles = append([]string{config.RoleAgent}, roles...)
	}
	for _, r := range roles {
		if err := client.CheckRole(tctx, r); err != nil {
			return err
		}
	}
	return nil
}

// collectBench reads the engine's events until it stops, filling in the
// report's episodes.
func collectBench(ctx context.Context, sess *session.Session, queue *callQueue, rep *benchReport, stderr io.Writer) int {
	var ep *benchEpisode
	visited := map[int]bool{}
	actions := 0    // played turns so far in the run
	repeatsRun := 0 // repeated failed actions so far in the run
	repeatsAt := 0  // ... when the episode began
	var llmTime time.Duration
	code := exitOK
	best := 0 // the episode's best score so far
	begin := func(n int, opening env.Observation) {
		ep = &benchEpisode{Episode: n, Critic: engine.CriticTally{Rejected: map[engine.Stage]int{}}}
		visited = map[int]bool{opening.Location.ID: true}
		repeatsAt = repeatsRun
		best = opening.Score
	}
	finish := func(ending string, score, moves, turns int) {
		if ep == nil {
			return
		}
		ep.Ending, ep.Score, ep.Moves, ep.Turns = ending, score, moves, turns
		ep.Repeats = repeatsRun - repeatsAt
		for id := range visited {
			ep.Visited = append(ep.Visited, id)
		}
		sort.Ints(ep.Visited)
		ep.Memories = withMemories(filepath.Join(sess.Dir, "Memories.md"), ep.Visited)
		rep.Episodes = append(rep.Episodes, *ep)
		fmt.Fprintf(stderr, "lantern bench: episode %d: %s, score %d in %d moves, %d turns\n", ep.Episode, ending, score, moves, turns)
		ep = nil
	}
	episode := 0
	var last env.Observation
	for ev := range sess.Engine.Events() {
		switch v := ev.(type) {
		case engine.EpisodeStarted:
			last = v.Observation
			episode++
			begin(episode, v.Observation)
		case engine.TurnResult:
			last = v.Observation
			if ep == nil {
				continue
			}
			o := v.Observation
			if o.Location.ID != 0 {
				visited[o.Location.ID] = true
			}
			if o.Died {
				ep.Deaths++
			}
			if o.Score > best {
				best = o.Score
				ep.Milestone = append(ep.Milestone, milestone{Score: o.Score, Turn: v.Turn})
			}
			ep.Scores = append(ep.Scores, o.Score)
			ep.Critic.Add(engine.Tally(v.Verdicts))
			if len(v.Reviews) > 0 {
				if ep.Reviews == nil {
					ep.Reviews = &reviewTally{}
				}
				ep.Reviews.add(v.Reviews)
			}
			llmTime = v.LLMTime
		case engine.MetricsUpdated:
			if ep == nil {
				continue
			}
			calls, dropped := queue.take(v.Turn)
			rep.Dropped += len(dropped)
			prompt, lat := 0, time.Duration(0)
			for _, c := range calls {
				prompt += c.PromptTokens
				lat += c.Latency
				ep.LatencyUS = append(ep.LatencyUS, c.Latency.Microseconds())
				if c.Err != "" {
					ep.Errors++
				}
			}
			if len(calls) == 0 {
				lat = 0
			}
			total := v.Harness + llmTime
			harness := total - lat
			if harness < 0 {
				harness = 0
			}
			ep.Prompt = append(ep.Prompt, prompt)
			ep.Calls = append(ep.Calls, len(calls))
			ep.HarnessUS = append(ep.HarnessUS, harness.Microseconds())
			actions++
			ep.Actions++
			repeatsRun = int(math.Round(v.Repeated * float64(actions)))
		case engine.EpisodeEnded:
			if ep != nil {
				// The episode synthesis runs after the last turn, before
				// this event: its calls belong to the episode, no turn.
				for _, c := range queue.rest() {
					ep.EndCalls++
					ep.LatencyUS = append(ep.LatencyUS, c.Latency.Microseconds())
					if c.Err != "" {
						ep.Errors++
					}
				}
			}
			finish(string(v.Reason), v.Score, v.Moves, v.Turns)
		case engine.ErrorEvent:
			fmt.Fprintf(stderr, "lantern bench: turn %d: %v\n", v.Turn, v.Err)
			if v.Fatal || errors.Is(v.Err, engine.ErrNotRecorded) {
				rep.Error = v.Err.Error()
				code = exitError
			}
		case engine.Idle:
			// The engine pauses after repeated model failures or a turn it
			// could not record: the run ends.
			if rep.Error == "" {
				rep.Error = "the agent paused after repeated model failures"
			}
			sess.Engine.Send(ctx, engine.Quit{})
		case engine.Stopped:
			if v.Err != nil && rep.Error == "" {
				rep.Error = v.Err.Error()
			}
		}
	}
	if ep != nil {
		// The run stopped inside an episode (a script ran out, an
		// interruption, a failure).
		why := "stopped"
		if rep.Error == "" && ctx.Err() == nil {
			why = "script ended"
		}
		finish(why, last.Score, last.Moves, len(ep.Scores))
	}
	rep.Dropped += len(queue.rest())
	return code
}

// withMemories lists the visited locations that have at least one memory
// the agent sees in Memories.md.
func withMemories(path string, visited []int) []int {
	f, err := memory.Load(path)
	if err != nil {
		return nil
	}
	var out []int
	for _, id := range visited {
		sec, ok := f.Section(id)
		if !ok {
			continue
		}
		for _, m := range sec.Memories {
			if m.Visible() {
				out = append(out, id)
				break
			}
		}
	}
	return out
}

// openBenchDB opens the configured story's lantern.db for reading runs.
func openBenchDB(cfg *config.Config) (*memory.RunDB, func(), error) {
	story, name, err := openStory(cfg.Story)
	if err != nil {
		return nil, nil, err
	}
	info := story.Info()
	dir := filepath.Join(cfg.WorkDir, session.StoryDir(name, info.Release))
	path := filepath.Join(dir, "lantern.db")
	if _, err := os.Stat(path); err != nil {
		return nil, nil, fmt.Errorf("no runs stored for %s: %s does not exist (run lantern bench first)", filepath.Base(name), path)
	}
	db, err := memory.OpenRunDB(path, info.MD5)
	if err != nil {
		return nil, nil, err
	}
	return db, func() { db.Close() }, nil
}

func listBenchRuns(ctx context.Context, db *memory.RunDB, stdout, stderr io.Writer) int {
	runs, err := db.BenchRuns(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "lantern bench:", err)
		return exitError
	}
	if len(runs) == 0 {
		fmt.Fprintln(stdout, "No bench runs stored for this story.")
		return exitOK
	}
	rows := [][]string{{"RUN", "STARTED", "LABEL", "EPISODES", "MEAN SCORE", ""}}
	for _, r := range runs {
		note := ""
		if !r.Complete {
			note = "incomplete"
		}
		rows = append(rows, []string{fmt.Sprint(r.ID), r.Started.Local().Format("2006-01-02 15:04:05"), clip(r.Label, 32), fmt.Sprint(r.Episodes),
			fmt.Sprintf("%.1f", r.Score), note})
	}
	table(stdout, rows)
	return exitOK
}

// loadBenchRun finds a run: a stored run's number, "last", "prev", or a
// report file saved from --json.
func loadBenchRun(ctx context.Context, db *memory.RunDB, ref string) (*benchReport, error) {
	var data []byte
	var id int64
	switch {
	case ref == "last" || ref == "prev":
		runs, err := db.BenchRuns(ctx)
		if err != nil {
			return nil, err
		}
		i := len(runs) - 1
		if ref == "prev" {
			i--
		}
		if i < 0 {
			return nil, fmt.Errorf("run %q: only %d run(s) stored", ref, len(runs))
		}
		id = runs[i].ID
	default:
		n, err := strconv.ParseInt(ref, 10, 64)
		if err != nil {
			data, err = os.ReadFile(ref)
			if err != nil {
				return nil, fmt.Errorf("run %q: not a stored run's number, last, prev, or a readable report file (%v)", ref, err)
			}
		}
		id = n
	}
	if data == nil {
		b, err := db.BenchRun(ctx, id)
		if err != nil {
			return nil, err
		}
		data = b.Report
	}
	var rep benchReport
	if err := json.Unmarshal(data, &rep); err != nil || len(rep.Summary) == 0 {
		return nil, fmt.Errorf("run %q: not a bench report", ref)
	}
	if id != 0 {
		rep.ID = id
	}
	return &rep, nil
}

// benchComparison is --compare --json's output.
type benchComparison struct {
	A *benchReport `json:"a"`
	B *benchReport `json:"b"`
}

func compareBenchRuns(ctx context.Context, db *memory.RunDB, refA, refB string, asJSON bool, width int, stdout, stderr io.Writer) int {
	a, err := loadBenchRun(ctx, db, refA)
	if err != nil {
		fmt.Fprintln(stderr, "lantern bench:", err)
		return exitError
	}
	b, err := loadBenchRun(ctx, db, refB)
	if err != nil {
		fmt.Fprintln(stderr, "lantern bench:", err)
		return exitError
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(benchComparison{A: a, B: b}); err != nil {
			return exitError
		}
		return exitOK
	}
	printComparison(stdout, a, b, width)
	return exitOK
}
