package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// hostileText is every control a model or server could use on a terminal:
// OSC retitle (ESC and C1), clear screen (ESC and C1 CSI), a bell.
const hostileText = "\x1b]0;pwned\x07 \x1b[2J \u009b2J \u009d0;t\u009c"

// hostileJSON is the same inside a JSON string.
const hostileJSON = `\u001b]0;pwned\u0007 \u001b[2J \u009b2J \u009d0;t\u009c`

// hostileStreams are the first agent calls' streamed /api/chat replies,
// each NDJSON line as sent: controls in thinking and content, an error
// line, lines that are not JSON (raw ESC, a raw C1 byte and the UTF-8 C1).
// The client retries the last three as one call's attempts: the error
// line, last, is the one `run` prints; the log has every attempt.
var hostileStreams = []struct {
	name  string
	lines []string
}{
	{"thinking and content", []string{
		`{"model":"fake","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"","thinking":"think ` + hostileJSON + `"},"done":false}`,
		`{"model":"fake","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"{\"reasoning\": \"stream ` + strings.ReplaceAll(hostileJSON, `\`, `\\`) + `\", "},"done":false}`,
		`{"model":"fake","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"\"action\": \"north\", \"remember\": \"\", \"remember_importance\": 0}"},"done":false}`,
		`{"model":"fake","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":42,"eval_count":3}`,
	}},
	{"a line that is not JSON", []string{
		`{"model":"fake","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"{"},"done":false}`,
		hostileText + " \x9b2J \x9d0;t\x07 not JSON",
	}},
	{"not JSON from the first line", []string{
		"\x1b[31m" + hostileText + " \x9b\x1b]0;x\x07",
		`{"model":"fake","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":true}`,
	}},
	{"an error line", []string{
		`{"model":"fake","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"{\"reasoning\": \"","thinking":"` + hostileJSON + `"},"done":false}`,
		`{"error":"\u001b[31mboom\u001b[0m ` + hostileJSON + `"}`,
	}},
}

