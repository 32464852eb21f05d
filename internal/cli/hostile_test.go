package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm/llmtest"
)

// hostileText is every control a model or server could use on a terminal:
// OSC retitle (ESC and C1), clear screen (ESC and C1 CSI), a bell.
const hostileText = "\x1b]0;pwned\x07 \x1b[2J \u009b2J \u009d0;t\u009c"

// hostileJSON is the same inside a JSON string.
const hostileJSON = `\u001b]0;pwned\u0007 \u001b[2J \u009b2J \u009d0;t\u009c`

// hostileServer is the scripted fake behind a proxy that makes every error
// body, the version and one model's name hostile.
func hostileServer(t *testing.T) string {
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
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
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
	}
	return ""
}

// No escape sequence or C1 control a model or a server sends reaches the
// person: not stdout or stderr of any command that prints model or server
// text, not the Markdown export, Memories.md or knowledgebase.md.
func TestHostileModelTextNeverReachesTheTerminal(t *testing.T) {
	dir, _ := isolate(t)
	t.Setenv("OLLAMA_HOST", hostileServer(t))
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
	for _, args := range commands {
		code, out, stderr := runCLI(t, "", args...)
		if c := controls(out); c != "" {
			t.Errorf("%v (exit %d): stdout holds %s", args, code, c)
		}
		if c := controls(stderr); c != "" {
			t.Errorf("%v (exit %d): stderr holds %s", args, code, c)
		}
	}
	// The hostile text did arrive (neutralised), so the test saw it.
	_, out, _ := runCLI(t, "", "episodes", "show")
	if !strings.Contains(out, "pwned") {
		t.Errorf("episodes show lacks the model's (neutralised) reasoning:\n%.600s", out)
	}
	var files []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".html")) {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 3 {
		t.Fatalf("files for people: %v; want the exports and Memories.md at least", files)
	}
	for _, p := range files {
		data, _ := os.ReadFile(p)
		if c := controls(string(data)); c != "" {
			t.Errorf("%s holds %s", p, c)
		}
	}
}
