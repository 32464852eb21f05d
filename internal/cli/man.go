package cli

import (
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The manual page, `lantern man` (scripts/manpages.sh gzips it into
// manpages/lantern.1.gz): NAME, SYNOPSIS, DESCRIPTION, OPTIONS, COMMANDS,
// ENVIRONMENT, FILES, EXIT STATUS, EXAMPLES, SEE ALSO, drawn from the
// command tree, so the page says what --help says.
//
// The roff is written here rather than through fang's mango/roff: roff
// v0.1.0 makes every line break of a text a paragraph of its own, and its
// escaping (private, every dot) can neither guard a leading apostrophe,
// write an option's dashes as minus signs nor keep an example's lines
// together (.nf); mango has no place for a command's long text.

// newManCmd is the hidden `man` command (fang's own is turned off).
func newManCmd() *cobra.Command {
	return &cobra.Command{
		Use:                   "man",
		Short:                 "print the manual page, in roff",
		Hidden:                true,
		Args:                  noArgs,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), manPage(cmd.Root(), manDate(os.Getenv)))
			return err
		},
	}
}

// manDate dates the page: $SOURCE_DATE_EPOCH (reproducible builds), else
// the commit the binary was built from, else today.
func manDate(getenv func(string) string) time.Time {
	if s, err := strconv.ParseInt(getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
		return time.Unix(s, 0).UTC()
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key != "vcs.time" {
				continue
			}
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				return t.UTC()
			}
		}
	}
	return time.Now().UTC()
}

// manPage is the whole page for the command tree under root.
func manPage(root *cobra.Command, date time.Time) string {
	w := &roffWriter{}
	w.macro("TH", strings.ToUpper(root.Name()), "1", date.Format("2006-01-02"), root.Name()+" "+version(), "User Commands")
	w.macro("SH", "NAME")
	w.line(roffEscape(root.Name()) + ` \- ` + roffEscape(root.Short))

	w.macro("SH", "SYNOPSIS")
	w.line(roffBold(root.Name()) + " [" + roffItalic("options") + "]")
	w.macro("br")
	w.line(roffBold(root.Name()) + " " + roffItalic("command") + " [" + roffItalic("options") + "] [" + roffItalic("arguments") + "]")

	w.macro("SH", "DESCRIPTION")
	w.blocks(rootAbout)

	w.macro("SH", "OPTIONS")
	w.para("With no command " + root.Name() + " opens the TUI and takes these options; --config, --log-level and --help are taken by every command.")
	w.flags(root.LocalFlags(), nil)
	// Cobra adds these two as the command runs.
	w.tagged(roffBold("-h")+", "+roffBold("--help"), "Print the help of "+root.Name()+" or of a command, with examples.")
	w.tagged(roffBold("-v")+", "+roffBold("--version"), "Print the version.")

	w.macro("SH", "COMMANDS")
	for _, c := range root.Commands() {
		manCommand(w, root, c)
	}

	w.macro("SH", "ENVIRONMENT")
	for _, e := range manEnvironment() {
		w.tagged(e.tag, e.text)
	}

	w.macro("SH", "FILES")
	for _, f := range manFiles() {
		w.tagged(f.tag, f.text)
	}

	w.macro("SH", "EXIT STATUS")
	for _, e := range exitStatuses() {
		w.tagged(roffBold(strconv.Itoa(e.code)), e.text)
	}

	w.macro("SH", "EXAMPLES")
	manExamples(w, root)

	w.macro("SH", "SEE ALSO")
	w.para(root.Name() + " help COMMAND (also COMMAND --help) for a command's help; " + root.Name() +
		" config sample for every configuration key; the README and docs/lantern-db.md (the schema of lantern.db) at https://github.com/lantern-if/lantern.")
	w.macro("PP")
	w.macro("BR", "dfrotz", "(6),")
	w.line(roffEscape("whose rendering " + root.Name() + " play reproduces."))
	return w.String()
}

