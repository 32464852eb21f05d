package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/game_files/bindings"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/internal/stories"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/memory"
)

// A doctor's finding: ok, info, warn (does not fail the check) or FAIL,
// with what to do about it.
type finding struct {
	level string
	msg   string
	fix   string
}

const (
	levelOK   = "ok"
	levelInfo = "info"
	levelWarn = "warn"
	levelFail = "FAIL"
)

type doctorReport struct {
	w        io.Writer
	failures int
	warnings int
}

func (r *doctorReport) section(title string) { fmt.Fprintf(r.w, "\n%s\n", title) }

func (r *doctorReport) add(f finding) {
	switch f.level {
	case levelFail:
		r.failures++
	case levelWarn:
		r.warnings++
	}
	lines := strings.Split(f.msg, "\n")
	fmt.Fprintf(r.w, "  %-5s %s\n", f.level, lines[0])
	for _, l := range lines[1:] {
		fmt.Fprintf(r.w, "        %s\n", l)
	}
	if f.fix != "" {
		fmt.Fprintf(r.w, "        fix: %s\n", f.fix)
	}
}

func (r *doctorReport) ok(format string, a ...any) {
	r.add(finding{levelOK, fmt.Sprintf(format, a...), ""})
}
func (r *doctorReport) info(format string, a ...any) {
	r.add(finding{levelInfo, fmt.Sprintf(format, a...), ""})
}
func (r *doctorReport) warn(fix, format string, a ...any) {
	r.add(finding{levelWarn, fmt.Sprintf(format, a...), fix})
}
func (r *doctorReport) fail(fix, format string, a ...any) {
	r.add(finding{levelFail, fmt.Sprintf(format, a...), fix})
}

func newDoctorCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "doctor [flags]",
		Args:  noArgs,
		Short: "check Ollama, the models, the story, the work dir and the terminal",
		Long: `Checks what Lantern needs and says how to fix each problem: the configuration
(files, environment, every value), the Ollama server (the host tried, its
version), each role's model (present, tools and thinking support, context),
the story (loads, version, binding), the work dir (writable, not in use by
another Lantern) and the terminal. Exits 1 when something is wrong; warnings
alone do not fail.`,
		Example: `  lantern doctor
  OLLAMA_HOST=gpu-box:11434 lantern doctor --model qwen3:8b
  lantern doctor --story ~/games/zork1.z3`,
	}
	fs := cmd.Flags()
	fs.String("story", "", "story to check (default: the configured one, else the built-in demo)")
	fs.String("workdir", "", "work dir to check (default: the configured one)")
	fs.String("model", "", "check this model for every role")
	fs.String("host", "", "Ollama host to check (default: OLLAMA_HOST, else the configured one)")
	serverFlags(fs)
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the Ollama server")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx, stdout := cmd.Context(), cmd.OutOrStdout()
		if fs.NArg() > 0 {
			return usageErrorf("unexpected %q", fs.Arg(0))
		}
		r := &doctorReport{w: stdout}
		fmt.Fprintf(stdout, "lantern %s doctor\n", version())

		cfg := doctorConfig(r, fs, a.configFile)
		client := doctorOllama(ctx, r, cfg, *timeout)
		doctorModels(ctx, r, cfg, client, *timeout)
		storyName, release := doctorStory(r, cfg)
		doctorWorkDir(r, cfg, storyName, release)
		doctorTerminal(r, stdout)

		fmt.Fprintln(stdout)
		switch {
		case r.failures > 0:
			fmt.Fprintf(stdout, "%s found; fix %s above.\n", plural(r.failures, "problem"), map[bool]string{true: "it", false: "them"}[r.failures == 1])
			return status(exitError)
		case r.warnings > 0:
			fmt.Fprintf(stdout, "No problems; %s.\n", plural(r.warnings, "warning"))
		default:
			fmt.Fprintln(stdout, "No problems.")
		}
		return nil
	}
	return cmd
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// doctorConfig loads the configuration and reports on it; it always
// returns one (the defaults where the files are broken).
func doctorConfig(r *doctorReport, fs *pflag.FlagSet, configFile string) *config.Config {
	r.section("Configuration")
	var ov []config.Override
	fs.Visit(func(f *pflag.Flag) {
		if key, ok := flagKeys[f.Name]; ok {
			ov = append(ov, config.Override{Key: key, Value: f.Value.String(), Flag: f.Name})
		}
	})
	cfg, err := config.Load(configOptions(configFile, ov...))
	for _, f := range cfg.Files {
		if abs, err := filepath.Abs(f.Path); err == nil {
			f.Path = abs
		}
		if f.Found {
			r.ok("read %s (%s file)", f.Path, f.Level)
		} else {
			r.info("no %s file at %s (lantern config sample shows one)", f.Level, f.Path)
		}
	}
	var vars []string
	for _, s := range cfg.Sources {
		if s.Kind == config.FromEnv && !contains(vars, s.Name) {
			vars = append(vars, s.Name)
		}
	}
	sort.Strings(vars)
	if len(vars) > 0 {
		r.info("from the environment: %s", strings.Join(vars, ", "))
	}
	var ce *config.Error
	if errors.As(err, &ce) {
		for _, p := range ce.Problems {
			r.fail(fixFor(p), "%s", p)
		}
	} else if err != nil {
		r.fail("", "%v", err)
	} else {
		r.ok("every value is valid")
	}
	for _, p := range cfg.Warnings {
		r.warn("", "%s", p)
	}
	return cfg
}

