// Package logfile is Lantern's log: log/slog text lines, each with its
// time and level, written to a file in the work dir (never to the terminal,
// which the TUI owns) and capped in size: past the cap the file is rotated
// once, to NAME.1, so at most about twice the cap is kept.
package logfile

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
)

// DefaultMaxBytes caps one log file; with its one rotation the log takes
// at most twice this.
const DefaultMaxBytes = 10 << 20

// EnvLevel is the environment variable that sets the level when no flag
// does.
const EnvLevel = "LANTERN_LOG"

// ErrLevel: a log level that is not debug, info, warn or error.
var ErrLevel = errors.New("unknown log level")

// ParseLevel reads a level: debug, info, warn or error (any case); empty is
// info.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "", "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("log level %q: %w (want debug, info, warn or error)", clip(s), ErrLevel)
}

// Level picks the level: the flag when given, else $LANTERN_LOG, else info.
func Level(flag string, getenv func(string) (string, bool)) (slog.Level, error) {
	if flag != "" {
		return ParseLevel(flag)
	}
	if getenv != nil {
		if v, ok := getenv(EnvLevel); ok && v != "" {
			lv, err := ParseLevel(v)
			if err != nil {
				return 0, fmt.Errorf("%s: %w", EnvLevel, err)
			}
			return lv, nil
		}
	}
	return slog.LevelInfo, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Writer appends to a file and rotates it to path+".1" (replacing an
// older one) when a write would take it past max bytes. It is safe for
// concurrent use.
type Writer struct {
	mu   sync.Mutex
	path string
	max  int64
	f    *os.File
	size int64
}

// Open opens (creating) the log file at path; a file already past max is
// rotated first.
func Open(path string, max int64) (*Writer, error) {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	w := &Writer{path: path, max: max}
	if err := w.open(); err != nil {
		return nil, err
	}
	if w.size >= max {
		if err := w.rotate(); err != nil {
			w.f.Close()
			return nil, err
		}
	}
	return w, nil
}

func (w *Writer) open() error {
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open log %q: %w", w.path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open log %q: %w", w.path, err)
	}
	w.f, w.size = f, fi.Size()
	return nil
}

func (w *Writer) rotate() error {
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("rotate log %q: %w", w.path, err)
	}
	if err := os.Rename(w.path, w.path+".1"); err != nil {
		return fmt.Errorf("rotate log %q: %w", w.path, err)
	}
	return w.open()
}

// Write appends p, rotating first when p would take the file past the cap
// (a file holding nothing yet takes p whatever its size).
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.size > 0 && w.size+int64(len(p)) > w.max {
		if err := w.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := w.f.Write(p)
	w.size += int64(n)
	return n, err
}

// Close closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.f.Close()
}

// New opens the log at path and returns a text logger at level over it,
// and the file to close when done.
func New(path string, level slog.Level, max int64) (*slog.Logger, io.Closer, error) {
	w, err := Open(path, max)
	if err != nil {
		return nil, nil, err
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), w, nil
}
