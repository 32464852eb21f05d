package llm_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// peakRSS is the process's peak resident memory in bytes (Linux), or 0.
func peakRSS(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestReplyCapOn1GBStream: a server streams a 1 GB reply in 1 MB pieces
// and never finishes; the call fails with ErrReplyTooLarge after one
// attempt, having read little more than the cap.
func TestReplyCapOn1GBStream(t *testing.T) {
	const piece = 1 << 20
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		line, _ := json.Marshal(map[string]any{"model": "tiny", "message": map[string]any{"role": "assistant", "content": strings.Repeat("x", piece)}, "done": false})
		line = append(line, '\n')
		w.Header().Set("Content-Type", "application/x-ndjson")
		for i := 0; i < 1024; i++ {
			if _, err := w.Write(line); err != nil {
				return
			}
			sent.Add(int64(len(line)))
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	rs := roles(time.Minute)
	for k, r := range rs {
		r.NumCtx, r.Think = 4096, config.ThinkOff
		rs[k] = r
	}
	c, err := llm.New(llm.Options{Host: srv.URL, Roles: rs, Retry: llm.RetryPolicy{Attempts: 3, Backoff: time.Millisecond, Max: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	var streamed int
	req := ask(config.RoleAgent, "go")
	req.OnDelta = func(d llm.Delta) { streamed += len(d.Content) }
	_, err = c.Chat(context.Background(), req)
	var e *llm.Error
	if !errors.Is(err, llm.ErrReplyTooLarge) || !errors.As(err, &e) || e.Attempts != 1 {
		t.Fatalf("err = %v, want ErrReplyTooLarge after one attempt", err)
	}
	if streamed > llm.DefaultMaxReply {
		t.Errorf("%d bytes streamed to OnDelta, past the cap %d", streamed, llm.DefaultMaxReply)
	}
	if s := sent.Load(); s > 64<<20 {
		t.Errorf("the server got to send %d MB", s>>20)
	}
	// The peak is the test process's: the package's other tests (bodies
	// of up to 100 MB cut off, the race detector's shadow memory) raise
	// it too; a 1 GB reply read whole would pass 1 GB.
	if rss := peakRSS(t); rss > 400<<20 {
		t.Errorf("peak memory %d MB, want under 400 MB", rss>>20)
	} else {
		t.Logf("peak memory %d MB; the server sent %d MB before the client hung up", rss>>20, sent.Load()>>20)
	}
}

// TestFormatReminderClipsALongReply: a long rejected reply is not pasted
// back whole into the retry.
func TestFormatReminderClipsALongReply(t *testing.T) {
	s := fake(t)
	s.On("agent", llmtest.Role(config.RoleAgent),
		llmtest.Reply{Content: strings.Repeat("blah ", 40000)},
		llmtest.Reply{Content: `{"reasoning": "ok", "action": "north", "mood": "calm"}`})
	c := newClient(t, s.Host(), 30*time.Second)
	if _, _, err := llm.Structured[proposal](context.Background(), c, ask(config.RoleAgent, "move")); err != nil {
		t.Fatal(err)
	}
	reqs := s.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d calls, want 2", len(reqs))
	}
	if n := len(reqs[1].Prompt()); n > 8<<10 {
		t.Errorf("the retry prompt is %d bytes: the rejected reply went back whole", n)
	}
}
