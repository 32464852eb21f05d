package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/llm"
)

// modelLine is one model of `lantern models`.
type modelLine struct {
	llm.ModelSummary
	ContextLength int      `json:"context_length,omitempty"`
	Capabilities  []string `json:"capabilities,omitempty"`
	Roles         []string `json:"roles"`
}

// modelsReport is `lantern models --json`.
type modelsReport struct {
	Host    string              `json:"host"`
	Version string              `json:"version"`
	Models  []modelLine         `json:"models"`
	Missing map[string][]string `json:"missing,omitempty"` // model → the roles that want it
}

func cmdModels(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configFile := fs.String("config", "", "configuration file read in place of ./lantern.toml")
	fs.String("host", "", "Ollama host (default: OLLAMA_HOST, else the configured one)")
	asJSON := fs.Bool("json", false, "print JSON")
	timeout := fs.Duration("timeout", 10*time.Second, "how long to wait for the server")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: lantern models [--host H] [--config F] [--json]

Lists the Ollama server's models (size, parameters, quantization, context
length, capabilities) and which of Lantern's roles use each; then the models
the configuration names that the server lacks, with the command that pulls
them. Exits 1 when the server cannot be reached.

Examples:
  lantern models
  OLLAMA_HOST=gpu-box:11434 lantern models --json

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lantern models: unexpected %q\n", fs.Arg(0))
		return exitUsage
	}
	cfg := loadConfig("models", fs, *configFile, stderr, "host")
	if cfg == nil {
		return exitUsage
	}
	client, err := newClient(cfg, nil)
	if err != nil {
		fmt.Fprintln(stderr, "lantern models:", err)
		return exitError
	}
	tctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	v, err := client.Version(tctx)
	if err != nil {
		fmt.Fprintln(stderr, "lantern models:", err)
		return exitError
	}
	list, err := client.Models(tctx)
	if err != nil {
		fmt.Fprintln(stderr, "lantern models:", err)
		return exitError
	}
	rep := modelsReport{Host: client.Host(), Version: v, Models: []modelLine{}}
	used := map[string][]string{} // model (with its tag) → roles
	for _, r := range config.RoleNames() {
		m := withTag(cfg.Model(r))
		used[m] = append(used[m], r)
	}
	for _, m := range list {
		line := modelLine{ModelSummary: m, Roles: used[withTag(m.Name)]}
		if line.Roles == nil {
			line.Roles = []string{}
		}
		delete(used, withTag(m.Name))
		if info, err := client.Show(tctx, m.Name); err == nil {
			line.ContextLength, line.Capabilities = info.ContextLength, info.Capabilities
		}
		rep.Models = append(rep.Models, line)
	}
	sort.Slice(rep.Models, func(i, j int) bool { return rep.Models[i].Name < rep.Models[j].Name })
	if len(used) > 0 {
		rep.Missing = used
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return exitError
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "Ollama %s at %s: %d model(s)\n\n", rep.Version, rep.Host, len(rep.Models))
	if len(rep.Models) > 0 {
		rows := [][]string{{"NAME", "SIZE", "PARAMS", "QUANT", "CONTEXT", "CAPABILITIES", "ROLES"}}
		for _, m := range rep.Models {
			roles := strings.Join(m.Roles, ", ")
			if roles == "" {
				roles = "-"
			}
			rows = append(rows, []string{m.Name, sizeText(m.Size), dash(m.Parameters), dash(m.Quantization), ctxLen(m.ContextLength),
				dash(strings.Join(m.Capabilities, ",")), roles})
		}
		table(stdout, rows)
	}
	if len(rep.Missing) > 0 {
		var names []string
		for m := range rep.Missing {
			names = append(names, m)
		}
		sort.Strings(names)
		fmt.Fprintln(stdout, "\nConfigured but not on the server:")
		for _, m := range names {
			fmt.Fprintf(stdout, "  %s (%s): ollama pull %s\n", m, strings.Join(rep.Missing[m], ", "), strings.TrimSuffix(m, ":latest"))
		}
	}
	return exitOK
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func sizeText(n int64) string { return llm.HumanSize(n) }
