package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal 120 columns wide: the terminal side
// (what a command writes to) and the side that reads what was written.
func openPTY(t *testing.T) (term, reader *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	ioctl := func(req uintptr, arg unsafe.Pointer) error {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), req, uintptr(arg)); e != 0 {
			return e
		}
		return nil
	}
	var unlock int32
	var n uint32
	if err := ioctl(syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		m.Close()
		t.Skipf("unlock the pseudo-terminal: %v", err)
	}
	if err := ioctl(syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		m.Close()
		t.Skipf("pseudo-terminal number: %v", err)
	}
	size := struct{ rows, cols, x, y uint16 }{40, 120, 0, 0}
	if err := ioctl(syscall.TIOCSWINSZ, unsafe.Pointer(&size)); err != nil {
		m.Close()
		t.Skipf("pseudo-terminal size: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	return s, m
}

// TestBenchOnATerminalHonoursNoColor: on a terminal bench draws its live
// status line; under NO_COLOR (any value but the empty one) or TERM=dumb
// the line has no colour and no escape sequence at all, and on a colour
// terminal it has both.
func TestBenchOnATerminalHonoursNoColor(t *testing.T) {
	_, repo := isolate(t)
	tests := []struct {
		name, noColor, term string
		escapes             bool
	}{
		{"NO_COLOR=1", "1", "xterm-256color", false},
		{"NO_COLOR=yes", "yes", "xterm-256color", false},
		{"TERM=dumb", "", "dumb", false},
		{"a colour terminal", "", "xterm-256color", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range map[string]string{"NO_COLOR": tc.noColor, "TERM": tc.term, "COLORTERM": "", "TMUX": "",
				"CLICOLOR": "", "CLICOLOR_FORCE": "", "TTY_FORCE": ""} {
				t.Setenv(k, v)
			}
			term, reader := openPTY(t)
			defer reader.Close()
			read := make(chan []byte)
			go func() {
				var out bytes.Buffer
				_, _ = io.Copy(&out, reader) // ends with EIO once the terminal side is closed
				read <- out.Bytes()
			}()
			code := run(context.Background(), sampleConfig(t), benchArgs(repo, t.TempDir()), strings.NewReader(""), term, term)
			term.Close()
			out := string(<-read)
			if code != exitOK {
				t.Fatalf("bench: exit %d:\n%s", code, out)
			}
			if !strings.Contains(out, "turn 5/5") || !strings.Contains(out, "Score over turns") {
				t.Errorf("no live status line or no report:\n%q", out)
			}
			if got := strings.Contains(out, "\x1b["); got != tc.escapes {
				i := strings.Index(out, "\x1b[")
				t.Errorf("escape sequences: %v, want %v: %q", got, tc.escapes, out[max(0, i-20):min(len(out), i+40)])
			}
		})
	}
}
