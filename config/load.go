package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/sanitize"
)

// LoadOptions name the sources Load layers over the defaults, lowest
// precedence first: the user's file, the project's file, the environment,
// then the overrides (command-line flags).
type LoadOptions struct {
	UserFile    string // "" : none
	ProjectFile string // "" : none
	// ProjectRequired: the project file was named explicitly (--config), so
	// its absence is an error.
	ProjectRequired bool
	// Getenv reads the environment (os.LookupEnv); nil: no environment.
	Getenv func(string) (string, bool)
	// Environ is the whole environment (os.Environ), read only to report
	// LANTERN_* variables that name no key; nil: not checked.
	Environ   []string
	Overrides []Override
	// CheckTheme validates the theme as the TUI will load it (a built-in
	// name or a theme file); nil: only its form is checked. "auto" is
	// never passed to it.
	CheckTheme func(string) error
}

// NotConfig are LANTERN_* variables that are not configuration keys and
// are not reported as unknown: LANTERN_LOG (the log level) and the test
// suite's.
var notConfig = map[string]bool{
	"LANTERN_LOG": true, "LANTERN_SHARED": true, "LANTERN_REQUIRE_SHARED": true,
}

// Override is a value given on the command line.
type Override struct {
	Key   string // a key, or "roles.*.model" for every role's model
	Value string // as typed; parsed by the key's type
	Flag  string // the flag's name, for messages
}

// AllModels is the Override key that sets every role's model.
const AllModels = "roles.*.model"

// Standard are the usual sources: $XDG_CONFIG_HOME/lantern/lantern.toml,
// then ./lantern.toml (or the file named by --config in its place), the
// process's environment, and the given flags.
func Standard(configFile string, overrides ...Override) LoadOptions {
	o := LoadOptions{UserFile: UserFile(os.LookupEnv), ProjectFile: ProjectFile, Getenv: os.LookupEnv, Environ: os.Environ(), Overrides: overrides}
	if configFile != "" {
		o.ProjectFile, o.ProjectRequired = configFile, true
	}
	return o
}

// Load builds the configuration: built-in defaults < the user's file < the
// project's file < LANTERN_* and OLLAMA_HOST < overrides; then validates
// it. The configuration is returned even when invalid (a doctor can still
// report on the rest); the error is then an *Error listing every problem
// with its key, its file and line (or variable, or flag) and what is
// allowed. Warnings are in Config.Warnings.
func Load(o LoadOptions) (*Config, error) {
	l := &loader{c: Defaults(), getenv: o.Getenv, checkTheme: o.CheckTheme}
	l.file("user", o.UserFile, false)
	l.file("project", o.ProjectFile, o.ProjectRequired)
	l.env()
	l.unknownEnv(o.Environ)
	for _, ov := range o.Overrides {
		src := Source{Kind: FromFlag, Name: ov.Flag}
		if ov.Key == AllModels {
			ov.Key = "model"
		}
		l.set(ov.Key, text(ov.Value), src, "")
	}
	if l.c.WorkDir == "" {
		l.c.WorkDir = DefaultWorkDir(o.Getenv)
	}
	l.applyProfile()
	return l.finish()
}

// finish validates what was loaded: warnings are kept in the
// configuration, problems become the Error.
func (l *loader) finish() (*Config, error) {
	l.problems = append(l.problems, l.c.validate(l.checkTheme)...)
	var errs []Problem
	for _, p := range l.problems {
		if p.Warning {
			l.c.Warnings = append(l.c.Warnings, p)
		} else {
			errs = append(errs, p)
		}
	}
	if len(errs) > maxProblems {
		more := len(errs) - maxProblems
		errs = append(errs[:maxProblems], Problem{Msg: fmt.Sprintf("… and %d more problems", more)})
	}
	if len(errs) > 0 {
		return l.c, &Error{Problems: errs}
	}
	return l.c, nil
}