func fixFor(p config.Problem) string {
	switch p.Source.Kind {
	case config.FromFile:
		if p.Source.Line > 0 {
			return fmt.Sprintf("edit line %d of %s (lantern.sample.toml documents every key)", p.Source.Line, p.Source.Name)
		}
		return fmt.Sprintf("check %s (lantern.sample.toml documents every key)", p.Source.Name)
	case config.FromEnv:
		return fmt.Sprintf("change or unset %s", p.Source.Name)
	case config.FromFlag:
		return fmt.Sprintf("change %s", p.Source)
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// doctorOllama reaches the server; it returns nil when it cannot.
func doctorOllama(ctx context.Context, r *doctorReport, cfg *config.Config, timeout time.Duration) *llm.Client {
	server := "Ollama"
	if config.ServerFor(cfg.Server, config.Role{}).API == config.APIOpenAI {
		server = "Model server"
	}
	r.section(server)
	doctorServerKeys(r, cfg, os.LookupEnv)
	hosts, listSrc := serverHosts(cfg)
	if hosts != nil {
		live := doctorHostList(ctx, r, cfg, hosts, listSrc)
		if live == "" {
			return nil
		}
		cfg = pinHost(cfg, live)
	}
	client, err := newClient(cfg, nil)
	if err != nil {
		r.fail(`set OLLAMA_HOST or [ollama] host to host[:port], such as "127.0.0.1:11434"`, "%v", err)
		return nil
	}
	src := cfg.Sources["ollama.host"].String()
	if client.API() == config.APIOpenAI {
		src = cfg.Sources["server.base_url"].String()
	}
	if hosts != nil {
		src = "the list of " + listSrc
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, err := client.Version(tctx)
	if err != nil {
		doctorUnanswered(r, client, src, err)
		return nil
	}
	if client.API() == config.APIOpenAI {
		r.ok("%s server at %s (from %s)", v, client.Host(), src)
	} else {
		r.ok("Ollama %s at %s (host from %s)", v, client.Host(), src)
	}
	if hosts := client.Hosts(); len(hosts) > 1 {
		r.info("the roles use %d servers: %s (each call goes to the least busy of a role's)", len(hosts), strings.Join(hosts, ", "))
	}
	if !client.Loopback() {
		r.info("a server is not on this machine: prompts and game text are sent over the network (%s)", strings.Join(client.Hosts(), ", "))
	}
	if withAgent, why := memorySynthesis(cfg, client, os.Getenv); withAgent {
		r.info("memories are decided in the agent's reply (%s)", why)
	} else {
		r.info("memories are decided in the memory role's own call (%s)", why)
	}
	return client
}

// doctorHostList asks each host of the list (from src); the first that
// answers is the one checked next, as a session would play on it. It
// returns "" when none answers.
func doctorHostList(ctx context.Context, r *doctorReport, cfg *config.Config, hosts []string, src string) string {
	var live []string
	for _, p := range probeHosts(ctx, cfg, hosts) {
		if p.Err != nil {
			r.warn("a session skips it until it answers", "host %s (of the list from %s) does not answer: %v", p.Host, src, p.Err)
			continue
		}
		r.ok("host %s answers (%s; the list is from %s)", p.Host, p.Version, src)
		live = append(live, p.Host)
	}
	if len(live) == 0 {
		r.fail("start a server of the list, or change [server] hosts / LANTERN_SERVER_HOSTS", "no host of the list answers (%s, from %s)", strings.Join(hosts, ", "), src)
		return ""
	}
	return live[0]
}

// doctorUnanswered reports why the server (its address from src) did not
// tell its version: nothing answers, or something that is not the server.
func doctorUnanswered(r *doctorReport, client *llm.Client, src string, err error) {
	why, hint := err.Error(), ""
	var le *llm.Error
	if errors.As(err, &le) {
		why, hint = le.Err.Error(), le.Hint
	}
	if !errors.Is(err, llm.ErrUnreachable) && !errors.Is(err, llm.ErrTimeout) {
		// Something answered, but not as the server should.
		what := "Ollama"
		if client.API() == config.APIOpenAI {
			what = "an OpenAI-compatible server"
		}
		switch {
		case hint != "":
		case client.API() == config.APIOpenAI:
			hint = fmt.Sprintf("check that %s listens at %s, and nothing else", what, client.Host())
		default:
			hint = fmt.Sprintf("check that Ollama listens at %s; a server of the OpenAI protocol (llama-server, vLLM, LM Studio) wants --api openai --base-url http://%s/v1",
				client.Host(), client.Host())
		}
		r.fail(hint, "the server at %s (from %s) answers, but not as %s does\n%s", client.Host(), src, what, why)
		return
	}
	if client.API() == config.APIOpenAI {
		r.fail("start the server (llama-server, LM Studio, vLLM, or `ollama serve` for its /v1), or point [server] base_url or --base-url at it; without it Lantern still plays by hand (lantern play --plain)",
			"no OpenAI-compatible server answers at %s (from %s)\n%s", client.Host(), src, why)
		return
	}
	r.fail("start Ollama (`ollama serve`; install it from https://ollama.com), or point OLLAMA_HOST or [ollama] host at your server; without it Lantern still plays by hand (lantern play --plain)",
		"no Ollama server answers at %s (host from %s)\n%s", client.Host(), src, why)
}

// doctorServerKeys warns about server settings that cannot work as
// written: an api_key_env naming a variable that is unset or empty (no
// key is sent), and num_ctx or keep_alive on a role whose server speaks
// the OpenAI protocol, which has neither (they are not sent).
func doctorServerKeys(r *doctorReport, cfg *config.Config, lookup func(string) (string, bool)) {
	users := map[string][]string{} // variable → who names it
	var vars []string
	use := func(name, who string) {
		if name == "" {
			return
		}
		if users[name] == nil {
			vars = append(vars, name)
		}
		if !contains(users[name], who) {
			users[name] = append(users[name], who)
		}
	}
	use(cfg.Server.APIKeyEnv, "[server]")
	var numCtx, keepAlive []string
	for _, role := range config.RoleNames() {
		rc := cfg.Roles[role]
		s := config.ServerFor(cfg.Server, rc)
		use(rc.APIKeyEnv, "[roles."+role+"]")
		if s.API != config.APIOpenAI {
			continue
		}
		if rc.NumCtx > 0 {
			numCtx = append(numCtx, fmt.Sprintf("%s (%d)", role, rc.NumCtx))
		}
		if rc.KeepAlive != 0 {
			keepAlive = append(keepAlive, fmt.Sprintf("%s (%s)", role, rc.KeepAlive))
		}
	}
	for _, name := range vars {
		v, set := lookup(name)
		switch {
		case !set:
			r.warn(fmt.Sprintf("export %s=YOUR_KEY before running lantern, or remove api_key_env if the server wants no key", name),
				"api_key_env names %s (in %s), which is not set: no API key is sent", name, strings.Join(users[name], ", "))
		case strings.TrimSpace(v) == "":
			r.warn(fmt.Sprintf("put the key in %s, or remove api_key_env if the server wants no key", name),
				"api_key_env names %s (in %s), which is empty: no API key is sent", name, strings.Join(users[name], ", "))
		}
	}
	if len(numCtx) > 0 {
		r.warn("set the context on the server itself (llama-server -c, vLLM --max-model-len, OLLAMA_CONTEXT_LENGTH), or remove num_ctx",
			"num_ctx is not sent on the OpenAI protocol, which has no such setting: %s; the server keeps the context it was started with (prompts are still fitted to num_ctx)",
			strings.Join(numCtx, ", "))
	}
	if len(keepAlive) > 0 {
		r.warn("set it on the server itself (OLLAMA_KEEP_ALIVE for Ollama), or remove keep_alive",
			"keep_alive is not sent on the OpenAI protocol, which has no such setting: %s", strings.Join(keepAlive, ", "))
	}
}

// roleNeeds are the capabilities a role cannot work without.
func roleNeeds(role string) []string {
	if role == config.RoleRetriever {
		return []string{llm.CapTools}
	}
	return nil
}

func doctorModels(ctx context.Context, r *doctorReport, cfg *config.Config, client *llm.Client, timeout time.Duration) {
	r.section("Models")
	if client == nil {
		r.info("not checked: the server check above failed")
		return
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	list, err := client.Models(tctx)
	if err != nil {
		r.fail("", "cannot list the server's models: %v", err)
		return
	}
	have := map[string]bool{}
	for _, m := range list {
		have[m.Name] = true
	}
	// One line per model, with the roles that use it; then what a role
	// needs that its model lacks.
	var models []string
	roles := map[string][]string{}
	for _, role := range config.RoleNames() {
		m := cfg.Roles[role].Model
		if roles[m] == nil {
			models = append(models, m)
		}
		roles[m] = append(roles[m], role)
	}
	for _, name := range models {
		users := strings.Join(roles[name], ", ")
		if !have[name] && !have[withTag(name)] {
			fix := fmt.Sprintf("ollama pull %s, or choose a model the server has (lantern models lists them; [roles.NAME] model, or --model)", name)
			if client.API() == config.APIOpenAI {
				fix = fmt.Sprintf("load %s on the server, or choose a model it has (lantern models lists them; [roles.NAME] model, or --model)", name)
			}
			r.fail(fix,
				"%s is not on the server (used by %s)", name, users)
			continue
		}
		info, err := client.Show(tctx, name)
		if err != nil {
			r.fail("", "%s: %v", name, err)
			continue
		}
		r.ok("%s: tools %s, thinking %s, context %s (used by %s)", name, yesNo(info.Has(llm.CapTools)), yesNo(info.Has(llm.CapThinking)), ctxLen(info.ContextLength), users)
		if info.RemoteHost != "" || (llm.ModelSummary{Name: name}).Remote() {
			r.warn("sign in with `ollama signin` to use it; pick a local model to keep the game on this machine",
				"%s is a cloud model: it runs %s and the prompts sent to it leave this machine", name, remoteWhere(info.RemoteHost))
		}
		for _, role := range roles[name] {
			rc := cfg.Roles[role]
			var missing []string
			for _, need := range roleNeeds(role) {
				if !info.Has(need) {
					missing = append(missing, need)
				}
			}
			if rc.Think == config.ThinkOn && !info.Has(llm.CapThinking) {
				missing = append(missing, llm.CapThinking+` (think = "on")`)
			}
			if len(missing) > 0 {
				r.fail(fmt.Sprintf("choose a model with %s for [roles.%s]", strings.Join(missing, " and "), role),
					"the %s role needs %s, which %s lacks", role, strings.Join(missing, " and "), name)
			}
			if rc.NumCtx > 0 && info.ContextLength > 0 && rc.NumCtx > info.ContextLength {
				r.warn(fmt.Sprintf("lower [roles.%s] num_ctx, or set it to 0 to keep the server's own size", role),
					"the %s role's num_ctx %d is more than %s's context (%d)", role, rc.NumCtx, name, info.ContextLength)
			}
		}
	}
}

// withTag adds Ollama's default tag to a model name without one.
func withTag(name string) string {
	if strings.Contains(name, ":") {
		return name
	}
	return name + ":latest"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func ctxLen(n int) string {
	if n <= 0 {
		return "unknown"
	}
	return fmt.Sprintf("%d", n)
}

// doctorStory loads the story; it returns the story's name and release (for
// its folder in the work dir).
func doctorStory(r *doctorReport, cfg *config.Config) (string, int) {
	r.section("Story")
	path := cfg.Story
	story, name, err := openStory(path, cfg.WorkDir)
	if err != nil {
		r.fail("name a Z-machine story file (.z3, .z5, .z8) with --story or story in lantern.toml", "%v", err)
		return "", 0
	}
	info := story.Info()
	title := name
	if path == "" {
		title = "the built-in demo (" + demo.FileName + ")"
	}
	r.ok("%s: version %d, release %d, serial %s, md5 %s", title, info.Version, info.Release, info.Serial, info.MD5)
	bs, err := env.LoadBindings(bindings.FS())
	if err != nil {
		r.fail("", "the embedded bindings do not load: %v", err)
		return name, info.Release
	}
	b, bound := bs[info.MD5]
	if bound {
		r.ok("binding %q found (location, score, moves, death and victory from it)", b.Name)
	} else if info.Version == 3 {
		r.info("no binding: location, score and moves come from globals 0, 1 and 2, as in every version 3 story")
	} else {
		r.warn("add a binding in game_files/bindings/ for this story's md5", "no binding for this version %d story: location, score and moves may be wrong", info.Version)
	}
	if bound && b.Name == "zork1" {
		return name, info.Release // the story checked is Zork I
	}
	if found, err := stories.Resolve("zork1", cfg.WorkDir); err == nil {
		r.info("Zork I found: %s (lantern play --story %s)", found, stories.ShortName(found, cfg.WorkDir))
	} else {
		r.info("Zork I not found: it is MIT-licensed; get COMPILED/zork1.z3 from https://github.com/historicalsource/zork1\nand put it in %s (or game_files/ of the repository) to play it as lantern play --story zork1", filepath.Join(cfg.WorkDir, "stories"))
	}
	return name, info.Release
}

func doctorWorkDir(r *doctorReport, cfg *config.Config, storyName string, release int) {
	r.section("Work dir")
	dir := cfg.WorkDir
	fix := "choose another with --workdir or work_dir in lantern.toml, or fix its permissions"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.fail(fix, "cannot create %s: %v", dir, err)
		return
	}
	f, err := os.CreateTemp(dir, ".lantern-doctor-*")
	if err != nil {
		r.fail(fix, "%s is not writable: %v", dir, err)
		return
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	r.ok("%s is writable (from %s)", dir, cfg.Sources["work_dir"])
	if storyName == "" {
		return
	}
	sd := filepath.Join(dir, session.StoryDir(storyName, release))
	if _, err := os.Stat(sd); err != nil {
		r.ok("%s: no Lantern has used it yet", sd)
		return
	}
	pid, inUse, err := memory.WorkDirOwner(sd)
	switch {
	case err != nil:
		r.fail(fix, "cannot check %s: %v", sd, err)
	case inUse && pid > 0:
		r.fail("close the other Lantern, or give this one another --workdir", "%s is in use by PID %d", sd, pid)
	case inUse:
		r.fail("close the other Lantern, or give this one another --workdir", "%s is in use by another Lantern", sd)
	default:
		r.ok("%s is not in use", sd)
	}
}

func doctorTerminal(r *doctorReport, stdout io.Writer) {
	r.section("Terminal")
	f, ok := stdout.(*os.File)
	isTTY := false
	if ok {
		if fi, err := f.Stat(); err == nil {
			isTTY = fi.Mode()&os.ModeCharDevice != 0
		}
	}
	if !isTTY {
		r.warn("run lantern in a terminal for the TUI; lantern play --plain and lantern run --headless work anywhere", "standard output is not a terminal")
	} else {
		r.ok("standard output is a terminal")
	}
	term := os.Getenv("TERM")
	switch {
	case term == "" && isTTY:
		r.warn("set TERM (for example TERM=xterm-256color)", "TERM is not set")
	case term == "dumb":
		r.warn("use a terminal that draws (TERM=xterm-256color)", "TERM=dumb cannot draw the TUI")
	case term != "":
		colors := "256 colours or fewer"
		if ct := os.Getenv("COLORTERM"); ct == "truecolor" || ct == "24bit" {
			colors = "true colour"
		}
		r.ok("TERM=%s, %s", term, colors)
	}
	if os.Getenv("NO_COLOR") != "" {
		r.info("NO_COLOR is set: the TUI draws without colour")
	}
	if c, l := os.Getenv("COLUMNS"), os.Getenv("LINES"); c != "" && l != "" {
		r.info("size from COLUMNS and LINES: %sx%s (the TUI needs at least 80x24)", c, l)
	}
}
