package cli

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// hugeBody is one endpoint a server answers with a 1 GB body: the path,
// the status, the body's opening and the filler repeated after it.
type hugeBody struct {
	path         string
	status       int
	head, filler string
}

// hugeFront is a loopback server in front of a scripted fake that answers
// b.path with b's 1 GB body, generated as it is written (never held), and
// passes every other request to the fake. slow trickles the filler (1 KB
// every 20 ms) so a client stays reading it; arrived is closed once the
// first filler was flushed to a client. sent counts the body bytes written.
func hugeFront(t *testing.T, backend string, b hugeBody, slow bool) (host string, arrived <-chan struct{}, sent *atomic.Int64) {
	t.Helper()
	target, _ := url.Parse("http://" + backend)
	proxy := httputil.NewSingleHostReverseProxy(target)
	got := make(chan struct{})
	var once sync.Once
	sent = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != b.path {
			proxy.ServeHTTP(w, r)
			return
		}
		w.WriteHeader(b.status)
		n, _ := w.Write([]byte(b.head))
		sent.Add(int64(n))
		size := 64 << 10
		if slow {
			size = 1 << 10
		}
		block := []byte(strings.Repeat(b.filler, size/len(b.filler)))
		for sent.Load() < 1<<30 {
			n, err := w.Write(block)
			sent.Add(int64(n))
			if err != nil {
				return
			}
			if !slow {
				continue
			}
			w.(http.Flusher).Flush()
			once.Do(func() { close(got) })
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), got, sent
}

