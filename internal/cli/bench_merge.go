package cli

import (
	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/internal/bench/play"
)

// `lantern bench merge` joins the shards of one benchmark into one report
// (play.Merge).

func newBenchMergeCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "merge SHARD...",
		Short: "join the shards of one benchmark into one report",
		Long: `Joins the shards of one benchmark (lantern bench --shard i/n, or --shard auto
under a batch scheduler) into one report. Each SHARD is a shard's work dir
(--workdir: its bench.json names the stories, models and settings), a
bench.json, or a lantern.db (its last stored run). The shards must come from
the same stories, models, agent, seed, turn limit and episode count, each
shard once, each complete; otherwise merge names the culprit and exits 1.

--store adds the merged run of each story to the configured work dir's
lantern.db, where lantern bench --list and --compare find it.`,
		Example: `  lantern bench --shard 1/2 --episodes 10 --workdir A    # on one machine
  lantern bench --shard 2/2 --episodes 10 --workdir B    # on another
  lantern bench merge A B
  lantern bench merge --store --export results/ shards/*`,
	}
	fs := cmd.Flags()
	fs.String("workdir", "", "work dir that --store adds the merged runs to (default: work_dir, else $XDG_DATA_HOME/lantern)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	width := fs.Int("width", 60, "width of the charts")
	store := fs.Bool("store", false, "store the merged run in the configured work dir's lantern.db")
	export := fs.String("export", "", "write the episodes and turns as CSV and JSON Lines into this folder")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o := play.MergeOptions{Shards: args, Export: *export, JSON: *asJSON, Width: *width, Version: version(),
			Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()}
		if *store {
			o.Store = func() (*config.Config, error) {
				return loadConfig("bench", changed(fs), a.configFile, cmd.ErrOrStderr(), "workdir")
			}
		}
		return benchStatus(play.Merge(cmd.Context(), o))
	}
	return cmd
}