// Parse reads one lantern.toml over the defaults, without the environment
// (for checking a file, as `lantern config check` does).
func Parse(name string, data []byte) (*Config, error) {
	return ParseChecked(name, data, nil)
}

// ParseChecked is Parse with the theme validated by checkTheme (see
// LoadOptions.CheckTheme).
func ParseChecked(name string, data []byte, checkTheme func(string) error) (*Config, error) {
	l := &loader{c: Defaults(), checkTheme: checkTheme}
	l.c.Files = append(l.c.Files, File{Level: "project", Path: name, Found: true})
	l.apply(name, data)
	return l.finish()
}

type loader struct {
	c          *Config
	getenv     func(string) (string, bool)
	checkTheme func(string) error
	problems   []Problem
}

// MaxTables bounds the tables of a configuration file ([section] and
// [[array]] headers).
const MaxTables = 1000

// maxProblems bounds the problems reported; the rest are counted.
const maxProblems = 100

// MaxFileBytes bounds a configuration file: a file larger than this (or
// not a regular file at all: /dev/zero, a FIFO) is refused before it is
// read.
const MaxFileBytes = 4 << 20

func (l *loader) problem(p Problem) { l.problems = append(l.problems, p) }

func (l *loader) file(level, path string, required bool) {
	if path == "" {
		return
	}
	// A configuration is a small regular file: /dev/zero or a FIFO is
	// refused before a byte is read.
	data, err := atomicfile.ReadRegular(path, MaxFileBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !required {
			l.c.Files = append(l.c.Files, File{Level: level, Path: path})
			return
		}
		l.c.Files = append(l.c.Files, File{Level: level, Path: path})
		msg := err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			msg = "no such file"
		}
		l.problem(Problem{Source: Source{Kind: FromFile, Name: path}, Msg: "cannot read the configuration: " + msg})
		return
	}
	l.c.Files = append(l.c.Files, File{Level: level, Path: path, Found: true})
	l.apply(path, data)
}

// leaf is one value of a TOML document, at its dotted key.
type leaf struct {
	key   string
	value any
	line  int
}

// apply sets every key of one TOML document.
func (l *loader) apply(name string, data []byte) {
	// The TOML decoder checks each table against every one before it: a
	// file of many thousands would take minutes. A configuration has a
	// few dozen; one with more than MaxTables is refused before decoding.
	lines, tables := keyLines(data)
	if tables > MaxTables {
		l.problem(Problem{Source: Source{Kind: FromFile, Name: name}, Msg: fmt.Sprintf("%d tables; a configuration has at most %d", tables, MaxTables)})
		return
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		src := Source{Kind: FromFile, Name: name}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			src.Line, _ = de.Position()
		}
		l.problem(Problem{Source: src, Msg: "not valid TOML: " + strings.TrimPrefix(err.Error(), "toml: ")})
		return
	}
	var leaves []leaf
	l.flatten(name, "", doc, lines, &leaves)
	sort.SliceStable(leaves, func(i, j int) bool { return leaves[i].line < leaves[j].line })
	dir := filepath.Dir(name)
	for _, lf := range leaves {
		l.set(lf.key, lf.value, Source{Kind: FromFile, Name: name, Line: lf.line}, dir)
	}
}

// tables are the tables lantern.toml may have.
func knownTable(key string) bool {
	switch key {
	case "ollama", "server", "loop", "budgets", "managers", "keys", "roles":
		return true
	}
	if r, ok := strings.CutPrefix(key, "roles."); ok {
		_, known := DefaultRoles()[r]
		return known
	}
	return false
}

func (l *loader) flatten(name, prefix string, m map[string]any, lines map[string]int, out *[]leaf) {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		sub, isTable := v.(map[string]any)
		if !isTable {
			*out = append(*out, leaf{key, v, lineOf(lines, key)})
			continue
		}
		if !knownTable(key) {
			if keyAt(key) != nil || strings.HasPrefix(key, "keys.") {
				*out = append(*out, leaf{key, v, lineOf(lines, key)})
				continue
			}
			l.problem(Problem{Key: key, Source: Source{Kind: FromFile, Name: name, Line: lineOf(lines, key)}, Msg: unknownMsg(key)})
			continue
		}
		l.flatten(name, key, sub, lines, out)
	}
}

