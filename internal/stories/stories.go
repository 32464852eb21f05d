// Package stories finds story files by name. One resolver serves every
// command: a name given with --story (or story in lantern.toml) is looked
// for as given, then in the current directory, its game_files/ folder (the
// repository's, when Lantern runs from a clone), the work dir and the work
// dir's stories/ folder, with or without its extension.
package stories

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Exts are the extensions of the story files Lantern plays, tried in this
// order after a name without one.
var exts = []string{".z3", ".z5", ".z8", ".z4", ".z6", ".z7", ".z1", ".z2"}

// IsStoryFile reports whether a file name has a story's extension.
func IsStoryFile(name string) bool {
	return slices.Contains(exts, strings.ToLower(filepath.Ext(name)))
}

// ErrNotFound: no story of that name in any place looked at.
var ErrNotFound = errors.New("story not found")

// NotFoundError says where a story was looked for.
type NotFoundError struct {
	Name   string
	Looked []string // the folders, in order
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("story %q not found: looked in %s (as %s); lantern stories lists the stories it can find",
		e.Name, strings.Join(e.Looked, ", "), strings.Join(candidates(e.Name), ", "))
}

// Is makes errors.Is(err, ErrNotFound) hold.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// GameFiles is the folder of the current directory searched after it: a
// clone's game_files/, where story files may be put to play them from the
// repository.
const GameFiles = "game_files"

// Dirs are the folders a bare name is looked for in, in order: the current
// directory, its game_files/ folder, the work dir and its stories/ folder
// (an empty work dir: only the first two).
func Dirs(workDir string) []string {
	if workDir == "" {
		return []string{".", GameFiles}
	}
	return []string{".", GameFiles, workDir, filepath.Join(workDir, "stories")}
}

// candidates are the file names a story name may have: itself, then, when
// it has no story extension, with each one.
func candidates(name string) []string {
	if IsStoryFile(name) {
		return []string{name}
	}
	out := []string{name}
	for _, e := range exts {
		out = append(out, name+e)
	}
	return out
}

// Resolve finds the story file a name stands for. A name that is an
// existing file (a path, absolute or relative to the current directory) is
// that file. A bare name (no folder in it) is looked for in Dirs(workDir),
// as given and with each story extension; the first match wins. A name with
// a folder in it that does not exist is not looked for elsewhere.
func Resolve(name, workDir string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("resolve story: %w", ErrNotFound)
	}
	// A name that exists and is no folder is that file; one that is not a
	// regular file (a FIFO, a device) is the loader's to refuse.
	if fi, err := os.Stat(name); err == nil && !fi.IsDir() {
		return name, nil
	}
	if strings.ContainsAny(name, `/\`) || filepath.IsAbs(name) {
		if _, err := os.Stat(name); err != nil {
			return "", fmt.Errorf("story %q: %w", name, err)
		}
		return "", fmt.Errorf("story %q: is a folder, not a story file", name)
	}
	dirs := Dirs(workDir)
	for _, dir := range dirs {
		for _, c := range candidates(name) {
			p := filepath.Join(dir, c)
			if isFile(p) {
				return p, nil
			}
		}
	}
	return "", &NotFoundError{Name: name, Looked: dirs}
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Found is a story file in one of the places Resolve looks.
type Found struct {
	Path string // as Resolve would give it
	Name string // the shortest name Resolve finds it by ("zork1")
}

// List lists the story files in Dirs(workDir), each once (the same file
// reached twice, as when the work dir is the current directory, is listed
// at its first place), in the order Resolve prefers them.
func List(workDir string) ([]Found, error) {
	var out []Found
	seen := map[string]bool{}
	for _, dir := range Dirs(workDir) {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("list stories in %q: %w", dir, err)
		}
		for _, e := range entries {
			if !IsStoryFile(e.Name()) {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if !isFile(p) {
				continue
			}
			key := p
			if abs, err := filepath.Abs(p); err == nil {
				key = abs
				if r, err := filepath.EvalSymlinks(abs); err == nil {
					key = r
				}
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, Found{Path: p, Name: ShortName(p, workDir)})
		}
	}
	return out, nil
}

// ShortName is the shortest name that Resolve maps back to the same file:
// the base name without its extension, else the base name, else the path.
// Doctor's suggestions use it so that what it says works.
func ShortName(path, workDir string) string {
	base := filepath.Base(path)
	for _, n := range []string{strings.TrimSuffix(base, filepath.Ext(base)), base} {
		if got, err := Resolve(n, workDir); err == nil && sameFile(got, path) {
			return n
		}
	}
	return path
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