// hostileServer is the scripted fake behind a proxy that makes every error
// body, the version and one model's name hostile, and answers the first
// agent calls with hostileStreams; served counts the streams sent.
func hostileServer(t *testing.T) (host string, served func() int) {
	t.Helper()
	s := llmtest.New(t)
	s.AddModel("fake", 8192)
	s.AddModel("evil"+hostileText, 8192)
	// The first agent call fails with a hostile error body, later ones
	// reason hostilely.
	s.On("agent fails", llmtest.Role(config.RoleAgent), llmtest.Reply{Fault: llmtest.HTTP500})
	s.Always("agent", llmtest.Role(config.RoleAgent), llmtest.Reply{Content: `{"reasoning": "` + hostileJSON + `", "action": "north", "remember": "note ` + hostileJSON + `", "remember_importance": 700}`})
	s.Always("critic", llmtest.Role(config.RoleCritic), llmtest.Reply{Content: `{"score": 5, "justification": "` + hostileJSON + `"}`})
	s.Always("memory", llmtest.Role(config.RoleMemory), llmtest.Reply{Content: `{"should_remember": true, "category": "NOTE", "memory_title": "Title ` + hostileJSON + `",
		"memory_text": "Text ` + hostileJSON + `", "status": "ACTIVE", "supersedes_memory_titles": [], "reasoning": "` + hostileJSON + `"}`})
	s.Always("knowledge", llmtest.Role(config.RoleKnowledge), llmtest.Reply{Content: `{"strategy": "Strategy ` + hostileJSON + `", "lessons": ["Lesson ` + hostileJSON + `"], "episode_note": "Note ` + hostileJSON + `", "reasoning": "` + hostileJSON + `"}`})
	s.ScriptPlanning()
	target, _ := url.Parse("http://" + s.Host())
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(r *http.Response) error {
		var body []byte
		switch {
		case r.StatusCode >= 400:
			body = []byte(`{"error": "` + hostileJSON + `"}` + "\n" + hostileText)
		case r.Request.URL.Path == "/api/version":
			body = []byte(`{"version": "0.9.0` + hostileJSON + `"}`)
		default:
			return nil
		}
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	var mu sync.Mutex
	next := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" && r.Header.Get(llm.RoleHeader) == config.RoleAgent {
			mu.Lock()
			i := next
			if i < len(hostileStreams) {
				next++
			}
			mu.Unlock()
			if i < len(hostileStreams) {
				w.Header().Set("Content-Type", "application/x-ndjson")
				for _, l := range hostileStreams[i].lines {
					io.WriteString(w, l+"\n")
					w.(http.Flusher).Flush()
				}
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), func() int {
		mu.Lock()
		defer mu.Unlock()
		return next
	}
}

// runCLIWithin is runCLI that fails the test when the command has not
// ended within d (a hostile server must not hang a command).
func runCLIWithin(t *testing.T, d time.Duration, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var out, errb bytes.Buffer
	code := run(ctx, sampleConfig(t), args, strings.NewReader(""), &out, &errb)
	if ctx.Err() != nil {
		t.Errorf("%v did not end within %v", args, d)
	}
	return code, out.String(), errb.String()
}

// controls names the first terminal control in out, if any.
func controls(out string) string {
	switch {
	case strings.IndexByte(out, 0x1b) >= 0:
		i := strings.IndexByte(out, 0x1b)
		return "ESC at " + strconv.Itoa(i) + ": " + strconv.Quote(out[max(0, i-40):min(len(out), i+40)])
	case strings.Contains(out, "\u009b"):
		return "U+009B (CSI)"
	case strings.Contains(out, "\u009d"):
		return "U+009D (OSC)"
	case strings.IndexByte(out, 0x07) >= 0:
		return "BEL"
	case !utf8.ValidString(out):
		return "a byte that is not UTF-8 (a lone C1 to an 8-bit terminal)"
	}
	return ""
}

// No escape sequence or C1 control a model or a server sends reaches the
// person: not stdout or stderr of any command that prints model or server
// text, not the Markdown export, Memories.md or knowledgebase.md.
func TestHostileModelTextNeverReachesTheTerminal(t *testing.T) {
	dir, _ := isolate(t)
	host, served := hostileServer(t)
	t.Setenv("OLLAMA_HOST", host)
	commands := [][]string{
		{"models"},
		{"models", "--json"},
		{"doctor"},
		{"run", "--model", "fake", "--max-turns", "4"},
		{"run", "--model", "fake", "--max-turns", "2", "--json"},
		{"run", "--model", "missing", "--max-turns", "1"},
		{"episodes", "list"},
		{"episodes", "show"},
		{"episodes", "export", "--format", "md", "-o", filepath.Join(dir, "ep.md")},
		{"episodes", "export", "--format", "html", "-o", filepath.Join(dir, "ep.html")},
		{"episodes", "export", "--format", "json"},
		{"notes"},
		{"memories", "show"},
		{"bench", "--model", "fake", "--episodes", "1", "--max-turns", "3"},
	}
	firstRun := "" // the stderr of the first run, which met the streams
	for _, args := range commands {
		code, out, stderr := runCLIWithin(t, 2*time.Minute, args...)
		if args[0] == "run" && firstRun == "" {
			firstRun = stderr
		}
		if c := controls(out); c != "" {
			t.Errorf("%v (exit %d): stdout holds %s", args, code, c)
		}
		if c := controls(stderr); c != "" {
			t.Errorf("%v (exit %d): stderr holds %s", args, code, c)
		}
	}
	if n := served(); n != len(hostileStreams) {
		t.Errorf("%d of the %d hostile streams were sent", n, len(hostileStreams))
	}
	// The hostile text did arrive (neutralised), so the test saw it.
	_, out, _ := runCLI(t, "", "episodes", "show")
	if !strings.Contains(out, "pwned") {
		t.Errorf("episodes show lacks the model's (neutralised) reasoning:\n%.600s", out)
	}
	var files []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".log")) {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 3 {
		t.Fatalf("files for people: %v; want the exports and Memories.md at least", files)
	}
	// The retried attempts on hostile streams are logged (neutralised),
	// the last one's error (the error line) is printed.
	log, _ := os.ReadFile(filepath.Join(dir, "data", "lantern", "lantern.log"))
	if !bytes.Contains(log, []byte("invalid character")) {
		t.Errorf("lantern.log lacks the lines that are not JSON")
	}
	if !strings.Contains(firstRun, "boom") {
		t.Errorf("the first run's stderr lacks the stream's error line:\n%s", firstRun)
	}
	for _, p := range files {
		data, _ := os.ReadFile(p)
		if c := controls(string(data)); c != "" {
			t.Errorf("%s holds %s", p, c)
		}
	}
}
