package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const module = "github.com/lantern-if/lantern"

// rule is one row of ARCHITECTURE.md's layering table: the packages
// matching pkgs (less those matching except) never depend, directly or
// through any package between, on one matching never (less neverBut).
type rule struct {
	pkgs, except    []string
	never, neverBut []string
	why             string
	row             int  // the table's line in ARCHITECTURE.md
	every           bool // "every package but …": names no package by itself
}

// pkg is what `go list -json` says of a package: its direct imports
// (tests' too) and every package it depends on when built.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Deps         []string
}

// matches reports whether path (a full import path) matches pattern
// (relative to the module unless it names another host; "..." alone is
// the whole module, a trailing "/..." a package and everything below it,
// a trailing "/" a prefix).
func matches(pattern, path string) bool {
	if pattern == "..." {
		return path == module || strings.HasPrefix(path, module+"/")
	}
	if pattern == "main" {
		return path == module
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

func matchesAny(patterns []string, path string) bool {
	for _, p := range patterns {
		if matches(p, path) {
			return true
		}
	}
	return false
}

// covers reports whether the rule speaks of the package.
func (r rule) covers(path string) bool {
	return matchesAny(r.pkgs, path) && !matchesAny(r.except, path)
}

// forbids reports whether the rule forbids depending on dep.
func (r rule) forbids(dep string) bool {
	return matchesAny(r.never, dep) && !matchesAny(r.neverBut, dep)
}

var backticked = regexp.MustCompile("`([^`]+)`")

// patterns reads the backticked names of a cell.
func patterns(cell string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// parseRules reads the table under "### Layering rules": the first column
// names packages (backticked; "every package but …" for all but those),
// the second what they never depend on (backticked; "anything of the
// module" for the whole module, "… but …" to leave some out, "—" for
// nothing), the third why.
func parseRules(doc string) ([]rule, error) {
	_, after, ok := strings.Cut(doc, "### Layering rules")
	if !ok {
		return nil, errors.New(`no "### Layering rules" section`)
	}
	before := strings.Count(doc[:len(doc)-len(after)], "\n")
	var rules []rule
	inTable := false
	for i, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 {
			return nil, fmt.Errorf("ARCHITECTURE.md:%d: %d columns, want 3", before+i+1, len(cells))
		}
		who, never, why := strings.TrimSpace(cells[0]), strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2])
		if who == "package" || strings.HasPrefix(who, "---") {
			continue
		}
		r := rule{why: why, row: before + i + 1}
		if rest, ok := strings.CutPrefix(who, "every package but "); ok {
			r.pkgs, r.except, r.every = []string{"..."}, patterns(rest), true
		} else {
			r.pkgs = patterns(who)
		}
		never, but, _ := strings.Cut(never, " but ")
		switch {
		case never == "—":
		case strings.HasPrefix(never, "anything of the module"):
			r.never = []string{"..."}
		default:
			r.never = patterns(never)
		}
		r.neverBut = patterns(but)
		if len(r.pkgs) == 0 || never != "—" && len(r.never) == 0 || why == "" {
			return nil, fmt.Errorf("ARCHITECTURE.md:%d: a row names its packages, what they never import (or —) and why: %q", r.row, line)
		}
		rules = append(rules, r)
	}
	if len(rules) == 0 {
		return nil, errors.New("the layering table has no rows")
	}
	return rules, nil
}

// violations lists every dependency of pkgs, direct or not, that a rule
// forbids, and every package no rule covers.
func violations(rules []rule, pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		covered := false
		for _, r := range rules {
			if !r.covers(p.ImportPath) {
				continue
			}
			covered = covered || !r.every
			for _, dep := range p.Deps {
				if dep != p.ImportPath && r.forbids(dep) && !strings.HasPrefix(dep, p.ImportPath+"/internal/") {
					out = append(out, fmt.Sprintf("%s depends on %s%s (ARCHITECTURE.md:%d: %s)", p.ImportPath, dep, via(p, dep, pkgs), r.row, r.why))
				}
			}
		}
		if !covered {
			out = append(out, fmt.Sprintf("%s: no row of ARCHITECTURE.md's layering table names it", p.ImportPath))
		}
	}
	return out
}

