package play_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/bench/play"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/oracle"
)

// countChats counts the chat calls a handler answers, in either protocol,
// and the conversations (clients) they came from.
type countChats struct {
	next  http.Handler
	chats atomic.Int64
	mu    sync.Mutex
	convs map[string]bool
}

func (c *countChats) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api/chat" || r.URL.Path == "/v1/chat/completions" {
		c.chats.Add(1)
		c.mu.Lock()
		if c.convs == nil {
			c.convs = map[string]bool{}
		}
		c.convs[r.Header.Get(llm.ConversationHeader)] = true
		c.mu.Unlock()
	}
	c.next.ServeHTTP(w, r)
}

func (c *countChats) conversations() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.convs)
}

// countedOracles serves two oracles playing cmds, each counting its chat
// calls, and gives their hosts as [server] hosts lists them for apiName.
func countedOracles(t *testing.T, apiName string, cmds []string) ([]*countChats, []string) {
	var counts []*countChats
	var hosts []string
	for range 2 {
		c := &countChats{next: oracle.New(oracle.Options{Script: cmds})}
		srv := httptest.NewServer(c)
		t.Cleanup(srv.Close)
		counts = append(counts, c)
		if apiName == "openai" {
			hosts = append(hosts, srv.URL+"/v1")
		} else {
			hosts = append(hosts, strings.TrimPrefix(srv.URL, "http://"))
		}
	}
	return counts, hosts
}

