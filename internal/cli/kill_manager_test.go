package cli

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/llm/chatserve"
	"github.com/lantern-if/lantern/managers/memsynth"
	"github.com/lantern-if/lantern/oracle"
)

// memoryTurn finds the turn a memory synthesis prompt is about.
var memoryTurn = regexp.MustCompile(`Turn (\d+), action \(`)

// lastMemoryTurn is the turn of the last "Turn N, action (" in s (0: none).
func lastMemoryTurn(s string) int {
	m := memoryTurn.FindAllStringSubmatch(s, -1)
	if len(m) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

// keptTitle is the title of the memory the fake keeps for a turn.
func keptTitle(turn int) string { return fmt.Sprintf("Kept at turn %d", turn) }

// memoryBackend answers memory synthesis with a memory to keep whose
// title names the turn, so a memory written twice shows as two titles.
type memoryBackend struct{}

func (memoryBackend) Models() []chatserve.Model { return nil }

func (memoryBackend) Chat(req *chatserve.Request) (chatserve.Answer, error) {
	last := ""
	for _, m := range req.Chat.Messages {
		if m.Role == "user" {
			last = m.Content
		}
	}
	turn := lastMemoryTurn(last)
	if turn == 0 {
		return chatserve.Answer{}, fmt.Errorf("no turn in the memory prompt")
	}
	return chatserve.Answer{Content: fmt.Sprintf(`{"should_remember": true, "category": "DISCOVERY", "memory_title": %q, `+
		`"memory_text": "Something seen at turn %d.", "status": "ACTIVE", "supersedes_memory_titles": [], "reasoning": "worth keeping"}`,
		keptTitle(turn), turn)}, nil
}

// askedTurn finds the turn a memory question in the agent's prompt is
// about (memsynth.Question).
var askedTurn = regexp.MustCompile(`(?s)` + regexp.QuoteMeta(memsynth.QuestionHeader) + `.*?Turn (\d+), `)

// holdingServer is the oracle for every role but memory synthesis, which
// memoryBackend answers; while hold is set it holds the calls that carry a
// memory question instead — the memory role's, and with asks the agent's
// that answer one — until their client goes, telling held the turn of the
// first.
type holdingServer struct {
	oracle, memory http.Handler
	asks           bool
	hold           atomic.Bool
	held           chan int
}

func (h *holdingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	role := r.Header.Get(chatserve.RoleHeader)
	if r.URL.Path != "/api/chat" || (role != config.RoleMemory && (role != config.RoleAgent || !h.asks)) {
		h.oracle.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	turn := lastMemoryTurn(string(body))
	if role == config.RoleAgent {
		m := askedTurn.FindStringSubmatch(string(body))
		if m == nil {
			h.oracle.ServeHTTP(w, r) // no memory question in this one
			return
		}
		turn, _ = strconv.Atoi(m[1])
	}
	switch {
	case h.hold.Load():
		select {
		case h.held <- turn:
		default:
		}
		<-r.Context().Done()
	case role == config.RoleAgent:
		h.oracle.ServeHTTP(w, r)
	default:
		h.memory.ServeHTTP(w, r)
	}
}

// TestKillDuringMemorySynthesisThenResume: a headless run is killed with
// SIGKILL while the call that carries a turn's memory question is in
// flight (the server holds it): the memory role's own call, or with the
// default memory_synthesis the agent's next call that answers it.
// `--resume` against a server that answers writes that turn's memory to
// Memories.md once and its decision to lantern.db once, and no turn's
// memory or decision twice.
func TestKillDuringMemorySynthesisThenResume(t *testing.T) {
	for _, mode := range []string{config.MemorySeparate, config.MemoryWithAgent} {
		t.Run(mode, func(t *testing.T) { killDuringMemorySynthesis(t, mode) })
	}
}

func killDuringMemorySynthesis(t *testing.T, mode string) {
	storyPath, walk, dir, bin, story := zorkProcessFixture(t)
	cmds, err := oracle.LoadScript(walk)
	if err != nil {
		t.Fatal(err)
	}
	srv := &holdingServer{oracle: oracle.New(oracle.Options{Script: cmds}), asks: mode == config.MemoryWithAgent,
		memory: chatserve.New(chatserve.Options{Backend: memoryBackend{}}), held: make(chan int, 1)}
	srv.hold.Store(true)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)

	wd := filepath.Join(dir, "wd")
	sd := filepath.Join(wd, session.StoryDir(storyPath, story.Info().Release))
	args := []string{"run", "--headless", "--json", "--model", "oracle", "--story", storyPath, "--seed", "12", "--max-turns", "30", "--workdir", wd}
	env := append(os.Environ(), "OLLAMA_HOST="+strings.TrimPrefix(hs.URL, "http://"), "LANTERN_MANAGERS_MEMORY_SYNTHESIS="+mode)

	first := exec.Command(bin, args...)
	first.Env = env
	var stderr strings.Builder
	first.Stderr = &stderr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- first.Wait() }()
	var turn int
	select {
	case turn = <-srv.held:
	case err := <-exited:
		t.Fatalf("the run ended (%v) before any memory synthesis call:\n%s", err, stderr.String())
	case <-time.After(60 * time.Second):
		first.Process.Kill()
		t.Fatalf("no memory synthesis call in a minute:\n%s", stderr.String())
	}
	if turn == 0 {
		t.Fatal("the held memory call names no turn")
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	title := regexp.MustCompile(regexp.QuoteMeta(keptTitle(turn)) + `\b`)
	memories := func() string {
		data, err := os.ReadFile(filepath.Join(sd, "Memories.md"))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return string(data)
	}
	decisions := func() map[int]int {
		byTurn := map[int]int{}
		for _, d := range storyDecisions(t, sd, story.Info().MD5) {
			byTurn[d.Turn]++
		}
		return byTurn
	}
	if n := len(title.FindAllString(memories(), -1)); n != 0 {
		t.Fatalf("turn %d's memory written %d times before its call was answered", turn, n)
	}
	if n := decisions()[turn]; n != 0 {
		t.Fatalf("turn %d's decision recorded %d times before its call was answered", turn, n)
	}

	srv.hold.Store(false)
	second := exec.Command(bin, append(args, "--resume")...)
	second.Env = env
	if out, err := second.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%.3000s", err, out)
	}
	mem := memories()
	if n := len(title.FindAllString(mem, -1)); n != 1 {
		t.Errorf("turn %d's memory %q written %d times after the resume, want once:\n%s", turn, keptTitle(turn), n, mem)
	}
	byTurn := decisions()
	if byTurn[turn] != 1 {
		t.Errorf("turn %d's decision recorded %d times after the resume, want once (by turn: %v)", turn, byTurn[turn], byTurn)
	}
	for tr, n := range byTurn {
		if n > 1 {
			t.Errorf("turn %d: %d decisions", tr, n)
		}
		if c := len(regexp.MustCompile(regexp.QuoteMeta(keptTitle(tr))+`\b`).FindAllString(mem, -1)); c > 1 {
			t.Errorf("turn %d: its memory written %d times", tr, c)
		}
	}
	t.Logf("%s: killed during turn %d's memory synthesis; decisions by turn after the resume: %v", mode, turn, byTurn)
}