// benignServer is a scripted fake whose model plays along: every role
// answers well-formed, so a command ends by itself once a body it could
// not read is behind it.
func benignServer(t *testing.T) *llmtest.Server {
	t.Helper()
	s := llmtest.New(t)
	s.AddModel("fake", 8192, "completion", "tools")
	s.KeepRequests(false)
	s.Always("agent", llmtest.Role(config.RoleAgent), llmtest.Reply{Content: `{"reasoning": "go", "action": "north", "remember": "", "remember_importance": 0}`})
	s.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 5, "justification": "fine"}`})
	s.Always("memory", llmtest.Role(config.RoleMemory), llmtest.Reply{Content: `{"should_remember": false, "category": "NOTE", "memory_title": "", "memory_text": "", "status": "ACTIVE", "supersedes_memory_titles": [], "reasoning": "none"}`})
	s.Always("knowledge", llmtest.Role(config.RoleKnowledge), llmtest.Reply{Content: `{"strategy": "s", "lessons": [], "episode_note": "n", "reasoning": "r"}`})
	s.ScriptPlanning()
	return s
}

// watchHWM samples the process's peak RSS (VmHWM in /proc/PID/status)
// every millisecond until it has exited; result waits for that and
// returns the highest peak read and how many samples were read. The
// rusage of a child is no measure here: its Maxrss starts at this test
// process's peak (Go starts a child sharing the parent's memory until
// exec), and the test process may hold hundreds of MB.
func watchHWM(pid int) (result func() (peak int64, samples int)) {
	var peak int64
	var n int
	done := make(chan struct{})
	go func() {
		defer close(done)
		path := "/proc/" + strconv.Itoa(pid) + "/status"
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for ; ; <-tick.C {
			data, err := os.ReadFile(path)
			if err != nil {
				return
			}
			kb, ok := statusKB(string(data), "VmHWM:")
			if !ok {
				return // a zombie: its memory is gone
			}
			peak, n = max(peak, kb<<10), n+1
		}
	}()
	return func() (int64, int) {
		<-done
		return peak, n
	}
}

// statusKB is the value in kB of the /proc/PID/status field named key.
func statusKB(status, key string) (int64, bool) {
	for _, l := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(l, key); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb, err == nil
		}
	}
	return 0, false
}

// TestHugeBodiesBoundEveryCommand runs each command that reads a server's
// listing, description, version or chat reply against a server sending
// 1 GB there: the process's peak RSS stays under 100 MB and it ends by
// itself; and stuck reading the same body trickled, it ends within 5 s of
// SIGTERM. The child is the binary `make build` makes (a separate `go
// build`, without -race even when this test runs with it, so its memory
// is the shipped program's).
func TestHugeBodiesBoundEveryCommand(t *testing.T) {
	const (
		maxRSS  = 100 << 20
		maxTerm = 5 * time.Second
	)
	dir, repo := isolate(t)
	bin := buildLantern(t, dir, repo)
	x := "xxxxxxxxxxxxxxxx"
	show := hugeBody{"/api/show", 200, `{"modelfile":"`, x}
	tags := hugeBody{"/api/tags", 200, `{"models":[{"name":"`, x}
	version := hugeBody{"/api/version", 200, `{"version":"`, x}
	toolArgs := hugeBody{"/api/chat", 200, `{"model":"fake","message":{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":{"a":"`, x}
	manyCalls := hugeBody{"/api/chat", 200, "", `{"model":"fake","message":{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":{}}}]},"done":false}` + "\n"}
	errBody := hugeBody{"/api/chat", 500, `{"error":"`, x}
	runArgs := func(name string) []string {
		return []string{"run", "--headless", "--model", "fake", "--max-turns", "2", "--workdir", filepath.Join(dir, "wd-"+name)}
	}
	cases := []struct {
		name string
		body hugeBody
		args []string
	}{
		{"show/run", show, runArgs("show")},
		{"show/models", show, []string{"models", "--timeout", "2m"}},
		{"tags/models", tags, []string{"models", "--timeout", "2m"}},
		{"tags/doctor", tags, []string{"doctor", "--model", "fake", "--timeout", "2m"}},
		{"version/models", version, []string{"models", "--timeout", "2m"}},
		{"version/doctor", version, []string{"doctor", "--model", "fake", "--timeout", "2m"}},
		{"tool-call arguments/run", toolArgs, runArgs("tools")},
		{"millions of tool calls/run", manyCalls, runArgs("calls")},
		{"error body/run", errBody, runArgs("error")},
	}
	backend := benignServer(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// At full speed: bounded memory, and the command ends.
			host, _, sent := hugeFront(t, backend.Host(), tc.body, false)
			cmd := exec.Command(bin, tc.args...)
			cmd.Env = append(cmd.Environ(), "OLLAMA_HOST="+host)
			var out, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &stderr
			start := time.Now()
			done := make(chan error, 1)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			hwm := watchHWM(cmd.Process.Pid)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running after 2 minutes; stderr:\n%.2000s", stderr.String())
			}
			took := time.Since(start)
			peak, samples := hwm()
			if samples == 0 {
				t.Fatalf("no /proc/%d/status sample while it ran", cmd.Process.Pid)
			}
			if peak >= maxRSS {
				t.Errorf("peak RSS %d MB, want under %d MB", peak>>20, maxRSS>>20)
			}
			if len(out.String())+len(stderr.String()) > 1<<20 {
				t.Errorf("printed %d bytes: a server's text is clipped", len(out.String())+len(stderr.String()))
			}
			t.Logf("%v: peak RSS %.1f MB (%d samples), server sent %d MB, exit %d after %v; stderr %.300q",
				tc.args[0], float64(peak)/(1<<20), samples, sent.Load()>>20, cmd.ProcessState.ExitCode(), took.Round(time.Millisecond), stderr.String())

			// Trickled: stuck reading it, SIGTERM ends the command.
			host, arrived, _ := hugeFront(t, backend.Host(), tc.body, true)
			cmd = exec.Command(bin, tc.args...)
			cmd.Env = append(cmd.Environ(), "OLLAMA_HOST="+host)
			stderr.Reset()
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done = make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-arrived:
			case err := <-done:
				t.Fatalf("ended (%v) before reading the trickled body; stderr:\n%.2000s", err, stderr.String())
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				<-done
				t.Fatalf("never read the trickled body; stderr:\n%.2000s", stderr.String())
			}
			signalled := time.Now()
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 30 s after SIGTERM; stderr:\n%.2000s", stderr.String())
			}
			after := time.Since(signalled)
			if after > maxTerm {
				t.Errorf("ended %v after SIGTERM, want within %v", after.Round(time.Millisecond), maxTerm)
			}
			var ee *exec.ExitError
			if errors.As(err, &ee) && !ee.Exited() {
				t.Errorf("killed by the signal (%v) instead of stopping on it", err)
			}
			t.Logf("%v: ended %v after SIGTERM (%v)", tc.args[0], after.Round(time.Millisecond), err)
		})
	}
}
