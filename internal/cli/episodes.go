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
	storyFlags(cmd.Flags(), episodesStoryUsage)
	list := episodesSub(a, "list", "every episode: started, ending, score, moves, turns", 0, &episodesOptions{list: true})
	cmd.RunE = list.RunE // the command alone lists
	show := episodesSub(a, "show [LINE]", "a line of play as Markdown (1, 1/NAME or #ID)", 1, &episodesOptions{format: "md"})
	o := &episodesOptions{}
	exp := episodesSub(a, "export [LINE]", "a line of play as Markdown, JSON or one HTML page", 1, o)
	exp.Example = "  lantern episodes export --format json > latest.json\n  lantern episodes export 3 --format html -o episode3.html"
	exp.Flags().StringVar(&o.format, "format", "md", "output format: md, json or html")
	exp.Flags().StringVarP(&o.output, "output", "o", "", "write to this file (default: stdout)")
	cmd.AddCommand(list, show, exp)
	return cmd
}

const episodesStoryUsage = "the story whose episodes to use (default: the configured one, else the built-in demo)"

// episodesOptions are what an episodes command was asked.
type episodesOptions struct {
	set    map[string]string // the flags given, by name
	list   bool              // list the episodes, else write one
	line   *domain.LineRef   // the line to write; nil: the latest
	format string            // what to write it as
	output string            // the file written; "": stdout
}

// episodesSub is an episodes subcommand taking up to maxArgs LINE
// arguments, which runs runEpisodes with o.
func episodesSub(a *app, use, short string, maxArgs int, o *episodesOptions) *cobra.Command {
	c := &cobra.Command{Use: use, Short: short, Args: cobra.MaximumNArgs(maxArgs)}
	storyFlags(c.Flags(), episodesStoryUsage)
	c.RunE = func(c *cobra.Command, args []string) error {
		if !o.list && !slices.Contains(export.Formats(), o.format) {
			return usageErrorf("unknown format %q (want %s)", o.format, strings.Join(export.Formats(), ", "))
		}
		if len(args) == 1 {
			ref, err := domain.ParseLine(args[0])
			if err != nil {
				return usageErrorf("%v", err)
			}
			o.line = &ref
		}
		o.set = changed(c.Flags())
		return runEpisodes(c.Context(), a, *o, c.OutOrStdout(), c.ErrOrStderr())
	}
	return c
}

// runEpisodes opens the story's lantern.db and lists its episodes, or
// writes one line of play (named by o.line, else the latest).
func runEpisodes(ctx context.Context, a *app, o episodesOptions, stdout, stderr io.Writer) error {
	db, title, closeDB, err := a.storyRunDB("episodes", o.set, stderr)
	if err != nil {
		return err
	}
	defer closeDB()
	if o.list {
		return listEpisodes(ctx, db, stdout)
	}
	var id int64
	if o.line != nil {
		b, err := db.ResolveLine(ctx, *o.line)
		if err != nil {
			return err
		}
		id = b.ID
	}
	if err := writeEpisode(ctx, db, title, id, o.format, o.output, stdout); err != nil {
		return err
	}
	if o.output != "" {
		fmt.Fprintf(stderr, "wrote %s\n", o.output)
	}
	return nil
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
