package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/memory"
	"github.com/lantern-if/lantern/memory/rundb"
)

// TestRunStopsAtAnUnrecordedTurn: the headless report exits non-zero when
// the engine pauses on a turn lantern.db could not take.
func TestRunStopsAtAnUnrecordedTurn(t *testing.T) {
	events := make(chan engine.Event, 8)
	events <- engine.TurnResult{Turn: 1, Action: "look"}
	events <- engine.TurnResult{Turn: 2, Action: "look"}
	events <- engine.ErrorEvent{Turn: 2, Err: fmt.Errorf("%w: disk full", engine.ErrNotRecorded)}
	events <- engine.Idle{Turn: 2, Mode: engine.Paused}
	close(events)
	var stderr strings.Builder
	if code := report(events, false, io.Discard, &stderr, nil); code == exitOK {
		t.Fatalf("exit %d, want non-zero; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "turn not recorded") {
		t.Errorf("stderr does not say the turn was not recorded:\n%s", stderr.String())
	}
}

// TestSecondLanternRefused: a headless run on a story folder another
// process owns refuses at once, naming the owner's PID, and changes
// nothing.
func TestSecondLanternRefused(t *testing.T) {
	dir, repo := isolate(t)
	bin := buildLantern(t, dir, repo)
	script := filepath.Join(dir, "script.txt")
	os.WriteFile(script, []byte("look\n"), 0o644)
	wd := filepath.Join(dir, "wd")
	args := []string{"run", "--headless", "--agent", "script:" + script, "--workdir", wd}
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	dirs, _ := filepath.Glob(filepath.Join(wd, "*", "lantern.db"))
	if len(dirs) != 1 {
		t.Fatalf("story folders: %v", dirs)
	}
	sd := filepath.Dir(dirs[0])
	lock, err := memory.LockWorkDir(sd) // this test process is the other Lantern
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	before, _ := os.ReadFile(dirs[0])
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err == nil {
		t.Fatalf("second run succeeded:\n%s", out)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitError {
		t.Errorf("second run: %v, want exit code %d", err, exitError)
	}
	for _, want := range []string{fmt.Sprintf("in use by another Lantern (PID %d)", os.Getpid()),
		"its past episodes can be replayed meanwhile, read-only: lantern --story ", "--workdir " + wd} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output does not say %q:\n%s", want, out)
		}
	}
	if after, _ := os.ReadFile(dirs[0]); !bytes.Equal(before, after) {
		t.Errorf("the refused run changed lantern.db")
	}
	var doc strings.Builder
	run(context.Background(), "", []string{"doctor", "--workdir", wd, "--host", "127.0.0.1:1"}, nil, &doc, &doc)
	if want := fmt.Sprintf("is in use by PID %d", os.Getpid()); !strings.Contains(doc.String(), want) {
		t.Errorf("doctor does not say %q:\n%s", want, doc.String())
	}
}

// TestStoryFileBounds: a FIFO is refused at once (it would hang the
// read), and a story padded to 8 MB is read only to its header's length
// plus the margin.
func TestStoryFileBounds(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "story.z5")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := loadStory(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, atomicfile.ErrNotRegular) {
			t.Errorf("FIFO: %v, want atomicfile.ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("loading a FIFO hangs")
	}
	demoData := demo.Story()
	big := append(append([]byte(nil), demoData...), make([]byte, 8<<20)...)
	path := filepath.Join(dir, "big.z5")
	os.WriteFile(path, big, 0o644)
	data, err := readStoryFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > len(demoData)+storyMargin || len(data) < len(demoData) {
		t.Errorf("read %d bytes of a %d-byte story padded to %d", len(data), len(demoData), len(big))
	}
	if _, err := loadStory(path); err != nil {
		t.Errorf("padded story: %v", err)
	}
}

// lineReader hands out one line per Read, as a terminal in line mode does.
type lineReader struct{ lines []string }

func (r *lineReader) Read(p []byte) (int, error) {
	if len(r.lines) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.lines[0])
	r.lines[0] = r.lines[0][n:]
	if r.lines[0] == "" {
		r.lines = r.lines[1:]
	}
	return n, nil
}

// TestOfferReadOnlyReplay: the TUI refused a story's work dir names the
// owner's PID and asks; no leaves at once (non-zero), yes opens the
// read-only replay of the stored episodes and leaves lantern.db as it was.
func TestOfferReadOnlyReplay(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "lantern.db")
	db, err := rundb.OpenRunDB(dbPath, "md5")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := db.StartEpisode(ctx, 1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(dbPath)
	inUse := &memory.InUseError{Dir: dir, PID: 4242}
	for _, tc := range []struct {
		answer string
		code   int
	}{{"n\n", exitError}, {"\n", exitOK}} {
		var out, stderr bytes.Buffer
		in := &lineReader{lines: []string{tc.answer, "q"}}
		code := offerReadOnly(ctx, inUse, "demo.z3", "md5", "dark", in, &out, &stderr)
		if code != tc.code {
			t.Errorf("answer %q: exit %d, want %d; stderr:\n%s", tc.answer, code, tc.code, stderr.String())
		}
		for _, want := range []string{"in use by another Lantern (PID 4242)", "Replay its past episodes read-only meanwhile? [Y/n]"} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("answer %q: stderr does not say %q:\n%s", tc.answer, want, stderr.String())
			}
		}
		// (What the replay shows is tested in the tui package.)
		if ran := strings.Contains(out.String(), "\x1b[?1049h"); ran != (tc.code == exitOK) {
			t.Errorf("answer %q: the replay screen opened: %v; output %q", tc.answer, ran, out.String())
		}
	}
	if after, _ := os.ReadFile(dbPath); !bytes.Equal(before, after) {
		t.Error("the read-only replay changed lantern.db")
	}
}
