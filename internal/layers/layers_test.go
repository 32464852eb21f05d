package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/lantern-if/lantern"

// ui are the terminal UI libraries: only the TUI, its themes and the
// command line may import them.
var ui = []string{"charm.land/", "github.com/charmbracelet/"}

// rule: packages matching pkg must not import anything matching one of
// never (a trailing "/..." matches the package and everything below it).
type rule struct {
	pkg   string
	never []string
	why   string
}

// rules are ARCHITECTURE.md's layering, from the bottom up.
var rules = []rule{
	{"zmachine/...", []string{module + "/..."}, "the interpreter uses the standard library only"},
	{"atomicfile", []string{module + "/..."}, "a leaf helper"},
	{"sanitize", []string{module + "/..."}, "a leaf helper"},
	{"sanitize/mdcheck", []string{module + "/..."}, "a test-only leaf helper"},
	{"config", []string{"engine/...", "managers/...", "memory/...", "llm/...", "tui/..."}, "configuration sits below every user of it"},
	{"memory/...", []string{"engine/...", "managers/...", "llm/...", "tui/..."}, "the stores know nothing of the loop or the models"},
	{"llm/...", []string{"engine/...", "managers/...", "memory/...", "tui/..."}, "model calls know nothing of the game"},
	{"managers/...", []string{"engine/...", "tui/..."}, "the managers are below the engine"},
	{"engine/env", []string{"engine", "engine/session", "managers/...", "llm/...", "memory/...", "tui/..."},
		"the environment is the machine and its ground truth, nothing more"},
	{"engine", []string{"engine/session", "memory/...", "tui/..."}, "the loop reaches the session only through its interfaces"},
	{"engine/session", []string{"tui/...", "internal/cli/..."}, "the session is below every client"},
	{"domain", []string{module + "/..."}, "the played turn is a leaf every layer shares"},
	{"internal/stories", []string{module + "/..."}, "finding story files needs nothing of Lantern"},
	{"llm/chatserve", []string{module + "/..."}, "the stand-in servers' HTTP core speaks wire formats and needs nothing of Lantern"},
	{"internal/export", []string{"engine/...", "llm/...", "tui/...", "internal/cli/..."}, "an export reads the run database and draws; it plays nothing"},
	{"internal/bench", []string{"engine/session", "tui/...", "internal/cli/..."}, "the bench's statistics sit below the command line that prints them"},
	{"internal/scriptagent", []string{"engine/session", "tui/...", "internal/cli/..."}, "an agent is below the session that wires it"},
	{"...", ui, "the engine and everything below it never import a terminal UI library"},
}

// uiAllowed are the packages that may import a terminal UI library.
// internal/benchprogress and internal/benchview draw the bench's status
// line, tables and charts for the command line.
var uiAllowed = []string{"", "tui/...", "themes/...", "internal/cli/...", "internal/benchprogress", "internal/benchview"}

type pkg struct {
	ImportPath string
	Imports    []string
}

// matches reports whether path (a full import path) matches pattern
// (relative to the module unless it names another host).
func matches(pattern, path string) bool {
	if pattern == "..." {
		return path == module || strings.HasPrefix(path, module+"/")
	}
	if !strings.Contains(strings.SplitN(pattern, "/", 2)[0], ".") {
		pattern = module + "/" + pattern
	}
	if strings.HasSuffix(pattern, "/") {
		return strings.HasPrefix(path, pattern)
	}
	if p, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == p || strings.HasPrefix(path, p+"/")
	}
	return path == pattern
}

func allowedUI(path string) bool {
	for _, a := range uiAllowed {
		if a == "" && path == module || a != "" && matches(a, path) {
			return true
		}
	}
	return false
}

// violations lists every import of pkgs against rules.
func violations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		for _, r := range rules {
			if !matches(r.pkg, p.ImportPath) {
				continue
			}
			if r.pkg == "..." && allowedUI(p.ImportPath) {
				continue
			}
			for _, imp := range p.Imports {
				for _, n := range r.never {
					own := strings.HasSuffix(r.pkg, "/...") && matches(r.pkg, imp)
					if matches(n, imp) && !own && imp != p.ImportPath && !strings.HasPrefix(imp, p.ImportPath+"/internal/") {
						out = append(out, fmt.Sprintf("%s imports %s: %s", p.ImportPath, imp, r.why))
					}
				}
			}
		}
	}
	return out
}

// listPackages is `go list -json ./...` over the module.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", "./...")
	cmd.Dir = strings.TrimSpace(string(root))
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestLayering fails on any import against ARCHITECTURE.md's layering.
func TestLayering(t *testing.T) {
	pkgs := listPackages(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// TestLayeringCatches: the rules see the imports they forbid and let the
// allowed ones pass.
func TestLayeringCatches(t *testing.T) {
	tests := []struct {
		name    string
		pkg     pkg
		wantBad bool
	}{
		{"env imports the session", pkg{module + "/engine/env", []string{module + "/engine/session"}}, true},
		{"env imports the loop", pkg{module + "/engine/env", []string{module + "/engine"}}, true},
		{"engine imports bubbletea", pkg{module + "/engine", []string{"charm.land/bubbletea/v2"}}, true},
		{"memory imports lipgloss", pkg{module + "/memory", []string{"charm.land/lipgloss/v2"}}, true},
		{"engine imports the session", pkg{module + "/engine", []string{module + "/engine/session"}}, true},
		{"a manager imports the engine", pkg{module + "/managers/objectives", []string{module + "/engine"}}, true},
		{"zmachine imports config", pkg{module + "/zmachine", []string{module + "/config"}}, true},
		{"engine imports env", pkg{module + "/engine", []string{module + "/engine/env", "context"}}, false},
		{"session imports the engine", pkg{module + "/engine/session", []string{module + "/engine", module + "/memory"}}, false},
		{"tui imports bubbletea", pkg{module + "/tui", []string{"charm.land/bubbletea/v2", module + "/engine"}}, false},
		{"zasm imports its own internal package", pkg{module + "/zmachine/zasm", []string{module + "/zmachine/zasm/internal/x"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := violations([]pkg{tt.pkg})
			if (len(got) > 0) != tt.wantBad {
				t.Errorf("violations %q, want any = %v", got, tt.wantBad)
			}
		})
	}
}
