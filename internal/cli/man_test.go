package cli

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lantern-if/lantern/config"
)

// manOutput is `lantern man`'s page, in an isolated environment.
func manOutput(t *testing.T) string {
	t.Helper()
	isolate(t)
	return manIsolated(t)
}

// manIsolated is `lantern man`'s page, once isolate has run.
func manIsolated(t *testing.T) string {
	t.Helper()
	code, page, stderr := runCLI(t, "", "man")
	if code != exitOK || stderr != "" {
		t.Fatalf("man: exit %d, stderr %q", code, stderr)
	}
	return page
}

// TestManPageSections: the page has the sections a manual page has, in
// roff that no formatter misreads.
func TestManPageSections(t *testing.T) {
	page := manOutput(t)
	for _, want := range []string{".TH LANTERN 1 ", ".SH NAME\nlantern \\- a terminal co-pilot", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS",
		".SH COMMANDS", ".SH ENVIRONMENT", ".SH FILES", `.SH "EXIT STATUS"`, ".SH EXAMPLES", `.SH "SEE ALSO"`,
		`.SS "lantern bench [\-\-compare A B | \-\-list]"`, `.SS "lantern bench merge SHARD..."`, "\\fB\\-\\-log\\-level\\fR",
		".TP\n\\fB0\\fR\n", ".TP\n\\fB1\\fR\n", ".TP\n\\fB2\\fR\n", "\\fBOLLAMA_HOST\\fR", "\\fIMemories.md\\fR", "\\fIlantern.db\\fR"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	lines := strings.Split(strings.TrimSuffix(page, "\n"), "\n")
	for i, l := range lines {
		switch {
		case strings.IndexFunc(l, func(r rune) bool { return r > 127 }) >= 0:
			t.Errorf("line %d is not ASCII: %q", i+1, l)
		case l == "":
			t.Errorf("line %d is empty (a formatter takes it for a blank line)", i+1)
		case strings.HasPrefix(l, "'"):
			t.Errorf("line %d starts with an apostrophe, a control line: %q", i+1, l)
		case strings.HasPrefix(l, ".") && !regexp.MustCompile(`^\.(TH|SH|SS|PP|TP|RS|RE|nf|fi|br|BR)( |$)`).MatchString(l):
			t.Errorf("line %d is an unknown request (text that starts with a dot?): %q", i+1, l)
		case i > 0 && l == ".PP" && slices.Contains([]string{".PP", ".TP"}, lines[i-1]):
			t.Errorf("line %d: %s then .PP, an empty paragraph", i+1, lines[i-1])
		case i > 0 && l == ".PP" && (strings.HasPrefix(lines[i-1], ".SH") || strings.HasPrefix(lines[i-1], ".SS")):
			t.Errorf("line %d: .PP right after a heading", i+1)
		case strings.Contains(strings.ReplaceAll(l, `\e`, ""), `\`) && !regexp.MustCompile(`^(?:[^\\]|\\[-&e]|\\f[BIR]|\\\(dq|\\\[u[0-9A-F]{4,6}\])*$`).MatchString(l):
			t.Errorf("line %d has an escape the page does not mean: %q", i+1, l)
		}
	}
}

// TestManPageParagraphs: a paragraph of the page is a whole paragraph of
// the help text, its wrapped lines joined: every paragraph of every
// command's long text is one line of the page.
func TestManPageParagraphs(t *testing.T) {
	page := manOutput(t)
	lines := map[string]bool{}
	for _, l := range strings.Split(page, "\n") {
		lines[l] = true
	}
	// The description starts with the root's whole first sentence.
	first, _, _ := strings.Cut(strings.ReplaceAll(rootAbout, "\n", " "), ". ")
	_, desc, _ := strings.Cut(page, ".SH DESCRIPTION\n")
	if para, _, _ := strings.Cut(desc, "\n"); !strings.HasPrefix(para, roffEscape(first)+".") {
		t.Errorf("the description's first paragraph is %q, want the sentence %q", para, first)
	}
	root := newRoot(&app{}, command{}, false)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		long := c.Long
		if c == root {
			long = rootAbout // the exit codes are EXIT STATUS
		}
		for _, b := range manBlocks(long) {
			if b.text != "" && !lines[roffEscape(b.text)] {
				t.Errorf("%s: the paragraph %.60q... is not one line of the page", c.CommandPath(), b.text)
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// TestManBlocks: a long text's blank lines separate paragraphs, its
// indented lines are a list of terms or kept as they are.
func TestManBlocks(t *testing.T) {
	tests := []struct {
		name string
		long string
		want []manBlock
	}{
		{"empty", "", nil},
		{"wrapped lines join", "one two\nthree.\n\nfour\nfive.", []manBlock{{text: "one two three."}, {text: "four five."}}},
		{"a list after the text", "Formats:\n  text   the grid\n  dot    a digraph\n         for Graphviz\nAfter.",
			[]manBlock{{text: "Formats:"}, {items: [][2]string{{"text", "the grid"}, {"dot", "a digraph for Graphviz"}}}, {text: "After."}}},
		{"indented lines of another shape", "See:\n  lantern run\n    --json", []manBlock{{text: "See:"}, {pre: []string{"lantern run", "  --json"}}}},
		{"tabs", "a\n\tx  y", []manBlock{{text: "a"}, {items: [][2]string{{"x", "y"}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := manBlocks(tc.long)
			if len(got) != len(tc.want) {
				t.Fatalf("%d blocks %+v, want %+v", len(got), got, tc.want)
			}
			for i := range got {
				if got[i].text != tc.want[i].text || !slices.Equal(got[i].pre, tc.want[i].pre) || !slices.Equal(got[i].items, tc.want[i].items) {
					t.Errorf("block %d: %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestRoffEscape: backslashes are escaped, an option's dashes are minus
// signs, other hyphens stay; a line starting with a dot or an apostrophe
// is guarded.
func TestRoffEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{`C:\dir`, `C:\edir`},
		{"--log-level debug", `\-\-log\-level debug`},
		{"(default -1), -w, [--json]", `(default \-1), \-w, [\-\-json]`},
		{"co-pilot, seed+n-1, 1-1000, - for stderr", "co-pilot, seed+n-1, 1-1000, - for stderr"},
		{"--from LINE:TURN, rest-of-words", `\-\-from LINE:TURN, rest-of-words`},
		{"mean ± s.e., ≤1m, −", `mean \[u00B1] s.e., \[u2264]1m, \[u2212]`},
		{"bad \xff byte", `bad \[uFFFD] byte`},
	}
	for _, tc := range tests {
		if got := roffEscape(tc.in); got != tc.want {
			t.Errorf("roffEscape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{".hidden", `\&.hidden`}, {"'quoted", `\&'quoted`}, {"a.b", "a.b"},
	} {
		w := &roffWriter{}
		w.line(tc.in)
		if got := w.String(); got != tc.want+"\n" {
			t.Errorf("line(%q) = %q, want %q", tc.in, got, tc.want+"\n")
		}
	}
	w := &roffWriter{}
	w.macro("SS", `say "hi" --now`)
	if got := w.String(); got != `.SS "say \(dqhi\(dq \-\-now"`+"\n" {
		t.Errorf("macro: %q", got)
	}
}

// TestManPageFormats: man and groff read the page without a warning
// (skipped where neither is installed).
func TestManPageFormats(t *testing.T) {
	page := manOutput(t)
	path := filepath.Join(t.TempDir(), "lantern.1")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool string
		args []string
	}{
		{"groff", []string{"-man", "-ww", "-z", "-Tutf8", path}},
		{"man", []string{"--warnings", "-l", path}},
	}
	ran := false
	for _, tc := range tests {
		if _, err := exec.LookPath(tc.tool); err != nil {
			continue
		}
		ran = true
		cmd := exec.Command(tc.tool, tc.args...)
		cmd.Env = append(os.Environ(), "MANWIDTH=80", "MANPAGER=cat", "PAGER=cat", "LC_ALL=C.UTF-8")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Errorf("%s: %v\n%s", tc.tool, err, stderr.String())
		}
		if tc.tool == "man" && !strings.Contains(string(out), "EXIT STATUS") {
			t.Errorf("man rendered no EXIT STATUS:\n%.400s", out)
		}
	}
	if !ran {
		t.Skip("neither groff nor man is installed")
	}
}

// TestManDate: SOURCE_DATE_EPOCH dates the page, for reproducible builds.
func TestManDate(t *testing.T) {
	getenv := func(k string) string {
		if k == "SOURCE_DATE_EPOCH" {
			return "1700000000"
		}
		return ""
	}
	if got := manDate(getenv); !got.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("manDate = %v", got)
	}
	if got := manDate(func(string) string { return "" }); got.IsZero() {
		t.Error("no date without SOURCE_DATE_EPOCH")
	}
}

// TestManEnvironmentIsComplete: every environment variable the code reads
// is in the page's ENVIRONMENT, and every LANTERN_ variable the page names
// is one Lantern reads.
func TestManEnvironmentIsComplete(t *testing.T) {
	_, repo := isolate(t)
	page := manIsolated(t)
	_, env, _ := strings.Cut(page, ".SH ENVIRONMENT\n")
	env, _, _ = strings.Cut(env, ".SH ")
	read := regexp.MustCompile(`(?i)(?:getenv|lookupenv|lookup|firstenv|num)\(([^()]*)\)`)
	name := regexp.MustCompile(`"([A-Z][A-Za-z0-9_]+)"`)
	// Test-only packages, and what the page names as a pattern.
	skipDirs := map[string]bool{"sharedtest": true, "engine/internal/testgames": true, "tui": true}
	found := map[string]string{}
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		if d.IsDir() && (skipDirs[filepath.ToSlash(rel)] || strings.HasPrefix(d.Name(), ".") && rel != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, call := range read.FindAllStringSubmatch(string(data), -1) {
			for _, m := range name.FindAllStringSubmatch(call[1], -1) {
				found[m[1]] = rel
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, must := range []string{"OLLAMA_HOST", "NO_COLOR", "XDG_CONFIG_HOME", "LANTERN_SHARD_COUNT", "SLURM_ARRAY_TASK_ID"} {
		if found[must] == "" {
			t.Errorf("the scan missed %s: the pattern no longer finds the variables", must)
		}
	}
	for v, file := range found {
		if !strings.Contains(env, roffEscape(v)) {
			t.Errorf("%s (read in %s) is not in ENVIRONMENT", v, file)
		}
	}
	keys := map[string]bool{"LANTERN_LOG": true, "LANTERN_SHARD_COUNT": true, "LANTERN_": true}
	for _, k := range config.KeyNames() {
		keys[config.EnvName(k)] = true
	}
	for _, v := range regexp.MustCompile(`LANTERN_[A-Z_]*`).FindAllString(env, -1) {
		if !keys[v] && !strings.Contains(v, "_NAME_") {
			t.Errorf("ENVIRONMENT names %s, which Lantern does not read", v)
		}
	}
}

// TestExitStatusesCoverTheCodes: EXIT STATUS tells every code exitCode
// gives.
func TestExitStatusesCoverTheCodes(t *testing.T) {
	var codes []int
	for _, e := range exitStatuses() {
		codes = append(codes, e.code)
	}
	if !slices.Equal(codes, []int{exitOK, exitError, exitUsage}) {
		t.Errorf("exit statuses %v", codes)
	}
}

// TestFlagUsagesReadAsSentences: fang's help and the manual page
// capitalise a flag's usage and a command's short text, which only reads
// well when they start with an English word: not a value the flag takes
// (md, llm), a path, a flag or an acronym (title case makes JSON "Json");
// a proper noun (Ollama) is already capitalised.
func TestFlagUsagesReadAsSentences(t *testing.T) {
	root := newRoot(&app{}, command{}, false)
	// The values the enumerated flags take.
	codeWords := map[string]bool{"llm": true, "script": true, "auto": true}
	var walk func(c *cobra.Command)
	values := func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			fn := flagCompletion(c, f.Name)
			if fn == nil || f.Name == "model" {
				return // the server's models
			}
			vals, _ := fn(c, nil, "")
			for _, v := range vals {
				v, _, _ = strings.Cut(v, "\t")
				codeWords[v] = true
			}
		})
	}
	var texts []string
	walk = func(c *cobra.Command) {
		values(c)
		texts = append(texts, c.CommandPath()+" short\x00"+c.Short)
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			texts = append(texts, c.CommandPath()+" --"+f.Name+"\x00"+f.Usage)
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	word := regexp.MustCompile(`^[A-Za-z][a-z']*$`)
	for _, tx := range texts {
		where, text, _ := strings.Cut(tx, "\x00")
		first, _, _ := strings.Cut(text, " ")
		first = strings.TrimRight(first, ":,;")
		if !word.MatchString(first) || codeWords[first] {
			t.Errorf("%s: %q starts with %q, which reads badly capitalised", where, text, first)
		}
	}
}
