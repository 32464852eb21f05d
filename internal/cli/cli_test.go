package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/internal/clitest"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/llm/llmtest"
	"github.com/lantern-if/lantern/sharedtest"
)

func TestHelpOnEveryCommand(t *testing.T) {
	isolate(t)
	for _, cmd := range []string{"play", "run", "bench", "doctor", "models", "config"} {
		code, stdout, _ := runCLI(t, "", cmd, "--help")
		if code != exitOK || !strings.Contains(stdout, "lantern "+cmd) || !strings.Contains(stdout, "EXAMPLES") {
			t.Errorf("%s --help: exit %d\n%s", cmd, code, stdout)
		}
	}
	code, stdout, _ := runCLI(t, "", "memories", "--help")
	if code != exitOK || !strings.Contains(stdout, "lantern memories") || !strings.Contains(stdout, "EXAMPLES") {
		t.Errorf("memories --help: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, "", "--help")
	for _, cmd := range []string{"bench", "doctor", "models", "memories", "config", "Exit codes"} {
		if !strings.Contains(stdout, cmd) {
			t.Errorf("usage lacks %q", cmd)
		}
	}
	if code, stdout, _ := runCLI(t, "", "--version"); code != exitOK || !strings.HasPrefix(stdout, "lantern ") {
		t.Errorf("--version: %d %q", code, stdout)
	}
}

// TestConfigReachesTheCommands: the levels of the precedence reach `run`;
// a bad configuration is a usage error naming the file and line.
func TestConfigReachesTheCommands(t *testing.T) {
	dir, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	turns := func(args ...string) int {
		t.Helper()
		code, out, stderr := runCLI(t, "", append([]string{"run", "--headless", "--json", "--agent", "script:" + walk}, args...)...)
		if code != exitOK {
			t.Fatalf("run: exit %d: %s", code, stderr)
		}
		return strings.Count(out, `"turn":`)
	}
	user := filepath.Join(dir, "config", "lantern", "lantern.toml")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(user, []byte("[loop]\nmax_turns_per_episode = 6\n"), 0o644)
	if n := turns(); n != 6 {
		t.Errorf("user file: %d turns, want 6", n)
	}
	os.WriteFile(filepath.Join(dir, "lantern.toml"), []byte("[loop]\nmax_turns_per_episode = 5\n"), 0o644)
	if n := turns(); n != 5 {
		t.Errorf("project file: %d turns, want 5", n)
	}
	t.Setenv("LANTERN_LOOP_MAX_TURNS_PER_EPISODE", "4")
	if n := turns(); n != 4 {
		t.Errorf("environment: %d turns, want 4", n)
	}
	if n := turns("--max-turns", "3"); n != 3 {
		t.Errorf("flag: %d turns, want 3", n)
	}
	// The work dir from the configuration is where the run goes.
	t.Setenv("LANTERN_WORK_DIR", filepath.Join(dir, "wd"))
	turns()
	if _, err := os.Stat(filepath.Join(dir, "wd", "demo-r1", "lantern.db")); err != nil {
		t.Errorf("the configured work dir was not used: %v", err)
	}

	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[loop]\nmemory_history_window = 0\n"), 0o644)
	for _, args := range [][]string{{"run", "--headless", "--config", bad}, {"bench", "--config", bad}, {"play", "--plain", "--config", bad}} {
		code, _, stderr := runCLI(t, "", args...)
		if code != exitUsage || !strings.Contains(stderr, bad+":2: loop.memory_history_window = 0: must be at least 1 turn") {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
		}
	}
}

func TestConfigCommand(t *testing.T) {
	dir, repo := isolate(t)
	code, out, _ := runCLI(t, "", "config", "sample")
	sample, err := os.ReadFile(filepath.Join(repo, "lantern.sample.toml"))
	if err != nil || code != exitOK || out != string(sample) {
		t.Errorf("config sample: exit %d, differs from lantern.sample.toml: %v", code, err)
	}
	p := filepath.Join(dir, "sample.toml")
	os.WriteFile(p, sample, 0o644)
	if code, out, _ := runCLI(t, "", "config", "check", p); code != exitOK || !strings.Contains(out, "ok: "+p) {
		t.Errorf("config check sample: exit %d\n%s", code, out)
	}
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[roles.agent]\ntemprature = 0.5\n"), 0o644)
	if code, out, _ := runCLI(t, "", "config", "check", bad); code != exitError || !strings.Contains(out, bad+":2: roles.agent.temprature = 0.5: unknown key; did you mean roles.agent.temperature?") {
		t.Errorf("config check bad: exit %d\n%s", code, out)
	}
	// Special files are refused before a byte is read (a FIFO without a
	// writer would wait for ever, /dev/zero never ends), exit 2.
	fifo, link := filepath.Join(dir, "fifo.toml"), filepath.Join(dir, "zero.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for _, special := range []string{"/dev/zero", link, fifo, dir} {
		if code, out, _ := runCLI(t, "", "config", "check", special); code != exitUsage || !strings.Contains(out, "not a regular file") {
			t.Errorf("config check %s: exit %d, want %d refusing it:\n%s", special, code, exitUsage, out)
		}
	}
	t.Setenv("OLLAMA_HOST", "10.1.2.3:4")
	code, out, _ = runCLI(t, "", "config", "show", "--config", p)
	if code != exitOK || !strings.Contains(out, `host = "10.1.2.3:4"`) || !strings.Contains(out, "# environment OLLAMA_HOST") ||
		!strings.Contains(out, p+":") {
		t.Errorf("config show: exit %d\n%s", code, out)
	}
}

// TestDoctorUnreachable: with nothing listening, doctor names the host,
// says how to fix it and fails.
func TestDoctorUnreachable(t *testing.T) {
	isolate(t)
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9")
	code, out, _ := runCLI(t, "", "doctor", "--timeout", "3s")
	if code == exitOK {
		t.Fatalf("doctor succeeded with no server:\n%s", out)
	}
	for _, want := range []string{"FAIL  no Ollama server answers at 127.0.0.1:9", "host from environment OLLAMA_HOST", "fix: start Ollama", "1 problem found"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
}

// TestDoctorWithFakeServer: every section passes against a server with the
// model; a missing model, a model without tools for the retriever, and a
// bad configuration each fail with a fix.
func TestDoctorWithFakeServer(t *testing.T) {
	dir, _ := isolate(t)
	s := llmtest.New(t)
	s.AddModel("fake", 8192, llm.CapTools)
	s.AddModel("plain", 4096)
	t.Setenv("OLLAMA_HOST", s.Host())
	code, out, _ := runCLI(t, "", "doctor", "--model", "fake")
	if code != exitOK {
		t.Fatalf("doctor: exit %d\n%s", code, out)
	}
	for _, want := range []string{"ok    Ollama 0.17.4 at " + s.Host(), "ok    fake: tools yes, thinking no, context 8192 (used by agent, critic",
		`binding "demo" found`, "is writable", "Zork I not found", "No problems",
		"memories are decided in the agent's reply (auto: the server serves one request at a time"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	// Checking Zork I itself, doctor does not say Zork I is missing.
	zork := sharedtest.File(t, "stories/zork1.z3")
	code, out, _ = runCLI(t, "", "doctor", "--model", "fake", "--story", zork)
	if code != exitOK || strings.Contains(out, "Zork I not found") || !strings.Contains(out, `binding "zork1" found`) {
		t.Errorf("doctor --story %s: exit %d\n%s", zork, code, out)
	}
	code, out, _ = runCLI(t, "", "doctor")
	if code != exitError || !strings.Contains(out, "qwen3:4b is not on the server (used by agent, critic, extractor, memory, objectives, knowledge, supervisor, retriever)") ||
		!strings.Contains(out, "fix: ollama pull qwen3:4b") {
		t.Errorf("missing model: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", "doctor", "--model", "plain")
	if code != exitError || !strings.Contains(out, "the retriever role needs tools, which plain lacks") {
		t.Errorf("retriever without tools: exit %d\n%s", code, out)
	}
	os.WriteFile(filepath.Join(dir, "lantern.toml"), []byte("[ollama]\nhost = \""+s.Host()+"\"\n[roles.critic]\ntop_p = 5\n"), 0o644)
	code, out, _ = runCLI(t, "", "doctor", "--model", "fake")
	if code != exitError || !strings.Contains(out, "lantern.toml:4: roles.critic.top_p = 5.0: must be above 0 and at most 1") ||
		!strings.Contains(out, "fix: edit line 4 of") {
		t.Errorf("bad configuration: exit %d\n%s", code, out)
	}
}

// TestE2EDoctorRealServer: against the real test server with its tiny
// model, doctor passes.
func TestE2EDoctorRealServer(t *testing.T) {
	host := os.Getenv("OLLAMA_HOST")
	if os.Getenv("LANTERN_OLLAMA_E2E") != "1" || host == "" {
		t.Skip("set LANTERN_OLLAMA_E2E=1 and OLLAMA_HOST (scripts/ollama-test-server.sh start)")
	}
	isolate(t)
	t.Setenv("OLLAMA_HOST", host)
	code, out, _ := runCLI(t, "", "doctor", "--model", "lantern-tiny")
	if code != exitOK || !strings.Contains(out, "lantern-tiny: tools yes") {
		t.Fatalf("doctor: exit %d\n%s", code, out)
	}
}

func TestModelsCommand(t *testing.T) {
	isolate(t)
	s := llmtest.New(t)
	s.AddModel("fake", 8192, llm.CapTools)
	s.AddModel("other", 2048)
	s.AddCloudModel("gpt-oss:120b-cloud", 131072)
	t.Setenv("OLLAMA_HOST", s.Host())
	t.Setenv("LANTERN_MODEL", "fake")
	t.Setenv("LANTERN_ROLES_CRITIC_MODEL", "absent:1b")
	code, out, stderr := runCLI(t, "", "models")
	if code != exitOK {
		t.Fatalf("models: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Ollama 0.17.4 at " + s.Host() + ": 3 model(s)", "agent, extractor, memory", "completion,tools",
		"absent:1b (critic): ollama pull absent:1b", "gpt-oss:120b-cloud   remote", "gpt-oss:120b-cloud is a cloud model: it runs at https://ollama.com:443"} {
		if !strings.Contains(out, want) {
			t.Errorf("models output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "", "models", "--json")
	var rep modelsReport
	if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Models) != 3 || rep.Models[0].Name != "fake" ||
		len(rep.Models[0].Roles) != 7 || len(rep.Models[2].Roles) != 0 || rep.Missing["absent:1b"][0] != "critic" ||
		!rep.Models[1].Remote || rep.Models[0].Remote {
		t.Errorf("models --json: exit %d %+v", code, rep)
	}
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9")
	if code, _, stderr := runCLI(t, "", "models"); code != exitError || !strings.Contains(stderr, "127.0.0.1:9") {
		t.Errorf("unreachable: exit %d %s", code, stderr)
	}
}

func TestMemoriesCommands(t *testing.T) {
	dir, repo := isolate(t)
	good, err := os.ReadFile(filepath.Join(repo, "memory", "testdata", "seed003_example.md"))
	if err != nil {
		t.Skip("no example Memories.md:", err)
	}
	// The default file: the story's folder in the configured work dir.
	wd := filepath.Join(dir, "wd")
	path := filepath.Join(wd, "demo-r1", "Memories.md")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, good, 0o644)
	t.Setenv("LANTERN_WORK_DIR", wd)
	if code, out, _ := runCLI(t, "", "memories", "check"); code != exitOK || out != "" {
		t.Errorf("check: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "", "memories", "show"); code != exitOK || !strings.Contains(out, "## Location") {
		t.Errorf("show: exit %d\n%s", code, out)
	}
	if code, _, stderr := runCLI(t, "", "memories", "show", "--location", "99999"); code != exitError || !strings.Contains(stderr, "99999") {
		t.Errorf("show of a missing location: exit %d %s", code, stderr)
	}
	broken := filepath.Join(dir, "broken.md")
	os.WriteFile(broken, []byte("# Location Memories\n\n## Location 12: Hall\n**[SUCCESS] Open door** *(Ep1, T3)*\nIt opens.\n**[SHOUT] Bad** *(EpX)*\nhm\n"), 0o644)
	code, out, _ := runCLI(t, "", "memories", "check", broken)
	if code != exitError || !strings.HasPrefix(out, broken+":") {
		t.Errorf("check broken: exit %d\n%s", code, out)
	}
	messy := filepath.Join(dir, "messy.md")
	os.WriteFile(messy, []byte("# Location Memories\n## Location 12: Hall\n**[SUCCESS] Open door** *(Ep1, T3)*\nIt opens.\n"), 0o644)
	code, want, _ := runCLI(t, "", "memories", "fmt", messy)
	if code != exitOK {
		t.Fatalf("fmt: exit %d", code)
	}
	if code, out, _ := runCLI(t, "", "memories", "fmt", messy, "-w"); code != exitOK || !strings.Contains(out, "formatted") {
		t.Errorf("fmt -w: exit %d %s", code, out)
	}
	if got, _ := os.ReadFile(messy); string(got) != want {
		t.Errorf("fmt -w wrote\n%s\nfmt printed\n%s", got, want)
	}
	if _, err := os.Stat(messy + ".backup"); err != nil {
		t.Errorf("no backup: %v", err)
	}
	if code, out, _ := runCLI(t, "", "memories", "fmt", "-w", messy); code != exitOK || !strings.Contains(out, "already") {
		t.Errorf("fmt -w again: exit %d %s", code, out)
	}
	if code, _, _ := runCLI(t, "", "memories", "sing"); code != exitUsage {
		t.Errorf("unknown subcommand: exit %d", code)
	}
}

// wantAll and lastLines are clitest's.
func wantAll(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	clitest.WantAll(t, what, out, wants...)
}

func lastLines(s string, n int) string { return clitest.LastLines(s, n) }

// benchJSON is lantern bench --json args, which must succeed.
func benchJSON(t *testing.T, args ...string) bench.Report {
	t.Helper()
	code, out, stderr := runCLI(t, "", append([]string{"bench", "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("bench %v: exit %d\n%s", args, code, stderr)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("bench %v: %v\n%s", args, err, out)
	}
	return rep
}

// isolate and buildLantern are clitest's, shared with the other process
// tests.
func isolate(t *testing.T) (dir, repo string) { return clitest.Isolate(t) }

func buildLantern(t testing.TB, dir, repo string) string { return clitest.BuildLantern(t, dir, repo) }
