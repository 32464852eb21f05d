package cli

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/internal/export"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/themes"
)

// Shell completion (lantern completion bash|zsh|fish): every flag that
// takes one of a few values completes them, the model flags complete the
// server's models, and the file and folder flags complete files and
// folders.

// registerCompletions gives every flag of the tree under root that has a
// completion its function, command by command (a flag is completed where
// it is defined; persistent flags on the root serve every command).
func registerCompletions(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if fn := flagCompletion(c, f.Name); fn != nil {
				_ = c.RegisterFlagCompletionFunc(f.Name, fn)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// flagCompletion is the completion of flag name on command c, nil for a
// flag the shell completes as it likes.
func flagCompletion(c *cobra.Command, name string) cobra.CompletionFunc {
	switch name {
	case "model":
		return completeModels
	case "story":
		return completeStories
	case "api":
		return fixedCompletion(
			config.APIOllama+"\tOllama's own API",
			config.APIOpenAI+"\tOpenAI chat completions: llama.cpp, LM Studio, vLLM, Ollama's /v1")
	case "profile":
		return fixedCompletion(
			config.ProfileLean+"\tthe lean default cadence",
			config.ProfileZorkGPT+"\tthe design documents' cadence")
	case "theme":
		return fixedCompletion(append(themes.Names(), config.DefaultTheme+"\tfollow the terminal's background")...)
	case "log-level":
		return fixedCompletion(logLevels()...)
	case "shard":
		return fixedCompletion(
			"auto\tthe index from a Slurm job array or a Kubernetes Indexed Job",
			"1/2\tthe first of two shards",
			"2/2\tthe second of two shards")
	case "agent":
		return completeAgent
	case "level":
		return fixedCompletion(
			"core\talways shown, first",
			"permanent\tthe default: kept across episodes",
			"ephemeral\tkept to the episode it was learnt in")
	case "format":
		if formats := formatsOf(c); formats != nil {
			return fixedCompletion(formats...)
		}
	case "workdir", "savedir", "export":
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
	case "config":
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return []cobra.Completion{"toml"}, cobra.ShellCompDirectiveFilterFileExt
		}
	}
	return nil
}

// formatsOf is what --format takes on command c, by its path under the
// root: nil when c has no known formats.
func formatsOf(c *cobra.Command) []string {
	path := c.CommandPath()
	if c.HasParent() {
		path = strings.TrimPrefix(path, c.Root().Name()+" ")
	}
	switch path {
	case "map":
		return mapper.Formats()
	case "episodes export":
		return export.Formats()
	}
	return nil
}

// logLevels are the levels --log-level and $LANTERN_LOG take.
func logLevels() []string {
	return []string{"debug", "info", "warn", "error"}
}

// fixedCompletion completes a flag with fixed values ("value\tdescription"),
// no files.
func fixedCompletion(values ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeAgent completes --agent: llm, or script: followed by a file or
// folder (a walkthrough, or a suite's folder of them).
func completeAgent(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	path, ok := strings.CutPrefix(toComplete, "script:")
	if !ok {
		if strings.HasPrefix("script:", toComplete) {
			// script: is followed by a path: no space after it.
			return []cobra.Completion{"llm\tthe configured model", "script:\ta walkthrough file, or a folder of them"},
				cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
		}
		return []cobra.Completion{"llm\tthe configured model"}, cobra.ShellCompDirectiveNoFileComp
	}
	dir, base := filepath.Split(path)
	entries, err := os.ReadDir(cmp.Or(dir, "."))
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	directive := cobra.ShellCompDirectiveNoFileComp
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if e.IsDir() {
			// A folder is completed further: no space after it.
			name += string(filepath.Separator)
			directive |= cobra.ShellCompDirectiveNoSpace
		}
		out = append(out, "script:"+dir+name)
	}
	return out, directive
}

// completionTimeout bounds the wait for the Ollama server while the shell
// completes a model name.
const completionTimeout = 700 * time.Millisecond

// completeModels completes --model with the server's model names.
func completeModels(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	configFile, _ := cmd.Flags().GetString("config")
	cfg, err := config.Load(config.Standard(configFile))
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	client, err := newClient(cfg, nil)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
	defer cancel()
	models, err := client.Models(ctx)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	out := make([]cobra.Completion, 0, len(models))
	for _, m := range models {
		out = append(out, m.Name)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// storyExtensions are the file name endings of Z-machine stories.
func storyExtensions() []string {
	return []string{"z1", "z2", "z3", "z4", "z5", "z6", "z7", "z8", "zblorb", "zlb", "dat"}
}

// completeStories completes --story with story files.
func completeStories(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return storyExtensions(), cobra.ShellCompDirectiveFilterFileExt
}