// unknownMsg says what a key that does not exist could have been.
func unknownMsg(key string) string {
	if rest, ok := strings.CutPrefix(key, "roles."); ok {
		role := strings.Split(rest, ".")[0]
		if _, known := DefaultRoles()[role]; !known {
			return fmt.Sprintf("unknown role %q; the roles are %s", role, sortedRoles())
		}
	}
	if s := suggest(key); s != "" {
		return fmt.Sprintf("unknown key; did you mean %s?", s)
	}
	return "unknown key; lantern.sample.toml lists every key"
}

// set assigns one value, recording where it came from; dir resolves
// relative paths given in a file.
func (l *loader) set(key string, v any, src Source, dir string) {
	if action, ok := strings.CutPrefix(key, "keys."); ok && action != "" && !strings.Contains(action, ".") {
		s, isString := v.(string)
		if t, isText := v.(text); isText {
			s, isString = string(t), true
		}
		if !isString {
			l.problem(Problem{Key: key, Value: rawValue(v), Source: src, Msg: `want a key in quotes, such as "p" or "ctrl+p"`})
			return
		}
		if l.c.Keys == nil {
			l.c.Keys = map[string]string{}
		}
		l.c.Keys[action] = s
		l.c.Sources[key] = src
		return
	}
	k := keyAt(key)
	if k == nil {
		l.problem(Problem{Key: key, Value: rawValue(v), Source: src, Msg: unknownMsg(key)})
		return
	}
	ok := false
	k.access(l.c, func(f reflect.Value) error {
		old := reflect.New(f.Type()).Elem()
		old.Set(f)
		if ok = assign(f, k.kind, v); ok && k.isPath && f.Kind() == reflect.String {
			f.SetString(l.resolvePath(key, f.String(), dir))
		}
		if !ok {
			f.Set(old)
		}
		return nil
	})
	if !ok {
		l.problem(Problem{Key: key, Value: rawValue(v), Source: src, Msg: k.kind.want()})
		return
	}
	l.c.Sources[key] = src
	if key == "model" && l.c.DefaultModel != "" {
		// Every role's model, as if each role's key were set here; empty
		// leaves the roles' models alone.
		for _, r := range RoleNames() {
			l.set("roles."+r+".model", v, src, dir)
		}
	}
}

