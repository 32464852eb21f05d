package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/config"
)

// The TUI's choices (the theme, a role's model) are written into the
// user's lantern.toml line by line: the line that sets the key is
// replaced, or one is added in its table; every other line, comments
// included, stays as it was. The result must still be a valid
// configuration, else nothing is written.

var (
	tomlHeader   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[`) })
	themeKeyLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*theme\s*=`) })
	modelKeyLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*model\s*=`) })
)

// savePrefs sets theme (when not "") and each role's model in the TOML file
// at path, creating it (and its folder) when missing.
func savePrefs(path, theme string, models map[string]string) error {
	if path == "" {
		return fmt.Errorf("save choices: no user configuration file (no home directory)")
	}
	data, err := atomicfile.ReadRegular(path, config.MaxFileBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("save choices to %q: %w", path, err)
	}
	text := string(data)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	if theme != "" {
		lines = setKey(lines, "", themeKeyLine(), "theme = "+strconv.Quote(theme))
	}
	roles := make([]string, 0, len(models))
	for r := range models {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	for _, r := range roles {
		lines = setKey(lines, "roles."+r, modelKeyLine(), "model = "+strconv.Quote(models[r]))
	}
	out := []byte(strings.Join(lines, "\n") + "\n")
	if _, err := config.Parse(path, out); err != nil {
		return fmt.Errorf("save choices to %q: the result would not be valid, nothing written: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save choices to %q: %w", path, err)
	}
	if err := atomicfile.Write(path, out, 0o644, len(data) > 0); err != nil {
		return fmt.Errorf("save choices to %q: %w", path, err)
	}
	return nil
}

// setKey replaces the line matching key in table ("" is the top level,
// before the first header), or adds set to the table (adding the table at
// the end when it is missing).
func setKey(lines []string, table string, key *regexp.Regexp, set string) []string {
	start, end := 0, len(lines) // the table's body
	if table != "" {
		start = -1
		for i, l := range lines {
			if strings.TrimSpace(l) == "["+table+"]" {
				start = i + 1
				break
			}
		}
		if start < 0 {
			if len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) != "" {
				lines = append(lines, "")
			}
			return append(lines, "["+table+"]", set)
		}
	}
	for i := start; i < len(lines); i++ {
		if tomlHeader().MatchString(lines[i]) {
			end = i
			break
		}
	}
	for i := start; i < end; i++ {
		if key.MatchString(lines[i]) {
			lines[i] = set
			return lines
		}
	}
	at := end
	if table != "" {
		at = start
	}
	return append(lines[:at], append([]string{set}, lines[at:]...)...)
}
