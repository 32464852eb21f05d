package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/oracle"
)

func TestOracleFlags(t *testing.T) {
	isolate(t)
	code, stdout, _ := runCLI(t, "", "oracle", "--help")
	if code != exitOK || !strings.Contains(stdout, "lantern oracle") || !strings.Contains(stdout, "EXAMPLES") {
		t.Errorf("oracle --help: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := runCLI(t, "", "oracle"); code != exitUsage || !strings.Contains(stderr, "--script") {
		t.Errorf("oracle without --script: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "oracle", "--script", "no-such-walkthrough.txt"); code != exitError || !strings.Contains(stderr, "no-such-walkthrough.txt") {
		t.Errorf("oracle with a missing script: exit %d\n%s", code, stderr)
	}
	for _, args := range [][]string{{"--prompt-rate", "2500"}, {"--gen-rate", "60", "--prompt-rate", "-1"}, {"--prompt-rate", "2500", "--gen-rate", "60", "--slots", "0"}} {
		args = append([]string{"oracle", "--script", "game_files/demo/walkthrough.txt"}, args...)
		if code, _, stderr := runCLI(t, "", args...); code != exitUsage || !strings.Contains(stderr, "--prompt-rate") {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
		}
	}
}

// TestOracleProcess runs `lantern oracle` as a process: its first line on
// standard output is OLLAMA_HOST=..., the server lists the oracle model,
// and SIGTERM ends it cleanly.
func TestOracleProcess(t *testing.T) {
	dir, repo := isolate(t)
	bin := buildLantern(t, dir, repo)
	cmd := exec.Command(bin, "oracle", "--script", filepath.Join(repo, "game_files/demo/walkthrough.txt"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	stopped := false
	defer func() {
		if !stopped {
			cmd.Process.Kill()
			<-exited
		}
	}()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		for sc.Scan() {
			t.Errorf("more output on stdout: %q", sc.Text())
		}
		exited <- cmd.Wait()
	}()
	var first string
	select {
	case first = <-lines:
	case <-time.After(30 * time.Second):
		t.Fatal("no OLLAMA_HOST line in 30 s")
	}
	host, ok := strings.CutPrefix(first, "OLLAMA_HOST=")
	if !ok || !strings.HasPrefix(host, "127.0.0.1:") || strings.HasSuffix(host, ":0") {
		t.Fatalf("first line %q, want OLLAMA_HOST=127.0.0.1:PORT", first)
	}
	resp, err := http.Get("http://" + host + "/api/tags")
	if err != nil {
		t.Fatal(err)
	}
	var tags struct {
		Models []struct{ Name string } `json:"models"`
	}
	err = json.NewDecoder(resp.Body).Decode(&tags)
	resp.Body.Close()
	if err != nil || len(tags.Models) != 1 || tags.Models[0].Name != "oracle:latest" {
		t.Fatalf("/api/tags: %+v, %v", tags, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			t.Errorf("exit after SIGTERM: %v; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10 s after SIGTERM")
	}
	if !strings.Contains(stderr.String(), "stopped") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// playWithOracle runs `lantern run --headless --json --model oracle` (every
// manager on, the default configuration) against an oracle serving the
// walkthrough, and checks the game is won with the walkthrough's moves, in
// order. The caller has isolated the test. It returns the oracle's counts
// and the last turn's score.
func playWithOracle(t *testing.T, walkthrough string, extra ...string) (oracle.Stats, int) {
	t.Helper()
	return playWithOracleOn(t, config.APIOllama, walkthrough, nil, extra...)
}

// playWithOracleOn is playWithOracle on a protocol: Ollama's API, or the
// OpenAI chat-completions protocol at the oracle's /v1 (--api openai
// --base-url); rec, when not nil, sits in front of the oracle and notes
// each call (Ollama's API).
func playWithOracleOn(t *testing.T, apiName, walkthrough string, rec *recorder, extra ...string) (oracle.Stats, int) {
	t.Helper()
	cmds, err := oracle.LoadScript(walkthrough)
	if err != nil {
		t.Fatal(err)
	}
	orc := oracle.New(oracle.Options{Script: cmds})
	var h http.Handler = orc
	if rec != nil {
		rec.next, h = orc, rec
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Setenv("OLLAMA_HOST", strings.TrimPrefix(srv.URL, "http://"))
	args := append([]string{"run", "--headless", "--json", "--model", "oracle", "--seed", "12", "--max-turns", "1000"}, extra...)
	if apiName == config.APIOpenAI {
		// Nothing may reach Ollama's chat: the host is a closed port.
		t.Setenv("OLLAMA_HOST", "127.0.0.1:9")
		args = append(args, "--api", "openai", "--base-url", srv.URL+"/v1")
	}
	code, stdout, stderr := runCLI(t, "", args...)
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	var played []string
	var last struct {
		Turn   int    `json:"turn"`
		Action string `json:"action"`
		Score  int    `json:"score"`
		Ended  string `json:"ended"`
		Critic []struct {
			Action   string  `json:"action"`
			Stage    string  `json:"stage"`
			Score    float64 `json:"score"`
			Accepted bool    `json:"accepted"`
		} `json:"critic"`
	}
	firstTime := 0
	stages := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		last.Action, last.Ended, last.Critic = "", "", nil
		if err := json.Unmarshal([]byte(line), &last); err != nil {
			t.Fatalf("turn line %q: %v", line, err)
		}
		if last.Action != "" {
			played = append(played, last.Action)
		}
		// Every walkthrough move accepted at its first proposal, by what
		// the game confirms or by the critic model (no ground-truth and no
		// model rejection).
		if c := last.Critic; len(c) == 1 && c[0].Accepted && (c[0].Stage == "model" || c[0].Stage == "game") {
			firstTime++
			stages[c[0].Stage]++
		} else {
			t.Errorf("turn %d %q: critic %+v, want one proposal accepted by the game or the model", last.Turn, last.Action, c)
		}
	}
	t.Logf("%d of %d moves accepted at their first proposal (%d confirmed by the game, %d by the critic model)", firstTime, len(played), stages["game"], stages["model"])
	// critic_mode is uncertain by default: the game decides most moves.
	if stages["game"] <= stages["model"] {
		t.Errorf("the game confirmed %d moves and the model judged %d; the default critic_mode asks the model only where the game cannot decide", stages["game"], stages["model"])
	}
	if last.Ended != "victory" {
		t.Errorf("the episode ended %q, want victory", last.Ended)
	}
	if !slices.Equal(played, cmds) {
		t.Errorf("played %d moves, the walkthrough has %d; the first difference:", len(played), len(cmds))
		for i := range min(len(played), len(cmds)) {
			if played[i] != cmds[i] {
				t.Errorf("turn %d: played %q, walkthrough %q", i+1, played[i], cmds[i])
				break
			}
		}
	}
	st := orc.Stats()
	t.Logf("oracle: %s", st)
	return st, last.Score
}

// knownFalseRejections are the walkthrough moves the oracle had to propose
// again (not played at the first proposal); known lists turns allowed to
// (none today: every move is played at its first proposal).
func knownFalseRejections(t *testing.T, st oracle.Stats, known map[int]bool) {
	t.Helper()
	for _, r := range st.Repeats {
		if !known[r.Turn] {
			t.Errorf("turn %d: %q was proposed again (not played at the first proposal)", r.Turn, r.Action)
		}
	}
}

// TestOraclePlaysTheDemo: the demo is won with every move accepted at its
// first proposal, on both protocols (Ollama's API and the OpenAI
// chat-completions one).
func TestOraclePlaysTheDemo(t *testing.T) {
	for _, apiName := range []string{config.APIOllama, config.APIOpenAI} {
		t.Run(apiName, func(t *testing.T) {
			_, repo := isolate(t)
			st, _ := playWithOracleOn(t, apiName, filepath.Join(repo, "game_files/demo/walkthrough.txt"), nil)
			knownFalseRejections(t, st, map[int]bool{})
		})
	}
}

// TestOraclePlaysZork plays the whole of Zork I through the whole model
// path (the oracle as every role's model, the default configuration): the
// game is won with 350 points, every move at its first proposal, within
// the call budget (checkCallBudget).
func TestOraclePlaysZork(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the whole of Zork I")
	}
	story, walk, cmds := zorkScript(t)
	dir, _ := isolate(t)
	rec := newRecorder()
	wd := filepath.Join(dir, "wd")
	st, score := playWithOracleOn(t, config.APIOllama, walk, rec, "--story", story, "--workdir", wd)
	if score != 350 {
		t.Errorf("score %d, want 350", score)
	}
	knownFalseRejections(t, st, map[int]bool{})
	checkCallBudget(t, rec, len(cmds))
	checkOracleMemories(t, wd, story, st)
}

// checkOracleMemories: the oracle remembers from the game's ground truth,
// so Memories.md fills (at least 20 memories, every stored decision's
// title in it) and every decision's reasoning is its own, never the
// agent's reasoning for its next command (the walkthrough's step).
func checkOracleMemories(t *testing.T, wd, storyPath string, st oracle.Stats) {
	t.Helper()
	story := loadStoryFile(t, storyPath)
	sd := filepath.Join(wd, session.StoryDir(storyPath, story.Info().Release))
	ds := storyDecisions(t, sd, story.Info().MD5)
	mems, err := os.ReadFile(filepath.Join(sd, "Memories.md"))
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	for _, d := range ds {
		if strings.HasPrefix(d.Reasoning, "Step ") || strings.Contains(d.Reasoning, "of the walkthrough:") {
			t.Errorf("turn %d: the decision's reasoning %q is the agent's for its next command", d.Turn, d.Reasoning)
		}
		if strings.HasPrefix(d.Outcome, "stored") {
			stored++
			if !strings.Contains(string(mems), d.Title) {
				t.Errorf("turn %d: stored %q is not in Memories.md", d.Turn, d.Title)
			}
		}
	}
	t.Logf("%d memory decisions, %d stored; the oracle kept %d", len(ds), stored, st.Remembered)
	if stored < 20 {
		t.Errorf("%d memories stored from the oracle's answers, want at least 20", stored)
	}
}
