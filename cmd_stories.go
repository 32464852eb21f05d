package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"

	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/game_files/bindings"
	"github.com/lantern-if/lantern/zmachine"
)

// storiesProbeTurns is how many turns `lantern stories` plays (waiting) on
// a throwaway copy of an unbound story, so that the generic path can see
// the turn counter move before it reports what it infers.
const storiesProbeTurns = 4

func cmdStories(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("stories", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: lantern stories [FILE...]

Tells, for each story file, which ground truth Lantern has for it: its
title, release, serial and md5, the binding that gives its facts (or none:
the generic path), and for each fact (location, score, moves, player,
victory, death) whether it is bound, inferred or unknown.
With no file, lists the bindings Lantern knows.

Examples:
  lantern stories zork1.z3
  lantern stories games/*.z5
`)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	bs, err := env.LoadBindings(bindings.FS())
	if err != nil {
		fmt.Fprintln(stderr, "lantern stories:", err)
		return exitError
	}
	if fs.NArg() == 0 {
		listBindings(bs, stdout)
		return exitOK
	}
	code := exitOK
	for _, path := range fs.Args() {
		if err := ctx.Err(); err != nil {
			return exitError
		}
		story, err := loadStory(path)
		if err != nil {
			fmt.Fprintln(stderr, "lantern stories:", err)
			code = exitError
			continue
		}
		describeStory(path, story, bs, stdout)
	}
	return code
}

func listBindings(bs env.Bindings, w io.Writer) {
	md5s := make([]string, 0, len(bs))
	for md5 := range bs {
		md5s = append(md5s, md5)
	}
	sort.Slice(md5s, func(i, j int) bool {
		return bs[md5s[i]].Name < bs[md5s[j]].Name || bs[md5s[i]].Name == bs[md5s[j]].Name && md5s[i] < md5s[j]
	})
	fmt.Fprintf(w, "%d bound stories:\n", len(md5s))
	for _, md5 := range md5s {
		b := bs[md5]
		rel := "-"
		if b.Release != 0 {
			rel = fmt.Sprint(b.Release)
		}
		fmt.Fprintf(w, "  %-14s r%-4s %s  %s\n", b.Name, rel, md5, b.Title)
	}
}

// describeStory prints the story's identity and the provenance of each
// fact, as observed on a throwaway environment.
func describeStory(path string, story *zmachine.Story, bs env.Bindings, w io.Writer) {
	info := story.Info()
	b := bs.For(info.MD5)
	fmt.Fprintf(w, "%s\n", path)
	title := b.Title
	if title == "" {
		title = "(unknown)"
	}
	fmt.Fprintf(w, "  title    %s\n  version  %d  release %d  serial %s\n  md5      %s\n", title, info.Version, info.Release, info.Serial, info.MD5)
	if b.IsGeneric() {
		fmt.Fprintf(w, "  binding  none: the generic path infers what it can\n")
	} else {
		src := b.Source
		if src == "" {
			src = "lantern"
		}
		fmt.Fprintf(w, "  binding  %s (facts from %s), max score %d\n", b.Name, src, b.MaxScore)
	}
	facts, err := observeFacts(story, b)
	if err != nil {
		fmt.Fprintf(w, "  facts    could not run the story: %v\n", err)
		return
	}
	fmt.Fprintf(w, "  facts    location %s, score %s, moves %s, player %s, victory %s, death %s\n",
		facts.Location, facts.Score, facts.Moves, facts.Player, facts.Victory, facts.Death)
	if b.Notes != "" {
		fmt.Fprintf(w, "  notes    %s\n", b.Notes)
	}
}

// observeFacts starts the story on a throwaway environment and, on the
// generic path, waits a few turns for the inference to settle.
func observeFacts(story *zmachine.Story, b *env.Binding) (env.Facts, error) {
	en, err := env.NewEnv(story, env.EnvOptions{Seed: 1, Binding: b})
	if err != nil {
		return env.Facts{}, err
	}
	obs, err := en.Start()
	if err != nil {
		return env.Facts{}, err
	}
	for i := 0; b.IsGeneric() && i < storiesProbeTurns && obs.Ended == env.NotEnded; i++ {
		if obs, err = en.Step("wait"); err != nil {
			break
		}
	}
	return obs.Facts, nil
}
