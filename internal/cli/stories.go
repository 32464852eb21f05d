package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/game_files/bindings"
	"github.com/lantern-if/lantern/internal/stories"
	"github.com/lantern-if/lantern/zmachine"
)

// storiesProbeTurns is how many turns `lantern stories` plays (waiting) on
// a throwaway copy of an unbound story, so that the generic path can see
// the turn counter move before it reports what it infers.
const storiesProbeTurns = 4

func newStoriesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stories [STORY...]",
		Short: "the stories Lantern can find and the ground truth it has for each",
		Long: `With no story, lists the story files Lantern can find: in the current
directory, the work dir and the work dir's stories/ folder, each with the
name --story takes, its title, release, md5 and the ground truth Lantern
has for it (a binding and where its facts come from, or the generic path).

For each named story (a path, or a name found as --story finds it: zork1,
zork1.z3), tells which ground truth Lantern has: its title, release, serial
and md5, the binding that gives its facts (or none: the generic path), and
for each fact (location, score, moves, player, victory, death) whether it
is bound, inferred or unknown.

--bindings lists the bindings Lantern knows.`,
		Example: `  lantern stories
  lantern stories zork1
  lantern stories games/*.z5`,
	}
	fs := cmd.Flags()
	fs.String("workdir", "", "work dir whose stories (and stories/ folder) are listed (default: the configured one)")
	onlyBindings := fs.Bool("bindings", false, "list the bindings (ground truth) Lantern knows instead")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx, stdout, stderr := cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr()
		bs, err := env.LoadBindings(bindings.FS())
		if err != nil {
			return err
		}
		if *onlyBindings {
			listBindings(bs, stdout)
			return nil
		}
		cfg, err := loadConfig("stories", changed(fs), a.configFile, stderr, "workdir")
		if err != nil {
			return err
		}
		if len(args) == 0 {
			return status(listStories(cfg.WorkDir, bs, stdout, stderr))
		}
		code := exitOK
		for _, name := range args {
			if err := ctx.Err(); err != nil {
				return status(exitError)
			}
			path, err := stories.Resolve(name, cfg.WorkDir)
			if err != nil {
				fmt.Fprintln(stderr, "lantern stories:", err)
				code = exitError
				continue
			}
			story, err := loadStory(path)
			if err != nil {
				fmt.Fprintln(stderr, "lantern stories:", err)
				code = exitError
				continue
			}
			describeStory(path, story, bs, stdout)
		}
		return status(code)
	}
	return cmd
}

// listStories lists the story files the resolver can find, with their
// identity and ground truth.
func listStories(workDir string, bs env.Bindings, stdout, stderr io.Writer) int {
	found, err := stories.List(workDir)
	if err != nil {
		fmt.Fprintln(stderr, "lantern stories:", err)
	}
	if len(found) == 0 {
		fmt.Fprintf(stdout, "No story files in %s.\nPut .z3/.z5/.z8 files in %s to play them by name (lantern play --story NAME).\n",
			strings.Join(stories.Dirs(workDir), ", "), filepath.Join(workDir, "stories"))
	} else {
		noun := "stories"
		if len(found) == 1 {
			noun = "story"
		}
		fmt.Fprintf(stdout, "%d %s (in %s):\n", len(found), noun, strings.Join(stories.Dirs(workDir), ", "))
	}
	code := exitOK
	for _, f := range found {
		story, err := loadStory(f.Path)
		if err != nil {
			fmt.Fprintf(stdout, "  %-14s %s\n    not a story Lantern can play: %v\n", f.Name, f.Path, err)
			code = exitError
			continue
		}
		info := story.Info()
		b := bs.For(info.MD5)
		title, truth := b.Title, "none: the generic path infers location, score and moves"
		if title == "" {
			title = "(unknown title)"
		}
		if !b.IsGeneric() {
			src := b.Source
			if src == "" {
				src = "lantern"
			}
			truth = fmt.Sprintf("binding %s (facts from %s), max score %d", b.Name, src, b.MaxScore)
		}
		fmt.Fprintf(stdout, "  %-14s %s\n    %s, release %d, md5 %s\n    ground truth: %s\n", f.Name, f.Path, title, info.Release, info.MD5, truth)
	}
	fmt.Fprintf(stdout, "%d bound stories known (lantern stories --bindings lists them).\n", len(bs))
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
	game, err := env.NewEnv(story, env.EnvOptions{Seed: 1, Binding: b})
	if err != nil {
		return env.Facts{}, err
	}
	obs, err := game.Start()
	if err != nil {
		return env.Facts{}, err
	}
	for i := 0; b.IsGeneric() && i < storiesProbeTurns && obs.Ended == env.NotEnded; i++ {
		if obs, err = game.Step("wait"); err != nil {
			break
		}
	}
	return obs.Facts, nil
}
