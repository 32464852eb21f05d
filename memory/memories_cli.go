package memory

import (
	"fmt"
	"io"

	"github.com/lantern-if/lantern/atomicfile"
)

// Load reads and parses a Memories.md.
func Load(path string) (*File, error) {
	data, err := atomicfile.ReadRegular(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("read memories: %w", err)
	}
	return Parse(decodeText(data)), nil
}

// Check validates a Memories.md for `lantern memories check`: it writes one
// "FILE:LINE: problem" line per problem and returns the exit code, 0 when the
// file follows the format, 1 otherwise (an unreadable file is one problem,
// "FILE: error").
func Check(w io.Writer, path string) int {
	f, err := Load(path)
	if err != nil {
		fmt.Fprintf(w, "%s: %v\n", path, err)
		return 1
	}
	if raw, err := atomicfile.ReadRegular(path, MaxFileBytes); err == nil {
		if enc := Encoding(raw); enc != "" {
			fmt.Fprintf(w, "%s: note: the file is %s; Lantern reads it as UTF-8 and writes it back as UTF-8 without the mark\n", path, enc)
		}
	}
	probs := f.Problems()
	for _, p := range probs {
		fmt.Fprintf(w, "%s:%d: %s\n", path, p.Line, p.Msg)
	}
	if len(probs) > 0 {
		return 1
	}
	return 0
}

// Fmt writes a Memories.md in the canonical form (File.Format) for
// `lantern memories fmt`: nothing in it is lost, broken parts stay as they
// are.
func Fmt(w io.Writer, path string) error {
	f, err := Load(path)
	if err != nil {
		return fmt.Errorf("fmt %s: %w", path, err)
	}
	if _, err := w.Write(f.Format()); err != nil {
		return fmt.Errorf("fmt %s: %w", path, err)
	}
	return nil
}

// Show prints a Memories.md for `lantern memories show`: with location 0
// every section, otherwise that location's, each as the file holds it
// (canonical form, superseded memories included), followed by what the
// agent's context shows for it. A location the file does not have is
// ErrNotFound. ShowFiltered also filters by level.
func Show(w io.Writer, path string, location int) error {
	return ShowFiltered(w, path, ShowFilter{Location: location})
}
