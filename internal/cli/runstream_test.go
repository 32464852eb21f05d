package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/managers/contextmgr"
	"github.com/lantern-if/lantern/oracle"
)

// replyClock notes when each turn's agent reply was sent in full.
type replyClock struct {
	next http.Handler
	mu   sync.Mutex
	done map[int]time.Time // turn → its first agent reply's end
}

func (c *replyClock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/chat" || r.Header.Get(llm.RoleHeader) != config.RoleAgent {
		c.next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var chat struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	json.Unmarshal(body, &chat)
	turn := 0
	for _, m := range chat.Messages {
		if n := contextmgr.Parse(m.Content).Turn; m.Role == "user" && n > 0 {
			turn = n
			break
		}
	}
	c.next.ServeHTTP(w, r)
	c.mu.Lock()
	if _, ok := c.done[turn]; !ok && turn > 0 {
		c.done[turn] = time.Now()
	}
	c.mu.Unlock()
}

// TestRunPrintsEachTurnWhenPlayed: behind the paced oracle, `run --json`
// prints each turn's line once the story has answered it, whichever memory
// mode runs: turn N's line is out before the agent's reply for turn N+1
// is (with the memory question in the agent's reply, the line used to wait
// for that reply, which answers turn N's question).
func TestRunPrintsEachTurnWhenPlayed(t *testing.T) {
	if testing.Short() {
		t.Skip("plays paced turns")
	}
	story, _, cmds := zorkScript(t)
	dir, repo := isolate(t)
	bin := buildLantern(t, dir, repo)
	const turns = 5
	for _, mode := range []string{config.MemoryWithAgent, config.MemorySeparate} {
		t.Run(mode, func(t *testing.T) {
			// A reply takes at least 0.7 s (70 generated tokens at 100 a
			// second): the margin a line has to come before the next reply.
			pacer, err := oracle.NewPacer(oracle.PaceOptions{PromptRate: 5000, GenRate: 100, Slots: 1})
			if err != nil {
				t.Fatal(err)
			}
			clock := &replyClock{next: oracle.New(oracle.Options{Script: cmds, Pacer: pacer}), done: map[int]time.Time{}}
			srv := httptest.NewServer(clock)
			defer srv.Close()
			cmd := exec.Command(bin, "run", "--headless", "--json", "--model", "oracle", "--seed", "12", "--max-turns", "5", "--story", story,
				"--workdir", filepath.Join(dir, "wd-"+mode))
			cmd.Env = append(os.Environ(), "OLLAMA_HOST="+strings.TrimPrefix(srv.URL, "http://"), config.EnvName("managers.memory_synthesis")+"="+mode)
			sc, stderr := startLines(t, cmd)
			arrived := map[int]time.Time{}
			for sc.Scan() {
				var l runLine
				if json.Unmarshal(sc.Bytes(), &l) == nil && l.Turn > 0 {
					arrived[l.Turn] = time.Now()
				}
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("run: %v\n%s", err, stderr.String())
			}
			clock.mu.Lock()
			defer clock.mu.Unlock()
			var worst time.Duration
			for n := 1; n <= turns; n++ {
				at, ok := arrived[n]
				if !ok {
					t.Fatalf("turn %d's line never came:\n%s", n, stderr.String())
				}
				worst = max(worst, at.Sub(clock.done[n]))
				if next, ok := clock.done[n+1]; ok && !at.Before(next) {
					t.Errorf("turn %d's line came %v after turn %d's agent reply", n, at.Sub(next), n+1)
				}
			}
			t.Logf("%s: a line came at most %v after its turn's agent reply", mode, worst)
		})
	}
}
