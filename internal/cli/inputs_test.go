package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Every input file is checked for type and size before it is read:
// /dev/zero and a FIFO (with no writer) as each input end the command at
// once with an error naming the file, never a read without end or a wait.
func TestSpecialInputFilesRefused(t *testing.T) {
	dir, _ := isolate(t)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for _, in := range []string{"/dev/zero", fifo} {
		tests := []struct {
			name string
			args []string
		}{
			{"lantern.toml", []string{"--config", in, "stories"}},
			{"memories check", []string{"memories", "check", in}},
			{"memories fmt", []string{"memories", "fmt", "-w", in}},
			{"play --script", []string{"play", "--script", in}},
			{"run --agent script:", []string{"run", "--agent", "script:" + in, "--max-turns", "3"}},
		}
		for _, tc := range tests {
			done := make(chan struct{})
			var code int
			var stderr string
			go func() {
				var out string
				code, out, stderr = runCLI(t, "", tc.args...)
				stderr += out // memories check reports on stdout
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("%s on %s: still running after 20 s", tc.name, in)
			}
			if code == exitOK || !strings.Contains(stderr, in) || !strings.Contains(stderr, "not a regular file") {
				t.Errorf("%s on %s: exit %d, stderr %q; want a failure naming the file as not a regular file", tc.name, in, code, stderr)
			}
		}
	}
}

// episodes export -o writes to the target named: a device stays a device,
// a FIFO's reader gets the export.
func TestExportToDeviceAndFIFO(t *testing.T) {
	dir := playDemo(t)
	if code, _, stderr := runCLI(t, "", "episodes", "export", "1", "-o", "/dev/null"); code != exitOK {
		t.Fatalf("export to /dev/null: exit %d: %s", code, stderr)
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v", err)
	}
	fifo := filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- ""
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if code, _, stderr := runCLI(t, "", "episodes", "export", "1", "-o", fifo); code != exitOK {
		t.Fatalf("export to a FIFO: exit %d: %s", code, stderr)
	}
	if md := <-got; !strings.Contains(md, `# Line 1/main (\#1) of demo`) {
		t.Fatalf("the FIFO's reader got %.200q", md)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("the FIFO was replaced by a file")
	}
}

// Every numeric flag is range-checked before anything is played or
// allocated.
func TestNumericFlagsRangeChecked(t *testing.T) {
	isolate(t)
	tests := [][]string{
		{"run", "--episodes", "-2"},
		{"run", "--episodes", "0"},
		{"run", "--episodes", "999999999999"},
		{"bench", "--episodes", "999999999999"},
		{"bench", "--episodes", "-1"},
		{"bench", "--width", "-5"},
		{"run", "--auto-accept", "-1s"},
		{"notes", "edit", "1", "--importance", "-4"},
		{"memories", "show", "--location", "-1"},
	}
	for _, args := range tests {
		start := time.Now()
		code, _, stderr := runCLI(t, "", args...)
		if code != exitUsage || !strings.Contains(stderr, "--") {
			t.Errorf("%v: exit %d, %q; want a usage error naming the flag", args, code, stderr)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%v took %s", args, d)
		}
	}
}

// A work dir Lantern cannot write in is a runtime failure (exit 1) that
// names the dir, not a usage error with a log: prefix.
func TestUnusableWorkDir(t *testing.T) {
	dir, _ := isolate(t)
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	wd := filepath.Join(blocker, "work") // a file where a folder must be
	code, _, stderr := runCLI(t, "", "run", "--workdir", wd, "--agent", "script:/nonexistent")
	if code != exitError || !strings.Contains(stderr, wd) || strings.Contains(stderr, "log:") {
		t.Fatalf("exit %d, %q; want exit 1 naming %s", code, stderr, wd)
	}
}

// Huge names are clipped in messages.
func TestHugeNamesClipped(t *testing.T) {
	isolate(t)
	big := strings.Repeat("a", 100_000)
	_, out, stderr := runCLI(t, "", "run", "--story", big, "--agent", "script:/nonexistent")
	if n := len(out) + len(stderr); n > 10_000 {
		t.Fatalf("a 100 KB story name printed %d bytes", n)
	}
}

// run --review waiting for a decision on an input that never comes ends
// when its context does (the signals cancel it), with the turns so far
// recorded.
func TestReviewWaitEndsOnSignal(t *testing.T) {
	_, repo := isolate(t)
	walk := filepath.Join(repo, "game_files", "demo", "walkthrough.txt")
	in, w := io.Pipe() // a terminal nobody types into
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	errb := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, sampleConfig(t), []string{"run", "--review", "--agent", "script:" + walk, "--max-turns", "20"}, in, &out, errb)
	}()
	// Wait for the first review request, then signal.
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(errb.String(), "y / e COMMAND"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no review request: %s", errb.String())
		}
	}
	start := time.Now()
	cancel()
	select {
	case <-done:
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("ended %s after the signal", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run --review still waits 10 s after the signal")
	}
}

// lockedBuffer is a buffer one goroutine writes while another reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
