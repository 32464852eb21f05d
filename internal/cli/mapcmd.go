package cli

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/internal/export"
	"github.com/lantern-if/lantern/managers/mapper"
	"github.com/lantern-if/lantern/memory/rundb"
)

func newMapCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "map [--format mermaid|dot|text]",
		Short: "draw the map of a story's episodes",
		Long: `Draws the map Lantern has made of a story: the rooms and the moves between
them of every episode in the work dir's lantern.db (with --episode, of that
one), and the exits the engine probed in an episode left unfinished.
  text     the rooms on a compass grid, then the exits the grid cannot draw
  mermaid  a Mermaid flowchart (rooms are L{id}, as in Memories.md)
  dot      a Graphviz digraph (dot -Tsvg map.dot > map.svg)`,
		Example: `  lantern map
  lantern map --format dot --story zork1 | dot -Tpng > zork1-map.png`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	storyFlags(fs, "the story whose map to draw (default: the configured one, else the built-in demo)")
	format := fs.String("format", "text", "output format: mermaid, dot or text")
	episode := fs.Int64("episode", 0, "only this episode's moves (its ID, as lantern episodes list shows)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if !slices.Contains(mapper.Formats(), *format) {
			return usageErrorf("unknown format %q (want %s)", *format, strings.Join(mapper.Formats(), ", "))
		}
		db, _, closeDB, err := a.storyRunDB("map", changed(fs), cmd.ErrOrStderr())
		if err != nil {
			return err
		}
		defer closeDB()
		snap, err := storyMap(cmd.Context(), db, *episode)
		if err != nil {
			return err
		}
		return snap.Render(cmd.OutOrStdout(), *format)
	}
	return cmd
}

// storyMap is the map of one episode (id > 0) or of all, with what an
// unfinished episode's checkpoint knows on top.
func storyMap(ctx context.Context, db *rundb.RunDB, id int64) (mapper.Snapshot, error) {
	if id > 0 {
		ep, err := export.Load(ctx, db, id)
		return ep.Map, err
	}
	snap, err := export.StoryMap(ctx, db)
	if err != nil {
		return snap, err
	}
	if cp, ok, err := db.LastCheckpoint(ctx); err == nil && ok {
		if probed, err := engine.CheckpointMap(cp.Engine); err == nil {
			snap = snap.Merge(probed)
		}
	}
	return snap, nil
}

// storyRunDB is what the commands that read a story's lantern.db share:
// the configuration of command cmd, with the flags given (set) --workdir
// and --story on top, and that story's database, as openRunDB opens it.
func (a *app) storyRunDB(cmd string, set map[string]string, stderr io.Writer) (*rundb.RunDB, string, func(), error) {
	cfg, err := loadConfig(cmd, set, a.configFile, stderr, "workdir", "story")
	if err != nil {
		return nil, "", nil, err
	}
	return openRunDB(cfg)
}

// openRunDB opens the configured story's lantern.db, which must exist (a
// command that only reads never creates one).
func openRunDB(cfg *config.Config) (*rundb.RunDB, string, func(), error) {
	story, name, err := openStory(cfg.Story, cfg.WorkDir)
	if err != nil {
		return nil, "", nil, err
	}
	db, err := session.OpenStored(cfg.WorkDir, name, story)
	if err != nil {
		return nil, "", nil, err
	}
	title := filepath.Base(name)
	title = strings.TrimSuffix(title, filepath.Ext(title))
	return db, title, func() { db.Close() }, nil
}
