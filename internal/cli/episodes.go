package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/domain"
	"github.com/lantern-if/lantern/internal/export"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/sanitize"
)

func newEpisodesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "episodes [list|show|export]",
		Short: "list, show or export the recorded episodes",
		Long: `The episodes a story's lantern.db keeps (by default the latest one).
  list    every episode: when it started, how it ended, score, moves, turns
          (what "lantern episodes" alone shows)
  show    an episode as Markdown: the outcome, the score over the turns, the
          map, then each turn with its reasoning, the critic's verdicts and
          your review decisions
  export  the same as Markdown, JSON, or one self-contained HTML page (the
          score chart and the map as inline SVG); to stdout, or with -o to
          FILE`,
		Example: `  lantern episodes --story zork1
  lantern episodes show 1/side
  lantern episodes export 3 --format html -o episode3.html`,
		Args: noArgs,
	}
	storyFlags := func(c *cobra.Command) {
		c.Flags().String("story", "", "the story whose episodes to use (default: the configured one, else the built-in demo)")
		c.Flags().String("workdir", "", "work dir (default: the configured one)")
	}
	storyFlags(cmd)
	sub := func(use, short string, maxArgs int) *cobra.Command {
		c := &cobra.Command{Use: use, Short: short, Args: cobra.MaximumNArgs(maxArgs)}
		storyFlags(c)
		return c
	}
	// withLine opens the story's lantern.db, finds the optional line (1,
	// 1/NAME or #ID; 0 when none is named) and runs do on them.
	withLine := func(c *cobra.Command, args []string, do func(db *rundb.RunDB, title string, id int64) error) error {
		var ref domain.LineRef
		if len(args) == 1 {
			var err error
			if ref, err = domain.ParseLine(args[0]); err != nil {
				return usageErrorf("%v", err)
			}
		}
		cfg, err := loadConfig("episodes", changed(c.Flags()), a.configFile, c.ErrOrStderr(), "workdir", "story")
		if err != nil {
			return err
		}
		db, title, closeDB, err := openRunDB(cfg)
		if err != nil {
			return err
		}
		defer closeDB()
		var id int64
		if len(args) == 1 {
			b, err := db.ResolveLine(c.Context(), ref)
			if err != nil {
				return err
			}
			id = b.ID
		}
		return do(db, title, id)
	}
	list := sub("list", "every episode: started, ending, score, moves, turns", 0)
	list.RunE = func(c *cobra.Command, args []string) error {
		return withLine(c, args, func(db *rundb.RunDB, _ string, _ int64) error {
			return listEpisodes(c.Context(), db, c.OutOrStdout())
		})
	}
	cmd.RunE = list.RunE // the command alone lists
	show := sub("show [LINE]", "a line of play as Markdown (1, 1/NAME or #ID)", 1)
	show.RunE = func(c *cobra.Command, args []string) error {
		return withLine(c, args, func(db *rundb.RunDB, title string, id int64) error {
			return writeEpisode(c.Context(), db, title, id, "md", "", c.OutOrStdout())
		})
	}
	exp := sub("export [LINE]", "a line of play as Markdown, JSON or one HTML page", 1)
	exp.Example = "  lantern episodes export --format json > latest.json\n  lantern episodes export 3 --format html -o episode3.html"
	format := exp.Flags().String("format", "md", "output format: md, json or html")
	out := exp.Flags().StringP("output", "o", "", "write to this file (default: stdout)")
	exp.RunE = func(c *cobra.Command, args []string) error {
		if !slices.Contains(export.Formats(), *format) {
			return usageErrorf("unknown format %q (want %s)", *format, strings.Join(export.Formats(), ", "))
		}
		return withLine(c, args, func(db *rundb.RunDB, title string, id int64) error {
			if err := writeEpisode(c.Context(), db, title, id, *format, *out, c.OutOrStdout()); err != nil {
				return err
			}
			if *out != "" {
				fmt.Fprintf(c.ErrOrStderr(), "wrote %s\n", *out)
			}
			return nil
		})
	}
	cmd.AddCommand(list, show, exp)
	return cmd
}

func listEpisodes(ctx context.Context, db *rundb.RunDB, stdout io.Writer) error {
	eps, err := db.EpisodeSummaries(ctx)
	if err != nil {
		return err
	}
	if len(eps) == 0 {
		fmt.Fprintln(stdout, "No episodes recorded for this story.")
		return nil
	}
	// A rewind's branches get a column naming where each line forked.
	branched := slices.ContainsFunc(eps, func(e rundb.EpisodeSummary) bool { return e.Parent != 0 })
	lines := make(map[int64]domain.Line, len(eps))
	for _, e := range eps {
		lines[e.ID] = e.Line()
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	head := "LINE\tID\tSTARTED\tENDING\tSCORE\tMOVES\tTURNS"
	if branched {
		head += "\tFORKED FROM"
	}
	fmt.Fprintln(tw, head)
	for _, e := range eps {
		ending := e.Reason
		if ending == "" {
			ending = "unfinished"
		}
		fmt.Fprintf(tw, "%s\t#%d\t%s\t%s\t%d\t%d\t%d", sanitize.Line(e.Line().String()), e.ID, e.Started.Local().Format("2006-01-02 15:04"),
			ending, e.Score, e.Moves, e.Turns)
		if branched {
			from := "-"
			if e.Parent != 0 {
				from = sanitize.Line(lines[e.Parent].At(e.ForkTurn))
			}
			fmt.Fprintf(tw, "\t%s", from)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if branched {
		fmt.Fprintln(stdout, "\nA branch holds its parent's turns up to where it forked. lantern episodes show LINE prints a line's whole play;\nlantern run --from LINE:TURN plays on from one of its turns (a LINE is 1, 1/NAME or #ID).")
	}
	return nil
}

// writeEpisode exports an episode (id 0: the latest) to out, or stdout.
func writeEpisode(ctx context.Context, db *rundb.RunDB, story string, id int64, format, out string, stdout io.Writer) error {
	if id == 0 {
		eps, err := db.EpisodeSummaries(ctx)
		if err != nil {
			return err
		}
		if len(eps) == 0 {
			return errors.New("no episodes recorded for this story")
		}
		id = eps[0].ID // newest first
	}
	ep, err := export.Load(ctx, db, id)
	if err != nil {
		return err
	}
	ep.Story = story
	if out == "" {
		return export.Write(stdout, ep, format)
	}
	var b bytes.Buffer
	if err := export.Write(&b, ep, format); err != nil {
		return err
	}
	// A device or FIFO is written in place, a regular file replaced.
	if err := atomicfile.WriteTarget(ctx, out, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}
