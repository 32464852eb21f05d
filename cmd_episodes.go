package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/lantern-if/lantern/internal/atomicfile"
	"github.com/lantern-if/lantern/internal/export"
	"github.com/lantern-if/lantern/memory"
)

func cmdEpisodes(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	usage := func(w io.Writer) {
		fmt.Fprint(w, `Usage: lantern episodes list
       lantern episodes show [ID]
       lantern episodes export [ID] [--format md|json|html] [-o FILE]
  (each also takes --story F, --workdir D, --config F)

The episodes a story's lantern.db keeps (by default the latest one).
  list    every episode: when it started, how it ended, score, moves, turns
  show    an episode as Markdown: the outcome, the score over the turns, the
          map, then each turn with its reasoning, the critic's verdicts and
          your review decisions
  export  the same as Markdown, JSON, or one self-contained HTML page (the
          score chart and the map as inline SVG); to stdout, or with -o to
          FILE

Examples:
  lantern episodes list --story zork1
  lantern episodes export 3 --format html -o episode3.html
`)
	}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	sub := args[0]
	switch sub {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return exitOK
	case "list", "show", "export":
	default:
		fmt.Fprintf(stderr, "lantern episodes: unknown subcommand %q (want list, show or export)\n\n", sub)
		usage(stderr)
		return exitUsage
	}
	fs := flag.NewFlagSet("episodes "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	configFile := fs.String("config", "", "configuration file read in place of ./lantern.toml")
	fs.String("story", "", "the story whose episodes to use (default: the configured one, else the built-in demo)")
	fs.String("workdir", "", "work dir (default: the configured one)")
	format, out := "md", ""
	if sub == "export" {
		fs.StringVar(&format, "format", "md", "md, json or html")
		fs.StringVar(&out, "o", "", "write to this file (default: stdout)")
	}
	fs.Usage = func() {
		usage(stderr)
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseInterspersed(fs, args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	var id int64
	switch {
	case sub == "list" && fs.NArg() > 0, fs.NArg() > 1:
		fmt.Fprintf(stderr, "lantern episodes %s: unexpected argument %q\n", sub, fs.Arg(fs.NArg()-1))
		return exitUsage
	case fs.NArg() == 1:
		n, err := strconv.ParseInt(fs.Arg(0), 10, 64)
		if err != nil || n <= 0 {
			fmt.Fprintf(stderr, "lantern episodes %s: %q is not an episode ID (lantern episodes list shows them)\n", sub, fs.Arg(0))
			return exitUsage
		}
		id = n
	}
	if !knownFormat(format, export.Formats()) {
		fmt.Fprintf(stderr, "lantern episodes export: unknown format %q (want %s)\n", format, strings.Join(export.Formats(), ", "))
		return exitUsage
	}
	cfg := loadConfig("episodes", fs, *configFile, stderr, "workdir", "story")
	if cfg == nil {
		return exitUsage
	}
	db, title, closeDB, err := openRunDB(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "lantern episodes %s: %v\n", sub, err)
		return exitError
	}
	defer closeDB()
	if sub == "list" {
		return listEpisodes(ctx, db, stdout, stderr)
	}
	if err := writeEpisode(ctx, db, title, id, format, out, stdout); err != nil {
		fmt.Fprintf(stderr, "lantern episodes %s: %v\n", sub, err)
		return exitError
	}
	if out != "" {
		fmt.Fprintf(stderr, "wrote %s\n", out)
	}
	return exitOK
}

func listEpisodes(ctx context.Context, db *memory.RunDB, stdout, stderr io.Writer) int {
	eps, err := db.EpisodeSummaries(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "lantern episodes list:", err)
		return exitError
	}
	if len(eps) == 0 {
		fmt.Fprintln(stdout, "No episodes recorded for this story.")
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tENDING\tSCORE\tMOVES\tTURNS")
	for _, e := range eps {
		ending := e.Reason
		if ending == "" {
			ending = "unfinished"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d\n", e.ID, e.Started.Local().Format("2006-01-02 15:04"), ending, e.Score, e.Moves, e.Turns)
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintln(stderr, "lantern episodes list:", err)
		return exitError
	}
	return exitOK
}

// writeEpisode exports an episode (id 0: the latest) to out, or stdout.
func writeEpisode(ctx context.Context, db *memory.RunDB, story string, id int64, format, out string, stdout io.Writer) error {
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
	if err := atomicfile.Write(out, b.Bytes(), 0o644, false); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}