// manEntry is a tagged paragraph: a tag in roff, a text in plain words.
type manEntry struct{ tag, text string }

// roffBold and roffItalic are plain text set in a font, as roff.
func roffBold(s string) string   { return `\fB` + roffEscape(s) + `\fR` }
func roffItalic(s string) string { return `\fI` + roffEscape(s) + `\fR` }

// manEnvironment is every variable Lantern reads.
func manEnvironment() []manEntry {
	return []manEntry{
		{roffBold("LANTERN_") + roffItalic("KEY"), "Any configuration key: LANTERN_ and the key in capitals, dots as underscores (LANTERN_LOOP_MAX_TURNS_PER_EPISODE=100, LANTERN_ROLES_AGENT_MODEL=qwen3:8b). It wins over the files and loses to the flags; an empty variable counts as unset; lantern config shows where each value came from."},
		{roffBold("LANTERN_MODEL"), "The model of every role, as --model does; a role's own LANTERN_ROLES_NAME_MODEL wins."},
		{roffBold("LANTERN_WORK_DIR"), "The work dir (work_dir), as --workdir gives it."},
		{roffBold("LANTERN_SERVER_HOSTS"), "Several model servers of one kind, separated by commas (server.hosts)."},
		{roffBold("LANTERN_LOG"), "The log level when --log-level is not given: debug, info, warn or error (default info)."},
		{roffBold("LANTERN_SHARD_COUNT"), "With --shard auto in a Kubernetes Indexed Job: the number of shards (the Job's completions)."},
		{roffBold("OLLAMA_HOST"), "The Ollama server, host[:port] or a URL, read as Ollama reads it (default 127.0.0.1:11434); it sets [ollama] host, and LANTERN_OLLAMA_HOST wins over it."},
		{roffBold("OLLAMA_NUM_PARALLEL"), "When the Ollama server runs in this environment: its parallel slots, which decide where memory questions go (memory_synthesis = \"auto\") and the prompt cache share in the metrics; server.slots wins over it."},
		{roffBold("OLLAMA_MULTIUSER_CACHE"), "When the Ollama server runs in this environment with it set: the metrics' prompt cache share follows it."},
		{roffBold("SLURM_ARRAY_TASK_ID") + ", " + roffBold("SLURM_ARRAY_TASK_MIN") + ", " + roffBold("SLURM_ARRAY_TASK_MAX") + ", " + roffBold("SLURM_ARRAY_TASK_COUNT"), "With --shard auto in a Slurm job array: the task, and the array's range, give the shard i/n."},
		{roffBold("JOB_COMPLETION_INDEX"), "With --shard auto in a Kubernetes Indexed Job: the pod's index, counted from 0 (the count is LANTERN_SHARD_COUNT)."},
		{roffBold("HTTP_PROXY") + ", " + roffBold("HTTPS_PROXY") + ", " + roffBold("NO_PROXY"), "The proxy for model servers on other machines (lower-case names too); never used for this machine."},
		{"the variable " + roffItalic("api_key_env") + " names", "The API key sent to an OpenAI-compatible server ([server] or a role's api_key_env names the variable; the key is never stored or logged)."},
		{roffBold("XDG_CONFIG_HOME"), "The user's configuration is $XDG_CONFIG_HOME/lantern/lantern.toml (default ~/.config/lantern/lantern.toml)."},
		{roffBold("XDG_DATA_HOME"), "The default work dir is $XDG_DATA_HOME/lantern (default ~/.local/share/lantern)."},
		{roffBold("HOME"), "Where ~ is, and the defaults above; on Windows USERPROFILE, AppData and LocalAppData."},
		{roffBold("VISUAL") + ", " + roffBold("EDITOR"), "The editor of config edit and notes edit, which may carry arguments (\"code --wait\"); else vi."},
		{roffBold("NO_COLOR"), "Any value but the empty one: the help, the messages and bench's status line are written without colour (https://no-color.org)."},
		{roffBold("TERM") + ", " + roffBold("COLORTERM") + ", " + roffBold("COLUMNS") + ", " + roffBold("LINES"), "The terminal, its colours and its size: the TUI needs TERM set and not dumb; doctor reports them."},
		{roffBold("SOURCE_DATE_EPOCH"), "The date lantern man prints on this page (reproducible builds)."},
	}
}

