package cli

import (
	"reflect"
	"sync"

	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/llm"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

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
		t.Run(apiName, func(t *testing.T) {
			isolate(t)
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
			t.Setenv("OLLAMA_HOST", "127.0.0.1:9") // nothing may go to the default server
			t.Setenv("LANTERN_SERVER_API", apiName)
			args := []string{"--model", "oracle", "--episodes", "4", "--max-turns", "8", "--seed", "3"}
			type play struct{ Episode, Score, Moves, Turns int }
			plays := func(r bench.Report) (out []play) {
				for _, e := range r.Episodes {
					out = append(out, play{e.Episode, e.Score, e.Moves, e.Turns})
				}
				return out
			}
			dead := "127.0.0.1:9"
			if apiName == "openai" {
				dead = "http://127.0.0.1:9/v1"
			}
			t.Setenv("LANTERN_SERVER_HOSTS", dead+", "+hosts[0])
			code, out, stderr := runCLI(t, "", append([]string{"bench", "--json"}, args...)...)
			if code != exitOK || !strings.Contains(stderr, "warning: host "+dead+" does not answer, skipped") {
				t.Fatalf("a dead host first: exit %d, want the bench to complete with a warning:\n%s", code, stderr)
			}
			one := decodeReport(t, out)
			first := counts[0].chats.Load()
			t.Setenv("LANTERN_SERVER_HOSTS", strings.Join(hosts, ", "))
			two := benchJSON(t, args...)
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
		})
	}
}

// doctor asks every host of the list and says where the list came from;
// models and doctor go on with the host that answers when the first does
// not.
func TestDoctorAndModelsSkipADeadHost(t *testing.T) {
	_, repo := isolate(t)
	cmds, err := oracle.LoadScript(filepath.Join(repo, "game_files", "demo", "walkthrough.txt"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(oracle.New(oracle.Options{Script: cmds}))
	defer srv.Close()
	live := strings.TrimPrefix(srv.URL, "http://")
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9")
	t.Setenv("LANTERN_SERVER_HOSTS", "127.0.0.1:9, "+live)
	_, out, _ := runCLI(t, "", "doctor", "--model", "oracle")
	for _, want := range []string{"host 127.0.0.1:9 (of the list from environment LANTERN_SERVER_HOSTS) does not answer", "host " + live + " answers",
		"at " + live + " (host from the list of environment LANTERN_SERVER_HOSTS)"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
	code, out, stderr := runCLI(t, "", "models")
	if code != exitOK || !strings.Contains(out, "oracle") || !strings.Contains(stderr, "host 127.0.0.1:9 does not answer, skipped") {
		t.Errorf("models with a dead first host: exit %d\n%s\n%s", code, out, stderr)
	}
}
