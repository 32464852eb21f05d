// Package clitest is test-only: what the command line's tests and the
// bench wing's share: a test isolated from the machine's configuration,
// and the lantern binary built for process tests.
package clitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/config"
)

// Isolate gives a test its own configuration, work dir and current
// directory, with no LANTERN_* setting or OLLAMA_HOST from outside. It
// returns the temporary directory and the repository's root (found up
// from the test's directory).
func Isolate(t *testing.T) (dir, repo string) {
	t.Helper()
	repo = Root(t)
	dir = t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	for _, k := range config.KeyNames() {
		t.Setenv(config.EnvName(k), "")
	}
	t.Setenv("LANTERN_MODEL", "")
	t.Setenv("OLLAMA_HOST", "")
	t.Chdir(dir)
	return dir, repo
}

// Root is the repository's root, two levels above this package's source,
// wherever the test's current directory is.
func Root(t testing.TB) string {
	t.Helper()
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		root := filepath.Join(filepath.Dir(file), "..", "..")
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			return root
		}
	}
	// Built with -trimpath: the go command knows the module's directory.
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("clitest: the repository's root: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// BuildLantern builds the lantern binary into dir as `make build` does
// (static, no cgo) and returns its path.
func BuildLantern(t testing.TB, dir, repo string) string {
	t.Helper()
	bin := filepath.Join(dir, "lantern")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	build.Dir = repo
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// WantAll fails the test for each of wants that out (what) lacks.
func WantAll(t testing.TB, what, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, out)
		}
	}
}

// LastLines is the last n lines of s.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