// manFiles are the files Lantern reads and writes.
func manFiles() []manEntry {
	return []manEntry{
		{roffItalic("$XDG_CONFIG_HOME/lantern/lantern.toml"), "The user's configuration (~/.config/lantern/lantern.toml); config init writes it, config edit opens it."},
		{roffItalic("./lantern.toml"), "The project's configuration, in the directory Lantern starts in, over the user's; --config F reads F in its place."},
		{roffItalic("$XDG_DATA_HOME/lantern/"), "The work dir (~/.local/share/lantern; work_dir, --workdir): one folder per story, and story files found by name, in it and in its stories/ folder."},
		{roffItalic("WORKDIR/lantern.log"), "The log, at --log-level; capped at 10 MiB, the older part kept as lantern.log.1."},
		{roffItalic("WORKDIR/STORY-rRELEASE/"), "A story's folder (zork1-r119), one per story file and release; the files below are in it."},
		{roffItalic("Memories.md"), "The agent's location memories, in ZorkGPT's format, editable by hand (lantern memories); Memories.md.backup is the previous version, Memories.md.history/ the versions before a save by hand deleted several, Memories.md.lock the writers' lock."},
		{roffItalic("knowledgebase.md"), "What the agent learns across episodes: death lessons, strategy, episode notes, synthesised at each episode's end."},
		{roffItalic("lantern.db"), "SQLite: the episodes as trees of branches, every turn with its checkpoint, the agent's notes, supervisor rounds, memory decisions, the map, your reviews, bench runs (its schema: docs/lantern-db.md)."},
		{roffItalic("current_state.json"), "The game's state, rewritten every turn for outside viewers."},
		{roffItalic("objectives.json"), "The objectives you set, kept across sessions."},
		{roffItalic("saves/"), "The story's SAVE files."},
		{roffItalic("lantern.lock"), "Held by the one Lantern that uses the folder, with its PID."},
		{roffItalic("bench/TIME-N/"), "A bench run's own work dir (unless --workdir), with its bench.json: the run's stories, models and settings, which bench merge reads."},
	}
}

// manCommand writes a command's subsection (its usage line, short and long
// texts and its own flags), then its subcommands'. The completion
// scripts' subcommands are only named.
func manCommand(w *roffWriter, root, c *cobra.Command) {
	if !c.IsAvailableCommand() {
		return
	}
	w.macro("SS", c.CommandPath()+manUseArgs(c))
	w.para(sentence(c.Short))
	if c.Name() == "completion" && c.Parent() == root {
		names := make([]string, 0, len(c.Commands()))
		for _, s := range c.Commands() {
			names = append(names, s.Name())
		}
		w.para("The shells: " + strings.Join(names, ", ") + "; " + c.CommandPath() + " SHELL --help says how to load the script.")
		return
	}
	w.blocks(c.Long)
	if sameFlags(c.LocalNonPersistentFlags(), root.LocalNonPersistentFlags()) {
		w.para("It takes the options of " + root.Name() + " itself (see OPTIONS).")
	} else {
		w.flags(c.LocalFlags(), map[string]bool{"help": true})
	}
	for _, s := range c.Commands() {
		manCommand(w, root, s)
	}
}

// manUseArgs is what a command's Use line says after its name.
func manUseArgs(c *cobra.Command) string {
	_, rest, _ := strings.Cut(c.Use, " ")
	if rest == "" {
		return ""
	}
	return " " + rest
}