// resolvePath expands a leading ~ and makes a path given in a file relative
// to that file's directory. A theme that is a name, not a path, stays.
func (l *loader) resolvePath(key, p, dir string) string {
	if p == "" {
		return p
	}
	if key == "theme" && !strings.ContainsRune(p, '/') && !strings.HasSuffix(p, ".toml") {
		return p
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		h := home(l.getenv)
		if h == "" {
			h, _ = os.UserHomeDir()
		}
		if h != "" {
			p = filepath.Join(h, strings.TrimPrefix(p, "~"))
		}
	}
	if dir != "" && !filepath.IsAbs(p) {
		rel := filepath.Join(dir, p)
		// A bare story name ("zork1") that is no file beside the
		// configuration is left for the story resolver, which looks in
		// the current directory and the work dir.
		if _, err := os.Stat(rel); err != nil && key == "story" && !strings.ContainsAny(p, `/\`) {
			return p
		}
		p = rel
	}
	return p
}

// env applies OLLAMA_HOST, then each key's own LANTERN_* variable in the
// registry's order: LANTERN_MODEL (every role's model) comes before the
// roles' own, so the more specific variable wins. Empty variables count as
// unset.
func (l *loader) env() {
	if v, ok := lookup(l.getenv, "OLLAMA_HOST"); ok {
		l.set("ollama.host", text(v), Source{Kind: FromEnv, Name: "OLLAMA_HOST"}, "")
	}
	for _, k := range registry().list {
		name := EnvName(k.path)
		if v, ok := lookup(l.getenv, name); ok {
			l.set(k.path, text(v), Source{Kind: FromEnv, Name: name}, "")
		}
	}
}

// unknownEnv warns of each LANTERN_* variable that names no key but is
// close to one that does: a misspelt variable would otherwise be ignored
// without a word. Variables far from every key (a script's own) are left
// alone.
func (l *loader) unknownEnv(environ []string) {
	known := map[string]bool{}
	for _, k := range registry().list {
		known[EnvName(k.path)] = true
	}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "LANTERN_") || known[name] || notConfig[name] {
			continue
		}
		if s := suggestEnv(name, known); s != "" {
			l.problem(Problem{Source: Source{Kind: FromEnv, Name: clip(name)}, Warning: true,
				Msg: fmt.Sprintf("not a Lantern variable, ignored; did you mean %s?", s)})
		}
	}
}

// suggestEnv is the known variable closest to name, if one is close: a
// few letters apart, scaled with the name's length.
func suggestEnv(name string, known map[string]bool) string {
	best, bestD := "", 1<<30
	for k := range known {
		if d := sanitize.EditDistance(name, k); d < bestD || (d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	if bestD <= max(2, (len(name)-len("LANTERN_"))/5) {
		return best
	}
	return ""
}

// rawValue writes a value as it was given.
func rawValue(v any) string {
	switch x := v.(type) {
	case text:
		return strconv.Quote(string(x))
	case string:
		return strconv.Quote(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return formatValue(x)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		return "[...]"
	case map[string]any:
		return "{...}"
	}
	return fmt.Sprint(v)
}

// keyLines maps every dotted key and table of a TOML document to the line
// it is written on, in time linear in the document: a key's line is found
// from its offset among the line starts, not by counting from the start.
func keyLines(data []byte) (lines map[string]int, tables int) {
	lines = map[string]int{}
	p := &lineParser{}
	p.Reset(data)
	for i, c := range data {
		if c == '\n' {
			p.ends = append(p.ends, i)
		}
	}
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			parts, line := keyParts(p, e.Key())
			table = parts
			tables++
			note(lines, parts, line)
		case unstable.KeyValue:
			walkKeyValue(p, table, e, lines)
		}
	}
	return lines, tables
}

// lineParser is the parser with the offsets of the document's line feeds.
type lineParser struct {
	unstable.Parser
	ends []int
}

// line is the 1-based line of a node's first byte.
func (p *lineParser) line(r unstable.Range) int {
	return sort.SearchInts(p.ends, int(r.Offset)) + 1
}

func walkKeyValue(p *lineParser, prefix []string, e *unstable.Node, lines map[string]int) {
	parts, line := keyParts(p, e.Key())
	full := append(append([]string(nil), prefix...), parts...)
	note(lines, full, line)
	if v := e.Value(); v != nil && v.Kind == unstable.InlineTable {
		it := v.Children()
		for it.Next() {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				walkKeyValue(p, full, c, lines)
			}
		}
	}
}

func keyParts(p *lineParser, it unstable.Iterator) ([]string, int) {
	var parts []string
	line := 0
	for it.Next() {
		n := it.Node()
		parts = append(parts, string(n.Data))
		if line == 0 {
			line = p.line(n.Raw)
		}
	}
	return parts, line
}

// note records the line of a key and, where not yet known, of every table
// above it (a table made by dotted keys takes its first key's line): the
// document is read in order, so the first line noted is the earliest.
func note(lines map[string]int, parts []string, line int) {
	for i := 1; i <= len(parts); i++ {
		k := strings.Join(parts[:i], ".")
		if _, ok := lines[k]; !ok {
			lines[k] = line
		}
	}
}

// lineOf finds a key's line; a table never written as a header (made by
// dotted keys) takes the line of its first key.
func lineOf(lines map[string]int, key string) int { return lines[key] }
