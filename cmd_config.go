package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/llm"
)

//go:embed lantern.sample.toml
var sampleConfig string

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
}

// loadConfig loads the configuration for a command: the standard files
// (configFile, from --config, in place of ./lantern.toml) and environment,
// with the named flags on top when they were given. Warnings go to stderr;
// on an invalid configuration it prints every problem and returns nil.
func loadConfig(cmd string, fs *flag.FlagSet, configFile string, stderr io.Writer, flags ...string) *config.Config {
	var ov []config.Override
	wanted := map[string]bool{}
	for _, f := range flags {
		wanted[f] = true
	}
	fs.Visit(func(f *flag.Flag) {
		if key, ok := flagKeys[f.Name]; ok && wanted[f.Name] {
			ov = append(ov, config.Override{Key: key, Value: f.Value.String(), Flag: f.Name})
		}
	})
	cfg, err := config.Load(config.Standard(configFile, ov...))
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "lantern %s: warning: %s\n", cmd, w)
	}
	if err != nil {
		fmt.Fprintf(stderr, "lantern %s: %v\n", cmd, err)
		return nil
	}
	return cfg
}

// parseInterspersed parses flags that may come after the arguments too
// (lantern bench --compare 3 4 --json); "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	return fs.Parse(append([]string{"--"}, pos...))
}

// engineConfig is the turn loop's part of the configuration.
func engineConfig(cfg *config.Config, episodes int) engine.Config {
	return engine.Config{
		MaxTurns:        cfg.Loop.MaxTurnsPerEpisode,
		Episodes:        episodes,
		Seed:            cfg.Loop.Seed,
		CriticThreshold: cfg.Loop.CriticRejectionThreshold,
		MaxProposals:    cfg.Loop.CriticMaxAttempts,
		PromptBudget:    cfg.Budgets.AgentPromptTokens,
		StuckTurns:      cfg.Loop.StuckTurns,
		MaxFailures:     cfg.Loop.MaxModelFailures,
		Extractor:       cfg.Managers.Extractor,
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
	return llm.New(llm.Options{Host: cfg.Ollama.Host, Roles: cfg.Roles, OnCall: onCall, MaxReplyBytes: cfg.Ollama.MaxReplyKB << 10})
}

func cmdConfig(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configFile := fs.String("config", "", "configuration file read in place of ./lantern.toml")
	all := fs.Bool("all", false, "show: every key, not only those set somewhere")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: lantern config [show [--all]] [--config F]
       lantern config check [FILE...]
       lantern config sample

show prints the configuration in effect: which files were read, and each key
set by a file, the environment or a flag, with where it came from (--all:
every key, defaults too). check validates the configuration in effect, or
the named files alone, and exits 1 on an error. sample prints a commented
lantern.toml with every key at its default.

Precedence, lowest first: built-in defaults < $XDG_CONFIG_HOME/lantern/lantern.toml
< ./lantern.toml (or --config F) < LANTERN_* and OLLAMA_HOST < flags.

Examples:
  lantern config
  lantern config sample > ~/.config/lantern/lantern.toml
  lantern config check lantern.toml

Flags:
`)
		fs.PrintDefaults()
	}
	sub := "show"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	if err := parseInterspersed(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	switch sub {
	case "sample":
		fmt.Fprint(stdout, sampleConfig)
		return exitOK
	case "check":
		if fs.NArg() == 0 {
			cfg, err := config.Load(config.Standard(*configFile))
			return reportCheck(stdout, cfg, err)
		}
		code := exitOK
		for _, name := range fs.Args() {
			data, err := os.ReadFile(name)
			if err != nil {
				fmt.Fprintf(stdout, "%s: %v\n", name, err)
				code = exitError
				continue
			}
			cfg, err := config.Parse(name, data)
			if c := reportCheck(stdout, cfg, err); c != exitOK {
				code = c
			}
		}
		return code
	case "show":
		if fs.NArg() > 0 {
			fmt.Fprintf(stderr, "lantern config show: unexpected %q\n", fs.Arg(0))
			return exitUsage
		}
		cfg, err := config.Load(config.Standard(*configFile))
		showConfig(stdout, cfg, *all)
		if err != nil {
			fmt.Fprintf(stderr, "lantern config: %v\n", err)
			return exitError
		}
		for _, w := range cfg.Warnings {
			fmt.Fprintf(stderr, "lantern config: warning: %s\n", w)
		}
		return exitOK
	}
	fmt.Fprintf(stderr, "lantern config: unknown subcommand %q (want show, check or sample)\n", sub)
	return exitUsage
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
