package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/config"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/internal/bench"
	"github.com/lantern-if/lantern/memory/rundb"
	"github.com/lantern-if/lantern/sanitize"
)

// `lantern bench --compare A B` sets two runs, or two suites, side by
// side. A and B are each a stored run (its number, last or prev, in the
// configured story's lantern.db), a file --json printed, a bench.json, or
// a work dir holding one. Two runs of one story compare metric by metric
// (the episodes' means, the milestones, the mean score over turns); when
// either is a suite of several games or models, the suites compare game by
// game and overall (see bench.CompareSuites).

// benchRefs resolves --compare's references, opening the configured
// story's lantern.db only when a reference names a stored run.
type benchRefs struct {
	cfg     *config.Config
	db      *rundb.RunDB
	closeDB func()
}

func (b *benchRefs) open() (*rundb.RunDB, error) {
	if b.db == nil {
		db, closeDB, err := openBenchDB(b.cfg)
		if err != nil {
			return nil, err
		}
		b.db, b.closeDB = db, closeDB
	}
	return b.db, nil
}

func (b *benchRefs) close() {
	if b.closeDB != nil {
		b.closeDB()
	}
}

// load reads a reference: a run's report, or a suite (a bench.json of one
// run is that run's report).
func (b *benchRefs) load(ctx context.Context, ref string) (*bench.Report, *bench.Suite, error) {
	if ref == "last" || ref == "prev" {
		db, err := b.open()
		if err != nil {
			return nil, nil, err
		}
		runs, err := db.BenchRuns(ctx)
		if err != nil {
			return nil, nil, err
		}
		i := len(runs) - 1
		if ref == "prev" {
			i--
		}
		if i < 0 {
			return nil, nil, fmt.Errorf("run %q: only %d run(s) stored", ref, len(runs))
		}
		rep, err := storedReport(ctx, db, runs[i].ID)
		return rep, nil, err
	}
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		db, err := b.open()
		if err != nil {
			return nil, nil, err
		}
		rep, err := storedReport(ctx, db, id)
		return rep, nil, err
	}
	path := ref
	if fi, err := os.Stat(ref); err == nil && fi.IsDir() {
		path = filepath.Join(ref, manifestName)
	}
	data, err := atomicfile.ReadRegular(path, maxReportBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("run %q: not a stored run's number, last, prev, a readable report or bench.json, or a work dir holding one (%v)", ref, err)
	}
	rep, suite, err := bench.Read(data)
	if err != nil {
		return nil, nil, fmt.Errorf("run %q: %w", ref, err)
	}
	if suite != nil && len(suite.Runs) == 1 && len(suite.Stories) <= 1 {
		return suite.Runs[0], nil, nil // one story and model: the run itself
	}
	return rep, suite, nil
}

// storedReport reads a run stored in a lantern.db.
func storedReport(ctx context.Context, db *rundb.RunDB, id int64) (*bench.Report, error) {
	b, err := db.BenchRun(ctx, id)
	if err != nil {
		return nil, err
	}
	rep, _, err := bench.Read(b.Report)
	if errors.Is(err, bench.ErrNewerFormat) {
		return nil, fmt.Errorf("run %d: %w", id, err)
	}
	if err != nil || rep == nil {
		return nil, fmt.Errorf("run %d: not a bench report", id)
	}
	rep.ID = id
	return rep, nil
}

// openBenchDB opens the configured story's lantern.db for reading runs.
func openBenchDB(cfg *config.Config) (*rundb.RunDB, func(), error) {
	story, name, err := openStory(cfg.Story, cfg.WorkDir)
	if err != nil {
		return nil, nil, err
	}
	info := story.Info()
	dir := filepath.Join(cfg.WorkDir, session.StoryDir(name, info.Release))
	path := filepath.Join(dir, "lantern.db")
	if _, err := os.Stat(path); err != nil {
		return nil, nil, fmt.Errorf("no runs stored for %s: %s does not exist (run lantern bench first)", filepath.Base(name), path)
	}
	db, err := rundb.OpenRunDB(path, info.MD5)
	if err != nil {
		return nil, nil, err
	}
	return db, func() { db.Close() }, nil
}

// compareBench prints two runs, or two suites, side by side.
func compareBench(ctx context.Context, refs *benchRefs, refA, refB string, asJSON bool, width int, stdout io.Writer) error {
	ra, sa, err := refs.load(ctx, refA)
	if err != nil {
		return err
	}
	rb, sb, err := refs.load(ctx, refB)
	if err != nil {
		return err
	}
	var out any
	if ra != nil && rb != nil {
		out = bench.Comparison{A: ra, B: rb}
	} else {
		if sa == nil {
			sa = singleSuite(ra, ra.Requested)
		}
		if sb == nil {
			sb = singleSuite(rb, rb.Requested)
		}
		out = bench.CompareSuites(sa, sb)
	}
	if asJSON {
		enc := json.NewEncoder(sanitize.NewJSONWriter(stdout))
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return status(exitError)
		}
		return nil
	}
	switch c := out.(type) {
	case bench.Comparison:
		bench.PrintComparison(stdout, c.A, c.B, width)
	case *bench.SuiteComparison:
		bench.PrintSuiteComparison(stdout, c)
	}
	return nil
}
