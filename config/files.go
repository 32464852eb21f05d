package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrExists: config init will not overwrite a configuration file.
var ErrExists = errors.New("configuration file already exists")

// Init writes data (the commented sample) to a new configuration file at
// path, making its folder. An existing file is kept unless force is set.
func Init(path string, data []byte, force bool) error {
	if path == "" {
		return fmt.Errorf("config init: no user configuration folder (set XDG_CONFIG_HOME or HOME)")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("config init %q: %w", path, err)
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("config init %q: %w (--force replaces it)", path, ErrExists)
	}
	if err != nil {
		return fmt.Errorf("config init %q: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("config init %q: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("config init %q: %w", path, err)
	}
	return nil
}

// Editor is the command that edits a file: $VISUAL, else $EDITOR (either
// may carry arguments, "code --wait"), else vi (notepad on Windows).
func Editor(getenv func(string) (string, bool)) []string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if e, ok := lookup(getenv, v); ok && strings.TrimSpace(e) != "" {
			return strings.Fields(e)
		}
	}
	if runtime.GOOS == "windows" {
		return []string{"notepad"}
	}
	return []string{"vi"}
}