// sameFlags: a and b define the same flag names (the tui command and the
// root, which is the tui command).
func sameFlags(a, b *pflag.FlagSet) bool {
	names := func(fs *pflag.FlagSet) string {
		var out []string
		fs.VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" && f.Name != "version" {
				out = append(out, f.Name)
			}
		})
		return strings.Join(out, " ")
	}
	return a.HasFlags() && names(a) == names(b)
}

// manExamples writes the root's examples, then each command's, as they are
// laid out in --help.
func manExamples(w *roffWriter, root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		if lines := exampleLines(c.Example); len(lines) > 0 {
			w.noFill(lines)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// exampleLines are an Example's lines without their common indentation.
func exampleLines(example string) []string {
	lines := strings.Split(strings.TrimRight(example, "\n "), "\n")
	if len(lines) == 1 && strings.TrimSpace(lines[0]) == "" {
		return nil
	}
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " \t")); indent < 0 || n < indent {
			indent = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= indent {
			l = l[indent:]
		}
		out[i] = strings.TrimRight(l, " \t")
	}
	return out
}

// sentence is a short text as a sentence: a capital first letter and a
// full stop.
func sentence(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\n", " "))
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.ContainsAny(s[len(s)-1:], ".!?") {
		s += "."
	}
	return s
}

// manBlock is one part of a long text: a paragraph (its lines joined), a
// list of terms with their descriptions (lines indented under the text,
// "  term   description", continued further in), or lines kept as they are.
type manBlock struct {
	text  string
	items [][2]string
	pre   []string
}

// manBlocks splits a command's long text into paragraphs at its blank
// lines; the line breaks inside a paragraph are only its wrapping.
func manBlocks(long string) []manBlock {
	var out []manBlock
	var para, indented []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, manBlock{text: strings.Join(para, " ")})
			para = nil
		}
		if len(indented) > 0 {
			out = append(out, indentedBlock(indented))
			indented = nil
		}
	}
	for _, line := range strings.Split(strings.ReplaceAll(long, "\t", "    "), "\n") {
		line = strings.TrimRight(line, " ")
		switch {
		case line == "":
			flush()
		case line[0] == ' ':
			if len(para) > 0 {
				flush()
			}
			indented = append(indented, line)
		default:
			if len(indented) > 0 {
				flush()
			}
			para = append(para, line)
		}
	}
	flush()
	return out
}

// indentedBlock reads indented lines as a list of terms ("  term  text",
// continuation lines indented further); lines of any other shape are kept
// as they are.
func indentedBlock(lines []string) manBlock {
	indentOf := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	base := indentOf(lines[0])
	var items [][2]string
	for _, l := range lines {
		switch n := indentOf(l); {
		case n == base:
			term, desc, ok := strings.Cut(strings.TrimSpace(l), "  ")
			if !ok {
				return preBlock(lines, base)
			}
			items = append(items, [2]string{term, strings.TrimSpace(desc)})
		case n > base && len(items) > 0:
			items[len(items)-1][1] += " " + strings.TrimSpace(l)
		default:
			return preBlock(lines, base)
		}
	}
	return manBlock{items: items}
}

// preBlock keeps lines as they are, less the first line's indentation.
func preBlock(lines []string, base int) manBlock {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimPrefix(l, strings.Repeat(" ", min(base, len(l)-len(strings.TrimLeft(l, " ")))))
	}
	return manBlock{pre: out}
}

// roffWriter writes man(7) roff.
type roffWriter struct {
	b strings.Builder
	// heading: a section's heading was the last line, so a paragraph
	// needs no .PP of its own.
	heading bool
}

func (w *roffWriter) String() string { return w.b.String() }

// line writes one line of text, escaped by the caller; a line that would
// start with a control character (. or ') is guarded by \&.
func (w *roffWriter) line(s string) {
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	w.b.WriteString(s)
	w.b.WriteByte('\n')
	w.heading = false
}

