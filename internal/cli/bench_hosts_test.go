package cli

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lantern-if/lantern/internal/oracle"
)

// countChats counts the chat calls a handler answers, in either protocol.
type countChats struct {
	next  http.Handler
	chats atomic.Int64
}

func (c *countChats) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api/chat" || r.URL.Path == "/v1/chat/completions" {
		c.chats.Add(1)
	}
	c.next.ServeHTTP(w, r)
}

// TestBenchSpreadsOverHosts: a bench of 4 episodes with [server] hosts
// naming two oracle servers sends work to both, on each protocol.
func TestBenchSpreadsOverHosts(t *testing.T) {
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
			t.Setenv("LANTERN_SERVER_HOSTS", strings.Join(hosts, ", "))
			rep := benchJSON(t, "--model", "oracle", "--episodes", "4", "--max-turns", "6", "--seed", "3")
			if len(rep.Episodes) != 4 {
				t.Fatalf("%d episodes, want 4", len(rep.Episodes))
			}
			a, b := counts[0].chats.Load(), counts[1].chats.Load()
			t.Logf("chat calls per host: %d and %d", a, b)
			if a == 0 || b == 0 {
				t.Errorf("chat calls per host %d and %d: want work on both", a, b)
			}
		})
	}
}
