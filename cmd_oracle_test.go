package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOracleFlags(t *testing.T) {
	isolate(t)
	code, _, stderr := runCLI(t, "", "oracle", "--help")
	if code != exitOK || !strings.Contains(stderr, "Usage: lantern oracle") || !strings.Contains(stderr, "Examples:") {
		t.Errorf("oracle --help: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "oracle"); code != exitUsage || !strings.Contains(stderr, "--script") {
		t.Errorf("oracle without --script: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "oracle", "--script", "no-such-walkthrough.txt"); code != exitError || !strings.Contains(stderr, "no-such-walkthrough.txt") {
		t.Errorf("oracle with a missing script: exit %d\n%s", code, stderr)
	}
}

// TestOracleProcess runs `lantern oracle` as a process: its first line on
// standard output is OLLAMA_HOST=..., the server lists the oracle model,
// and SIGTERM ends it cleanly.
func TestOracleProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir, repo := isolate(t)
	bin := filepath.Join(dir, "lantern")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
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
