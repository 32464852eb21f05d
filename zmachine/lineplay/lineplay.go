// Package lineplay drives a Z-machine story in line mode without any model:
// commands from a reader, the lower window's text to a writer exactly as the
// story prints it (no echo of input, no status line). It is what
// `lantern play --plain` runs, and the reference host for differential tests
// against dfrotz.
package lineplay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lantern-if/lantern/zmachine"
)

// Options configure a line-mode session.
type Options struct {
	Seed int // frotz -s semantics
	// SaveDir is where the story's SAVE files go; names typed at the prompt
	// are kept inside it. Empty means the current directory.
	SaveDir string
	// DefaultSave is the file name offered at the save prompt.
	DefaultSave string
	// Identity overrides the interpreter identity in the header.
	Identity *zmachine.Identity
	// Raw prints the story's lower-window text exactly as the story prints
	// it (no wrapping). Otherwise the output is rendered as dfrotz renders it
	// (80 columns, changed rows at each input), which equals dfrotz's output
	// once runs of white space are folded.
	Raw bool
	// Turn, if set, is called after every completed read with the input and
	// the machine (used for --json).
	Turn func(input string, m *zmachine.Machine, text string) error
}

// Run plays story until the input ends or the story quits.
func Run(ctx context.Context, story *zmachine.Story, opts Options, in io.Reader, out io.Writer) error {
	s := &session{opts: opts, in: bufio.NewReader(in), out: out}
	m, err := zmachine.New(story, zmachine.Options{Seed: opts.Seed, Identity: opts.Identity, Saver: s})
	if err != nil {
		return err
	}
	s.m = m
	if !opts.Raw {
		s.dumb = newDumb(out, story.Version())
		s.dumb.instr = m.Instruction
		m.SetScreen(s.dumb)
		defer s.dumb.flush()
	}
	return s.loop(ctx)
}

type session struct {
	opts Options
	keys []rune // the rest of a line typed for read_char, as dfrotz keeps it
	in   *bufio.Reader
	out  io.Writer
	m    *zmachine.Machine
	dumb *dumb // nil in raw mode
	// eof: the input ended at an interpreter prompt (a save file's name);
	// as dfrotz does, the session ends there, even when the story asks
	// again without reading a line.
	eof bool
}

func (s *session) loop(ctx context.Context) error {
	input := ""
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.dumb != nil {
			s.dumb.keysLeft = len(s.keys) > 0
		}
		st, runErr := s.m.Run()
		text := s.m.TakeOutput()
		if err := s.write(text); err != nil {
			return err
		}
		if s.eof {
			return nil // the story looped on SAVE past the end of input
		}
		if s.opts.Turn != nil && st != zmachine.Halted {
			if err := s.opts.Turn(input, s.m, text); err != nil {
				return err
			}
		}
		if runErr != nil {
			return runErr
		}
		switch st {
		case zmachine.Halted:
			return nil
		case zmachine.WaitLine:
			s.keys = nil // keys typed for read_char are dropped by a line read
			line, ok := s.readLine()
			if !ok {
				return nil
			}
			input = line
			if err := s.m.SendLine(line); err != nil {
				return err
			}
		case zmachine.WaitChar:
			k, ok := s.readKey()
			if !ok {
				return nil
			}
			input = string(k)
			var err error
			if k == '\n' {
				err = s.m.SendChar(13)
			} else {
				err = s.m.SendKey(k)
			}
			if err != nil {
				return err
			}
		}
	}
}

// write sends the story's text (raw mode) or the rendered screen out. The
// screen stays in its buffer while the next command is already read in (a
// script or a walkthrough piped in): it is written when the buffer fills,
// before the input would wait for a person, and at the end, so a person
// always sees the story's reply before typing, and a walkthrough costs a
// handful of writes instead of one a turn.
func (s *session) write(text string) error {
	var err error
	if s.dumb != nil {
		if s.in.Buffered() > 0 {
			return nil
		}
		err = s.dumb.flush()
	} else {
		_, err = io.WriteString(s.out, text)
	}
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// prompt shows a prompt of the interpreter's own (file names).
func (s *session) prompt(text string) {
	if s.dumb != nil {
		s.dumb.prompt(text)
		s.dumb.flush()
		return
	}
	io.WriteString(s.out, s.m.TakeOutput()+text)
}

// readKey gives read_char one key: a line is read when no keys are left; an
// empty line is Enter, otherwise its characters are handed out one by one.
func (s *session) readKey() (rune, bool) {
	if len(s.keys) == 0 {
		line, ok := s.readLine()
		if !ok {
			return 0, false
		}
		if line == "" {
			return '\n', true
		}
		s.keys = []rune(line)
	}
	k := s.keys[0]
	s.keys = s.keys[1:]
	return k, true
}

// readLine reads one line without its terminator; ok is false at end of input.
func (s *session) readLine() (string, bool) {
	line, err := s.in.ReadString('\n')
	if err != nil && line == "" {
		return "", false
	}
	return strings.TrimRight(line, "\r\n"), true
}

// ErrSavePath reports a save file name that leaves the save directory.
var ErrSavePath = errors.New("save file name leaves the save directory")

// filename asks for a save file name as dfrotz does and resolves it inside
// the save directory.
func (s *session) filename() (string, error) {
	def := s.opts.DefaultSave
	if def == "" {
		def = "story.qzl"
	}
	if s.eof {
		return "", fmt.Errorf("%w: %w", zmachine.ErrEndOfInput, io.EOF)
	}
	s.prompt(fmt.Sprintf("Please enter a filename [%s]: ", def))
	line, ok := s.readLine()
	if !ok {
		s.eof = true
		return "", fmt.Errorf("%w: %w", zmachine.ErrEndOfInput, io.EOF)
	}
	name := strings.TrimSpace(line)
	if name == "" {
		name = def
	}
	s.opts.DefaultSave = name // dfrotz offers the last name used next time
	return safeJoin(s.opts.SaveDir, name)
}

func safeJoin(dir, name string) (string, error) {
	if dir == "" {
		dir = "."
	}
	if filepath.IsAbs(name) || strings.Contains(filepath.ToSlash(name), "..") {
		clean := filepath.Clean(name)
		if !filepath.IsAbs(clean) {
			clean = filepath.Join(dir, clean)
		}
		rel, err := filepath.Rel(dir, clean)
		if err != nil || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
			return "", fmt.Errorf("%q: %w", name, ErrSavePath)
		}
		return clean, nil
	}
	return filepath.Join(dir, name), nil
}

// Save implements zmachine.Saver.
func (s *session) Save(data []byte) error {
	p, err := s.filename()
	if err != nil {
		return err
	}
	if _, err := os.Stat(p); err == nil {
		s.prompt("Overwrite existing file? ")
		line, ok := s.readLine()
		if !ok || !strings.HasPrefix(strings.ToLower(line), "y") {
			return fmt.Errorf("save %q: not overwritten", p)
		}
	}
	return os.WriteFile(p, data, 0o644)
}

// Restore implements zmachine.Saver.
func (s *session) Restore() ([]byte, error) {
	p, err := s.filename()
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}
