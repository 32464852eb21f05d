package layers

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The rooms of the house keep their size: the TUI's root stays thin (its
// panes and dialogs own their state and keys), no function of the TUI or
// of the bench wing grows into a switch of everything, the command line's
// bench stays flag parsing, and the session stays the hub it is, not more.
const (
	maxModelFields   = 30  // tui.Model, embedded structs' fields counted
	maxModelMethods  = 50  // methods of tui.Model
	maxTUIFuncLines  = 60  // any function in tui/, tests included
	maxWingFuncLines = 80  // any function of the bench wing
	maxCLIBenchLines = 400 // internal/cli/bench*.go together
	maxSessionLines  = 500 // engine/session/session.go
	maxCLIFuncLines  = 80  // any function of the command line outside its tests
)

// benchWing are the bench's packages (their tests included) and the
// command line's bench files.
var benchWing = []string{"internal/bench", "internal/cli/bench*.go"}

// parseDir parses the .go files a pattern names (a folder: all of them,
// below it too; a glob: those it matches).
func parseDir(t *testing.T, root, pattern string) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	var paths []string
	if strings.ContainsAny(pattern, "*?[") {
		var err error
		if paths, err = filepath.Glob(filepath.Join(root, pattern)); err != nil {
			t.Fatal(err)
		}
	} else {
		paths = goFiles(t, filepath.Join(root, pattern))
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		files[rel] = f
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", pattern)
	}
	return fset, files
}

// longFuncs names the functions and func literals longer than max lines,
// from their func keyword to their closing brace.
func longFuncs(fset *token.FileSet, files map[string]*ast.File, max int) []string {
	var out []string
	for name, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			var what string
			switch fn := n.(type) {
			case *ast.FuncDecl:
				what = fn.Name.Name
			case *ast.FuncLit:
				what = "a func literal"
			default:
				return true
			}
			start, end := fset.Position(n.Pos()).Line, fset.Position(n.End()).Line
			if lines := end - start + 1; lines > max {
				out = append(out, fmt.Sprintf("%s:%d: %s has %d lines (at most %d)", name, start, what, lines, max))
			}
			return true
		})
	}
	return out
}

// fieldsAndMethods counts a struct type's fields, an embedded struct's
// fields counted as its own, and the methods declared on it outside tests.
func fieldsAndMethods(files map[string]*ast.File, typ string) (fields, methods int) {
	structs := map[string]*ast.StructType{}
	for _, f := range files {
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					if ts, ok := sp.(*ast.TypeSpec); ok {
						if st, ok := ts.Type.(*ast.StructType); ok {
							structs[ts.Name.Name] = st
						}
					}
				}
			}
		}
	}
	var count func(st *ast.StructType) int
	count = func(st *ast.StructType) int {
		n := 0
		for _, f := range st.Fields.List {
			if len(f.Names) > 0 {
				n += len(f.Names)
				continue
			}
			t := f.Type
			if s, ok := t.(*ast.StarExpr); ok {
				t = s.X
			}
			if id, ok := t.(*ast.Ident); ok && structs[id.Name] != nil {
				n += count(structs[id.Name])
			} else {
				n++
			}
		}
		return n
	}
	if st := structs[typ]; st != nil {
		fields = count(st)
	}
	for name, f := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			t := fd.Recv.List[0].Type
			if s, ok := t.(*ast.StarExpr); ok {
				t = s.X
			}
			if id, ok := t.(*ast.Ident); ok && id.Name == typ {
				methods++
			}
		}
	}
	return fields, methods
}

func TestTheTUIRootStaysThin(t *testing.T) {
	root := repoRoot(t)
	fset, files := parseDir(t, root, "tui")
	fields, methods := fieldsAndMethods(files, "Model")
	if fields == 0 || fields > maxModelFields {
		t.Errorf("tui.Model has %d fields, embedded ones counted (at most %d): a pane or a dialog owns its state", fields, maxModelFields)
	}
	if methods == 0 || methods > maxModelMethods {
		t.Errorf("tui.Model has %d methods (at most %d): a component owns its keys and its work", methods, maxModelMethods)
	}
	for _, v := range longFuncs(fset, files, maxTUIFuncLines) {
		t.Error(v)
	}
}

func TestTheBenchWingStaysSmall(t *testing.T) {
	root := repoRoot(t)
	for _, pattern := range benchWing {
		fset, files := parseDir(t, root, pattern)
		for _, v := range longFuncs(fset, files, maxWingFuncLines) {
			t.Error(v)
		}
	}
	paths, _ := filepath.Glob(filepath.Join(root, "internal", "cli", "bench*.go"))
	total := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		total += bytes.Count(data, []byte("\n"))
	}
	if total > maxCLIBenchLines {
		t.Errorf("internal/cli/bench*.go have %d lines (at most %d): the command line parses flags, internal/bench/play does the work", total, maxCLIBenchLines)
	}
	data, err := os.ReadFile(filepath.Join(root, "engine", "session", "session.go"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\n")); n > maxSessionLines {
		t.Errorf("engine/session/session.go has %d lines (at most %d): recording, editing, episodes and planning have files of their own", n, maxSessionLines)
	}
}

// TestCommandsParseFlagsAndCall: a command's constructor holds its flags
// and calls a named function for the work; nothing of the command line
// grows past maxCLIFuncLines.
func TestCommandsParseFlagsAndCall(t *testing.T) {
	root := repoRoot(t)
	fset, files := parseDir(t, root, "internal/cli")
	for name := range files {
		if strings.HasSuffix(name, "_test.go") {
			delete(files, name)
		}
	}
	for _, v := range longFuncs(fset, files, maxCLIFuncLines) {
		t.Error(v)
	}
}

// TestRoomCountsCatch: the counts see embedded structs' fields, pointer
// receivers and long literals.
func TestRoomCountsCatch(t *testing.T) {
	src := `package p
type inner struct{ a, b int; c string }
type Model struct {
	x, y int
	inner
	*other
	z inner
}
type other struct{ d int }
func (m Model) one() {}
func (m *Model) two() {
	_ = func() {
		_ = 1
		_ = 2
	}
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{"p.go": f}
	if fields, methods := fieldsAndMethods(files, "Model"); fields != 7 || methods != 2 {
		t.Errorf("fields %d, methods %d; want 7 (2 + 3 embedded + 1 embedded + 1) and 2", fields, methods)
	}
	if got := longFuncs(fset, files, 4); len(got) != 1 || !strings.Contains(got[0], "two has 6 lines") {
		t.Errorf("long functions %q, want two alone", got)
	}
}