// macro writes a request; arguments with spaces are quoted.
func (w *roffWriter) macro(name string, args ...string) {
	if name == "PP" && w.heading {
		return
	}
	w.heading = name == "SH" || name == "SS"
	w.b.WriteString("." + name)
	for _, a := range args {
		a = strings.ReplaceAll(roffEscape(a), `"`, `\(dq`)
		if a == "" || strings.ContainsAny(a, " \t") {
			a = `"` + a + `"`
		}
		w.b.WriteString(" " + a)
	}
	w.b.WriteByte('\n')
}

// para writes a paragraph of plain text.
func (w *roffWriter) para(text string) {
	w.macro("PP")
	w.line(roffEscape(text))
}

// tagged writes a tagged paragraph: tag (roff, escaped by the caller),
// then text (plain) indented under it.
func (w *roffWriter) tagged(tag, text string) {
	w.macro("TP")
	w.line(tag)
	w.line(roffEscape(text))
}

// noFill writes lines as they are, indented (an example, a table).
func (w *roffWriter) noFill(lines []string) {
	w.macro("PP")
	w.macro("RS", "4")
	w.macro("nf")
	for _, l := range lines {
		w.line(roffEscape(l))
	}
	w.macro("fi")
	w.macro("RE")
}

// blocks writes a long text: its paragraphs, lists and kept lines.
func (w *roffWriter) blocks(long string) {
	for _, b := range manBlocks(long) {
		switch {
		case b.items != nil:
			for _, it := range b.items {
				w.tagged(roffBold(it[0]), it[1])
			}
		case b.pre != nil:
			w.noFill(b.pre)
		default:
			w.para(b.text)
		}
	}
}

// flags writes a flag set as tagged paragraphs, skipping hidden flags and
// those named in skip.
func (w *roffWriter) flags(fs *pflag.FlagSet, skip map[string]bool) {
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || skip[f.Name] {
			return
		}
		tag := roffBold("--" + f.Name)
		if f.Shorthand != "" {
			tag = roffBold("-"+f.Shorthand) + ", " + tag
		}
		name, usage := pflag.UnquoteUsage(f)
		switch name {
		case "stringArray", "strings":
			name = "string"
		case "float64":
			name = "number"
		}
		if name != "" {
			tag += ` \fI` + roffEscape(name) + `\fR`
		}
		if d := f.DefValue; d != "" && d != "false" && d != "0" && d != "[]" && !strings.Contains(usage, "(default") {
			usage += " (default " + d + ")"
		}
		w.tagged(tag, sentence(usage))
	})
}

// roffEscape escapes plain text for roff: a backslash is written \e, the
// dashes of a word that begins with them (an option, a negative number)
// \-, the minus sign a reader can copy into a shell (--log-level), and a
// character beyond ASCII \[uXXXX], so the page is ASCII. A leading dot or
// apostrophe is guarded where the line is written.
func roffEscape(s string) string {
	var b strings.Builder
	option := false // in a word that began with a dash
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\e`)
		case c == '-' && option:
			b.WriteString(`\-`)
		case c == '-' && (i == 0 || strings.IndexByte(" \t([{|,=\"'`", s[i-1]) >= 0):
			j := i
			for j < len(s) && s[j] == '-' {
				j++
			}
			if j < len(s) && isAlnum(s[j]) {
				b.WriteString(strings.Repeat(`\-`, j-i))
				i = j - 1
				option = true
				continue
			}
			b.WriteByte(c)
		case c >= utf8.RuneSelf:
			// Not ASCII: groff's and mandoc's named Unicode character,
			// read alike whatever the page's encoding is taken to be.
			r, size := utf8.DecodeRuneInString(s[i:])
			fmt.Fprintf(&b, `\[u%04X]`, r)
			i += size - 1
			option = false
		default:
			option = option && (isAlnum(c) || c == '_')
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
