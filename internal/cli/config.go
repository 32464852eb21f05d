package cli

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/llm"
)

// flagKeys are the configuration keys that command-line flags set (the
// highest level of the precedence).
var flagKeys = map[string]string{
	"workdir":   "work_dir",
	"story":     "story",
	"theme":     "theme",
	"model":     config.AllModels,
	"max-turns": "loop.max_turns_per_episode",
	"seed":      "loop.seed",
	"host":      "ollama.host",
	"profile":   "profile",
	"api":       "server.api",
	"base-url":  "server.base_url",
}

// loadConfig loads the configuration for a command: the standard files
// (configFile, from --config, in place of ./lantern.toml) and environment,
// with the named flags on top when they were given. Warnings go to stderr;
// an invalid configuration is a usage error naming every problem. set holds
// the flags given on the command line, by name.
func loadConfig(cmd string, set map[string]string, configFile string, stderr io.Writer, flags ...string) (*config.Config, error) {
	var ov []config.Override
	for _, f := range flags {
		if v, ok := set[f]; ok {
			ov = append(ov, config.Override{Key: flagKeys[f], Value: v, Flag: f})
		}
	}
	cfg, err := config.Load(configOptions(configFile, ov...))
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "lantern %s: warning: %s\n", cmd, w)
	}
	if err != nil {
		return nil, usageError(err)
	}
	return cfg, nil
}

// changed lists the flags given on the command line, by name.
func changed(fs *pflag.FlagSet) map[string]string {
	out := map[string]string{}
	fs.Visit(func(f *pflag.Flag) { out[f.Name] = f.Value.String() })
	return out
}

// engineConfig is the turn loop's part of the configuration.
func engineConfig(cfg *config.Config, episodes int) engine.Config {
	return engine.Config{
		MaxTurns:        cfg.Loop.MaxTurnsPerEpisode,
		Episodes:        episodes,
		Seed:            cfg.Loop.Seed,
		CriticThreshold: cfg.Loop.CriticRejectionThreshold,
		CriticMode:      engine.CriticMode(cfg.Loop.CriticMode),
		MaxProposals:    cfg.Loop.CriticMaxAttempts,
		PromptBudget:    cfg.Budgets.AgentPromptTokens,
		StuckTurns:      cfg.Loop.StuckTurns,
		MaxFailures:     cfg.Loop.MaxModelFailures,
		Extractor:       cfg.Managers.Extractor,
		CanDoHint:       cfg.Managers.ValidActionsHint,
	}
}

// planning is the planning managers' part of the configuration.
func planning(cfg *config.Config) session.Planning {
	m, lp := cfg.Managers, cfg.Loop
	p := session.DefaultPlanning()
	p.Objectives, p.PlainObjectives = m.Objectives, !m.EnhancedObjectiveContext
	p.ObjectiveInterval, p.RefineInterval = lp.ObjectiveUpdateInterval, lp.ObjectiveRefinementInterval
	p.Knowledge, p.KnowledgeInterval = m.Knowledge, lp.KnowledgeUpdateInterval
	p.Supervisor, p.SupervisorEvery, p.SupervisorK = m.Supervisor, m.SupervisorInterval, lp.SupervisorKWindow
	return p
}

// newClient makes the model client the configuration describes.
func newClient(cfg *config.Config, onCall func(llm.CallMetrics)) (*llm.Client, error) {
	return newClientLog(cfg, onCall, nil)
}

// newConfigCmd is `lantern config`: show (the default), check and sample.
func newConfigCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config [show | check | sample | init | edit | path]",
		Short: "show the configuration in effect, check a file, print a sample",
		Long: `show prints the configuration in effect: which files were read, and each key
set by a file, the environment or a flag, with where it came from (--all:
every key, defaults too). check validates the configuration in effect, or
the named files alone, and exits 1 on an error. sample prints a commented
lantern.toml with every key at its default. init writes that sample as the
user's file (--project: ./lantern.toml); edit opens it in $VISUAL or $EDITOR
and checks it afterwards; path prints where the files are looked for.

Precedence, lowest first: built-in defaults < $XDG_CONFIG_HOME/lantern/lantern.toml
< ./lantern.toml (or --config F) < LANTERN_* and OLLAMA_HOST < flags.`,
		Example: `  lantern config
  lantern config sample > ~/.config/lantern/lantern.toml
  lantern config check lantern.toml`,
		Args: noArgs,
	}
	show := newConfigShowCmd(a)
	// `lantern config` alone shows.
	cmd.Flags().AddFlagSet(show.Flags())
	cmd.RunE = show.RunE
	check := &cobra.Command{
		Use:   "check [FILE...]",
		Short: "validate the configuration in effect, or the named files alone",
		RunE: func(cmd *cobra.Command, args []string) error {
			return status(runConfigCheck(cmd.OutOrStdout(), a.configFile, args))
		},
	}
	sample := &cobra.Command{
		Use:   "sample",
		Short: "print a commented lantern.toml with every key at its default",
		Args:  noArgs,
		Run:   func(cmd *cobra.Command, _ []string) { fmt.Fprint(cmd.OutOrStdout(), a.sampleConfig) },
	}
	path := &cobra.Command{
		Use:   "path",
		Short: "print where the configuration files are looked for",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return status(configPath(cmd.OutOrStdout(), a.configFile))
		},
	}
	cmd.AddCommand(show, check, sample, newConfigInitCmd(a), newConfigEditCmd(a), path)
	return cmd
}

// newConfigShowCmd is `lantern config show`, which `lantern config` alone
// runs too.
func newConfigShowCmd(a *app) *cobra.Command {
	show := &cobra.Command{
		Use:   "show",
		Short: "print the configuration in effect and where each key comes from",
		Args:  noArgs,
	}
	all := show.Flags().Bool("all", false, "every key, not only those set somewhere")
	show.RunE = func(cmd *cobra.Command, _ []string) error {
		return runConfigShow(cmd.OutOrStdout(), cmd.ErrOrStderr(), a.configFile, *all)
	}
	return show
}