// via names the direct import of p through which it reaches dep.
func via(p pkg, dep string, pkgs []pkg) string {
	for _, imp := range p.Imports {
		if imp == dep {
			return ""
		}
	}
	for _, imp := range p.Imports {
		for _, q := range pkgs {
			if q.ImportPath != imp {
				continue
			}
			for _, d := range q.Deps {
				if d == dep {
					return " through " + strings.TrimPrefix(imp, module+"/")
				}
			}
		}
	}
	return ""
}

// inwards lists the imports (tests' included) of a package outside the
// module's root internal/ into it; main alone may.
func inwards(pkgs []pkg) []string {
	inside := module + "/internal/"
	var out []string
	for _, p := range pkgs {
		if p.ImportPath == module || strings.HasPrefix(p.ImportPath, inside) {
			continue
		}
		for _, imps := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
			for _, imp := range imps {
				if strings.HasPrefix(imp, inside) {
					out = append(out, fmt.Sprintf("%s imports %s: only main and internal/ may", p.ImportPath, imp))
				}
			}
		}
	}
	return out
}

// repoDir is the module's root.
func repoDir(t *testing.T) string {
	t.Helper()
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(root))
}

// listPackages is `go list -json ./...` over the module.
func listPackages(t *testing.T, root string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports,Deps", "./...")
	cmd.Dir = root
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

// TestLayering: what every package depends on, through any number of
// packages between (`go list -deps`), agrees with ARCHITECTURE.md's
// layering table, every package is named by a row, and nothing outside
// internal/ but main imports a package inside it.
func TestLayering(t *testing.T) {
	root := repoDir(t)
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := parseRules(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := listPackages(t, root)
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	for _, v := range append(violations(rules, pkgs), inwards(pkgs)...) {
		t.Error(v)
	}
}

// TestLayeringCatches: the table is read as written, and the rules see a
// dependency however far away it is, and let the allowed ones pass.
func TestLayeringCatches(t *testing.T) {
	const doc = "# x\n\n### Layering rules\n\nintro\n\n" +
		"| package | never imports | because |\n|---|---|---|\n" +
		"| `zmachine/...` | anything of the module but `zmachine/...` | the machine |\n" +
		"| `engine/env` | `engine`, `engine/session` | the environment |\n" +
		"| `engine` | `engine/session` | the loop |\n" +
		"| `main`, `internal/cli`, `tui` | — | the wiring |\n" +
		"| every package but `main`, `tui` | `charm.land/...` | no UI |\n\nafter\n"
	rules, err := parseRules(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 5 || rules[0].row != 9 {
		t.Fatalf("read %d rules (first at line %d), want 5 (line 9)", len(rules), rules[0].row)
	}
	p := func(path string, deps ...string) pkg {
		q := pkg{ImportPath: module + "/" + path, Deps: deps}
		if path == "" {
			q.ImportPath = module
		}
		return q
	}
	tests := []struct {
		name    string
		pkg     pkg
		wantBad bool
	}{
		{"env depends on the session through another package", p("engine/env", "fmt", module+"/engine/session"), true},
		{"env depends on the loop", p("engine/env", module+"/engine"), true},
		{"the loop depends on bubbletea", p("engine", "charm.land/bubbletea/v2"), true},
		{"the machine imports the loop", p("zmachine", module+"/engine"), true},
		{"the assembler imports the machine", p("zmachine/zasm", module+"/zmachine"), false},
		{"the loop depends on env", p("engine", module+"/engine/env", "context"), false},
		{"the TUI depends on bubbletea", p("tui", "charm.land/bubbletea/v2"), false},
		{"the wiring depends on everything", p("internal/cli", module+"/engine/session", module+"/tui"), false},
		{"main depends on bubbletea", p("", "charm.land/bubbletea/v2"), false},
		{"no row names it", p("mystery"), true},
		{"a package's own internal", p("engine", module+"/engine/internal/x"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := violations(rules, []pkg{tt.pkg})
			if (len(got) > 0) != tt.wantBad {
				t.Errorf("violations %q, want any = %v", got, tt.wantBad)
			}
		})
	}
	if got := inwards([]pkg{{ImportPath: module + "/engine", TestImports: []string{module + "/internal/oracle"}}, {ImportPath: module, Imports: []string{module + "/internal/cli"}}}); len(got) != 1 {
		t.Errorf("inwards = %q, want the engine's test import alone", got)
	}
	if _, err := parseRules("| a | b | c |"); err == nil {
		t.Error("a document without the section was read")
	}
}
