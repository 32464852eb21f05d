package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/sanitize"
)

// modelLine is one model of `lantern models`.
type modelLine struct {
	llm.ModelSummary
	ContextLength int      `json:"context_length,omitempty"`
	Capabilities  []string `json:"capabilities,omitempty"`
	Roles         []string `json:"roles"`
	// Remote: a cloud model; prompts sent to it leave this machine.
	Remote bool `json:"remote,omitempty"`
}

// modelsReport is `lantern models --json`.
type modelsReport struct {
	API     string              `json:"api"`
	Host    string              `json:"host"`
	Version string              `json:"version"`
	Models  []modelLine         `json:"models"`
	Missing map[string][]string `json:"missing,omitempty"` // model → the roles that want it
}

func newModelsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "models [flags]",
		Args:  noArgs,
		Short: "list the model server's models and which roles use them",
		Long: `Lists the model server's models (size, parameters, quantization, context
length, capabilities) and which of Lantern's roles use each; then the models
the configuration names that the server lacks, with the command that pulls
them. Cloud models (Ollama's *-cloud) are marked remote: prompts sent to them
leave this machine. With --api openai the list is the server's /models.
Exits 1 when the server cannot be reached.`,
		Example: `  lantern models
  OLLAMA_HOST=gpu-box:11434 lantern models --json
  lantern models --api openai --base-url http://127.0.0.1:8080/v1`,
	}
	var o modelsOptions
	fs := cmd.Flags()
	fs.String("host", "", "Ollama host (default: OLLAMA_HOST, else the configured one)")
	serverFlags(fs)
	fs.BoolVar(&o.asJSON, "json", false, "print JSON")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "how long to wait for the server")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if fs.NArg() > 0 {
			return usageErrorf("unexpected %q", fs.Arg(0))
		}
		o.set = changed(fs)
		return runModels(cmd.Context(), a, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
	return cmd
}

// modelsOptions are lantern models' flags.
type modelsOptions struct {
	set     map[string]string // the flags given, by name
	asJSON  bool
	timeout time.Duration // how long to wait for the server
}

// runModels asks the first server that answers for its models and prints
// them with the roles that use them, then the configured models it lacks.
func runModels(ctx context.Context, a *app, o modelsOptions, stdout, stderr io.Writer) error {
	cfg, err := loadConfig("models", o.set, a.configFile, stderr, "host", "api", "base-url")
	if err != nil {
		return err
	}
	live, err := liveHosts(ctx, cfg, "lantern models", stderr)
	if err != nil {
		return err
	}
	if live != nil {
		cfg = pinHost(cfg, live[0]) // the first that answers
	}
	client, err := newClient(cfg, nil)
	if err != nil {
		return err
	}
	tctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	rep, err := serverModels(tctx, cfg, client)
	if err != nil {
		return err
	}
	if o.asJSON {
		enc := json.NewEncoder(sanitize.NewJSONWriter(stdout))
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return status(exitError)
		}
		return nil
	}
	printModels(stdout, rep)
	return nil
}

// serverModels is the report of the server's models, each with the roles
// of cfg that use it, and the models the roles want that it lacks.
func serverModels(ctx context.Context, cfg *config.Config, client *llm.Client) (modelsReport, error) {
	v, err := client.Version(ctx)
	if err != nil {
		return modelsReport{}, err
	}
	list, err := client.Models(ctx)
	if err != nil {
		return modelsReport{}, err
	}
	rep := modelsReport{API: client.API(), Host: client.Host(), Version: v, Models: []modelLine{}}
	used := map[string][]string{} // model (with its tag) → roles
	for _, r := range config.RoleNames() {
		m := withTag(cfg.Model(r))
		used[m] = append(used[m], r)
	}
	for _, m := range list {
		line := modelLine{ModelSummary: m, Roles: used[withTag(m.Name)], Remote: m.Remote()}
		if line.Roles == nil {
			line.Roles = []string{}
		}
		delete(used, withTag(m.Name))
		if info, err := client.Show(ctx, m.Name); err == nil {
			line.ContextLength, line.Capabilities = info.ContextLength, info.Capabilities
			line.Remote = line.Remote || info.RemoteHost != ""
		}
		rep.Models = append(rep.Models, line)
	}
	sort.Slice(rep.Models, func(i, j int) bool { return rep.Models[i].Name < rep.Models[j].Name })
	if len(used) > 0 {
		rep.Missing = used
	}
	return rep, nil
}

// printModels prints the report as a table, then the configured models
// the server lacks with how to get each.
func printModels(stdout io.Writer, rep modelsReport) {
	if rep.API == config.APIOpenAI {
		fmt.Fprintf(stdout, "%s server at %s: %d model(s)\n\n", rep.Version, rep.Host, len(rep.Models))
	} else {
		fmt.Fprintf(stdout, "Ollama %s at %s: %d model(s)\n\n", rep.Version, rep.Host, len(rep.Models))
	}
	if len(rep.Models) > 0 {
		rows := [][]string{{"NAME", "SIZE", "PARAMS", "QUANT", "CONTEXT", "CAPABILITIES", "ROLES"}}
		for _, m := range rep.Models {
			roles := strings.Join(m.Roles, ", ")
			if roles == "" {
				roles = "-"
			}
			size := sizeText(m.Size)
			switch {
			case m.Remote:
				size = "remote"
			case m.Size == 0:
				size = "-"
			}
			rows = append(rows, []string{m.Name, size, dash(m.Parameters), dash(m.Quantization), ctxLen(m.ContextLength),
				dash(strings.Join(m.Capabilities, ",")), roles})
		}
		bench.Table(stdout, rows)
		for _, m := range rep.Models {
			if m.Remote {
				fmt.Fprintf(stdout, "\n%s is a cloud model: it runs %s, not on this machine, and the prompts sent to it (game text, memories) leave it.\n", m.Name, remoteWhere(m.RemoteHost))
			}
		}
	}
	if len(rep.Missing) > 0 {
		var names []string
		for m := range rep.Missing {
			names = append(names, m)
		}
		sort.Strings(names)
		fmt.Fprintln(stdout, "\nConfigured but not on the server:")
		for _, m := range names {
			if rep.API == config.APIOpenAI {
				fmt.Fprintf(stdout, "  %s (%s): load it on the server\n", m, strings.Join(rep.Missing[m], ", "))
				continue
			}
			fmt.Fprintf(stdout, "  %s (%s): ollama pull %s\n", m, strings.Join(rep.Missing[m], ", "), strings.TrimSuffix(m, ":latest"))
		}
	}
}

// remoteWhere names where a cloud model runs.
func remoteWhere(host string) string {
	if host == "" {
		return "on ollama.com"
	}
	return "at " + host
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func sizeText(n int64) string { return llm.HumanSize(n) }
