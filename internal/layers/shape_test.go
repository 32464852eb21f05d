package layers

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The code's shape, checked like its layering: no file over maxLines, and
// no function in the loop or the TUI with more than maxParams parameters
// (a turn is a value handed on, not nine positional arguments).
const (
	maxLines  = 800
	maxParams = 6
)

// paramDirs are the trees whose functions maxParams binds.
var paramDirs = []string{"engine", "tui"}

// repoRoot is the module's root (this package sits two levels below it).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from %s: %v", root, err)
	}
	return root
}

// goFiles lists the .go files under dir (testdata left out).
func goFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != dir {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestNoFileOverTheLimit(t *testing.T) {
	root := repoRoot(t)
	for _, f := range goFiles(t, root) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(data, []byte("\n")); n > maxLines {
			rel, _ := filepath.Rel(root, f)
			t.Errorf("%s has %d lines (at most %d): split it where its parts already are", rel, n, maxLines)
		}
	}
}

func TestNoFunctionTakesTooManyParameters(t *testing.T) {
	root := repoRoot(t)
	for _, dir := range paramDirs {
		for _, f := range goFiles(t, filepath.Join(root, dir)) {
			rel, _ := filepath.Rel(root, f)
			for _, v := range tooManyParams(t, f) {
				t.Errorf("%s: %s", rel, v)
			}
		}
	}
}

// TestParameterCheckCatches: the check sees a long parameter list however
// it is written (grouped names, a variadic tail, a method, a literal).
func TestParameterCheckCatches(t *testing.T) {
	dir := t.TempDir()
	src := `package p
func ok(a, b, c int, d string, e ...int) {}
func grouped(a, b, c, d, e, f, g int) {}
type T struct{}
func (T) method(a int, b string, c, d, e float64, f []int, g ...any) {}
var lit = func(a, b, c, d, e, f, g int) {}
`
	path := filepath.Join(dir, "p.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := tooManyParams(t, path)
	if len(got) != 3 || !strings.Contains(got[0], "grouped") || !strings.Contains(got[1], "method") || !strings.Contains(got[2], "func literal") {
		t.Fatalf("violations %q, want grouped, method and the literal", got)
	}
}

// tooManyParams names the functions of a file (declared or literal) whose
// parameters number more than maxParams.
func tooManyParams(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	count := func(ft *ast.FuncType) int {
		n := 0
		for _, f := range ft.Params.List {
			n += max(len(f.Names), 1)
		}
		return n
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch fn := n.(type) {
		case *ast.FuncDecl:
			if c := count(fn.Type); c > maxParams {
				out = append(out, fmt.Sprintf("%s takes %d parameters (at most %d)", fn.Name.Name, c, maxParams))
			}
		case *ast.FuncLit:
			if c := count(fn.Type); c > maxParams {
				out = append(out, fmt.Sprintf("a func literal at line %d takes %d parameters (at most %d)", fset.Position(fn.Pos()).Line, c, maxParams))
			}
		}
		return true
	})
	return out
}