// TestBenchSpreadsGamesOverHosts: a bench of 4 episodes with [server] hosts
// naming two oracle servers plays on both at once, each episode's requests
// on one host (each host hears one client: the session of its part), and
// scores as one host does; a dead host first in the list is skipped with a
// warning and the bench completes. On each protocol.
func TestBenchSpreadsGamesOverHosts(t *testing.T) {
	_, repo := isolate(t)
	cmds, err := oracle.LoadScript(filepath.Join(repo, "game_files", "demo", "walkthrough.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, apiName := range []string{"ollama", "openai"} {
		t.Run(apiName, func(t *testing.T) { spreadOverHosts(t, apiName, cmds) })
	}
}

func spreadOverHosts(t *testing.T, apiName string, cmds []string) {
	isolate(t)
	counts, hosts := countedOracles(t, apiName, cmds)
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9") // nothing may go to the default server
	t.Setenv("LANTERN_SERVER_API", apiName)
	o, f := play.Options{Episodes: 4}, flags{"model": "oracle", "max-turns": "8", "seed": "3"}
	type played struct{ Episode, Score, Moves, Turns int }
	plays := func(r bench.Report) (out []played) {
		for _, e := range r.Episodes {
			out = append(out, played{e.Episode, e.Score, e.Moves, e.Turns})
		}
		return out
	}
	dead := "127.0.0.1:9"
	if apiName == "openai" {
		dead = "http://127.0.0.1:9/v1"
	}
	t.Setenv("LANTERN_SERVER_HOSTS", dead+", "+hosts[0])
	jo := o
	jo.JSON = true
	c := runBench(t, jo, f)
	if c.err != nil || !strings.Contains(c.stderr, "warning: host "+dead+" does not answer, skipped") {
		t.Fatalf("a dead host first: %v, want the bench to complete with a warning:\n%s", c.err, c.stderr)
	}
	one := decodeReport(t, c.out)
	first := counts[0].chats.Load()
	t.Setenv("LANTERN_SERVER_HOSTS", strings.Join(hosts, ", "))
	two := runJSON(t, o, f)
	a, b := counts[0].chats.Load()-first, counts[1].chats.Load()
	t.Logf("chat calls per host: %d and %d", a, b)
	if a == 0 || b == 0 {
		t.Errorf("chat calls per host %d and %d: want episodes on both", a, b)
	}
	if n := counts[1].conversations(); n != 1 {
		t.Errorf("the second host heard %d clients, want 1: each episode's requests on one host", n)
	}
	if got, want := plays(two), plays(one); !reflect.DeepEqual(got, want) || len(got) != 4 {
		t.Errorf("two hosts played %+v, one host %+v", got, want)
	}
}

// TestBenchSuiteSpreadsOverHosts: a suite's games (here a sweep of the
// demo over the oracle's two names) spread over two hosts at once, each
// game on one host, and report as the same suite on one host does, its
// runs in the plan's order.
func TestBenchSuiteSpreadsOverHosts(t *testing.T) {
	dir, repo := isolate(t)
	cmds, err := oracle.LoadScript(filepath.Join(repo, "game_files", "demo", "walkthrough.txt"))
	if err != nil {
		t.Fatal(err)
	}
	counts, hosts := countedOracles(t, "ollama", cmds)
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9") // nothing may go to the default server
	type result struct {
		Story, Model string
		Scores       []int
	}
	sweep := func(name string) []result {
		o := play.Options{Stories: []string{"demo"}, Models: []string{"oracle", "oracle:latest"}, Episodes: 2, JSON: true}
		c := runSuite(t, o, flags{"max-turns": "10", "seed": "5", "workdir": filepath.Join(dir, name)})
		if c.err != nil {
			t.Fatalf("%s: %v\n%s", name, c.err, lastLines(c.stderr, 20))
		}
		var out []result
		for _, r := range suiteJSON(t, c.out).Runs {
			res := result{Story: r.Story, Model: play.AgentModel(r)}
			for _, e := range r.Episodes {
				res.Scores = append(res.Scores, e.Score)
			}
			out = append(out, res)
		}
		if name == "two" && !strings.Contains(c.stderr, "2 run(s) on 2 hosts at once") {
			t.Errorf("the suite did not say it spreads its games:\n%s", lastLines(c.stderr, 20))
		}
		return out
	}
	t.Setenv("LANTERN_SERVER_HOSTS", hosts[0])
	one := sweep("one")
	before := counts[0].chats.Load()
	t.Setenv("LANTERN_SERVER_HOSTS", strings.Join(hosts, ", "))
	two := sweep("two")
	a, b := counts[0].chats.Load()-before, counts[1].chats.Load()
	t.Logf("chat calls per host: %d and %d", a, b)
	if a == 0 || b == 0 {
		t.Errorf("chat calls per host %d and %d: want a game on each", a, b)
	}
	if n := counts[1].conversations(); n != 1 {
		t.Errorf("the second host heard %d clients, want 1: each game on one host", n)
	}
	if !reflect.DeepEqual(two, one) || len(two) != 2 || two[0].Model != "oracle" || two[1].Model != "oracle:latest" {
		t.Errorf("two hosts played %+v, one host %+v", two, one)
	}
}

// TestBenchSuiteOnHostsStopsAtAFailure: spread over two hosts, a suite
// whose second game fails (a model no host has) keeps the first game's
// run and names the failure, as one host would.
func TestBenchSuiteOnHostsStopsAtAFailure(t *testing.T) {
	dir, repo := isolate(t)
	var hosts []string
	for range 2 {
		hosts = append(hosts, oracleHost(t, filepath.Join(repo, "game_files", "demo", "walkthrough.txt")))
	}
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9")
	t.Setenv("LANTERN_SERVER_HOSTS", strings.Join(hosts, ", "))
	o := play.Options{Stories: []string{"demo"}, Models: []string{"oracle", "no-such-model"}, Episodes: 1, JSON: true}
	c := runSuite(t, o, flags{"max-turns": "5", "workdir": filepath.Join(dir, "fails")})
	if c.err == nil {
		t.Fatalf("a suite with a missing model completed:\n%s", lastLines(c.stderr, 20))
	}
	s := suiteJSON(t, c.out)
	if len(s.Runs) != 1 || play.AgentModel(s.Runs[0]) != "oracle" || s.Complete || !strings.Contains(s.Error, "demo") {
		t.Errorf("runs %d, complete %v, error %q: want the oracle's run kept and the failure named", len(s.Runs), s.Complete, s.Error)
	}
}
