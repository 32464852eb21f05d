package logfile

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseLevelAndLevel(t *testing.T) {
	for _, tc := range []struct {
		flag, env string
		want      slog.Level
		err       bool
	}{
		{"", "", slog.LevelInfo, false},
		{"debug", "", slog.LevelDebug, false},
		{"", "WARN", slog.LevelWarn, false},
		{"error", "debug", slog.LevelError, false}, // the flag wins
		{"loud", "", 0, true},
		{"", "chatty", 0, true},
	} {
		got, err := Level(tc.flag, func(string) (string, bool) { return tc.env, tc.env != "" })
		if tc.err {
			if !errors.Is(err, ErrLevel) {
				t.Errorf("flag %q env %q: err %v, want ErrLevel", tc.flag, tc.env, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("flag %q env %q: %v, %v; want %v", tc.flag, tc.env, got, err, tc.want)
		}
	}
	if _, err := ParseLevel(strings.Repeat("x", 5000)); err == nil || len(err.Error()) > 200 {
		t.Errorf("a long level is not clipped: %d bytes", len(err.Error()))
	}
}

// Every line has its level; debug lines appear only at debug.
func TestLinesHaveLevels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lantern.log")
	log, c, err := New(path, slog.LevelInfo, 0)
	if err != nil {
		t.Fatal(err)
	}
	log.Debug("hidden")
	log.Info("shown", "k", 1)
	log.Warn("careful")
	c.Close()
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "level=INFO") || !strings.Contains(lines[1], "level=WARN") || strings.Contains(string(b), "hidden") {
		t.Errorf("log:\n%s", b)
	}
}

// The log rotates once past its cap: the file and its .1 stay under the cap
// each, and the newest line is in the file.
func TestCapAndRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lantern.log")
	const max = 1000
	log, c, err := New(path, slog.LevelInfo, max)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		log.Info("line", "n", i)
	}
	c.Close()
	cur, err1 := os.Stat(path)
	old, err2 := os.Stat(path + ".1")
	if err1 != nil || err2 != nil || cur.Size() > max || old.Size() > max {
		t.Fatalf("sizes: %v %v %v %v", cur, err1, old, err2)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "n=199") {
		t.Errorf("the newest line is not in the log:\n%s", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files, want the log and one rotation", len(entries))
	}
	// A file already past the cap is rotated on open.
	os.WriteFile(path, []byte(strings.Repeat("x", 2*max)), 0o644)
	w, err := Open(path, max)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("fresh\n"))
	w.Close()
	if b, _ := os.ReadFile(path); string(b) != "fresh\n" {
		t.Errorf("after opening an oversized log: %q", b)
	}
}
