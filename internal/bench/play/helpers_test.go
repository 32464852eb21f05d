package play_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/bench/play"
	"github.com/lantern-if/lantern/internal/cli"
	"github.com/lantern-if/lantern/internal/clitest"
	"github.com/lantern-if/lantern/oracle"
	"github.com/lantern-if/lantern/sharedtest"
)

// The wing is tested through its entry points, with the wiring the
// command line lends it (cli.BenchWiring): the sessions are the ones
// lantern bench opens.

// flags are a bench's configuration flags by name, as lantern bench takes
// them: workdir, story, model, max-turns, seed, profile, api, base-url.
type flags map[string]string

// call is how one entry point's call ended, and what it printed.
type call struct {
	err         error
	out, stderr string
}

// code is the exit code lantern bench gives for the call.
func (c call) code() int {
	var ue *play.UsageError
	switch {
	case c.err == nil:
		return 0
	case errors.As(c.err, &ue):
		return 2
	}
	return 1
}

// text is what lantern bench prints on stderr for the call: its lines,
// then its error.
func (c call) text() string {
	if c.err == nil || errors.Is(c.err, play.ErrFailed) {
		return c.stderr
	}
	return c.stderr + c.err.Error() + "\n"
}

// options completes o as lantern bench's flags' defaults and f do.
func options(o play.Options, f flags) play.Options {
	o.Wiring = cli.BenchWiring("", f)
	o.Agent = cmp(o.Agent, "llm")
	if o.Episodes == 0 {
		o.Episodes = 3
	}
	if o.Width == 0 {
		o.Width = 60
	}
	_, o.WorkdirSet = f["workdir"]
	o.ModelSet = f["model"] != "" || len(o.Models) > 0
	o.Log = slog.New(slog.DiscardHandler)
	return o
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// runBench is lantern bench of one story: play.Run with the configuration
// f gives.
func runBench(t *testing.T, o play.Options, f flags) call {
	t.Helper()
	o = options(o, f)
	cfg, err := o.Wiring.Config(f["story"], f["model"])
	if err != nil {
		t.Fatalf("configuration %v: %v", f, err)
	}
	o.Config = cfg
	return enter(o, play.Run)
}

// runSuite is lantern bench of a suite: play.Suite.
func runSuite(t *testing.T, o play.Options, f flags) call {
	t.Helper()
	return enter(options(o, f), play.Suite)
}

func enter(o play.Options, entry func(context.Context, play.Options) error) call {
	var out, errb bytes.Buffer
	o.Stdout, o.Stderr = &out, &errb
	err := entry(context.Background(), o)
	return call{err: err, out: out.String(), stderr: errb.String()}
}

// merge is lantern bench merge of the shards.
func merge(o play.MergeOptions, shards ...string) call {
	var out, errb bytes.Buffer
	o.Shards, o.Stdout, o.Stderr = shards, &out, &errb
	if o.Width == 0 {
		o.Width = 60
	}
	o.Version = cli.BenchWiring("", nil).Version
	err := play.Merge(context.Background(), o)
	return call{err: err, out: out.String(), stderr: errb.String()}
}

// compare is lantern bench --compare a b, with the configuration f gives.
func compare(t *testing.T, a, b string, asJSON bool, f flags) call {
	t.Helper()
	w := cli.BenchWiring("", f)
	cfg, err := w.Config(f["story"], f["model"])
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = play.Compare(context.Background(), play.CompareOptions{Wiring: w, Config: cfg, A: a, B: b, JSON: asJSON, Width: 60, Stdout: &out})
	return call{err: err, out: out.String()}
}

// list is lantern bench --list.
func list(t *testing.T, f flags) call {
	t.Helper()
	w := cli.BenchWiring("", f)
	cfg, err := w.Config(f["story"], f["model"])
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = play.List(context.Background(), play.CompareOptions{Wiring: w, Config: cfg, Stdout: &out})
	return call{err: err, out: out.String()}
}

// runJSON is lantern bench --json of one story, which must succeed.
func runJSON(t *testing.T, o play.Options, f flags) bench.Report {
	t.Helper()
	o.JSON = true
	c := runBench(t, o, f)
	if c.err != nil {
		t.Fatalf("bench %+v %v: %v\n%s", o, f, c.err, c.stderr)
	}
	return decodeReport(t, c.out)
}

func decodeReport(t *testing.T, out string) bench.Report {
	t.Helper()
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return rep
}

func suiteJSON(t *testing.T, out string) bench.Suite {
	t.Helper()
	var s bench.Suite
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return s
}

// wantAll and lastLines are clitest's.
func wantAll(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	clitest.WantAll(t, what, out, wants...)
}

func lastLines(s string, n int) string { return clitest.LastLines(s, n) }

// reportIn is the bench.json a bench's stderr names.
func reportIn(t *testing.T, stderr string) string {
	t.Helper()
	m := regexp.MustCompile(`lantern bench: report in (\S+)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("stderr does not say where bench.json is:\n%s", stderr)
	}
	return m[1]
}

// oracleHost serves a fresh oracle (a fake Ollama playing the walkthrough)
// for the test and gives its host.
func oracleHost(t *testing.T, walk string) string {
	t.Helper()
	cmds, err := oracle.LoadScript(walk)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(oracle.New(oracle.Options{Script: cmds}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// suiteFixture is a two-game suite (the built-in demo and Zork I, each
// played by its walkthrough, Zork I with the seed its walkthrough wins
// with) cut short by the turn limit so that it plays in seconds.
func suiteFixture(t *testing.T) (dir string, o play.Options, f flags) {
	t.Helper()
	dir, repo := isolate(t)
	walk := filepath.Join(dir, "walk")
	os.MkdirAll(walk, 0o755)
	copyFile(t, filepath.Join(repo, "game_files", "demo", "walkthrough.txt"), filepath.Join(walk, "demo.txt"))
	copyFile(t, sharedtest.File(t, "walkthroughs/zork1.txt"), filepath.Join(walk, "zork1.txt"))
	seeds := filepath.Join(dir, "seeds.json")
	os.WriteFile(seeds, []byte(`{"zork1": 12}`), 0o644)
	o = play.Options{Stories: []string{"demo", sharedtest.File(t, "stories/zork1.z3")}, Agent: "script:" + walk, SeedFile: seeds, Episodes: 2}
	return dir, o, flags{"max-turns": "60"}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// with is f with more flags.
func (f flags) with(kv ...string) flags {
	out := flags{}
	for k, v := range f {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func episodeSeeds(t *testing.T, path string) []int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT seed FROM episodes ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var s int
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// jerichoWalk is one game of Jericho's walkthroughs.json.
type jerichoWalk struct {
	Seed        int      `json:"seed"`
	Walkthrough []string `json:"walkthrough"`
	MaxScore    int      `json:"max_score"`
}

// jerichoWalks is Jericho's suite in the shared data: its folder and its
// walkthroughs by story file (the test skips, or fails when the data is
// required, without it).
func jerichoWalks(t *testing.T) (dir string, walks map[string]jerichoWalk) {
	t.Helper()
	dir = filepath.Join(sharedtest.Dir(t), "jericho")
	data, err := os.ReadFile(filepath.Join(dir, "walkthroughs.json"))
	if err != nil {
		if sharedtest.Required() {
			t.Fatal(err)
		}
		t.Skipf("jericho suite: %v", err)
	}
	if err := json.Unmarshal(data, &walks); err != nil {
		t.Fatal(err)
	}
	return dir, walks
}

// isolate and buildLantern are clitest's, shared with the other process
// tests.
func isolate(t *testing.T) (dir, repo string) { return clitest.Isolate(t) }

func buildLantern(t testing.TB, dir, repo string) string { return clitest.BuildLantern(t, dir, repo) }