// runConfigShow prints the configuration in effect (all: every key), then
// its warnings on stderr.
func runConfigShow(stdout, stderr io.Writer, configFile string, all bool) error {
	cfg, err := config.Load(configOptions(configFile))
	showConfig(stdout, cfg, all)
	if err != nil {
		return err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "lantern config: warning: %s\n", w)
	}
	return nil
}

// runConfigCheck validates the configuration in effect (no files named),
// or each named file alone, and returns the exit code.
func runConfigCheck(stdout io.Writer, configFile string, files []string) int {
	if len(files) == 0 {
		cfg, err := config.Load(configOptions(configFile))
		return reportCheck(stdout, cfg, err)
	}
	code := exitOK
	for _, name := range files {
		data, err := atomicfile.ReadRegular(name, config.MaxFileBytes)
		if err != nil {
			fmt.Fprintf(stdout, "%s: %v\n", name, err)
			code = max(code, exitError)
			if errors.Is(err, atomicfile.ErrNotRegular) || errors.Is(err, atomicfile.ErrTooLarge) {
				code = exitUsage // not a configuration file at all
			}
			continue
		}
		cfg, err := config.ParseChecked(name, data, checkTheme)
		if c := reportCheck(stdout, cfg, err); c != exitOK {
			code = c
		}
	}
	return code
}

// configFileOptions are the flags of `lantern config init` and `edit`.
type configFileOptions struct {
	project bool // ./lantern.toml rather than the user's file
	force   bool // init: replace an existing file
}

// projectFlag binds --project, which init and edit share.
func (o *configFileOptions) projectFlag(c *cobra.Command) {
	c.Flags().BoolVar(&o.project, "project", false, "use ./lantern.toml rather than the user's file")
}

// newConfigInitCmd is `lantern config init`.
func newConfigInitCmd(a *app) *cobra.Command {
	var o configFileOptions
	initCmd := &cobra.Command{
		Use:   "init",
		Short: "write the sample as the user's file (--project: ./lantern.toml)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			target := configFileTarget(o.project, a.configFile)
			return status(configInit(cmd.OutOrStdout(), cmd.ErrOrStderr(), target, a.sampleConfig, o.force))
		},
	}
	o.projectFlag(initCmd)
	initCmd.Flags().BoolVar(&o.force, "force", false, "replace an existing file")
	return initCmd
}

// newConfigEditCmd is `lantern config edit`.
func newConfigEditCmd(a *app) *cobra.Command {
	var o configFileOptions
	edit := &cobra.Command{
		Use:   "edit",
		Short: "open the user's file (--project: ./lantern.toml) in $VISUAL or $EDITOR, then check it",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			target := configFileTarget(o.project, a.configFile)
			return status(configEdit(cmd.OutOrStdout(), cmd.ErrOrStderr(), target, a.sampleConfig))
		},
	}
	o.projectFlag(edit)
	return edit
}

func reportCheck(w io.Writer, cfg *config.Config, err error) int {
	var ce *config.Error
	if errors.As(err, &ce) {
		for _, p := range ce.Problems {
			fmt.Fprintf(w, "error: %s\n", p)
		}
	} else if err != nil {
		fmt.Fprintf(w, "error: %v\n", err)
	}
	for _, p := range cfg.Warnings {
		fmt.Fprintf(w, "warning: %s\n", p)
	}
	if err != nil {
		return exitError
	}
	if len(cfg.Warnings) == 0 {
		names := []string{}
		for _, f := range cfg.Files {
			if f.Found {
				names = append(names, f.Path)
			}
		}
		if len(names) == 0 {
			names = []string{"the defaults"}
		}
		fmt.Fprintf(w, "ok: %s\n", strings.Join(names, ", "))
	}
	return exitOK
}

// showConfig prints the configuration in effect as TOML, each value with
// its source.
func showConfig(w io.Writer, cfg *config.Config, all bool) {
	fmt.Fprintln(w, "# Files, lowest precedence first:")
	for _, f := range cfg.Files {
		state := "read"
		if !f.Found {
			state = "not found"
		}
		fmt.Fprintf(w, "#   %-7s %s (%s)\n", f.Level, f.Path, state)
	}
	fmt.Fprintf(w, "# work_dir in effect: %s\n", cfg.WorkDir)
	section := ""
	shown := 0
	keys := config.KeyNames()
	var remapped []string
	for a := range cfg.Keys {
		remapped = append(remapped, "keys."+a)
	}
	sort.Strings(remapped)
	keys = append(keys, remapped...)
	// [keys] comes before the roles, as in the sample.
	sort.SliceStable(keys, func(i, j int) bool { return rank(keys[i]) < rank(keys[j]) })
	for _, k := range keys {
		src, set := cfg.Sources[k]
		if !set && !all {
			continue
		}
		sec, name := "", k
		if i := strings.LastIndex(k, "."); i >= 0 {
			sec, name = k[:i], k[i+1:]
		}
		if sec != section {
			fmt.Fprintf(w, "\n[%s]\n", sec)
			section = sec
		}
		fmt.Fprintf(w, "%-30s # %s\n", name+" = "+cfg.Get(k), src)
		shown++
	}
	if shown == 0 {
		fmt.Fprintln(w, "\n# Every key has its built-in default (lantern config show --all lists them).")
	}
}

func rank(key string) int {
	switch {
	case !strings.Contains(key, "."):
		return 0
	case strings.HasPrefix(key, "roles."):
		return 2
	}
	return 1
}
