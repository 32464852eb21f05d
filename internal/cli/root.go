// Package cli is Lantern's command line: one command per file, the
// wiring from configuration to sessions, and the mapping of errors to
// exit codes.
package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/engine/env"
	"github.com/lantern-if/lantern/game_files/bindings"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/internal/stories"
	"github.com/lantern-if/lantern/oracle"
	"github.com/lantern-if/lantern/sanitize"
	"github.com/lantern-if/lantern/zmachine"
	"github.com/lantern-if/lantern/zmachine/lineplay"
)

func newPlayCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "play [flags]",
		Args:  noArgs,
		Short: "play a story in line mode, no model",
		Long: `Plays a story without any model: commands come from standard input (or
--script), the story's text goes to standard output exactly as the story prints
it (no echo of input, no status line). Ends at end of input or when the story
quits.`,
		Example: `  lantern play --plain --story zork1.z3
  lantern play --plain --seed 12 --story zork1.z3 < walkthrough.txt`,
		Annotations: map[string]string{keepSignals: "play ends at once on a signal, as dfrotz does"},
	}
	fs := cmd.Flags()
	fs.Bool("plain", true, "line mode, the only mode: commands from stdin or --script, story text to stdout")
	storyPath := fs.String("story", "", "story file or name, found in ./, the work dir and its stories/ (default: the built-in demo)")
	fs.String("workdir", "", "work dir, where story names are looked for too (default: work_dir in the configuration)")
	seed := fs.Int("seed", -1, "random seed with frotz -s semantics (negative: from the clock)")
	script := fs.String("script", "", "read commands from this file instead of stdin")
	asJSON := fs.Bool("json", false, "print one JSON object per turn instead of the story text")
	saveDir := fs.String("savedir", ".", "directory for the story's SAVE files")
	exits := fs.Bool("exits", false, "with --json: probe and include the valid exits of every turn")
	raw := fs.Bool("raw", false, "print the story's text exactly as printed, unwrapped (default: as dfrotz shows it)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx, stdin, stdout, stderr := cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
		workDir := ""
		if fi, err := os.Stat(*storyPath); *storyPath == "" || err != nil || !fi.Mode().IsRegular() {
			// Not a file as given: the configuration names the story or
			// the work dir where a name is looked for. (A file path needs
			// no configuration, which keeps play's start-up short.)
			cfg, err := loadConfig("play", changed(fs), a.configFile, stderr, "workdir", "story")
			if err != nil {
				return err
			}
			*storyPath, workDir = cfg.Story, cfg.WorkDir
		}
		story, path, err := openStory(*storyPath, workDir)
		if err != nil {
			return err
		}
		in := stdin
		if *script != "" {
			// The script is a regular file of modest size: /dev/zero or
			// a FIFO is refused before a byte is read.
			data, err := atomicfile.ReadRegular(*script, oracle.MaxScriptBytes)
			if err != nil {
				return fmt.Errorf("open script: %v", err)
			}
			in = bytes.NewReader(data)
		}
		if *asJSON {
			if err := playJSON(ctx, story, *seed, *saveDir, *exits, in, stdout); err != nil {
				return err
			}
			return nil
		}
		opts := lineplay.Options{Seed: *seed, SaveDir: *saveDir, DefaultSave: saveName(path), Raw: *raw}
		if err := lineplay.Run(ctx, story, opts, in, stdout); err != nil {
			return err
		}
		return nil
	}
	return cmd
}

// playJSON plays through the engine's environment and prints one
// Observation per turn as JSON, the opening first (with an empty command).
func playJSON(ctx context.Context, story *zmachine.Story, seed int, saveDir string, exits bool, in io.Reader, out io.Writer) error {
	bs, err := env.LoadBindings(bindings.FS())
	if err != nil {
		return err
	}
	game, err := env.NewEnv(story, env.EnvOptions{Seed: seed, Binding: bs.For(story.Info().MD5), SaveDir: saveDir})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(sanitize.NewJSONWriter(out))
	emit := func(obs env.Observation) error {
		if exits && obs.Ended == env.NotEnded {
			obs.ValidExits = game.ValidExits()
		}
		return enc.Encode(obs)
	}
	obs, err := game.Start()
	if err != nil {
		return err
	}
	if err := emit(obs); err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() && obs.Ended == env.NotEnded {
		if err := ctx.Err(); err != nil {
			return err
		}
		obs, err = game.Step(sc.Text())
		if errors.Is(err, env.ErrEnded) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := emit(obs); err != nil {
			return err
		}
	}
	return sc.Err()
}

// openStoryAndBinding opens a story (see openStory) with its binding, nil
// when the story has none.
func openStoryAndBinding(path, workDir string) (*zmachine.Story, string, *env.Binding, error) {
	story, name, err := openStory(path, workDir)
	if err != nil {
		return nil, "", nil, err
	}
	bs, err := env.LoadBindings(bindings.FS())
	if err != nil {
		return nil, "", nil, err
	}
	return story, name, bs.For(story.Info().MD5), nil
}

// openStory loads the named story, or the built-in demo when none is named.
// A name is found by the story resolver (as given, then in ./, the work dir
// and its stories/ folder). It returns the file the story was read from
// (its name for saves and the work dir).
func openStory(path, workDir string) (*zmachine.Story, string, error) {
	if path == "" {
		s, err := zmachine.LoadStory(demo.Story())
		if err != nil {
			return nil, "", fmt.Errorf("load the built-in demo: %w", err)
		}
		return s, demo.FileName, nil
	}
	found, err := stories.Resolve(path, workDir)
	if err != nil {
		return nil, "", fmt.Errorf("load story: %w", err)
	}
	s, err := loadStory(found)
	return s, found, err
}

func loadStory(path string) (*zmachine.Story, error) {
	data, err := readStoryFile(path)
	if err != nil {
		return nil, fmt.Errorf("load story %q: %w", path, err)
	}
	s, err := zmachine.LoadStoryOwned(data) // the buffer is ours alone
	if err != nil {
		return nil, fmt.Errorf("load story %q: %w", path, err)
	}
	return s, nil
}

func saveName(story string) string {
	base := filepath.Base(story)
	return base[:len(base)-len(filepath.Ext(base))] + ".qzl"
}

// Story files are bounded: a story is a regular file (a FIFO or a device
// would hang the read), read no further than the length its header gives
// plus a margin, and never past the largest Z-machine story.
const (
	maxStoryBytes = 512 << 10 // the largest story any version allows
	storyMargin   = 64 << 10  // past the header's length: padding, Blorb-less trailers
)

// readStoryFile reads a story file (atomicfile.ErrNotRegular for a FIFO,
// a device or a directory).
func readStoryFile(path string) ([]byte, error) {
	f, fi, err := atomicfile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	limit := int64(maxStoryBytes)
	head := make([]byte, 64)
	if n, _ := io.ReadFull(f, head); n == len(head) {
		scale := int64(2)
		switch v := head[0]; {
		case v >= 6:
			scale = 8
		case v >= 4:
			scale = 4
		}
		if declared := int64(binary.BigEndian.Uint16(head[0x1A:])) * scale; declared > 0 {
			limit = min(limit, declared+storyMargin)
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	// What lies past the limit is not part of the story. The buffer is
	// sized from the file, so the story is read in one go.
	buf := bytes.NewBuffer(make([]byte, 0, min(fi.Size(), limit)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
